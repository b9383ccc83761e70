"""What keeps the window fast on software OpenGL (viewer/perf.py), pinned by behaviour so a
pyvistaqt upgrade that breaks it fails here rather than silently in `make bench`."""

from __future__ import annotations

import pytest

from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def open_soma(qtbot, window) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=20_000)


def settle(qtbot, plotter) -> None:
    qtbot.waitUntil(lambda: plotter.settled, timeout=5_000)
    qtbot.wait(50)


def test_a_step_renders_once_then_one_still_frame_follows(qtbot, window):
    open_soma(qtbot, window)
    plotter = window.plotter
    window.actions["first"].trigger()
    settle(qtbot, plotter)
    frames, stills = plotter.frames, plotter.still_frames
    with qtbot.waitSignal(window.step_shown, timeout=2000):
        window.actions["forward"].trigger()
    qtbot.wait(30)  # the repaint the step schedules must blit, not render again
    assert plotter.frames - frames == 1
    assert plotter.still_frames == stills  # the motion frame skips anti-aliasing
    settle(qtbot, plotter)
    assert plotter.still_frames - stills == 1  # ...and the anti-aliased frame follows once
