"""Exports refuse what cannot be made in seconds and a gigabyte, in one line (exit 2), before
drawing anything; a terminated export leaves no temporary file; a read-only HOME leaves stderr
empty. Each refusal is checked to come before any rendering: nothing is written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests._paths import run_cli

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["render", "soma", "--size", "8192x8192"], "size must look like 800x600 (16..4096)"),
        (["render", "soma", "--supersample", "20"], "--supersample: must be at most 8"),
        (["render", "soma", "--size", "3000x3000", "--supersample", "1"], "the limit is 8,500,000"),
        (["animate", "soma", "--frames-per-step", "1000000"], "must be at most 240"),
        (["animate", "soma", "--size", "4000x4000"], "an animation's limit is 2,073,600"),
        (["animate", "soma", "--frames-per-step", "200"], "too big for a GIF"),
    ],
    ids=["size", "supersample", "pixels", "frames-per-step", "frame-size", "gif-bytes"],
)
def test_export_bounds_are_one_line_and_exit_2(tmp_path, argv, message):
    suffix = ".png" if argv[0] == "render" else ".gif"
    out = tmp_path / f"out{suffix}"
    done = subprocess.run(
        [sys.executable, "-m", "tessera", *argv, "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "cell, message",
    [("1e308", "at most 1000"), ("inf", "at most 1000"), ("nan", "must be positive")],
)
def test_stl_cell_size_is_bounded(tmp_path, capsys, cell, message):
    code, out, err = run_cli(
        ["stl", "soma", "--out", str(tmp_path / "s"), "--cell-mm", cell], capsys
    )
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()


def test_stl_file_count_is_bounded(tmp_path, capsys):
    many = tmp_path / "many.toml"
    many.write_text(
        'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0]]\ncopies = 1001\n'
        '[target]\nlayers = [["' + "#" * 1001 + '"]]\n'
    )
    code, out, err = run_cli(["stl", str(many), "--out", str(tmp_path / "s")], capsys)
    assert code == 2 and "would write 1,001 STL files" in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()


def _read_only_home(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    # no DISPLAY either: an export needs none (EGL), and the run's shared Xvfb, late in a busy
    # run, has refused the connection VTK opens after our probe (a warning on stderr)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "MESA_", "MPL")) and k != "DISPLAY"
    }
    return env | {"HOME": str(home), "TMPDIR": str(tmp_path)}


def test_a_read_only_home_leaves_stderr_empty(tmp_path):
    from tests.test_viewer_export import _unprivileged  # root: without the override caps

    out = tmp_path / "soma.png"
    done = subprocess.run(
        [*_unprivileged(), sys.executable, "-m", "tessera", "render", "soma", "--out", str(out)],
        capture_output=True,
        text=True,
        env=_read_only_home(tmp_path),
    )
    assert done.returncode == 0 and done.stderr == "" and out.exists()


def test_render_caches_go_where_they_can_be_written(tmp_path):
    """As root a read-only HOME cannot be made, so the choice itself is checked: a HOME that
    cannot be written sends Mesa's and Matplotlib's caches to a private temporary folder."""
    from tessera._numba_cache import quiet_render_caches

    (tmp_path / "file").write_text("")
    env = {"HOME": str(tmp_path / "file" / "home")}  # under a file: nothing can be made there
    quiet_render_caches(env)
    assert "MESA_SHADER_CACHE_DIR" in env or env.get("MESA_SHADER_CACHE_DISABLE") == "true"
    assert "MPLCONFIGDIR" in env
    assert not env["MPLCONFIGDIR"].startswith(env["HOME"])
    kept = {"HOME": env["HOME"], "MESA_SHADER_CACHE_DIR": "/mine", "MPLCONFIGDIR": "/mpl"}
    quiet_render_caches(kept)
    assert kept["MESA_SHADER_CACHE_DIR"] == "/mine" and kept["MPLCONFIGDIR"] == "/mpl"


def test_sigterm_during_an_animation_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "soma.gif"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tessera", "animate", "soma", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # wait until the export has opened its temporary file (it sits beside the output)
    while proc.poll() is None and not [p for p in tmp_path.iterdir() if p.name != out.name]:
        pass
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
