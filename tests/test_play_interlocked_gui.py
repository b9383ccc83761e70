"""Play mode on an interlocking puzzle, with real mouse events on the render widget under Xvfb:
the peg of tests/fixtures/peg-in-box.toml pushed against the box's side wall stops there (never
lifted over, never dropped through), while along the free way (out in front, into the channel
from the open side) it goes in and snaps; a wheel turn inside the box is refused with a reason
in the status bar.

The box's two halves are put in place through the model (that is not what is tested here);
every drag and turn is presses, moves, releases and wheel events on the widget, as in
tests/test_play_drag.py, whose helpers this file reuses."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtTest import QTest

from tessera.models.play import Pose
from tests._paths import FIXTURES
from tests.test_play_drag import (
    LEFT,
    MODIFIER,
    NONE,
    empty_pixel,
    grab_point,
    settle,
    to_widget,
    wheel,
    widget_of,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PEG_IN_BOX = FIXTURES / "peg-in-box.toml"
INSIDE = Pose(0, (1, 1, 1))  # the channel: x = 1, y = 1..2, z = 1, open towards +y


def enter_play(qtbot, window):
    """The fixture in Play mode, the box closed in the target, the peg beside it at the
    channel's height (one key move up, through the model)."""
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(PEG_IN_BOX))
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=20_000)
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_play"].trigger()
    model = window.handson.model
    assert model.interlocked
    window.handson.view.duration_ms = 0
    model.place(model.find("box"), Pose(0, (0, 0, 0)))
    model.place(model.find("lid"), Pose(0, (0, 0, 2)))
    peg = model.find("peg")
    model.place(peg, Pose(0, (4, 4, 1)))
    settle(qtbot, window)
    return model, peg


def hand_path(qtbot, window, peg: int, waypoints, watch) -> None:
    """One drag of the peg: press where it is seen, move the mouse through the points where the
    grabbed point would be after each shift in `waypoints` (cells, x and y), a few moves per
    leg, calling `watch(held pose)` after every move; release at the last."""
    mouse = window.handson.mouse
    widget = widget_of(window)
    point, pixel = grab_point(window, peg)
    start = window.handson.model.pose(peg).offset
    QTest.mousePress(widget, LEFT, NONE, pixel)
    here = pixel
    for shift in waypoints:
        there = to_widget(window, point + np.array([shift[0] - start[0], shift[1] - start[1], 0]))
        for i in range(1, 7):
            t = i / 6
            QTest.mouseMove(
                widget,
                QPoint(
                    round(here.x() + (there.x() - here.x()) * t),
                    round(here.y() + (there.y() - here.y()) * t),
                ),
            )
            if mouse.drag is not None:
                watch(mouse.drag.held)
        here = there
    with qtbot.waitSignal(mouse.dragged, timeout=5000):
        QTest.mouseRelease(widget, LEFT, NONE, here)
    settle(qtbot, window)


def test_the_peg_stops_at_the_wall_and_goes_in_only_from_the_open_side(qtbot, window):
    model, peg = enter_play(qtbot, window)
    seen = []

    def watch(held: Pose) -> None:
        cells = {tuple(c) for c in model.cells_at(peg, held).tolist()}
        assert not cells & model.occupied(exclude=peg)  # never inside the box
        assert held.offset[2] == 1  # never lifted over it
        seen.append(held)

    # beside the right wall, then straight at the channel through the wall
    hand_path(qtbot, window, peg, [(4, 1), (1, 1)], watch)
    assert seen and seen[-1] == Pose(0, (3, 1, 1))  # the hand went on, the peg stopped
    assert model.pose(peg) == Pose(0, (3, 1, 1))  # let go: it did not snap in through the wall
    assert not model.fit().in_target[peg] and not model.solved
    assert model.fits(peg, INSIDE)  # although its place is free and two cells away
    # the free way: out in front of the box, across, and into the channel from the open side,
    # let go a cell short: it slides in and snaps
    seen.clear()
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000):
        hand_path(qtbot, window, peg, [(3, 4), (1, 4), (1, 2)], watch)
    assert Pose(0, (1, 4, 1)) in seen and seen[-1] == Pose(0, (1, 2, 1))
    assert model.pose(peg) == INSIDE and model.solved
    assert model.undo_label == "drag peg"
    # inside the box a turn is refused, and the status bar says why (about x or z: a turn
    # about its own length, y, leaves its cells where they are and is allowed)
    assert model.selected == peg
    axes = window.handson.mouse.view_axes()
    modifier = next(
        MODIFIER[name]
        for name, (axis, _) in zip(("view", "horizontal", "vertical"), axes, strict=True)
        if axis != 1
    )
    with qtbot.waitSignal(window.handson.mouse.turned, timeout=2000):
        wheel(window, empty_pixel(window), modifier)
    assert model.pose(peg) == INSIDE and model.undo_label == "drag peg"
    assert "peg cannot turn" in window.statusBar().currentMessage()
