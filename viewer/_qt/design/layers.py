"""The layer view: the current shape as one 2D grid per z-layer, BurrTools-style.

A second way to edit the same document: a left click on an empty square adds a cube there (an
optional one with the `+` brush), on a filled square removes it (with the brush, a required
cube becomes optional); a right click removes. Mirror drawing applies as in the 3D view, since
both call the same document methods. The grids cover the shape's box plus one square around it
and one empty layer above, so a shape can grow in every direction; y runs up the grid, as the
3D view shows it from above. The target's pre-placed pieces are squares in their colours; a
click on one changes nothing (release them first, as in the 3D view).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from tessera.models.design import TARGET, DesignDocument, mirrored
from tessera.viewer.scenes.design import TARGET_COLOR

SQUARE = 18  # pixels per square


class LayerGrid(QWidget):
    """One z-layer: squares for x in `xs`, y in `ys` (y upwards)."""

    clicked = Signal(int, int, int, bool)  # x, y, z, remove?

    def __init__(self, z: int, parent=None) -> None:
        super().__init__(parent)
        self.z = z
        self.xs = range(0)
        self.ys = range(0)
        self.required: set[tuple[int, int]] = set()
        self.optional: set[tuple[int, int]] = set()
        self.placed: dict[tuple[int, int], QColor] = {}  # pre-placed squares and their colours
        self.color = QColor(TARGET_COLOR)

    def set_cells(self, xs: range, ys: range, required, optional, color: str, placed=()) -> None:
        """`placed`: ((x, y), colour) of the pre-placed pieces' squares on this layer."""
        self.xs, self.ys = xs, ys
        self.required, self.optional = set(required), set(optional)
        self.placed = {square: QColor(c) for square, c in placed}
        self.color = QColor(color)
        self.setFixedSize(self.sizeHint())
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(len(self.xs) * SQUARE + 1, len(self.ys) * SQUARE + 1)

    def square_rect(self, x: int, y: int) -> QRect:
        """Where square (x, y) is drawn (tests click its centre)."""
        col = x - self.xs.start
        row = self.ys.stop - 1 - y
        return QRect(col * SQUARE, row * SQUARE, SQUARE, SQUARE)

    def square_at(self, pos: QPoint) -> tuple[int, int] | None:
        col, row = pos.x() // SQUARE, pos.y() // SQUARE
        if not (0 <= col < len(self.xs) and 0 <= row < len(self.ys)):
            return None
        return self.xs.start + col, self.ys.stop - 1 - row

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        pale = QColor(self.color).lighter(160)
        grid = QPen(QColor("#9aa7b6"))
        for x in self.xs:
            for y in self.ys:
                r = self.square_rect(x, y)
                if (x, y) in self.placed:
                    p.fillRect(r, self.placed[(x, y)])
                    p.setPen(QPen(QColor("#303030"), 1))
                    p.drawLine(r.topLeft() + QPoint(4, 4), r.bottomRight() - QPoint(4, 4))
                elif (x, y) in self.required:
                    p.fillRect(r, self.color)
                elif (x, y) in self.optional:
                    p.fillRect(r, pale)
                    p.setPen(QPen(self.color.darker(130), 2))
                    c = r.center()
                    p.drawLine(c.x() - 5, c.y(), c.x() + 5, c.y())
                    p.drawLine(c.x(), c.y() - 5, c.x(), c.y() + 5)
                else:
                    p.fillRect(r, QColor("#f4f6f9"))
                p.setPen(grid)
                p.drawRect(r)
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
            grid = LayerGrid(z)
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
