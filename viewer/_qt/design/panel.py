"""The side panel: the target and the pieces, with colour swatches, and their counts.

Row 0 is the target; row k + 1 is piece k. Selecting a row edits that shape in the 3D and layer
views. A piece's name is edited in place (double click, or Rename); its colour by the Colour
button (a `QColorDialog`); its count by the two spin boxes, `min` and `max` (equal: a fixed
count; different: a BurrTools range). Every change is a document edit, so it can be undone.
Pre-placed pieces (a `.soma` figure's letters) follow the pieces, greyed and not selectable:
they are part of the target's drawing, and Design ▸ Release pre-placed pieces frees them.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QColorDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from tessera.models.design import TARGET, DesignDocument, DesignError
from tessera.viewer.scenes.design import TARGET_COLOR


def swatch(color: str, size: int = 16) -> QIcon:
    """A square of the piece's colour with a dark border (the list's way to tell pieces)."""
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.fillRect(1, 1, size - 2, size - 2, QColor(color))
    p.setPen(QColor("#303030"))
    p.drawRect(1, 1, size - 3, size - 3)
    p.end()
    return QIcon(pix)


def cell_word(grid) -> str:
    """What the shape list counts: cubes on the cube grid, else cells (a rhombic grid's cell
    is a part of a dodecahedron, not a whole one)."""
    return "cubes" if grid.is_cubic else "cells"


class ShapePanel(QWidget):
    def __init__(self, doc: DesignDocument, parent=None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.error = ""  # the last refused edit (tests read it; the status bar shows it)
        self.list = QListWidget()
        self.list.setEditTriggers(QListWidget.EditTrigger.DoubleClicked)
        self.add_button = QPushButton("Add")
        self.duplicate_button = QPushButton("Duplicate")
        self.delete_button = QPushButton("Delete")
        self.rename_button = QPushButton("Rename")
        self.colour_button = QPushButton("Colour…")
        self.min_copies = QSpinBox()
        self.max_copies = QSpinBox()
        for box in (self.min_copies, self.max_copies):
            box.setRange(0, 999)
        self.info = QLabel()
        self.info.setWordWrap(True)

        buttons = QGridLayout()
        for k, b in enumerate(
            (self.add_button, self.duplicate_button, self.delete_button,
             self.rename_button, self.colour_button)
        ):  # fmt: skip
            buttons.addWidget(b, k // 2, k % 2)
        copies = QHBoxLayout()
        copies.addWidget(QLabel("copies"))
        copies.addWidget(self.min_copies)
        copies.addWidget(QLabel(".."))
        copies.addWidget(self.max_copies)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        layout.addLayout(copies)
        layout.addWidget(self.info)

        self.list.currentRowChanged.connect(self._row_changed)
        self.list.itemChanged.connect(self._item_edited)
        self.add_button.clicked.connect(lambda: self.doc.add_piece())
        self.duplicate_button.clicked.connect(lambda: self._guard(self.doc.duplicate_piece))
        self.delete_button.clicked.connect(lambda: self._guard(self.doc.delete_piece))
        self.rename_button.clicked.connect(self._rename)
        self.colour_button.clicked.connect(self.choose_colour)
        self.min_copies.valueChanged.connect(self._copies_changed)
        self.max_copies.valueChanged.connect(self._copies_changed)
        doc.events.changed.connect(self.refresh)
        doc.events.current.connect(self.refresh)
        self.refresh()

    # -- following the document -------------------------------------------------------------------
    def refresh(self, *_args) -> None:
        doc = self.doc
        unit = cell_word(doc.state.grid)
        with QSignalBlocker(self.list):
            self.list.clear()
            target = QListWidgetItem(
                swatch(TARGET_COLOR),
                f"Target — {len(doc.target.required)} cells"
                + (f" + {len(doc.target.optional)} optional" if doc.target.optional else ""),
            )
            self.list.addItem(target)
            for p in doc.pieces:
                item = QListWidgetItem(swatch(p.color), p.name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(f"{len(p.cells)} {unit} × {p.count_text}")
                item.setData(Qt.ItemDataRole.UserRole, p.name)
                self.list.addItem(item)
                item.setText(self._label(p, unit))
            for p in doc.placed:
                item = QListWidgetItem(
                    swatch(p.color), f"{p.name} — pre-placed, {len(p.cells)} {unit}"
                )
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # shown, never edited on its own
                item.setForeground(QColor("#7d828a"))
                item.setToolTip(
                    "fixed in the figure by the file; not a piece to place. "
                    "Design ▸ Release pre-placed pieces makes it an ordinary piece again."
                )
                self.list.addItem(item)
            self.list.setCurrentRow(doc.current + 1)
        piece = doc.current != TARGET
        for w in (self.duplicate_button, self.delete_button, self.rename_button,
                  self.colour_button, self.min_copies, self.max_copies):  # fmt: skip
            w.setEnabled(piece)
        with QSignalBlocker(self.min_copies), QSignalBlocker(self.max_copies):
            if piece:
                p = doc.pieces[doc.current]
                self.min_copies.setValue(p.min_copies)
                self.max_copies.setValue(p.max_copies)
            else:
                self.min_copies.setValue(0)
                self.max_copies.setValue(0)
        lo, hi = doc.state.piece_volume_range
        volume = f"{lo}..{hi}" if lo != hi else str(lo)
        fixed = len(doc.state.placed_cells)
        self.info.setText(
            f"{len(doc.pieces)} pieces, {volume} {unit}; target {len(doc.target.required)}"
            + (f" + {len(doc.target.optional)} optional" if doc.target.optional else "")
            + (f" (+{fixed} pre-placed)" if fixed else "")
        )

    @staticmethod
    def _label(p, unit: str = "cubes") -> str:
        count = f" ×{p.count_text}" if p.count_text != "1" else ""
        return f"{p.name} — {len(p.cells)} {unit}{count}"

    # -- edits ------------------------------------------------------------------------------------
    def _guard(self, edit, *args) -> bool:
        try:
            edit(*args)
        except DesignError as exc:
            self.error = str(exc).removeprefix("None: ")
            self.info.setText(self.error)
            return False
        self.error = ""
        return True

    def _row_changed(self, row: int) -> None:
        if row > len(self.doc.pieces):  # a pre-placed piece: not a shape of its own
            with QSignalBlocker(self.list):
                self.list.setCurrentRow(self.doc.current + 1)
            return
        if row >= 0 and row - 1 != self.doc.current:
            self.doc.select(row - 1)

    def _item_edited(self, item: QListWidgetItem) -> None:
        row = self.list.row(item)
        if row < 1:
            return
        text = item.text()
        old = item.data(Qt.ItemDataRole.UserRole)
        name = text.split(" — ")[0] if " — " in text else text
        if name != old and not self._guard(self.doc.rename_piece, row - 1, name):
            self.refresh()

    def _rename(self) -> None:
        item = self.list.currentItem()
        if item is not None and self.doc.current != TARGET:
            item.setText(self.doc.pieces[self.doc.current].name)
            self.list.editItem(item)

    def choose_colour(self) -> None:
        if self.doc.current == TARGET:
            return
        index = self.doc.current
        dialog = QColorDialog(QColor(self.doc.pieces[index].color), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.colorSelected.connect(lambda c: self._guard(self.doc.set_color, index, c.name()))
        self.colour_dialog = dialog
        dialog.open()

    def _copies_changed(self, _value: int) -> None:
        if self.doc.current == TARGET:
            return
        lo, hi = self.min_copies.value(), self.max_copies.value()
        if hi < lo:  # the spin box moved past its partner: the partner follows
            if self.sender() is self.min_copies:
                hi = lo
            else:
                lo = hi
        self._guard(self.doc.set_copies, self.doc.current, lo, max(hi, 1))
