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
from tessera.solvers.polycube.identify import SolutionIndex
from tessera.viewer import drag
from tessera.viewer._qt.play_view import flag_color, key_of
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


# -- the parts -----------------------------------------------------------------------------------
def camera_of(window) -> tuple:
    camera = window.plotter.camera
    return tuple(camera.position) + tuple(camera.focal_point)


def empty_pixel(window) -> QPoint:
    """A pixel of the view where no piece is (a corner away from the gizmo)."""
    widget = widget_of(window)
    pixel = QPoint(widget.width() - 12, 12)
    assert window.handson.mouse.pick(QPointF(pixel))[0] is None
    return pixel


def test_a_click_picks_on_release_and_a_drag_on_empty_space_orbits(qtbot, window):
    model = enter_play(qtbot, window)
    widget = widget_of(window)
    k = model.find("P")
    _, pixel = grab_point(window, k)
    QTest.mousePress(widget, LEFT, NONE, pixel)
    assert model.selected is None  # not on the press
    with qtbot.waitSignal(window.handson.selection_changed, timeout=2000):
        QTest.mouseRelease(widget, LEFT, NONE, pixel)
    assert model.selected == k and window.status_selected.text() == "P"
    # a drag that starts on empty space turns the camera and moves no piece
    poses = [model.pose(i) for i in range(len(model.pieces))]
    before = camera_of(window)
    start = empty_pixel(window)
    mouse_drag(window, start, start + QPoint(-120, 60))
    settle(qtbot, window)
    assert camera_of(window) != before
    assert [model.pose(i) for i in range(len(model.pieces))] == poses and not model.can_undo
    assert model.selected == k
    # a click on empty space clears the selection
    QTest.mouseClick(widget, LEFT, NONE, empty_pixel(window))
    assert model.selected is None

    # in Solution mode a drag on a piece orbits too, and selects nothing
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_solution"].trigger()
    settle(qtbot, window)
    key = window.handson.inspector.piece_keys()[0]
    actor = window.renderer.actors[key]
    centre = np.asarray(actor.GetCenter())
    pixel = to_widget(window, centre)
    picked = window.handson.mouse.pick(QPointF(pixel))[0]
    assert picked is not None
    before = camera_of(window)
    mouse_drag(window, pixel, pixel + QPoint(80, 40))
    settle(qtbot, window)
    assert camera_of(window) != before and window.handson.state.selected is None
    pixel = to_widget(window, np.asarray(window.renderer.actors[picked].GetCenter()))
    picked = window.handson.mouse.pick(QPointF(pixel))[0]
    QTest.mouseClick(widget, LEFT, NONE, pixel)
    assert window.handson.state.selected == picked


def test_a_dragged_piece_rides_over_others_and_is_never_inside_one(qtbot, window):
    model = enter_play(qtbot, window)
    widget = widget_of(window)
    mouse = window.handson.mouse
    v, lp = model.find("V"), model.find("L")
    point, pixel = grab_point(window, v)
    # across L (which lies at +x of V on the tray) and beyond, watching every step
    end = to_widget(window, point + np.array([4.0, 0.0, 0.0]))
    QTest.mousePress(widget, LEFT, NONE, pixel)
    heights = []
    for i in range(1, 13):
        t = i / 12
        QTest.mouseMove(widget, pixel + (end - pixel) * t)
        held = mouse.drag.held
        cells = {tuple(c) for c in model.cells_at(v, held).tolist()}
        assert not cells & model.occupied(exclude=v)
        heights.append(held.offset[2])
    assert max(heights) >= 1  # lifted over L
    with qtbot.waitSignal(mouse.dragged, timeout=5000):
        QTest.mouseRelease(widget, LEFT, NONE, end)
    settle(qtbot, window)
    rest = model.pose(v)
    assert rest.offset[:2] == (model.start[v].offset[0] + 4, model.start[v].offset[1])
    assert rest.offset[2] >= 1  # it lies on L, not in it
    assert not {tuple(c) for c in model.cells(v).tolist()} & model.occupied(exclude=v)
    assert model.undo_label == "drag V"
    window.actions["undo"].trigger()
    assert model.pose(v) == model.start[v] and model.pose(lp) == model.start[lp]


def test_a_drop_near_the_target_snaps_into_a_fitting_pose(qtbot, window):
    model = enter_play(qtbot, window)
    k = model.find("A")  # A fits the empty target as it lies
    here = model.pose(k)
    # dropped one cell too far in +x, it would stick out of the 3x3x3 box: it snaps back in
    width = int(np.ptp(model.cells(k)[:, 0])) + 1
    fitting = 3 - width  # the largest x at which it is inside the box
    point, pixel = grab_point(window, k)
    shift = np.array([fitting + 1 - here.offset[0], 0 - here.offset[1], 0.0])
    rest = drag.fall(model, k, type(here)(here.rotation, (fitting + 1, 0, here.offset[2])))
    assert not model.fits(k, rest)
    with qtbot.waitSignal(window.handson.mouse.dragged, timeout=5000):
        mouse_drag(window, pixel, to_widget(window, point + shift))
    settle(qtbot, window)
    assert model.fits(k, model.pose(k)) and model.pose(k).offset == (fitting, 0, 0)
    assert model.fit().in_target[k] and not model.fit().bad[k].any()


def test_wheel_with_a_modifier_turns_the_piece_under_the_cursor(qtbot, window):
    model = enter_play(qtbot, window)
    k = model.find("L")
    (n, n_sign), (h, h_sign), _ = window.handson.mouse.view_axes()
    assert n == 2  # Play's camera looks down at the table
    _, pixel = grab_point(window, k)
    start = model.pose(k)
    with qtbot.waitSignal(window.handson.mouse.turned, timeout=2000):
        wheel(window, pixel, MODIFIER["view"])
    assert model.selected == k
    assert model.pose(k).rotation == model.turned(k, 2, n_sign, start).rotation
    assert model.undo_label == "turn L about z"
    settle(qtbot, window)
    _, pixel = grab_point(window, k)
    before = model.pose(k)
    with qtbot.waitSignal(window.handson.mouse.turned, timeout=2000):
        wheel(window, pixel, MODIFIER["horizontal"], clicks=-1)
    assert model.pose(k).rotation == model.turned(k, h, -h_sign, before).rotation
    settle(qtbot, window)
    cells = {tuple(c) for c in model.cells(k).tolist()}
    assert not cells & model.occupied(exclude=k) and min(c[2] for c in cells) >= model.floor
    # a plain wheel still zooms
    poses = model.pose(k)
    distance = window.plotter.camera.distance
    wheel(window, empty_pixel(window), NONE)
    assert model.pose(k) == poses and window.plotter.camera.distance != distance


def test_axis_gizmo_is_always_shown(qtbot, window):
    model = enter_play(qtbot, window)
    gizmo = window.plotter.renderer.axes_widget
    assert gizmo.GetEnabled()
    start = empty_pixel(window)
    mouse_drag(window, start, start + QPoint(-150, 0))  # orbit
    settle(qtbot, window)
    assert gizmo.GetEnabled()
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3]
    height, width = image.shape[:2]
    corner = image[int(height * 0.74) :, : int(width * 0.2)]
    blue = (corner[..., 2] > 150) & (corner[..., 0] < 80) & (corner[..., 1] < 80)  # the z axis
    assert blue.sum() > 30
    assert model is window.handson.model


def test_an_overlap_inside_the_assembly_stays_visible(qtbot, window):
    model = enter_play(qtbot, window)
    window.handson.view.duration_ms = 0
    solution = SolutionIndex(window.state.family.puzzle).solution(1)
    for placed in solution.pieces:
        k = next(p.index for p in model.pieces if p.piece == placed.piece)
        model.place(k, model.pose_for(k, placed.cells))
    assert model.solved
    settle(qtbot, window)
    flag = window.handson.view.flag
    clean = _mask(np.asarray(window.plotter.screenshot(return_img=True))[..., :3], flag).sum()
    # push the piece that holds the centre cell one cell further in: the overlap is inside
    centre = next(
        p.index
        for p in model.pieces
        if (1, 1, 1) in {tuple(c) for c in model.cells(p.index).tolist()}
    )
    for axis, step in itertools.product(range(3), (1, -1)):
        model.move(centre, axis, step)
        if model.fit().overlap[centre].any() and not model.fit().outside[centre].any():
            break
        model.undo()
    assert model.fit().overlap[centre].any()
    settle(qtbot, window)
    assert not window.handson.view.banner_text  # no longer solved
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3]
    outlined = _mask(image, flag).sum()
    assert outlined > clean + 500, (outlined, clean)
    # without the overlay only what happens to face outwards would show
    window.handson.view.flag_actor.SetVisibility(False)
    window.render_now()
    hidden = _mask(np.asarray(window.plotter.screenshot(return_img=True))[..., :3], flag).sum()
    assert outlined > hidden + 300, (outlined, hidden)


def test_pieces_keep_their_colours_and_the_camera_frames_table_and_target(qtbot, window):
    model = enter_play(qtbot, window)
    puzzle = window.state.family.puzzle
    for p in model.pieces:
        rgb = window.renderer.specs[key_of(p.index)].mesh.cell_data["rgb"][0]
        assert tuple(rgb) == hex_rgb(puzzle.pieces[p.piece].color or puzzle.colors()[p.piece])
    play_colors = {window.renderer.specs[key_of(p.index)].color for p in model.pieces}
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_solution"].trigger()
    solution_colors = {
        window.renderer.specs[k].color for k in window.handson.inspector.piece_keys()
    }
    assert play_colors == solution_colors  # V is red in both
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_play"].trigger()
    settle(qtbot, window)
    cells = np.vstack(
        [puzzle.target.cells] + [model.cells(k) for k in range(len(model.pieces))]
    ).astype(float)
    corners = (
        cells[:, None, :] + np.array(list(itertools.product((-0.5, 0.5), repeat=3)))
    ).reshape(-1, 3)
    rows, cols = window.renderer.project(corners).T
    width, height = window.plotter.window_size
    assert rows.min() >= 0 and rows.max() <= height and cols.min() >= 0 and cols.max() <= width
    # the table fills the view: most of its height or width
    assert max((rows.max() - rows.min()) / height, (cols.max() - cols.min()) / width) > 0.85
