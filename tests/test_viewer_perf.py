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


def test_the_window_draws_still_pieces_merged_and_a_step_rebuilds_little(qtbot, window):
    """Issue 25: at each render the pieces standing still are drawn merged without the faces
    they hide (viewer/render.py StaticMerge); a step builds only the batches it changed."""
    open_soma(qtbot, window)
    renderer, plotter = window.renderer, window.plotter
    window.actions["last"].trigger()
    with qtbot.waitSignal(plotter.frameSwapped, timeout=5000):
        window.render_now()
    pieces = [k for k, s in renderer.specs.items() if s.role == "piece"]
    assert renderer.merge.merged == len(pieces) == 7  # every piece, in merged stand-ins
    assert all(renderer.actors[k].GetVisibility() for k in pieces)  # as the renderer left them
    for _ in range(2):  # (the last step undims every piece: all change)
        with qtbot.waitSignals([window.step_shown, plotter.frameSwapped], timeout=2000):
            window.actions["back"].trigger()
    builds = renderer.merge.builds
    with qtbot.waitSignals([window.step_shown, plotter.frameSwapped], timeout=2000):
        window.actions["forward"].trigger()
    # one piece arrives (the active one), the one before it is dimmed: a batch each, the
    # other four pieces' batches kept (a piece leaving rebuilds its neighbours, whose faces
    # it hid: those changed too)
    assert renderer.merge.builds - builds <= 2
    assert renderer.merge.merged == 6
