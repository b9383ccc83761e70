"""File ▸ Open folder: every puzzle of a folder as a thumbnail and its counts, sortable and
filterable, filled in by a background batch; a click opens the figure.

The counts come from the batch of `tessera solve FOLDER --count` (`solvers.batch`, its thread
mode: forking a process that runs Qt is not safe). Thumbnails are drawn with QPainter as
isometric cubes into QImages, which worker threads may paint: a VTK render per figure would
cost the window 50 ms each, and VTK must stay on the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPointF,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from tessera.viewer._qt.background import Worker

THUMB = 72
COLUMNS = ("figure", "up to symmetry", "up to rotation", "fixed", "seconds")
#: Where a figure's counts are still coming, or could not come.
PENDING, FAILED = -1, -2


@dataclass
class Row:
    path: Path
    counts: tuple[int, int, int] | None = None
    seconds: float | None = None
    error: str | None = None
    thumbnail: QImage | None = None

    def value(self, column: int):
        """What the column sorts by: counts as numbers, pending and failed below zero."""
        if column == 0:
            return self.path.name.lower()
        if column == 4:
            return self.seconds if self.seconds is not None else -1.0
        if self.counts is None:
            return FAILED if self.error else PENDING
        return self.counts[column - 1]


def isometric_thumbnail(cells: np.ndarray, size: int = THUMB) -> QImage:
    """Unit cubes drawn back to front in an isometric view: three shaded faces per cube, the
    far ones overdrawn by the near ones (a painter's algorithm needs no depth buffer)."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    if not len(cells):
        return image
    cells = np.asarray(cells, np.int64)
    ex, ey = np.array([0.866, 0.5]), np.array([-0.866, 0.5])
    ez = np.array([0.0, -1.0])

    def project(p) -> np.ndarray:
        return p[0] * ex + p[1] * ey + p[2] * ez

    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    points = np.array([project(c + k) for c in cells for k in corners])
    lo, hi = points.min(axis=0), points.max(axis=0)
    scale = (size - 6) / max(hi[0] - lo[0], hi[1] - lo[1], 1e-9)
    offset = (np.array([size, size]) - (hi - lo) * scale) / 2 - lo * scale

    def screen(p) -> QPointF:
        x, y = project(p) * scale + offset
        return QPointF(float(x), float(y))

    top, left, right = QColor(235, 200, 120), QColor(200, 150, 70), QColor(160, 110, 50)
    faces = (
        (top, [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]),
        (left, [(0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1)]),
        (right, [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)]),
    )
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(90, 60, 30))
    for cell in sorted(map(tuple, cells.tolist()), key=lambda c: (c[0] + c[1] + c[2], c[2])):
        for colour, quad in faces:
            painter.setBrush(colour)
            base = np.array(cell)
            painter.drawPolygon(QPolygonF([screen(base + np.array(q)) for q in quad]))
    painter.end()
    return image


class GalleryModel(QAbstractTableModel):
    """One row per file; the worker fills in counts and thumbnails as they come."""

    def __init__(self, paths: list[Path], parent=None) -> None:
        super().__init__(parent)
        self.rows = [Row(p) for p in paths]
        self._index = {str(p): k for k, p in enumerate(paths)}

    def rowCount(self, parent: QModelIndex | None = None) -> int:  # noqa: N802 (Qt's name)
        return 0 if parent is not None and parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | None = None) -> int:  # noqa: N802
        return len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return row.value(column)
        if role == Qt.ItemDataRole.DecorationRole and column == 0 and row.thumbnail:
            return QPixmap.fromImage(row.thumbnail)
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.error or str(row.path)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if column == 0:
            return row.path.stem
        if column == 4:
            return "" if row.seconds is None else f"{row.seconds:.3f}"
        if row.counts is None:
            return "error" if row.error else "…"
        return f"{row.counts[column - 1]:,}"

    def fill(self, path: str, counts, seconds, error, thumbnail) -> None:
        k = self._index.get(path)
        if k is None:
            return
        row = self.rows[k]
        row.counts, row.seconds, row.error = counts, seconds, error
        if thumbnail is not None:
            row.thumbnail = thumbnail
        self.dataChanged.emit(self.index(k, 0), self.index(k, len(COLUMNS) - 1))

    def path_at(self, row: int) -> Path:
        return self.rows[row].path


def count_batch(paths: list[Path], worker: Worker) -> None:
    """The batch as a `Worker` job: one report per file, as each finishes:
    (path, counts, seconds, error, thumbnail image)."""
    from tessera.solvers.polycube.batch import count_files, load_for_batch

    results = count_files(paths, mode="thread")
    try:
        for result in results:
            if worker.cancelled:
                break
            image = None
            if result.ok:
                try:
                    image = isometric_thumbnail(load_for_batch(result.file).target.cells)
                except Exception:  # a thumbnail is decoration: never lose the count
                    image = None
            counts = (
                (result.up_to_symmetry, result.up_to_rotation, result.fixed) if result.ok else None
            )
            worker.report((result.file, counts, result.seconds, result.error, image))
    finally:
        results.close()


class GalleryDialog(QDialog):
    """The folder's puzzles; `open_requested(path)` when one is clicked."""

    open_requested = Signal(str)
    finished_counting = Signal(int)  # how many files were answered

    def __init__(self, folder: str | Path, parent=None) -> None:
        super().__init__(parent)
        from tessera.solvers.polycube.batch import expand_paths

        self.folder = Path(folder)
        self.setWindowTitle(f"Puzzles in {self.folder.name or self.folder}")
        self.resize(640, 560)
        paths = expand_paths([self.folder])
        self.model = GalleryModel(paths, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.proxy.setFilterKeyColumn(0)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit(placeholderText="filter by name")
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setIconSize(self.table.iconSize().expandedTo(_thumb_size()))
        self.table.verticalHeader().setDefaultSectionSize(THUMB + 4)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.clicked.connect(self._clicked)
        self.status = QLabel()
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)
        self.answered = 0
        self.worker = Worker(lambda w: count_batch(paths, w), self)
        self.worker.progress.connect(self._counted)
        self.worker.ended.connect(self._done)
        self._show_status()
        self.worker.start()

    def _counted(self, answer: tuple) -> None:
        self.model.fill(*answer)
        self.answered += 1
        self._show_status()

    def _show_status(self) -> None:
        total = len(self.model.rows)
        bad = sum(1 for r in self.model.rows if r.error)
        text = f"counted {self.answered} of {total}"
        self.status.setText(text + (f", {bad} could not be read" if bad else ""))

    def _done(self) -> None:
        self.stop_button.setEnabled(False)
        self._show_status()
        self.finished_counting.emit(self.answered)

    def _clicked(self, index: QModelIndex) -> None:
        source = self.proxy.mapToSource(index)
        self.open_requested.emit(str(self.model.path_at(source.row())))

    def stop(self) -> None:
        self.worker.cancel()

    def done(self, result: int) -> None:  # closing the dialog stops the batch
        self.worker.cancel()
        self.worker.wait()
        super().done(result)

    def closeEvent(self, event) -> None:  # noqa: N802
        self.worker.cancel()
        self.worker.wait()
        super().closeEvent(event)


def _thumb_size():
    from PySide6.QtCore import QSize

    return QSize(THUMB, THUMB)
