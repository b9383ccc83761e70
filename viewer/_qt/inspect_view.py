"""The Inside dock: explode slider, layer cut and the piece (or cage) list with swatches.

The Qt-free part (`InspectState`, `Inspector`) lives in viewer/inspect.py so the exporter can
use it; it is re-exported here for the modules that import it from this one.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from tessera.viewer.inspect import (  # noqa: F401 - re-exported
    CUT_COLOR,
    EXPLODE_SPREAD,
    GHOST_OPACITY,
    HIGHLIGHT,
    HIGHLIGHT_WIDTH,
    Inspector,
    InspectState,
)

SWATCH = 14  # px: the colour square beside each piece


def swatch(color: str) -> QIcon:
    """A small filled square of the piece's colour, edged so pale colours still show."""
    pixmap = QPixmap(SWATCH, SWATCH)
    pixmap.fill(QColor("#404040"))
    inner = QPixmap(SWATCH - 2, SWATCH - 2)
    inner.fill(QColor(color))
    painter = QPainter(pixmap)
    painter.drawPixmap(1, 1, inner)
    painter.end()
    return QIcon(pixmap)


class InspectPanel(QWidget):
    """Explode slider, layer cut (axis + slider), and the pieces with colour swatches and
    visibility check boxes. The top position of the layer slider shows everything.

    A scene may say explode and layers mean nothing for it (`Scene.inspectable`, a flat
    board): those rows are hidden. A scene with a `listing` (KenKen's cages) shows that list
    instead of one check box per actor."""

    def __init__(self, state: InspectState, inspector: Inspector, parent=None) -> None:
        super().__init__(parent)
        self.state = state
        self.inspector = inspector
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        form = QFormLayout()
        self.explode = QSlider(Qt.Orientation.Horizontal)
        self.explode.setRange(0, 100)
        self.explode.setToolTip("pieces move out from the centre and back")
        self.explode.valueChanged.connect(lambda v: state.set_explode(v / 100))
        form.addRow("explode", self.explode)
        row = QHBoxLayout()
        self.axis = QComboBox()
        self.axis.addItems(["x", "y", "z"])
        self.axis.setCurrentIndex(2)
        self.axis.currentIndexChanged.connect(self._axis_changed)
        row.addWidget(self.axis)
        self.layer = QSlider(Qt.Orientation.Horizontal)
        self.layer.setToolTip("hide everything above this layer (right end: show all)")
        self.layer.valueChanged.connect(self._layer_changed)
        row.addWidget(self.layer)
        self.layer_label = QLabel("all")
        self.layer_label.setMinimumWidth(36)
        row.addWidget(self.layer_label)
        form.addRow("layers", row)
        self.form = form
        layout.addLayout(form)
        self.pieces = QListWidget()
        self.pieces.setObjectName("pieces")
        self.pieces.setToolTip("untick to hide a piece; click to select it")
        self.pieces.itemChanged.connect(self._item_changed)
        self.pieces.currentItemChanged.connect(self._current_changed)
        self.pieces.setMaximumHeight(170)
        layout.addWidget(self.pieces)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setObjectName("handson_message")
        layout.addWidget(self.message)
        state.events.selected.connect(self._selection_changed)
        state.events.hidden.connect(self._hidden_changed)

    def show_message(self, text: str) -> None:
        """The hands-on status line (fit, hint, solved), cleared with the viewer's message."""
        self.message.setText(text)

    def rebuild(self) -> None:
        """Fill the piece list and slider ranges for the scene now shown."""
        scene = self.inspector.renderer.scene
        inspectable = scene is None or scene.inspectable
        self.form.setRowVisible(0, inspectable)  # explode
        self.form.setRowVisible(1, inspectable)  # layers
        self.pieces.blockSignals(True)
        self.pieces.clear()
        listing = scene.listing if scene is not None else None
        if listing is not None:
            for label, color in listing:
                item = QListWidgetItem(swatch(color), label)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.pieces.addItem(item)
            self.pieces.setToolTip("the cages: clue and size")
        else:
            for key in self.inspector.piece_keys():
                spec = self.inspector.renderer.specs[key]
                item = QListWidgetItem(swatch(spec.color), spec.name or key)
                item.setData(Qt.ItemDataRole.UserRole, key)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(
                    Qt.CheckState.Unchecked if key in self.state.hidden else Qt.CheckState.Checked
                )
                self.pieces.addItem(item)
            self.pieces.setToolTip("untick to hide a piece; click to select it")
        self.pieces.blockSignals(False)
        if inspectable:
            self._axis_changed(self.axis.currentIndex())
        else:  # no explode or cut left over on a flat board
            self.explode.setValue(0)
            self.state.set_layer(self.state.layer_axis, None)

    def _hidden_changed(self) -> None:
        """Tick boxes follow the state, whoever hid the piece (a click, a script, a test)."""
        self.pieces.blockSignals(True)
        for row in range(self.pieces.count()):
            item = self.pieces.item(row)
            key = item.data(Qt.ItemDataRole.UserRole)
            if key is None:
                continue
            hidden = key in self.state.hidden
            item.setCheckState(Qt.CheckState.Unchecked if hidden else Qt.CheckState.Checked)
        self.pieces.blockSignals(False)

    def _axis_changed(self, axis: int) -> None:
        lo, hi = self.inspector.layer_range(axis)
        self.layer.blockSignals(True)
        self.layer.setRange(lo, hi + 1)
        self.layer.setValue(hi + 1)
        self.layer.blockSignals(False)
        self._layer_changed(hi + 1)

    def _layer_changed(self, value: int) -> None:
        top = value > self.layer.maximum() - 1
        self.layer_label.setText("all" if top else f"≤ {value}")
        self.state.set_layer(self.axis.currentIndex(), None if top else value)

    def _item_changed(self, item: QListWidgetItem) -> None:
        key = item.data(Qt.ItemDataRole.UserRole)
        self.state.set_hidden(key, item.checkState() != Qt.CheckState.Checked)

    def _current_changed(self, item, _previous=None) -> None:
        if item is not None:
            self.state.select(item.data(Qt.ItemDataRole.UserRole))

    def _selection_changed(self) -> None:
        for row in range(self.pieces.count()):
            item = self.pieces.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == self.state.selected:
                if self.pieces.currentRow() != row:
                    self.pieces.blockSignals(True)
                    self.pieces.setCurrentRow(row)
                    self.pieces.blockSignals(False)
                return
        self.pieces.blockSignals(True)
        self.pieces.setCurrentRow(-1)
        self.pieces.blockSignals(False)
