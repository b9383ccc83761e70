"""Tessera installs as one package: the wheel holds `tessera.*` with its built-in puzzles and
icon, and nothing at the top level but `tessera`; installed that way (not editable), the
command works from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tessera.models.assets import builtin_puzzles
from tests._paths import ROOT

GENERIC = {"models", "solvers", "viewer", "cli", "assets", "tests", "benchmarks"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
         "-w", str(out), str(ROOT)],
        check=True, capture_output=True, cwd=out,
    )  # fmt: skip
    (path,) = out.glob("tessera-*.whl")
    return path


def test_the_wheel_holds_one_namespace_with_its_assets(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"tessera"}
    assert not tops & GENERIC
    # every package of the source tree ships (pyproject lists them one by one)
    packages = [
        init.parent.relative_to(ROOT).as_posix()
        for top in ("models", "solvers", "viewer", "cli")
        for init in (ROOT / top).rglob("__init__.py")
    ]
    assert {"solvers/polycube", "viewer/_qt", "viewer/_qt/design"} <= set(packages)
    for sub in packages:
        assert f"tessera/{sub}/__init__.py" in names
    assert "tessera/__main__.py" in names
    puzzles = {Path(n).stem for n in names if n.startswith("tessera/assets/puzzles/")}
    assert puzzles == set(builtin_puzzles()) and "soma" in puzzles
    assert "tessera/assets/icons/tessera.svg" in names
    assert not any(n.startswith("tessera/tests/") or "/screenshots/" in n for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "tessera = tessera.__main__:run" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_installed_wheel_works_from_another_folder(wheel, tmp_path):
    """Unpacked as pip installs it (no editable link back to the clone), run from elsewhere."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = os.environ | {"PYTHONPATH": str(site)}

    def tessera(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tessera", *argv],
            cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    where = subprocess.run(
        [sys.executable, "-c", "import tessera; print(tessera.__file__)"],
        cwd=elsewhere, env=env, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(site)), where
    listing = tessera("list")
    assert listing.returncode == 0, listing.stderr
    assert "soma" in listing.stdout and "kenken-9x9" in listing.stdout
    count = tessera("solve", "soma", "--count", "--json")
    assert count.returncode == 0, count.stderr
    assert '"fixed": 11520' in count.stdout
    assert count.stderr == ""
