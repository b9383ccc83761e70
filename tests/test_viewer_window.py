"""The real window under Xvfb, driven through its QActions and real Qt signals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from tessera.solvers.trace import EventKind, stack_at
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def open_and_wait(qtbot, window, name: str, solutions: int = 1) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file(name)))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= solutions, timeout=20_000)


def visible_pieces(window) -> list[str]:
    return [
        key
        for key, actor in window.renderer.actors.items()
        if window.renderer.specs[key].role == "piece" and actor.visibility
    ]


def test_soma_steps_through_actions(qtbot, window):
    open_and_wait(qtbot, window, "soma", solutions=2)
    a = window.actions
    state = window.state
    assert state.step == state.n_steps == 7  # a new solution opens assembled
    assert len(visible_pieces(window)) == 7
    a["first"].trigger()
    assert state.step == 0 and visible_pieces(window) == []
    for expected in (1, 2, 3):
        with qtbot.waitSignal(window.step_shown, timeout=2000) as blocker:
            a["forward"].trigger()
        assert blocker.args == [float(expected)]
        assert len(visible_pieces(window)) == expected
    assert window.status_step.text() == "step 3 of 7"
    assert window.step_bar.slider.value() == 3
    # the piece that moved in this step is highlighted, the others dimmed
    poses = state.scene.pose(3)
    emphasis = sorted(p.emphasis for p in poses.values() if p.visible)
    assert emphasis == ["active", "dim", "dim"]
    a["back"].trigger()
    assert state.step == 2 and len(visible_pieces(window)) == 2
    a["last"].trigger()
    assert state.step == 7
    a["next_solution"].trigger()
    assert state.solution_index == 1
    assert window.status_solution.text().startswith("solution 2 of ")
    assert window.solution_panel.list.currentRow() == 1
    a["previous_solution"].trigger()
    assert state.solution_index == 0
    # the slider is a step control too
    window.step_bar.slider.setValue(4)
    assert state.step == 4


def test_pieces_move_by_user_matrix_not_new_meshes(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    meshes = {key: id(actor.mapper.dataset) for key, actor in window.renderer.actors.items()}
    window.actions["first"].trigger()
    window.state.set_step(0.5)  # the first piece half-way along its path
    key = visible_pieces(window)[0]
    halfway = window.renderer.actors[key].user_matrix.copy()
    window.actions["forward"].trigger()
    landed = window.renderer.actors[key].user_matrix
    assert not np.allclose(halfway, landed)
    assert np.allclose(halfway[:3, :3], landed[:3, :3])  # only a translation along its path
    assert meshes == {
        key: id(actor.mapper.dataset) for key, actor in window.renderer.actors.items()
    }


def test_play_glides_to_the_end(qtbot, window):
    open_and_wait(qtbot, window, "six-piece-cube")
    seen: list[float] = []
    window.step_shown.connect(seen.append)
    window.step_bar.speed.setValue(40.0)
    window.actions["play"].trigger()  # at the end: play starts over from step 0
    assert window.playing
    qtbot.waitUntil(lambda: not window.playing, timeout=10_000)
    assert window.state.step == window.state.n_steps
    assert not window.actions["play"].isChecked()
    assert any(s % 1 for s in seen), "no in-between frames: pieces jumped instead of gliding"
    assert seen == sorted(seen)


def test_search_mode_replays_the_trace_with_backtracks(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    window.actions["mode_search"].trigger()
    state = window.state
    assert state.mode == "search"
    events = state.trace.events
    assert state.n_steps == len(events) and state.step == 0
    first_remove = next(i for i, e in enumerate(events) if e.kind is EventKind.REMOVE)
    state.set_step(first_remove)  # just before the first backtrack
    before = len(visible_pieces(window))
    with qtbot.waitSignal(window.step_shown, timeout=5000):  # the removed piece fades out
        window.actions["forward"].trigger()
    after = len(visible_pieces(window))
    assert after == len(stack_at(events, first_remove + 1)) < before
    assert window.step_bar.depth_label.text() == f" depth {after}"
    assert "backtrack" in window.statusBar().currentMessage()
    window.actions["mode_solution"].trigger()
    assert state.mode == "solution" and state.n_steps == 7


def test_cancel_a_long_solve_without_freezing(qtbot, window):
    ticks = []
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: ticks.append(len(ticks)))
    timer.start()
    try:
        with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
            window.open_puzzle(str(puzzle_file("pentominoes-6x10")))
        qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=20_000)
        # listing all 2339 takes well over a second: the GUI's timer keeps ticking meanwhile
        # (measured from the first solution on: before it, loading the compiled kernels in a
        # fresh process may hold the interpreter for a moment, which is not the solve)
        start = len(ticks)
        first = max(start - 1, 0)
        qtbot.waitUntil(lambda: len(ticks) > start + 10, timeout=5000)
        assert window.solving
        window.actions["forward"].trigger()  # the GUI answers while the solver runs
        with qtbot.waitSignal(window.solving_finished, timeout=5000) as blocker:
            window.actions["cancel"].trigger()
    finally:
        timer.stop()
    cancelled, count = blocker.args
    assert cancelled and 0 < count < 2339
    assert window.solution_panel.count_label.text().startswith("cancelled")
    # the GUI ticked ten times while the solver ran (the longest stall is a benchmark:
    # benchmarks/bench_viewer.py)
    assert len(ticks) > first + 10


def test_bad_file_is_a_dialog_and_a_status_line(qtbot, window, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "polycube"\n[pieces.A]\ncells = [[0, 0]]\n')
    assert not window.open_puzzle(str(bad))
    assert window.last_error.startswith("could not open bad.toml: ")
    box = window.error_dialog
    qtbot.waitUntil(box.isVisible)
    assert "bad.toml" in box.text()
    box.close()


def test_export_from_the_window(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, "soma")
    image = window.exporter.export_image(
        tmp_path / "x.png", (160, 120), transparent=True, supersample=1
    )
    assert image.shape == (120, 160, 4)
    assert image[0, 0, 3] == 0 and (image[..., 3] == 255).sum() > 1000
    import imageio.v3 as iio

    frames = window.exporter.export_animation(tmp_path / "x.gif", size=(96, 64), frames_per_step=2)
    assert frames == 7 * 2 + 1
    assert iio.imread(tmp_path / "x.gif", index=None).shape == (15, 64, 96, 3)


def test_view_screenshot_grabs_the_whole_window(tmp_path):
    out = tmp_path / "window.png"
    tessera = Path(sys.executable).with_name("tessera")
    done = subprocess.run(
        [str(tessera), "view", "soma", "--step", "2", "--screenshot", str(out)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import imageio.v3 as iio

    image = iio.imread(out)
    assert image.shape[0] > 400 and image.shape[1] > 600  # the window, not just the 3D view
    # the 3D view is drawn (a grab of an OpenGL widget can come out black)
    middle = image[
        image.shape[0] // 3 : 2 * image.shape[0] // 3,
        image.shape[1] // 3 : -image.shape[1] // 3,
        :3,
    ]
    assert middle.std() > 10 and middle.mean() > 60
