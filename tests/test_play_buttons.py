"""The Play toolbar's move and turn buttons speak the view's language: "→" moves the selected
piece right on screen and "↺" turns it anticlockwise as seen, whatever world axis that is
after the camera has been orbited. Real mouse events throughout under Xvfb: a click selects the
piece, a drag on empty space orbits, clicks press the toolbar buttons."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from tessera.viewer._qt.handson import MOVE_KEYS, TURN_KEYS, VIEW_LABELS
from tests.test_play_drag import enter_play as enter_soma_play
from tests.test_play_drag import settle, widget_of
from tests.test_play_drag import to_widget as pixel

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

LEFT = Qt.MouseButton.LeftButton


def enter_play(qtbot, window):
    window.resize(1400, 800)  # the whole toolbar in view: no button in its overflow menu
    return enter_soma_play(qtbot, window)


def screen_shift(window, start, end) -> np.ndarray:
    """How far (right, up) in pixels the drawing of a point moves from `start` to `end`."""
    (r0, c0), (r1, c1) = window.renderer.project(np.array([start, end], float))
    return np.array([c1 - c0, r0 - r1])


def click_piece(qtbot, window, piece: int) -> None:
    """A real click on a point of the piece that the picker finds on it."""
    model = window.handson.model
    for cell in model.cells(piece)[np.argsort(-model.cells(piece)[:, 2])]:
        at = pixel(window, cell + np.array([0.0, 0.0, 0.5]))
        if window.handson.mouse.pick(QPointF(at))[0] == f"play-{piece}":
            with qtbot.waitSignal(window.handson.mouse.clicked, timeout=2000):
                qtbot.mouseClick(widget_of(window), LEFT, pos=at)
            assert model.selected == piece
            return
    raise AssertionError("the piece is nowhere in view")


def empty_spot(window) -> QPoint:
    """A widget position with no piece under it (where a drag orbits the camera)."""
    widget = widget_of(window)
    for fx, fy in ((0.08, 0.12), (0.92, 0.12), (0.5, 0.08), (0.08, 0.5)):
        at = QPoint(round(widget.width() * fx), round(widget.height() * fy))
        if window.handson.mouse.pick(QPointF(at))[0] is None:
            return at
    raise AssertionError("no empty space to orbit from")


def orbit(qtbot, window, dx: int) -> None:
    """A real left drag on empty space, `dx` pixels across: VTK orbits the camera."""
    widget = widget_of(window)
    start = empty_spot(window)
    QTest.mousePress(widget, LEFT, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, 11):
        QTest.mouseMove(widget, start + QPoint(round(dx * i / 10), 0))
    QTest.mouseRelease(widget, LEFT, Qt.KeyboardModifier.NoModifier, start + QPoint(dx, 0))
    settle(qtbot, window)


def press_button(qtbot, window, name: str) -> None:
    """A real click on the toolbar button of an action."""
    button = window.handson_bar.widgetForAction(window.actions[name])
    assert button is not None and button.isVisible() and button.isEnabled(), name
    qtbot.mouseClick(button, LEFT)


def rightward_axis(window, point) -> tuple[int, int]:
    """The world axis (and sign) whose drawing points most nearly right on screen, measured
    in pixels from the picture, independently of the camera's vectors."""
    best = None
    for axis in range(3):
        step = np.zeros(3)
        step[axis] = 1.0
        right, _ = screen_shift(window, point, point + step)
        if best is None or abs(right) > best[0]:
            best = (abs(right), axis, 1 if right > 0 else -1)
    return best[1], best[2]


def test_buttons_follow_an_orbit_and_move_the_piece_right_on_screen(qtbot, window):
    model = enter_play(qtbot, window)
    a = window.actions
    for name in (*MOVE_KEYS, *TURN_KEYS):  # the buttons read in the view's terms
        assert a[name].iconText() == VIEW_LABELS[name][0]
        assert window.handson_bar.widgetForAction(a[name]).text() == VIEW_LABELS[name][0]
    assert a["move_x_pos"].iconText() == "→" and a["turn_z_pos"].iconText() == "↺"
    k = model.find("T")
    click_piece(qtbot, window, k)

    # Play's camera looks down from the tray's side: right on screen is a world axis
    centre = model.cells(k).mean(axis=0)
    axis0, sign0 = rightward_axis(window, centre)
    assert window.handson.action_meanings()["move_x_pos"] == ("move", axis0, sign0)
    tip0 = a["move_x_pos"].toolTip()
    assert f"{'+' if sign0 > 0 else '−'}{'xyz'[axis0]} now" in tip0 and "Ctrl+Right" in tip0

    # a real drag on empty space orbits a quarter turn or so: right is another axis now
    changed: list[int] = []
    window.handson.view_terms_changed.connect(lambda: changed.append(1))
    width = widget_of(window).width()
    orbit(qtbot, window, -round(width * 0.45))
    assert changed, "the orbit did not reach the buttons"
    axis, sign = rightward_axis(window, centre)
    assert axis != axis0
    assert window.handson.action_meanings()["move_x_pos"] == ("move", axis, sign)
    tip = a["move_x_pos"].toolTip()
    assert f"{'+' if sign > 0 else '−'}{'xyz'[axis]} now" in tip and tip != tip0
    assert a["move_x_pos"].iconText() == "→"  # still "right", now meaning the new axis

    # the "→" button moves the piece one cell along that axis: right on screen
    before = model.pose(k)
    drawn = model.cells(k).mean(axis=0)
    press_button(qtbot, window, "move_x_pos")
    qtbot.waitUntil(lambda: model.pose(k) != before, timeout=2000)
    moved = np.subtract(model.pose(k).offset, before.offset)
    expected = np.zeros(3, int)
    expected[axis] = sign
    assert moved.tolist() == expected.tolist()
    settle(qtbot, window)
    right, up = screen_shift(window, drawn, model.cells(k).mean(axis=0))
    assert right > 10 and abs(up) < right, (right, up)  # seen moving right

    # "←" brings it back; "↺" turns it anticlockwise as seen: about the axis at the viewer
    press_button(qtbot, window, "move_x_neg")
    qtbot.waitUntil(lambda: model.pose(k) == before, timeout=2000)
    camera = window.plotter.camera
    back = np.subtract(camera.position, camera.focal_point)
    view = int(np.argmax(np.abs(back)))
    towards = 1 if back[view] > 0 else -1
    press_button(qtbot, window, "turn_z_pos")
    qtbot.waitUntil(lambda: model.pose(k).rotation != before.rotation, timeout=2000)
    assert model.pose(k).rotation == model.turned(k, view, towards, before).rotation
    assert model.undo_label == f"turn T about {'xyz'[view]}"
