"""The search's depth over time, under the step slider: where the search dives and backtracks.

A 12,000-event trace on a 240-pixel slider is 50 events a pixel; the mini-map draws, per pixel
column, the deepest and shallowest depth reached there, so dives, long backtracks and the
solutions (green ticks) show at a glance, with the current step as a line. A click or a drag
goes to that step. It paints from a `scenes.base.Timeline` only, and changes the state through
the callback it is given.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from tessera.viewer.scenes.base import Timeline

HEIGHT = 22
DEPTH_COLOR = QColor("#4f79b5")
SOLUTION_COLOR = QColor("#2ca02c")
CURSOR_COLOR = QColor("#d62728")


class DepthMap(QWidget):
    """Depth per event of the shown trace; hidden when there is no trace."""

    def __init__(self, go_to: Callable[[int], None], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("depth_map")
        self.go_to = go_to
        self.timeline: Timeline | None = None
        self.step = 0.0
        self.setFixedHeight(HEIGHT)
        self.setMinimumWidth(200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("search depth over the trace (green: solutions); click to go there")
        self._columns: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None

    def set_timeline(self, timeline: Timeline | None) -> None:
        self.timeline = timeline
        self._columns = None
        self.setVisible(timeline is not None and len(timeline.kinds) > 0)
        self.update()

    def set_step(self, step: float) -> None:
        self.step = step
        self.update()

    def columns(self, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per pixel column: (lowest depth, highest depth, has a solution) — cached per width."""
        if self._columns is not None and self._columns[0] == width:
            return self._columns[1:]
        t = self.timeline
        n = len(t.kinds)
        edges = np.linspace(0, n, width + 1).astype(int)
        edges[1:] = np.maximum(edges[1:], edges[:-1] + 1)  # each column at least one event
        edges = np.minimum(edges, n)
        starts = np.minimum(edges[:-1], n - 1)
        hi = np.maximum.reduceat(t.depths, starts)
        lo = np.minimum.reduceat(t.depths, starts)
        found = np.maximum.reduceat((t.kinds == Timeline.SOLUTION).astype(np.int8), starts) > 0
        self._columns = (width, lo, hi, found)
        return lo, hi, found

    def paintEvent(self, _event) -> None:
        if self.timeline is None or not len(self.timeline.kinds):
            return
        painter = QPainter(self)
        w, h = self.width(), self.height()
        painter.fillRect(self.rect(), self.palette().base())
        lo, hi, found = self.columns(w)
        top = max(int(self.timeline.depths.max()), 1)
        scale = (h - 3) / top
        painter.setPen(QPen(DEPTH_COLOR, 1))
        for x in range(w):  # depth grows downwards, as a search tree is drawn
            painter.drawLine(x, int(1 + lo[x] * scale), x, int(1 + hi[x] * scale))
        painter.setPen(QPen(SOLUTION_COLOR, 2))
        for x in np.flatnonzero(found):
            painter.drawLine(int(x), 0, int(x), h)
        n = len(self.timeline.kinds)
        x = self.step / n * (w - 1)
        painter.setPen(QPen(CURSOR_COLOR, 2))
        painter.drawLine(QRectF(x, 0, 0, h).topLeft(), QRectF(x, 0, 0, h).bottomLeft())
        painter.end()

    def step_at(self, x: float) -> int:
        n = len(self.timeline.kinds) if self.timeline is not None else 0
        return int(round(min(max(x / max(self.width() - 1, 1), 0.0), 1.0) * n))

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.timeline is not None:
            self.go_to(self.step_at(event.position().x()))

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self.timeline is not None:
            self.go_to(self.step_at(event.position().x()))
