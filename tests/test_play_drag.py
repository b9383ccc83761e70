"""Play mode by mouse, with real mouse events on the window's render widget under Xvfb:
clicks pick on release, drags carry pieces over the table without passing through others,
drops snap into the target, Ctrl/Shift/Alt+wheel turn, the axis gizmo, the overlap outline,
the solved banner, and the goal of issue 12: the Soma cube from Play's start in at most 14
mouse actions.

Presses, moves and releases go through `QTest` at the pixel where the piece is drawn (found by
projecting a point of it with the renderer); wheel turns are `QWheelEvent`s sent to the same
widget (QTest has no wheel). Nothing here triggers a QAction."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tessera.models import geometry
from tessera.models.play import PlayModel
from tessera.solvers.polycube_identify import SolutionIndex
from tessera.viewer import drag
from tessera.viewer.play_view import flag_color, key_of
from tessera.viewer.scenes.base import hex_rgb
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

LEFT = Qt.MouseButton.LeftButton
NONE = Qt.KeyboardModifier.NoModifier
MODIFIER = {
    "view": Qt.KeyboardModifier.ControlModifier,
    "horizontal": Qt.KeyboardModifier.ShiftModifier,
    "vertical": Qt.KeyboardModifier.AltModifier,
}
GOAL_SOLUTION = 59  # a distinct Soma solution whose pieces need few turns from the tray


# -- driving the window ------------------------------------------------------------------------
def enter_play(qtbot, window):
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=20_000)
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_play"].trigger()
    settle(qtbot, window)
    return window.handson.model


def settle(qtbot, window) -> None:
    view = window.handson.view
    if view is not None:
        qtbot.waitUntil(lambda: not view.animating, timeout=5000)
    qtbot.waitUntil(lambda: not window.render_pending, timeout=5000)
    window.render_now()


def widget_of(window):
    return window.plotter.interactor


def to_widget(window, point) -> QPoint:
    """The widget pixel where a world point is drawn (the renderer's own projection)."""
    row, col = window.renderer.project(np.asarray(point, float))[0]
    ratio = widget_of(window).devicePixelRatioF()
    return QPoint(round(col / ratio), round(row / ratio))


FACES = [np.array(v) for v in ((0, 0, 1), (0, 1, 0), (1, 0, 0), (-1, 0, 0), (0, -1, 0))]


def grab_point(window, piece: int) -> tuple[np.ndarray, QPoint]:
    """A point on the piece's surface that is in view (top faces first) and its pixel."""
    model = window.handson.model
    cells = model.cells(piece)
    occupied = {tuple(c) for c in cells.tolist()}
    order = np.argsort(-(cells[:, 2] * 100 + cells[:, 1] * 10 + cells[:, 0]))
    for normal in FACES:
        for c in cells[order]:
            if tuple(c + normal) in occupied:
                continue
            point = c + 0.5 * normal
            pixel = to_widget(window, point)
            key, _ = window.handson.mouse.pick(QPointF(pixel))
            if key == key_of(piece):
                return point, pixel
    raise AssertionError(f"piece {model.pieces[piece].name} is nowhere in view")


def mouse_drag(window, start: QPoint, end: QPoint, modifier=NONE, steps: int = 8) -> None:
    """One drag: press, a few moves along the way, release (one mouse action)."""
    widget = widget_of(window)
    QTest.mousePress(widget, LEFT, modifier, start)
    for i in range(1, steps + 1):
        t = i / steps
        QTest.mouseMove(
            widget, QPoint(round(start.x() + (end.x() - start.x()) * t),
                           round(start.y() + (end.y() - start.y()) * t))
        )  # fmt: skip
    QTest.mouseRelease(widget, LEFT, modifier, end)


def wheel(window, pos: QPoint, modifier, clicks: int = 1) -> None:
    """A wheel notch (120 eighths of a degree) with a modifier, at a widget position."""
    widget = widget_of(window)
    event = QWheelEvent(
        QPointF(pos), QPointF(widget.mapToGlobal(pos)), QPoint(0, 0), QPoint(0, 120 * clicks),
        Qt.MouseButton.NoButton, modifier, Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def drag_piece(qtbot, window, piece: int, shift) -> None:
    """Drag a piece by whole cells `shift` (x, y) over the table: grab it where it is seen,
    let go where that point would be after the shift."""
    point, pixel = grab_point(window, piece)
    end = to_widget(window, point + np.array([shift[0], shift[1], 0.0]))
    with qtbot.waitSignal(window.handson.mouse.dragged, timeout=5000):
        mouse_drag(window, pixel, end)
    settle(qtbot, window)


def turn_piece(qtbot, window, piece: int, axis: int, turns: int) -> None:
    """One wheel notch over the piece, with the modifier that turns about `axis`."""
    point, pixel = grab_point(window, piece)
    axes = window.handson.mouse.view_axes()
    for name, (a, sign) in zip(("view", "horizontal", "vertical"), axes, strict=True):
        if a == axis:
            with qtbot.waitSignal(window.handson.mouse.turned, timeout=5000):
                wheel(window, pixel, MODIFIER[name], clicks=sign * turns)
            settle(qtbot, window)
            return
    raise AssertionError(axis)


# -- planning from a known solution (headless) ---------------------------------------------------
def _symmetric_copies(model: PlayModel, solution):
    """The solution turned and mirrored by the 48 symmetries of the cube, as {piece: cells}
    (a mirror swaps the two screws, so pieces are matched by shape)."""
    centre = model.puzzle.target.cells.mean(axis=0)
    for m in geometry.symmetries():
        placed = {}
        for p in solution.pieces:
            cells = np.rint((p.cells - centre) @ m.T + centre).astype(np.int64)
            piece = next(
                (q.index for q in model.pieces
                 if q.index not in placed and model.pose_for(q.index, cells) is not None),
                None,
            )  # fmt: skip
            if piece is None:
                break
            placed[piece] = cells
        else:
            yield placed


def plan_assembly(puzzle, solution) -> list[tuple[int, list[tuple[int, int]], tuple[int, int]]]:
    """[(piece, quarter turns [(axis, ±1)], drag (dx, dy))] that build `solution` (or a
    symmetric copy of it) from the tray with the mouse rules of `viewer.drag`, fewest turns
    first; each drag is one straight drag over the table, checked by simulating it."""
    best = None
    for placed in _symmetric_copies(PlayModel(puzzle), solution):
        model = PlayModel(puzzle)
        targets = {k: model.pose_for(k, cells) for k, cells in placed.items()}
        turns = sum(
            len(model._turn_path(model.pose(k).rotation, t.rotation)) for k, t in targets.items()
        )
        if best is not None and turns >= best[0]:
            continue
        plan = _order(model, targets, [])
        if plan is not None:
            best = (turns, plan)
    assert best is not None, "no order of single drags builds it"
    return best[1]


def _order(model: PlayModel, targets, plan):
    if len(plan) == len(targets):
        return plan
    for k in sorted(set(targets) - {p for p, _, _ in plan}):
        steps = 0
        path = model._turn_path(model.pose(k).rotation, targets[k].rotation)
        for axis, t in path:
            model.place(k, drag.turn(model, k, axis, t))
            steps += 1
        here = model.pose(k)
        shift = (targets[k].offset[0] - here.offset[0], targets[k].offset[1] - here.offset[1])
        goal = (targets[k].offset[0], targets[k].offset[1], here.offset[2])
        final = drag.drop(model, k, drag.carry(model, k, here, goal))
        if final == targets[k]:
            model.place(k, final)
            found = _order(model, targets, [*plan, (k, path, shift)])
            if found is not None:
                return found
            model.undo()
        for _ in range(steps):
            model.undo()
    return None


# -- the goal ----------------------------------------------------------------------------------
def test_soma_by_drag_drop_and_snap_in_at_most_14_mouse_actions(qtbot, window):
    model = enter_play(qtbot, window)
    puzzle = window.state.family.puzzle
    solution = SolutionIndex(puzzle).solution(GOAL_SOLUTION)
    plan = plan_assembly(puzzle, solution)
    assert window.handson.mouse.view_axes()[0][0] == 2  # Play's camera: drags slide on the table
    actions = 0
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000) as solved:
        for piece, turns, shift in plan:
            for axis, t in turns:
                turn_piece(qtbot, window, piece, axis, t)
                actions += 1
            drag_piece(qtbot, window, piece, shift)
            actions += 1
            assert model.fit().in_target[piece] and not model.fit().bad[piece].any()
    assert model.solved
    assert actions <= 14, actions
    print(f"Soma cube by mouse: {actions} actions ({len(plan)} drags)")
    assert solved.args == [GOAL_SOLUTION]
    assert not model.can_redo and model.can_undo
    # the celebration: a banner with the number, the camera on the cube
    view = window.handson.view
    qtbot.waitUntil(lambda: "solution" in view.banner_text, timeout=5000)
    assert view.banner_text.startswith("Solved!") and f"solution {GOAL_SOLUTION}" in (
        view.banner_text
    )
    settle(qtbot, window)
    corners = np.array(list(itertools.product((-0.5, 2.5), repeat=3)))
    rows, cols = window.renderer.project(corners).T
    height, width = window.plotter.window_size[1], window.plotter.window_size[0]
    assert rows.min() > 0 and rows.max() < height and cols.min() > 0 and cols.max() < width
    assert (rows.max() - rows.min()) > 0.4 * height  # the cube fills the view
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3]
    green = _mask(image, "#0b7a3b")
    assert green[: height // 4].sum() > 400  # the banner text, at the top of the view


def _mask(image: np.ndarray, color: str, tol: float = 0.06) -> np.ndarray:
    rgb = image.astype(float) + 1
    want = np.array(hex_rgb(color), float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    return np.abs(chroma - want / want.sum()).max(axis=-1) < tol


def test_flag_colour_is_not_a_piece_colour():
    puzzle_colors = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]
    assert flag_color(puzzle_colors) not in puzzle_colors
