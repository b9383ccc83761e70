"""The mouse on the 3D view: click to pick, drag pieces in Play mode, turn them with the wheel.

An event filter on the render widget sees every mouse event before VTK does and keeps the ones
that are about pieces; the rest go on to VTK's camera (orbit, pan, zoom) untouched:

* **click** (press and release without moving): selects the piece under the cursor, in every
  mode; on empty space it clears the selection. Picking on the *press* (pyvista's picking)
  made every orbit that started on a piece select it.
* **left drag on a piece**, Play mode: the piece goes with the hand on the grid plane that
  faces the camera most (the table, from Play's camera), by the grid's lattice translations
  (whole cubes; whole triangles that keep pointing the way they point; ball to ball): the
  nearest one to where the hand is. With Shift it moves along the one grid direction nearest
  the drag on screen. It never passes through another piece: it is
  lifted over them and comes down where it touches (`viewer.drag`, on
  `solvers.movement`). Let go, it falls, and snaps into the target if a fitting pose is within
  a cell. The whole drag is one undoable move. A piece of an interlocking puzzle (a burr, a
  box) is never lifted and never falls: it follows the hand cell by cell along free paths
  only, and snaps only where a free path leads (`viewer.drag`'s docstring).
* **left drag on empty space**: the camera orbits (VTK), as before.
* **wheel with a modifier** over a piece (or anywhere, for the selected piece), Play mode: the
  grid's smallest turn about an axis (a quarter turn on cubes; a sixth about z and a half
  about x or y on prisms). Ctrl: about the axis nearest the view direction (the piece turns
  on screen like a dial); Shift: about the axis nearest the screen's horizontal (it tips
  towards you); Alt: about the axis nearest the screen's vertical. Ctrl+Shift: about whichever
  of the grid's own turning axes is nearest the view (`models.play.turn_axes`: the sphere
  grid's sixth turns about its body diagonals, which give a flat piece lying in a hexagonal
  layer its other orientations). Wheel up turns counter-clockwise as seen from the camera. A
  turn that takes the piece off the lattice is refused, and the status line says so. A plain
  wheel still zooms.

Everything changes the models (the inspect state's selection, the Play table) and nothing else:
the views follow their events.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import vtk
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal

from tessera.models.play import Pose, inverse, nearest_translation, space_of, turn_axes
from tessera.viewer import drag
from tessera.viewer._qt.play_view import key_of

CLICK_SLOP = 4  # pixels the mouse may wander between press and release for a click
LIMIT = 12  # cells beyond the table's pieces and target a piece may be carried


def screen_axes(camera) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(axis, sign) of the grid axes nearest the view direction (pointing at the camera), the
    screen's horizontal (pointing right) and its vertical (pointing up): a permutation of x,
    y, z, so each wheel modifier turns about a different axis. The Play toolbar's buttons
    (`viewer.handson`) name their moves and turns by the same three."""
    back = -np.array(camera.GetDirectionOfProjection(), float)
    up = np.array(camera.GetViewUp(), float)
    right = np.cross(up, back)
    up = np.cross(back, right)
    n = int(np.argmax(np.abs(back)))
    rest = [a for a in range(3) if a != n]
    h = max(rest, key=lambda a: abs(right[a]))
    v = next(a for a in rest if a != h)

    def sign(vec, a):
        return 1 if vec[a] >= 0 else -1

    return (n, sign(back, n)), (h, sign(right, h)), (v, sign(up, v))


@dataclass
class _Press:
    """A left button held down: where, over what."""

    pos: QPointF
    key: str | None  # the actor key under the cursor (a piece), or None
    world: np.ndarray | None  # the picked point on it
    shift: bool
    ours: bool  # the press was kept from VTK (a piece in Play mode): the drag is ours


@dataclass
class _Drag:
    piece: int
    start: Pose
    grab: np.ndarray  # the picked point: it stays under the cursor
    normal: int  # the axis across the drag plane
    held: Pose
    timings: list[float] = field(default_factory=list)  # seconds per mouse move handled


class MouseHands(QObject):
    """The mouse filter of one render widget, driving a `viewer.handson.HandsOn`.

    `dragged(piece)` after a drag was dropped, `turned(piece)` after a wheel turn, `clicked(key)`
    after a click picked (key '' for empty space): tests and the status line wait on them."""

    dragged = Signal(int)
    turned = Signal(int)
    clicked = Signal(str)

    def __init__(self, handson, widget) -> None:
        super().__init__(handson)
        self.handson = handson
        self.widget = widget
        self.picker = vtk.vtkCellPicker()
        self.picker.SetTolerance(0.0005)
        self._press: _Press | None = None
        self.drag: _Drag | None = None
        self.last_timings: list[float] = []  # of the last drag, for the benchmark and report
        widget.installEventFilter(self)

    def detach(self) -> None:
        self.widget.removeEventFilter(self)

    # -- geometry ---------------------------------------------------------------------------
    @property
    def _renderer(self):
        return self.handson.renderer.plotter.renderer

    def _display(self, pos: QPointF) -> tuple[float, float]:
        """VTK display coordinates (device pixels, y up) of a widget position (as pyvistaqt
        hands them to VTK)."""
        ratio = self.widget.devicePixelRatioF()
        return pos.x() * ratio, (self.widget.height() - pos.y() - 1) * ratio

    def pick(self, pos: QPointF) -> tuple[str | None, np.ndarray | None]:
        """The piece actor under a widget position and the point hit on it."""
        x, y = self._display(pos)
        if not self.picker.Pick(x, y, 0.0, self._renderer):
            return None, None
        actor = self.picker.GetActor()
        renderer = self.handson.renderer
        for key, candidate in renderer.actors.items():
            if candidate is actor or (
                actor is not None
                and candidate.GetAddressAsString("vtkActor") == actor.GetAddressAsString("vtkActor")
            ):
                if renderer.specs[key].role == "piece":
                    return key, np.array(self.picker.GetPickPosition(), float)
                return None, None
        return None, None

    def ray(self, pos: QPointF) -> tuple[np.ndarray, np.ndarray]:
        """Two world points on the line of sight through a widget position (near, far)."""
        x, y = self._display(pos)
        ren = self._renderer
        out = []
        for depth in (0.0, 1.0):
            ren.SetDisplayPoint(x, y, depth)
            ren.DisplayToWorld()
            p = np.array(ren.GetWorldPoint(), float)
            out.append(p[:3] / p[3])
        return out[0], out[1]

    def screen(self, point: np.ndarray) -> np.ndarray:
        """Widget position (x, y, logical pixels) of a world point."""
        ren = self._renderer
        ren.SetWorldPoint(*map(float, point), 1.0)
        ren.WorldToDisplay()
        x, y, _ = ren.GetDisplayPoint()
        ratio = self.widget.devicePixelRatioF()
        return np.array([x / ratio, self.widget.height() - 1 - y / ratio])

    def view_axes(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
        """`screen_axes` of this view's camera."""
        return screen_axes(self._renderer.GetActiveCamera())

    # -- events -----------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        try:
            if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
                return self._on_press(event)  # a quick second click is a click too
            if kind == QEvent.Type.MouseMove:
                return self._on_move(event)
            if kind == QEvent.Type.MouseButtonRelease:
                return self._on_release(event)
            if kind == QEvent.Type.Wheel:
                return self._on_wheel(event)
        except Exception as exc:  # a bug here must not take the mouse away from VTK for good
            self._press, self.drag = None, None
            self.handson.say(f"mouse: {type(exc).__name__}: {exc}")
        return False

    def _on_press(self, event) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        pos = event.position()
        key, world = self.pick(pos)
        ours = key is not None and self.handson.playing and self.handson.model is not None
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self._press = _Press(pos, key, world, shift, ours)
        return ours

    def _on_move(self, event) -> bool:
        press = self._press
        if press is None or not press.ours:
            return False
        pos = event.position()
        if self.drag is None:
            moved = pos - press.pos
            if abs(moved.x()) + abs(moved.y()) < CLICK_SLOP:
                return True
            self._start_drag(press)
        self._carry(pos)
        return True

    def _on_release(self, event) -> bool:
        if event.button() != Qt.MouseButton.LeftButton or self._press is None:
            return False
        press, self._press = self._press, None
        if self.drag is not None:
            self._drop()
            return True
        moved = event.position() - press.pos
        if abs(moved.x()) + abs(moved.y()) < CLICK_SLOP:
            self.handson.select(press.key)
            self.clicked.emit(press.key or "")
        return press.ours

    def _on_wheel(self, event) -> bool:
        mods = event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        alt = bool(mods & Qt.KeyboardModifier.AltModifier)
        if not (ctrl or shift or alt) or not self.handson.playing:
            return False
        if self.handson.model is None:
            return False
        delta = event.angleDelta()
        amount = delta.y() or delta.x()  # Alt/Shift+wheel may arrive as a horizontal wheel
        if amount == 0:
            return True
        key, _ = self.pick(event.position())
        model = self.handson.model
        piece = int(key.split("-")[1]) if key is not None else model.selected
        if piece is None:
            self.handson.say("point at a piece (or select one) to turn it")
            return True
        if ctrl and shift:
            self.turn_about_view(piece, 1 if amount > 0 else -1)
            return True
        view, horizontal, vertical = self.view_axes()
        axis, sign = horizontal if shift else vertical if alt else view
        turns = sign * (1 if amount > 0 else -1)
        self.turn(piece, axis, turns)
        return True

    # -- operations -------------------------------------------------------------------------
    def turn(self, piece: int, axis: int, turns: int) -> None:
        """The grid's smallest turn about an axis, by the mouse: lifted clear if it would hit
        something, then let fall; one undoable step (refused, with the reason on the status
        line, when the grid has no such turn or it takes the piece off the lattice)."""
        model = self.handson.model
        self.handson.select(key_of(piece))
        pose = drag.turn(model, piece, axis, turns)
        name = model.pieces[piece].name
        model.place(piece, pose, label=f"turn {name} about {'xyz'[axis]}")
        self.turned.emit(piece)

    def view_turn(self, sign: int) -> tuple[int, str]:
        """The grid's turn about its turning axis nearest the view direction (`turn_axes`),
        counter-clockwise as seen from the camera for `sign` 1: (transform, axis as text)."""
        back = -np.array(self._renderer.GetActiveCamera().GetDirectionOfProjection(), float)
        grid = self.handson.model.grid
        axis, g = max(turn_axes(grid), key=lambda t: abs(float(np.dot(t[0], back))))
        if float(np.dot(axis, back)) * sign < 0:
            g = inverse(grid, g)
        words = "(" + ", ".join(f"{v:.2f}" for v in axis) + ")"
        return g, words

    def turn_about_view(self, piece: int, sign: int) -> None:
        """Ctrl+Shift+wheel: one of the grid's own turns about the axis nearest the view."""
        model = self.handson.model
        self.handson.select(key_of(piece))
        g, about = self.view_turn(sign)
        pose = drag.turn_by(model, piece, g, about)
        name = model.pieces[piece].name
        model.place(piece, pose, label=f"turn {name} about {about}")
        self.turned.emit(piece)

    def _start_drag(self, press: _Press) -> None:
        model = self.handson.model
        piece = int(press.key.split("-")[1])
        self.handson.select(press.key)
        view = self.handson.view
        if view is not None:
            view.finish()  # a glide still running ends where the model says
        (normal, _), _, _ = self.view_axes()
        start = model.pose(piece)
        self.drag = _Drag(piece, start, press.world, normal, start)
        self.widget.setCursor(Qt.CursorShape.ClosedHandCursor)

    def _goal(self, pos: QPointF) -> np.ndarray:
        """The offset the hand asks for, a lattice translation of the grid: the grab point
        follows the cursor on the drag plane, to the nearest lattice point that keeps the
        piece in its plane (or, with Shift, along the grid direction nearest the drag on
        screen, whole steps)."""
        d = self.drag
        grid = self.handson.model.grid
        near, far = self.ray(pos)
        if self._press is not None and self._press.shift:
            origin = self.screen(d.grab)
            moved = np.array([pos.x(), pos.y()]) - origin
            best, cells = 0.0, np.zeros(3, np.int64)
            for step in grid.directions:
                along = self.screen(d.grab + space_of(grid, step)) - origin
                length = float(np.dot(along, along))
                if length < 1e-6:
                    continue
                score = abs(float(np.dot(moved, along))) / np.sqrt(length)
                if score > best:
                    best = score
                    cells = np.asarray(step) * round(float(np.dot(moved, along)) / length)
            return np.asarray(d.start.offset) + cells
        ray = far - near
        n = d.normal
        if abs(ray[n]) < 1e-9:
            return np.asarray(d.held.offset)
        t = (d.grab[n] - near[n]) / ray[n]
        hit = near + t * ray
        way = hit - d.grab
        way[n] = 0
        return np.asarray(d.start.offset) + nearest_translation(grid, way, level=n)

    def _carry(self, pos: QPointF) -> None:
        t0 = time.perf_counter()
        d = self.drag
        model = self.handson.model
        goal = self._goal(pos)
        lo, hi = self._limits()
        kept = np.clip(goal, lo, hi).astype(np.int64)
        if not np.array_equal(kept, goal):  # back onto the lattice, at or below
            kept = model.grid.anchor(kept)
        goal = kept
        held = drag.carry(model, d.piece, d.start, goal, held=d.held)
        if held != d.held:
            d.held = held
            if self.handson.view is not None:
                self.handson.view.preview(d.piece, held)
        d.timings.append(time.perf_counter() - t0)

    def _limits(self) -> tuple[np.ndarray, np.ndarray]:
        """How far a piece may be carried: a margin around the table's contents."""
        model = self.handson.model
        cells = np.vstack(
            [model.puzzle.target.cells] + [model.cells(k) for k in range(len(model.pieces))]
        )
        return cells.min(axis=0) - LIMIT, cells.max(axis=0) + LIMIT

    def _drop(self) -> None:
        d, self.drag = self.drag, None
        self.widget.unsetCursor()
        self.last_timings = d.timings
        model = self.handson.model
        final = drag.drop(model, d.piece, d.held)
        if final != model.pose(d.piece):
            model.place(d.piece, final, label=f"drag {model.pieces[d.piece].name}")
        elif self.handson.view is not None:
            self.handson.view.preview(d.piece, final)
        self.dragged.emit(d.piece)
