"""`models/atomic.py` on real files: the final path holds the old file or the complete new one,
never a mix, and nothing is left behind after a failure."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tessera.models import atomic
from tessera.models.atomic import atomic_dir, atomic_path, atomic_write, sweep_leftovers


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


def test_file_appears_only_when_complete(tmp_path):
    final = tmp_path / "movie.mp4"
    with atomic_path(final) as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".mp4"  # encoders pick by extension
        assert tmp.name.startswith(".movie.tmp-")
        tmp.write_bytes(b"new")
        assert not final.exists()
    assert final.read_bytes() == b"new"
    assert leftovers(tmp_path) == []


def test_failure_keeps_the_previous_file(tmp_path):
    final = tmp_path / "page.html"
    final.write_text("old")
    os.chmod(final, 0o640)
    with pytest.raises(KeyboardInterrupt), atomic_write(final) as fh:
        fh.write("half")
        raise KeyboardInterrupt
    assert final.read_text() == "old"
    assert leftovers(tmp_path) == []
    with atomic_write(final) as fh:
        fh.write("new")
    assert final.read_text() == "new"
    assert oct(final.stat().st_mode & 0o777) == oct(0o640)  # a replaced file keeps its mode


def test_a_symlink_keeps_pointing_at_the_new_file(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with atomic_write(link) as fh:
        fh.write("new")
    assert link.is_symlink() and real.read_text() == "new"


@pytest.mark.parametrize("blocker", ["folder", "missing", "file"])
def test_an_impossible_path_fails_before_any_work(tmp_path, blocker):
    if blocker == "folder":
        final = tmp_path / "x.png"
        final.mkdir()
    elif blocker == "missing":
        final = tmp_path / "no" / "x.png"
    else:
        (tmp_path / "f").write_text("")
        final = tmp_path / "f" / "x.png"
    with pytest.raises(OSError), atomic_path(final):
        pytest.fail("the block must not run")


def _dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_leftovers_of_a_killed_writer_are_cleared(tmp_path):
    final = tmp_path / "soma.gif"
    final.write_bytes(b"good")
    dead = _dead_pid()
    stale = tmp_path / f".soma.tmp-{dead}-0123abcd.gif"
    stale.write_bytes(b"half")
    alive = tmp_path / f".soma.tmp-{os.getppid()}-0123abcd.gif"  # a live writer: left alone
    alive.write_bytes(b"busy")
    other = tmp_path / f".other.tmp-{dead}-0123abcd.gif"
    other.write_bytes(b"not ours")
    sweep_leftovers(final)
    assert not stale.exists() and alive.exists() and other.exists()
    assert final.read_bytes() == b"good"


@pytest.mark.parametrize("swap", ["exchange", "two renames"])
def test_folder_is_replaced_whole(tmp_path, monkeypatch, swap):
    if swap == "two renames":  # systems without renameat2(RENAME_EXCHANGE)
        monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    final = tmp_path / "stl"
    final.mkdir()
    (final / "old.stl").write_text("old")
    with pytest.raises(RuntimeError), atomic_dir(final) as tmp:
        (tmp / "A.stl").write_text("half")
        raise RuntimeError("disk full")
    assert sorted(p.name for p in final.iterdir()) == ["old.stl"]
    with atomic_dir(final) as tmp:
        (tmp / "A.stl").write_text("a")
        (tmp / "B.stl").write_text("b")
        assert sorted(p.name for p in final.iterdir()) == ["old.stl"]
    assert sorted(p.name for p in final.iterdir()) == ["A.stl", "B.stl"]
    assert leftovers(tmp_path) == []


def test_a_folder_moved_aside_by_a_killed_writer_comes_back(tmp_path):
    final = tmp_path / "stl"
    aside = tmp_path / f".stl.old-{_dead_pid()}-0123abcd"
    aside.mkdir()
    (aside / "A.stl").write_text("good")
    sweep_leftovers(final)
    assert (final / "A.stl").read_text() == "good"
    assert leftovers(tmp_path) == []
