"""The 3D editor: the document's current shape in a PyVista view, edited by clicking faces.

The shape is drawn on the document's grid as that grid's solids (cubes, prisms, balls, ...). A
left click on a cell's face adds the cell across that face (on a ball, the touching ball
nearest the point clicked); a click on the ground adds one on the lowest layer; Shift-click or
a right click removes the cell under the mouse. A press that turns into a drag is VTK's camera
move and edits nothing (a click is a press and release less than `CLICK_SLOP` pixels apart).
The cell under the mouse is outlined and the face that would grow is marked, in red when a
removal is what a click would do.

Picking is one `vtkCellPicker` ray restricted to the shape and the ground; the picked mesh cell
is looked up in `DesignScene`'s per-face arrays. The shape is redrawn (a new scene on the same
`SceneRenderer`, camera kept) only when the document says it changed; the hover marks only move.

The editor draws on the main window's one render widget, which other modes use too: it acts
only while `attach()`ed (Design mode) — its event filter is installed and it draws — and after
`detach()` it leaves the widget and the renderer to the replay or the Play table. The target's
pre-placed pieces are drawn in their colours; a click on one grows the target against it, a
removal of one is refused with the reason (`refused`).
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
import vtk
from PySide6.QtCore import QEvent, QObject, Qt, Signal

from tessera.models.design import TARGET, DesignDocument, mirrored
from tessera.viewer._qt.render_batch import RenderBatch
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import design as design_scene
from tessera.viewer.scenes.base import hex_rgb
from tessera.viewer.scenes.cells import cell_edges, face_patch, footprint
from tessera.viewer.scenes.design import DesignScene

#: Pixels the mouse may move between press and release for it to count as a click.
CLICK_SLOP = 4


def _rgb(color: str) -> tuple[float, float, float]:
    r, g, b = hex_rgb(color)
    return (r / 255, g / 255, b / 255)


def _polygon(loop: np.ndarray) -> pv.PolyData:
    return pv.PolyData(np.asarray(loop, float), np.array([len(loop), *range(len(loop))]))


def _set_mesh(actor, mesh: pv.PolyData) -> None:
    """Show `mesh` on a hover actor instead of what it showed (the marks are rebuilt for the
    cell under the mouse: each grid's faces have their own shape)."""
    actor.user_matrix = np.eye(4)
    actor.mapper.SetInputData(mesh)


class Editor3D(QObject):
    """Follows the document's current shape on `renderer`'s plotter and edits it by mouse.

    `mirror` holds the axes ('x', 'y', 'z') mirror drawing is on for; `optional_brush` makes
    added target cubes optional (`+`). `renders` is the render widget's batching of frames
    (the window's, shared: one pending frame whatever mode asked for it)."""

    hover_changed = Signal(object)  # (cell, normal index, 'add' | 'remove' | 'ground') or None
    refused = Signal(str)  # why a click changed nothing (a pre-placed cube)

    def __init__(
        self,
        doc: DesignDocument,
        renderer: SceneRenderer,
        parent=None,
        renders: RenderBatch | None = None,
    ) -> None:
        super().__init__(parent)
        self.doc = doc
        self.renderer = renderer
        self.plotter = renderer.plotter
        self.widget = self.plotter.interactor
        self.mirror: set[str] = set()
        self.optional_brush = False
        self.design: DesignScene | None = None
        self.hover: tuple | None = None
        self._press: tuple[int, int, Qt.MouseButton] | None = None
        self._frame_next = True
        self._shown_shape: int | None = None
        self._picker = vtk.vtkCellPicker()
        self._picker.SetTolerance(0.0005)
        self._picker.PickFromListOn()
        self.renders = renders if renders is not None else RenderBatch(self.plotter, self)
        self.active = False
        doc.events.changed.connect(self.refresh)
        doc.events.current.connect(self._on_current)

    def attach(self) -> None:
        """Take the widget: follow its mouse and draw the document (the camera framed)."""
        if self.active:
            return
        self.active = True
        self.widget.installEventFilter(self)
        self.widget.setMouseTracking(True)
        self._frame_next = True
        self.refresh()

    def detach(self) -> None:
        """Leave the widget to another mode; the document is drawn again on `attach`."""
        if not self.active:
            return
        self.active = False
        self.renders.cancel()
        self._press = None
        self.widget.removeEventFilter(self)
        self.design = None
        self.hover = None

    # -- showing the shape ----------------------------------------------------------------------
    def _on_current(self, _shape: int) -> None:
        self._frame_next = True
        self.refresh()

    def refresh(self, *_args) -> None:
        """Redraw the current shape (after any document change), while attached."""
        if not self.active:
            return
        doc = self.doc
        shape = doc.current
        placed: tuple = ()
        if shape == TARGET:
            req, opt = doc.target.required, doc.target.optional
            color = design_scene.TARGET_COLOR
            placed = tuple((p.cells, p.color) for p in doc.placed)
        else:
            piece = doc.pieces[shape]
            req, opt, color = piece.cells, frozenset(), piece.color
        self.design = design_scene.build(req, opt, color, placed=placed, grid=doc.state.grid)
        frame = self._frame_next or self._shown_shape != shape
        self.renderer.show(self.design.scene, 0.0, frame=frame)
        self._frame_next = False
        self._shown_shape = shape
        self._picker.InitializePickList()
        for key in ("shape", "ground"):
            actor = self.renderer.actors.get(key)
            if actor is not None:
                self._picker.AddPickList(actor)
        self.hover = None
        self.schedule_render()

    def frame(self) -> None:
        """Fit the camera to the shape and its ground again."""
        if self.active:
            self.renderer.frame_camera()
            self.schedule_render()

    def schedule_render(self) -> None:
        self.renders.schedule()

    def render_now(self) -> None:
        self.renders.render_now()

    # -- picking ----------------------------------------------------------------------------------
    def pick(self, x: float, y: float) -> tuple | None:
        """What is under the widget position (x, y) in logical pixels: ('cube', cube index,
        normal index), ('ground', (x, y, z)) or None."""
        if self.design is None:
            return None
        ratio = self.widget.devicePixelRatioF()
        height = self.plotter.window_size[1]
        if not self._picker.Pick(x * ratio, height - y * ratio, 0, self.plotter.renderer):
            return None
        actor = self._picker.GetActor()
        cell = self._picker.GetCellId()
        if cell < 0:
            return None
        if actor is self.renderer.actors.get("shape"):
            return ("cube", int(self.design.face_cube[cell]), int(self.design.face_normal[cell]))
        if actor is self.renderer.actors.get("ground"):
            return ("ground", tuple(int(v) for v in self.design.ground_cells[cell]))
        return None

    def _grow_cell(self, hit: tuple) -> tuple[int, int, int]:
        if hit[0] == "ground":
            return hit[1]
        return self.design.grow(hit[1], hit[2])

    def click(self, x: float, y: float, remove: bool = False) -> bool:
        """Edit as a click at (x, y) would: add against the face (or on the ground), or with
        `remove` take away the cube under the mouse. Mirror drawing applies to both."""
        hit = self.pick(x, y)
        if hit is None:
            return False
        about = self.doc.figure_cells()
        if remove:
            if hit[0] != "cube":
                return False
            owner = int(self.design.placed[hit[1]])
            if owner >= 0:
                name = self.doc.placed[owner].name
                self.refused.emit(
                    f"{name} is pre-placed: Design ▸ Release pre-placed pieces to edit it"
                )
                return False
            c = self.design.cells[hit[1]]
            cell = (int(c[0]), int(c[1]), int(c[2]))
            cells = mirrored([cell], self.mirror, about, self.doc.state.grid)
            return self.doc.remove_cells(cells)
        cells = mirrored([self._grow_cell(hit)], self.mirror, about, self.doc.state.grid)
        optional = self.optional_brush and self.doc.current == TARGET
        return self.doc.add_cells(cells, optional=optional)

    # -- hover marks ------------------------------------------------------------------------------
    def update_hover(self, x: float, y: float, remove: bool) -> None:
        hit = self.pick(x, y)
        face = self.renderer.actors.get("hover-face")
        box = self.renderer.actors.get("hover-box")
        if face is None or box is None:
            return
        if hit is None:
            face.visibility = box.visibility = False
            self._set_hover(None)
            return
        design = self.design
        up = design.normal_of(design.grid.axis_step(2))  # the ground grows upwards
        if hit[0] == "ground":
            ring = footprint(design.grid, hit[1])
            _set_mesh(
                face,
                _polygon(
                    np.column_stack(
                        [
                            ring * 0.72 + ring.mean(axis=0) * 0.28,
                            np.full(len(ring), design.ground_z + 0.02),
                        ]
                    )
                ),
            )
            face.visibility, box.visibility = True, False
            face.prop.color = _rgb(design_scene.HOVER_COLOR)
            self._set_hover((hit[1], up, "ground"))
            return
        cube = design.cells[hit[1]]
        _set_mesh(box, cell_edges(design.grid, [cube], grow=0.03))
        box.visibility = True
        remove = remove and design.placed[hit[1]] < 0  # a pre-placed cell stays
        colour = design_scene.REMOVE_COLOR if remove else design_scene.HOVER_COLOR
        box.prop.color = _rgb(colour)
        _set_mesh(face, _polygon(face_patch(design.grid, cube, design.offsets[hit[2]])))
        face.visibility = not remove
        face.prop.color = _rgb(design_scene.HOVER_COLOR)
        cell = (int(cube[0]), int(cube[1]), int(cube[2]))
        self._set_hover((cell, hit[2], "remove" if remove else "add"))

    def _set_hover(self, hover) -> None:
        if hover != self.hover:
            self.hover = hover
            self.hover_changed.emit(hover)
            self.schedule_render()

    # -- mouse ------------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:
            pos = event.position()
            self._press = (round(pos.x()), round(pos.y()), event.button())
        elif kind == QEvent.Type.MouseButtonRelease and self._press is not None:
            pos = event.position()
            x0, y0, button = self._press
            self._press = None
            if button == event.button() and (
                abs(pos.x() - x0) <= CLICK_SLOP and abs(pos.y() - y0) <= CLICK_SLOP
            ):
                shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                if button == Qt.MouseButton.LeftButton:
                    self.click(pos.x(), pos.y(), remove=shift)
                elif button == Qt.MouseButton.RightButton:
                    self.click(pos.x(), pos.y(), remove=True)
        elif kind == QEvent.Type.MouseMove and not event.buttons():
            pos = event.position()
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.update_hover(pos.x(), pos.y(), shift)
        elif kind == QEvent.Type.Leave:
            self._set_hover(None)
            for key in ("hover-face", "hover-box"):
                actor = self.renderer.actors.get(key)
                if actor is not None:
                    actor.visibility = False
        return False

    def shutdown(self) -> None:
        self.detach()
