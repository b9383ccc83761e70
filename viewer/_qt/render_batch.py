"""Coalesced renders: a burst of changes (a run of moves, a slider drag, a click that edits
several cubes) costs one frame, drawn once the event loop has nothing else queued.

The window and Design's editor share the one render widget and this one batching: each asks
`schedule()` after it changed actors, and whoever needs the frame now (a test, a screenshot, a
step of playback) calls `render_now()`, which also drops the pending one.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal


class RenderBatch(QObject):
    """One pending render of `plotter` at most; `rendered` after each frame drawn."""

    rendered = Signal()

    def __init__(self, plotter, parent=None) -> None:
        super().__init__(parent)
        self.plotter = plotter
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.render_now)
        self._closed = False

    def schedule(self) -> None:
        """Render once the current burst of changes is over."""
        if not self._timer.isActive() and not self._closed:
            self._timer.start()

    def render_now(self) -> None:
        self._timer.stop()
        if self._closed:  # the render window is gone: drawing now would crash VTK
            return
        # pieces moved since the camera was framed (Play table, explode, a grown shape):
        # nothing may be cut by the clipping planes
        self.plotter.renderer.ResetCameraClippingRange()
        self.plotter.render()
        self.rendered.emit()

    def cancel(self) -> None:
        """Drop the pending render (the widget goes to another mode)."""
        self._timer.stop()

    def close(self) -> None:
        """The window closes: drop the pending render and never draw again."""
        self._closed = True
        self._timer.stop()

    @property
    def pending(self) -> bool:
        return self._timer.isActive()
