"""A read-only install run by a user without a writable home still works (issue #11 item 12).

The package is copied to a folder made read-only, named `tessera` and put first on PYTHONPATH;
`tessera` then runs with HOME=/nonexistent. As root (where permissions do not bind) the run drops
to uid nobody, keeping only the right to read and search folders, so the copy, the venv and
/nonexistent really are unwritable for it. Without `_numba_cache` every command failed at import
with "cannot cache function 'build': no locator available".
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tessera import _numba_cache
from tests._paths import ROOT

PACKAGE_PARTS = (
    "__init__.py", "__main__.py", "_numba_cache.py", "models", "solvers", "viewer", "cli",
)  # fmt: skip
NOBODY = 65534
AS_ROOT = os.geteuid() == 0
DROP_TO_NOBODY = [
    "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
    "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
]  # fmt: skip

pytestmark = pytest.mark.skipif(
    AS_ROOT and shutil.which("setpriv") is None, reason="as root this needs setpriv"
)


def _make_read_only(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode):
            path.chmod(stat.S_IMODE(mode) & ~0o222)


@pytest.fixture(scope="module")
def read_only_install(tmp_path_factory):
    """A copy of the package in <tmp>/site/tessera, without caches, and nobody may write it."""
    site = tmp_path_factory.mktemp("site")
    package = site / "tessera"
    package.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PACKAGE_PARTS:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, package / name, ignore=ignore)
        else:
            shutil.copy2(source, package / name)
    (package / "assets").symlink_to(ROOT / "assets")  # read only, never written
    _make_read_only(site)
    yield site
    for path in [site, *site.rglob("*")]:  # let pytest clean up
        if not path.is_symlink():
            path.chmod(stat.S_IMODE(path.lstat().st_mode) | 0o200)


@pytest.fixture
def shared_tmp(tmp_path):
    """A sticky, world-writable temporary folder like /tmp, private to this test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    folder.chmod(0o1777)
    return folder


def run(site: Path, tmpdir: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", _numba_cache._NO_CACHE_FLAG)
    }
    env.update(HOME="/nonexistent", PYTHONPATH=str(site), TMPDIR=str(tmpdir))
    prefix = DROP_TO_NOBODY if AS_ROOT else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "tessera", *argv],
        cwd=tmpdir, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def user_id() -> int:
    return NOBODY if AS_ROOT else os.getuid()


def test_the_copy_is_really_read_only(read_only_install, shared_tmp):
    probe = run(read_only_install, shared_tmp, "--help")  # imports the package from the copy
    assert probe.returncode == 0, probe.stderr
    assert not (read_only_install / "tessera" / "solvers" / "__pycache__").exists()
    assert not Path("/nonexistent").exists()


def test_read_only_install_caches_in_a_private_temporary_folder(read_only_install, shared_tmp):
    listed = run(read_only_install, shared_tmp, "list")
    assert listed.returncode == 0, listed.stderr
    assert "soma" in listed.stdout
    cache = shared_tmp / f"tessera-numba-{user_id()}"
    assert listed.stderr == (
        "tessera: note: the install folder and ~/.cache are read-only; numba caches compiled "
        f"code in {cache} (set NUMBA_CACHE_DIR to choose)\n"
    )
    counted = run(read_only_install, shared_tmp, "solve", "soma", "--count")
    assert counted.returncode == 0, counted.stderr
    assert "fixed: 11520" in counted.stdout
    assert counted.stderr.count("tessera: note:") == 1
    assert any(cache.rglob("*.nbi")), "the kernel was not cached"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


def test_with_no_writable_folder_numba_compiles_without_a_cache(read_only_install, shared_tmp):
    planted = shared_tmp / f"tessera-numba-{user_id()}"  # someone else's trap: never used
    planted.mkdir()
    planted.chmod(0o777)
    counted = run(read_only_install, shared_tmp, "solve", "soma", "--count")
    assert counted.returncode == 0, counted.stderr
    assert "fixed: 11520" in counted.stdout
    assert counted.stderr == (
        "tessera: note: no writable folder for numba's cache; compiling without one "
        "(every run compiles again; set NUMBA_CACHE_DIR to a writable folder)\n"
    )
    assert not any(planted.iterdir())


def test_the_choice(tmp_path):
    """Which folder `choose` takes, without running anything: in-tree when writable, the
    user's cache next, never overriding NUMBA_CACHE_DIR."""
    writable = tmp_path / "pkg"
    (writable / "solvers").mkdir(parents=True)
    assert _numba_cache.choose({}, writable) == (None, "numba")
    assert _numba_cache.choose({"NUMBA_CACHE_DIR": "/x"}, writable) == ("/x", "numba")
    blocked = tmp_path / "file"
    blocked.write_text("")  # a package under a file: its __pycache__ can never be made
    home = tmp_path / "home"
    assert _numba_cache.choose({"HOME": str(home)}, blocked) == (
        str(home / ".cache" / "tessera" / "numba"),
        "user",
    )
    xdg = tmp_path / "xdg"
    assert _numba_cache.choose({"HOME": str(home), "XDG_CACHE_HOME": str(xdg)}, blocked) == (
        str(xdg / "tessera" / "numba"),
        "user",
    )
