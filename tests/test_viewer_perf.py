"""What keeps the window fast on software OpenGL (viewer/_qt/perf.py), pinned by behaviour so a
pyvistaqt upgrade that breaks it fails here rather than silently in `make bench`."""

from __future__ import annotations

import pytest

from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def open_soma(qtbot, window) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=20_000)


def still_on_screen(qtbot, plotter):
    """A wait for the anti-aliased still frame to be on screen: no still frame pending, and a
    frame swapped onto the screen since the last still render (`frameSwapped`, Qt's own
    signal), so no repaint from before is left to count against the next step."""
    swapped: list[int] = []  # plotter.still_frames when each frame reached the screen
    plotter.frameSwapped.connect(lambda: swapped.append(plotter.still_frames))

    def wait() -> None:
        qtbot.waitUntil(
            lambda: plotter.settled and bool(swapped) and swapped[-1] == plotter.still_frames,
            timeout=5_000,
        )

    return wait


def test_a_step_renders_once_then_one_still_frame_follows(qtbot, window):
    open_soma(qtbot, window)
    plotter = window.plotter
    settle = still_on_screen(qtbot, plotter)
    window.actions["first"].trigger()
    settle()
    frames, stills = plotter.frames, plotter.still_frames
    with qtbot.waitSignals([window.step_shown, plotter.frameSwapped], timeout=2000):
        window.actions["forward"].trigger()
    # the step rendered once, and the repaint that put it on screen only blitted it
    assert plotter.frames - frames == 1
    assert plotter.still_frames == stills  # the motion frame skips anti-aliasing
    settle()
    assert plotter.still_frames - stills == 1  # ...and the anti-aliased frame follows once
