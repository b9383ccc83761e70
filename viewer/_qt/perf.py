"""The window's 3D view on software OpenGL: one render per frame, no whole-window compositing,
and anti-aliasing only once things stop moving.

Measured with llvmpipe under Xvfb on 2 cores (Soma cube, 668×651 view; see
benchmarks/bench_viewer.py), pyvistaqt 0.13's `QtInteractor` as it comes spends a frame on:

- two VTK renders: `render()` draws into VTK's framebuffer, and the repaint it schedules
  (`paintGL`) draws the same scene again before blitting it (pyvistaqt always re-renders there,
  because pyvista can change a scene without asking for a repaint);
- Qt compositing the *whole* main window through OpenGL: a `QOpenGLWidget` switches its
  top-level window to GL composition, so every 3D frame re-composes the docks and toolbars too
  and swaps a 1200×760 buffer through Xvfb;
- FXAA, one more pass over the whole view (a 17 ms frame becomes 27 ms), and depth peeling
  (the hands-on viewer's ghosts), which with 6 peels costs five times the plain scene.

`ViewerInteractor` removes the first two and confines the last to the settled frame:

- a paint right after a finished render only blits the image VTK just made (any render, from
  `render()`, a mouse drag or a screenshot, marks the frame fresh; a resize never does);
- the widget gets its own native window, so Qt composes and swaps only the 3D view and the rest
  of the window stays on the plain raster path;
- frames drawn while something moves skip FXAA and blend translucent pieces with VTK's
  order-independent transparency instead of peeling (a mean difference of 4/255 on ghosts, a
  fifth of the cost); the still frame with both follows once nothing has rendered for
  `SETTLE_MS` (what ParaView calls interactive vs still renders).

pyvistaqt cannot hand VTK a native window in 0.13 (its `QVTKRenderWindowInteractor` became a
`QOpenGLWidget` for Wayland, pyvistaqt#445/#848), so these are done around it; on a version
without the private hooks used here the class behaves exactly like `QtInteractor`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from pyvistaqt import QtInteractor

#: How long nothing must render before the anti-aliased still frame is drawn. Longer than the
#: play timer's 33 ms and key auto-repeat (~30 ms), short enough to feel immediate.
SETTLE_MS = 200


class ViewerInteractor(QtInteractor):
    """A `QtInteractor` that draws each frame once, cheaply while moving, well when still.

    The quality settings (`enable_anti_aliasing("fxaa")`, `enable_depth_peeling()`) are set as
    on any plotter: they describe the still frame, and motion frames skip them for one render.

    `frames` counts VTK renders and `still_frames` the anti-aliased ones (for the benchmark and
    tests); `render_still()` draws the still frame now (screenshots want what a person sees at
    rest, not a motion frame).
    """

    def __init__(self, parent=None, **kwargs) -> None:
        super().__init__(parent, **kwargs)
        self._hooks = hasattr(self, "_in_paint") and hasattr(self, "_blit")
        self._fresh = False  # VTK's framebuffer holds a finished frame the widget has not shown
        self._still = False  # the frame being rendered is the settled, anti-aliased one
        self._suspended: list = []  # (renderer, fxaa, peeling, oit) this motion frame changed
        self.frames = 0
        self.still_frames = 0
        self.settle_timer = QTimer(self)
        self.settle_timer.setSingleShot(True)
        self.settle_timer.setInterval(SETTLE_MS)
        self.settle_timer.timeout.connect(self.render_still)
        if self._hooks:
            # A native child window keeps GL composition to this widget (see the module doc).
            self.setAttribute(Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
            self.setAttribute(Qt.WidgetAttribute.WA_NativeWindow)
        rw = self.ren_win
        self._perf_observers = [
            rw.AddObserver("StartEvent", self._on_render_start),
            rw.AddObserver("EndEvent", self._on_render_end),
        ]

    # -- motion frames and the still frame ----------------------------------------------------
    def _on_render_start(self, *_args) -> None:
        self.frames += 1
        if self._still:
            self.still_frames += 1
            return
        for renderer in self.renderers:
            saved = (renderer, renderer.GetUseFXAA(), renderer.GetUseDepthPeeling())
            if saved[1] or saved[2]:
                self._suspended.append((*saved, renderer.GetUseOIT()))
                renderer.SetUseFXAA(False)
                if saved[2]:  # translucent ghosts: blended order-independently until still
                    renderer.SetUseDepthPeeling(False)
                    renderer.SetUseOIT(True)

    def _on_render_end(self, *_args) -> None:
        suspended, self._suspended = self._suspended, []
        for renderer, fxaa, peeling, oit in suspended:
            renderer.SetUseFXAA(fxaa)
            renderer.SetUseDepthPeeling(peeling)
            renderer.SetUseOIT(oit)
        if not self._in_paint_now():
            self._fresh = True
        if suspended:  # something better exists for this picture: draw it once things settle
            self.settle_timer.start()

    def render_still(self) -> None:
        """Draw the settled (anti-aliased) frame now."""
        self.settle_timer.stop()
        if getattr(self, "_closed", True):
            return
        self._still = True
        try:
            self.render()
        finally:
            self._still = False

    @property
    def settled(self) -> bool:
        """Whether the picture on screen is the still frame (no still render pending)."""
        return not self.settle_timer.isActive()

    # -- one render per frame ----------------------------------------------------------------
    def _in_paint_now(self) -> bool:
        return bool(getattr(self, "_in_paint", False))

    def paintGL(self) -> None:
        fresh, self._fresh = self._fresh, False
        rw = self.ren_win
        dpr = self.devicePixelRatioF()
        size = (max(1, round(self.width() * dpr)), max(1, round(self.height() * dpr)))
        if not (fresh and self._hooks and rw is not None and tuple(rw.GetSize()) == size):
            # Qt asks for a picture (expose, resize, grab) with none ready: draw one, as good
            # as the last one was (a settled view stays anti-aliased in a window grab).
            self._still = self.settled
            try:
                super().paintGL()
            finally:
                self._still = False
            return
        # pyvistaqt's own re-entrancy guard: with it set, paintGL blits without rendering.
        self._in_paint = True
        try:
            super().paintGL()
        finally:
            self._in_paint = False

    def resizeGL(self, w: int, h: int) -> None:
        self._fresh = False
        super().resizeGL(w, h)

    # -- teardown ------------------------------------------------------------------------------
    def close(self) -> None:  # type: ignore[override]
        self.settle_timer.stop()
        rw = getattr(self, "ren_win", None)
        observers, self._perf_observers = getattr(self, "_perf_observers", []), []
        if rw is not None:
            for tag in observers:
                rw.RemoveObserver(tag)
        return super().close()
