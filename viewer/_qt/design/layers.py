"""The layer view: the current shape as one 2D grid per z-layer, BurrTools-style.

A second way to edit the same document: a left click on an empty cell adds it (an optional one
with the `+` brush), on a filled cell removes it (with the brush, a required cell becomes
optional); a right click removes. Mirror drawing applies as in the 3D view, since both call the
same document methods. The grids cover the shape's box plus one cell around it and one empty
layer above, so a shape can grow in every direction; y runs up the grid, as the 3D view shows
it from above. Each layer draws the document's grid's cells as they are seen from above
(`scenes.cells.footprint`): squares for cubes, triangles for prisms, discs for balls. The
target's pre-placed pieces are cells in their colours; a click on one changes nothing (release
them first, as in the 3D view).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from tessera.models.design import TARGET, DesignDocument, mirrored
from tessera.models.grids import CUBES, Grid
from tessera.viewer.scenes.cells import footprint
from tessera.viewer.scenes.design import TARGET_COLOR

SQUARE = 18  # pixels per unit of space (a cube's square)


class LayerGrid(QWidget):
    """One z-layer: the grid's cells (x, y) for x in `xs`, y in `ys` (y upwards), each drawn
    as its footprint, `SQUARE` pixels to a unit of space."""

    clicked = Signal(int, int, int, bool)  # x, y, z, remove?

    def __init__(self, z: int, parent=None, grid: Grid = CUBES) -> None:
        super().__init__(parent)
        self.z = z
        self.grid = grid
        self.xs = range(0)
        self.ys = range(0)
        self.required: set[tuple[int, int]] = set()
        self.optional: set[tuple[int, int]] = set()
        self.placed: dict[tuple[int, int], QColor] = {}  # pre-placed cells and their colours
        self.color = QColor(TARGET_COLOR)
        self.shapes: dict[tuple[int, int], QPolygonF] = {}  # each cell's outline, in pixels
        self._size = QSize(1, 1)

    def set_cells(self, xs: range, ys: range, required, optional, color: str, placed=()) -> None:
        """`placed`: ((x, y), colour) of the pre-placed pieces' cells on this layer."""
        self.xs, self.ys = xs, ys
        self.required, self.optional = set(required), set(optional)
        self.placed = {square: QColor(c) for square, c in placed}
        self.color = QColor(color)
        slots = np.array([(x, y, self.z) for x in xs for y in ys], np.int64).reshape(-1, 3)
        slots = slots[self.grid.valid(slots)]
        rings = {(int(c[0]), int(c[1])): footprint(self.grid, c) for c in slots}
        self.shapes = {}
        if rings:
            points = np.vstack(list(rings.values()))
            x0, y1 = points[:, 0].min(), points[:, 1].max()
            width, height = np.ptp(points[:, 0]), np.ptp(points[:, 1])
            for square, ring in rings.items():
                pixels = [QPointF((px - x0) * SQUARE, (y1 - py) * SQUARE) for px, py in ring]
                self.shapes[square] = QPolygonF(pixels)
            self._size = QSize(
                math.ceil(width * SQUARE - 1e-6) + 1, math.ceil(height * SQUARE - 1e-6) + 1
            )
        else:
            self._size = QSize(1, 1)
        self.setFixedSize(self.sizeHint())
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._size

    def square_rect(self, x: int, y: int) -> QRect:
        """The box cell (x, y) is drawn in (tests click its centre)."""
        return self.shapes[(x, y)].boundingRect().toRect()

    def square_at(self, pos: QPoint) -> tuple[int, int] | None:
        point = QPointF(pos)
        for square, shape in self.shapes.items():
            if shape.containsPoint(point, Qt.FillRule.OddEvenFill):
                return square
        return None

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pale = QColor(self.color).lighter(160)
        edge = QPen(QColor("#9aa7b6"))
        for square, shape in self.shapes.items():
            r = shape.boundingRect()
            c = shape.boundingRect().center()
            p.setPen(edge)
            if square in self.placed:
                p.setBrush(self.placed[square])
                p.drawPolygon(shape)
                p.setPen(QPen(QColor("#303030"), 1))
                p.drawLine(r.topLeft() + QPointF(4, 4), r.bottomRight() - QPointF(4, 4))
            elif square in self.required:
                p.setBrush(self.color)
                p.drawPolygon(shape)
            elif square in self.optional:
                p.setBrush(pale)
                p.drawPolygon(shape)
                p.setPen(QPen(self.color.darker(130), 2))
                p.drawLine(QPointF(c.x() - 5, c.y()), QPointF(c.x() + 5, c.y()))
                p.drawLine(QPointF(c.x(), c.y() - 5), QPointF(c.x(), c.y() + 5))
            else:
                p.setBrush(QColor("#f4f6f9"))
                p.drawPolygon(shape)
        p.end()

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        square = self.square_at(event.position().toPoint())
        if square is None:
            return
        remove = event.button() == Qt.MouseButton.RightButton
        self.clicked.emit(square[0], square[1], self.z, remove)


class LayerView(QScrollArea):
    """All layers of the current shape, top layer first (as a stack seen from the side)."""

    def __init__(self, doc: DesignDocument, parent=None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.mirror: set[str] = set()
        self.optional_brush = False
        self.grids: dict[int, LayerGrid] = {}
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.setWidget(self._inner)
        self.setWidgetResizable(True)
        self.setMinimumWidth(190)
        doc.events.changed.connect(self.refresh)
        doc.events.current.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args) -> None:
        doc = self.doc
        placed: list[tuple[tuple[int, int, int], str]] = []
        if doc.current == TARGET:
            req, opt, color = doc.target.required, doc.target.optional, TARGET_COLOR
            placed = [(c, p.color) for p in doc.placed for c in p.cells]
        else:
            piece = doc.pieces[doc.current]
            req, opt, color = piece.cells, frozenset(), piece.color
        cells = req | opt | {c for c, _ in placed}
        if cells:
            lo = [min(c[a] for c in cells) for a in range(3)]
            hi = [max(c[a] for c in cells) for a in range(3)]
            xs = range(lo[0] - 1, hi[0] + 2)
            ys = range(lo[1] - 1, hi[1] + 2)
            zs = range(lo[2], hi[2] + 2)
        else:
            xs, ys, zs = range(0, 5), range(0, 5), range(0, 1)
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget()
            if widget is not None:  # hidden now: deleteLater leaves it on screen until later
                widget.hide()
                widget.deleteLater()
        self.grids = {}
        for z in reversed(zs):
            self._layout.addWidget(QLabel(f"layer z = {z}"))
            grid = LayerGrid(z, grid=doc.state.grid)
            grid.set_cells(
                xs,
                ys,
                [(x, y) for x, y, zz in req if zz == z],
                [(x, y) for x, y, zz in opt if zz == z],
                color,
                [((c[0], c[1]), colour) for c, colour in placed if c[2] == z],
            )
            grid.clicked.connect(self.square_clicked)
            self._layout.addWidget(grid)
            self.grids[z] = grid

    def square_clicked(self, x: int, y: int, z: int, remove: bool) -> None:
        """Toggle one square (see the module doc); mirror drawing applies."""
        doc = self.doc
        cell = (x, y, z)
        target = doc.current == TARGET
        if target and doc.placed_at(cell) is not None:
            return  # a pre-placed piece's square: not the target's to change
        cells = mirrored([cell], self.mirror, doc.figure_cells(), doc.state.grid)
        if remove:
            doc.remove_cells(cells)
        elif cell not in doc.cells():
            doc.add_cells(cells, optional=self.optional_brush and target)
        elif self.optional_brush and target and cell in doc.target.required:
            doc.add_cells(cells, optional=True)
        else:
            doc.remove_cells(cells)
