"""Errors that tell the user what to do: one line, exit 2, never a traceback or a Qt abort.

No display for a window, a missing optional extra (Dask for `--workers`, ffmpeg for MP4), an
output whose folder does not exist (one rule for every export: refused, never created); and
two smaller promises: `--trace` never changes which solution is numbered k, and a long
animation gets fewer frames per step by default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tessera.cli import viewer as cli_viewer
from tessera.cli.main import main
from tessera.viewer import export
from tests._paths import ROOT

pytestmark = pytest.mark.timeout(120)

NO_DISPLAY = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")

#: `tessera ARGS` with some modules made unimportable first (`sys.modules[name] = None`, what
#: Python does for a package that is not installed).
_WITHOUT = """
import sys
missing, sys.argv = sys.argv[1].split(","), ["tessera", *sys.argv[2:]]
for name in missing:
    sys.modules[name] = None
from tessera.__main__ import run
sys.exit(run())
"""


def _tessera(*args: str, without: tuple[str, ...] = (), drop: tuple[str, ...] = ()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if without:
        command = [sys.executable, "-c", _WITHOUT, ",".join(without), *args]
    else:
        command = [sys.executable, "-m", "tessera", *args]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=100, check=False
    )


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tessera: error: ")
    return lines[0]


# -- no display -------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="a display server is Linux's")
@pytest.mark.parametrize("args", [["view", "soma"], ["design"], []], ids=["view", "design", "app"])
def test_a_window_without_a_display_is_one_line_not_a_qt_abort(args):
    line = _one_line_error(_tessera(*args, drop=NO_DISPLAY))
    assert "no display to open a window on (DISPLAY is not set)" in line
    assert "'tessera render' / 'tessera animate'" in line
    command = args[0] if args else "view"
    assert f"xvfb-run tessera {command}" in line


@pytest.mark.parametrize(
    "env, reason",
    [
        ({}, "DISPLAY is not set"),
        ({"QT_QPA_PLATFORM": "offscreen"}, None),
        ({"QT_QPA_PLATFORM": "xcb"}, "DISPLAY is not set"),
        ({"QT_QPA_PLATFORM": "wayland"}, "WAYLAND_DISPLAY is not set"),
        ({"QT_QPA_PLATFORM": "wayland;offscreen"}, None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, None),
        ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}, "DISPLAY is not set"),
    ],
)
def test_which_platforms_need_a_display(monkeypatch, env, reason):
    monkeypatch.setattr(sys, "platform", "linux")
    for name in NO_DISPLAY:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli_viewer.no_display_reason() == reason


# -- missing extras ---------------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["distributed", "dask"])
def test_counting_on_a_cluster_without_dask_names_the_install_command(missing):
    result = _tessera("solve", "soma", "--count", "--workers", "2", without=(missing,))
    line = _one_line_error(result)
    assert line.endswith("pip install 'tessera[cluster]'")
    assert result.stdout == ""


def test_an_mp4_without_ffmpeg_names_the_install_command(tmp_path):
    out = tmp_path / "soma.mp4"
    result = _tessera("animate", "soma", "--out", str(out), without=("imageio_ffmpeg",))
    line = _one_line_error(result)
    assert line == f"tessera: error: {out}: writing .mp4 needs ffmpeg: pip install imageio-ffmpeg"
    assert not list(tmp_path.iterdir())


# -- one rule for missing folders -------------------------------------------------------------

EXPORTS = {
    "render": ["render", "soma", "--out", "{out}.png"],
    "animate": ["animate", "soma", "--out", "{out}.gif"],
    "convert": ["convert", "soma", "{out}.toml"],
    "stl": ["stl", "soma", "--out", "{out}"],
    "dice generate": ["dice", "generate", "--dice", "3", "--seed", "1", "--out", "{out}.txt"],
    "kenken generate": ["kenken", "generate", "--size", "3", "--seed", "1", "--out", "{out}"],
    "domino generate": ["domino", "generate", "--size", "4x3", "--seed", "1", "--out", "{out}"],
    "domino --html": ["domino", "generate", "--size", "4x3", "--seed", "1", "--html", "{out}"],
    "view --screenshot": ["view", "soma", "--screenshot", "{out}.png"],
    "design --screenshot": ["design", "--screenshot", "{out}.png"],
    "solve --checkpoint": ["solve", "soma", "--count", "--workers", "1", "--checkpoint", "{out}"],
}


@pytest.mark.parametrize("name", EXPORTS)
def test_every_export_refuses_a_missing_folder_and_names_it(tmp_path, capsys, name):
    missing = tmp_path / "a" / "b"
    args = [arg.replace("{out}", str(missing / "out")) for arg in EXPORTS[name]]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err == f"tessera: error: {missing}: no such folder (create it first)\n"
    assert captured.out == ""
    assert not (tmp_path / "a").exists()  # nothing created on the way


def test_a_file_where_the_folder_should_be_is_named(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["stl", "soma", "--out", str(tmp_path / "file" / "pieces")]) == 2
    assert capsys.readouterr().err == f"tessera: error: {tmp_path / 'file'}: is not a folder\n"


# -- --trace and the numbering ----------------------------------------------------------------


@pytest.mark.parametrize("distinct", ["symmetry", "rotation", "fixed"])
def test_trace_does_not_change_which_solution_is_numbered_k(capsys, distinct):
    base = ["solve", "soma", "--limit", "4", "--distinct", distinct]
    assert main([*base, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*base, "--json", "--trace"]) == 0
    traced = json.loads(capsys.readouterr().out)
    assert traced["solutions"] == plain["solutions"]
    assert traced["trace"] and traced["trace"][-1]["event"] == "solution"

    assert main(base) == 0
    text = [line for line in capsys.readouterr().out.splitlines() if line.startswith("solution")]
    assert main([*base, "--trace"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("solution")] == text
    assert any(line.startswith("trace:") and "place" in line for line in out)


# -- animation defaults -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "n_steps, frames",
    [(1, 9), (7, 57), (45, 361), (100, 301), (108, 325), (400, 401), (1000, 1001)],
)
def test_default_frames_per_step_keeps_long_animations_short(n_steps, frames):
    scene = SimpleNamespace(n_steps=n_steps)
    steps = export.animation_steps(scene, "solution")
    assert len(steps) == frames
    assert steps[0] == 0.0 and steps[-1] == float(n_steps)
    # an explicit --frames-per-step is honoured whatever the length
    assert len(export.animation_steps(scene, "solution", 8)) == 8 * n_steps + 1


def test_animate_uses_the_default_rule_and_writes_every_frame(tmp_path, capsys):
    out = tmp_path / "soma.gif"
    assert main(["animate", "soma", "--size", "64x48", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: 57 frames, 64x48")  # 7 steps, 8 each
    from PIL import Image

    with Image.open(out) as gif:
        assert gif.n_frames == 57
