"""MkDocs hooks (registered in mkdocs.yml): the screenshots in assets/screenshots/ are served
from the repository's own folder (no copies under docs/), and the generated part of
benchmarks.md is rendered from benchmarks/results.json at build time."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCREENSHOTS = ROOT / "assets" / "screenshots"


def _gen_benchmarks():
    spec = importlib.util.spec_from_file_location("gen_benchmarks", HERE / "gen_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    for picture in sorted(SCREENSHOTS.iterdir()):
        if picture.suffix in {".png", ".gif"}:
            uri = f"assets/screenshots/{picture.name}"
            files.append(File.generated(config, uri, abs_src_path=str(picture)))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "benchmarks.md":
        return markdown
    gen = _gen_benchmarks()
    return gen.replace_generated(markdown, ROOT / "benchmarks" / "results.json")
