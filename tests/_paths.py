"""Where the tests find ground truth: the project's own published counts (tests/fixtures/
published.toml, always there) and, when the folder exists beside the clone, the shared
conformance suite, read in place and never copied."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CONFORMANCE = ROOT.parent / "shared" / "conformance"
HAVE_CONFORMANCE = (CONFORMANCE / "expected.toml").exists()

#: For tests that only make sense on the shared files (BurrTools examples, yass's figures).
needs_conformance = pytest.mark.skipif(
    not HAVE_CONFORMANCE, reason="../shared/conformance is not beside this clone"
)


@cache
def _own() -> dict[str, dict]:
    return tomllib.loads((FIXTURES / "published.toml").read_text(encoding="utf-8"))


@cache
def _shared() -> dict[str, dict]:
    if not HAVE_CONFORMANCE:
        return {}
    return tomllib.loads((CONFORMANCE / "expected.toml").read_text(encoding="utf-8"))


def ground_truth(prefix: str = "") -> list[tuple[str, Path, dict]]:
    """Every case as (test id, file, expected counts): the project's own, then the shared
    conformance cases when that folder exists. `prefix` filters by key (e.g. "dice/")."""
    cases = [
        (f"own:{key}", ROOT / truth["file"], truth)
        for key, truth in _own().items()
        if key.startswith(prefix)
    ]
    cases += [
        (f"shared:{key}", CONFORMANCE / key, truth)
        for key, truth in _shared().items()
        if key.startswith(prefix)
    ]
    return cases


def case(key: str) -> tuple[Path, dict]:
    """One case by key: the shared file when the conformance folder is there, else the
    project's own file for the same published puzzle."""
    if key in _shared():
        return CONFORMANCE / key, _shared()[key]
    if key in _own():
        return ROOT / _own()[key]["file"], _own()[key]
    if HAVE_CONFORMANCE and (CONFORMANCE / key).exists():
        return CONFORMANCE / key, {}  # a shared file with no counts in expected.toml
    pytest.skip(f"{key} is only in ../shared/conformance, which is not beside this clone")


def case_file(key: str) -> Path:
    return case(key)[0]


def expected() -> dict[str, dict]:
    """The counts by key (shared where present, else the project's own)."""
    return _own() | _shared()


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """`tessera ARGV` in this process: exit code, stdout, stderr."""
    from tessera.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
