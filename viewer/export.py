"""PNG, GIF and MP4 from a scene, off screen: the same scene code as the window, no display.

`tessera render` and `tessera animate` call these directly; the window's File ▸ Export menu
calls them too (with its current scene and camera), so a picture never depends on how it was
asked for. Supersampling renders k times larger and averages k×k blocks: it works the same on
every OpenGL (VTK's FXAA is missing from EGL/OSMesa builds).

Files are written atomically (`models/atomic.py`): a killed or cancelled export leaves the
previous file, or none, never half a video. With no usable X display the plotter renders through
EGL from the start (`use_egl_without_display`), so a headless run prints nothing on stderr.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from tessera.models.atomic import atomic_path
from tessera.viewer.inspect import Inspector, InspectState
from tessera.viewer.scenes.base import Scene

DEFAULT_SIZE = (800, 600)
MAX_SEARCH_FRAMES = 600  # a search trace longer than this is sampled, not shown event by event
HOLD_SECONDS = 1.0  # an animation rests on its last frame this long before it loops


@dataclass
class View:
    """How the window shows a scene, beyond the step: the camera, a parallel projection's
    scale, the inspector's choices (explode, hidden and ghosted pieces, the layer cut, the
    selection) and the theme. The window hands one to the exporter so a picture shows what
    the view shows; the command line passes none and gets the scene's own framing."""

    camera: Any = None  # pyvista camera_position: (position, focal point, up)
    parallel_scale: float | None = None  # set: parallel projection with this half height
    inspect: InspectState | None = None
    theme: str = "light"


def add_lights(plotter) -> None:
    """The light kit plus a soft headlight, so faces turned away are never murky."""
    import pyvista as pv

    plotter.add_light(pv.Light(light_type="headlight", intensity=0.35))


def _loads(library: str) -> ctypes.CDLL | None:
    """The shared library, or None where it is not installed (we then leave VTK to choose)."""
    try:
        return ctypes.CDLL(library)
    except OSError:
        return None


@cache
def x_display_usable() -> bool:
    """Whether $DISPLAY names an X server that accepts a connection (what VTK tries first)."""
    if not os.environ.get("DISPLAY"):
        return False
    xlib = _loads("libX11.so.6")
    if xlib is None:
        return False
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = xlib.XOpenDisplay(None)
    if not display:
        return False
    xlib.XCloseDisplay(display)
    return True


def use_egl_without_display() -> None:
    """Pick VTK's EGL render window when there is no usable X display.

    Left to itself VTK first tries X, and with DISPLAY unset or dead it logs a coloured "bad X
    server connection" warning on stderr before falling back, on every run. VTK reads
    VTK_DEFAULT_OPENGL_WINDOW each time it makes a render window, so setting it here (only when
    the user has not, and only if libEGL loads) is enough even after vtk was imported."""
    if "VTK_DEFAULT_OPENGL_WINDOW" in os.environ or x_display_usable():
        return
    if _loads("libEGL.so.1") is not None:
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"


def open_plotter(size: tuple[int, int], theme: str = "light"):
    """An off-screen plotter with the app's look (works with no display at all)."""
    import pyvista as pv

    use_egl_without_display()

    from tessera.viewer.render import style_plotter

    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    style_plotter(plotter, anti_aliasing=None, theme=theme)
    add_lights(plotter)
    return plotter


class _Shown:
    """A scene on an off-screen plotter, shown the way a `View` says: the renderer places
    the actors for a step, the inspector then explodes, hides, ghosts and cuts them exactly
    as the window's inspector does."""

    def __init__(self, plotter, scene: Scene, step: float, view: View | None) -> None:
        from tessera.viewer.render import SceneRenderer

        self.plotter = plotter
        self.view = view or View()
        self.renderer = SceneRenderer(plotter)
        self.renderer.show(scene, step)
        state = self.view.inspect
        self.inspector = Inspector(self.renderer, state.copy()) if state is not None else None
        self.aim()
        self.apply(step)

    def aim(self, points: np.ndarray | None = None) -> None:
        """The view's camera (else the scene's framing); with `points`, its direction kept
        but moved so that they all fit (an animation's pieces never leave the frame)."""
        plotter, view = self.plotter, self.view
        if view.camera is not None:
            plotter.camera_position = view.camera
        if view.parallel_scale is not None:
            plotter.camera.parallel_projection = True
            plotter.camera.parallel_scale = view.parallel_scale
        elif view.camera is not None:
            plotter.camera.parallel_projection = False
        if points is not None and len(points):
            camera = plotter.camera
            direction = np.subtract(camera.position, camera.focal_point)
            self.renderer.fit_points(points, direction, camera.up)
        plotter.renderer.ResetCameraClippingRange()

    def apply(self, step: float) -> None:
        self.renderer.apply(step)
        if self.inspector is not None:
            self.inspector.capture()

    def points_over(self, steps: Sequence[float]) -> np.ndarray:
        """The corners of every visible actor's box at every step (no rendering)."""
        parts = []
        for step in steps:
            self.apply(step)
            parts.append(self.renderer.visible_corners())
        return np.concatenate(parts) if parts else np.zeros((0, 3))


def _downsample(image: np.ndarray, k: int) -> np.ndarray:
    if k <= 1:
        return image
    h, w = image.shape[0] // k, image.shape[1] // k
    blocks = image[: h * k, : w * k].reshape(h, k, w, k, -1).astype(np.float32)
    return np.rint(blocks.mean(axis=(1, 3))).astype(np.uint8)


def render_image(
    scene: Scene,
    step: float,
    size: tuple[int, int] = DEFAULT_SIZE,
    transparent: bool = False,
    supersample: int = 2,
    camera=None,
    view: View | None = None,
) -> np.ndarray:
    """One still: (h, w, 3) uint8, or (h, w, 4) with a transparent background. `view` (or
    just `camera`) shows it as the window does."""
    if view is None and camera is not None:
        view = View(camera=camera)
    k = max(1, int(supersample))
    plotter = open_plotter((size[0] * k, size[1] * k), view.theme if view else "light")
    try:
        _Shown(plotter, scene, step, view)
        if transparent:  # a gradient is drawn opaque whatever the alpha
            plotter.set_background("white")
        plotter.render()
        image = plotter.screenshot(transparent_background=transparent, return_img=True)
    finally:
        plotter.close()
    return _downsample(np.asarray(image), k)


def save_png(path: str | Path, image: np.ndarray) -> None:
    """Write a PNG atomically (the previous file stays until the new one is complete)."""
    import imageio.v3 as iio

    with atomic_path(path) as tmp:
        iio.imwrite(str(tmp), image, extension=".png")


def animation_steps(scene: Scene, mode: str, frames_per_step: int = 8) -> list[float]:
    """The step of every frame: in-between frames glide pieces.

    No repeated frames here: the hold on the last frame is the writer's (a longer last frame
    in a GIF, repeated frames in an MP4, whose frame rate is fixed).
    """
    n = scene.n_steps
    if mode == "search":
        stride = max(1, -(-n // MAX_SEARCH_FRAMES))
        steps = [float(s) for s in range(0, n + 1, stride)]
        if steps[-1] != n:
            steps.append(float(n))
        return steps
    f = max(1, int(frames_per_step))
    return [i / f for i in range(n * f + 1)]


def encoder_size(path: str | Path, size: tuple[int, int]) -> tuple[int, int]:
    """MP4 (H.264, yuv420p) wants multiples of 16; GIF takes any size."""
    if Path(path).suffix.lower() == ".mp4":
        return tuple(max(16, (s + 15) // 16 * 16) for s in size)  # type: ignore[return-value]
    return size


def export_animation(
    scene: Scene,
    path: str | Path,
    steps: Sequence[float],
    fps: float = 12,
    size: tuple[int, int] = (640, 480),
    orbit_degrees: float = 0.0,
    supersample: int = 1,
    on_frame: Callable[[int, int], bool | None] | None = None,
    camera=None,
    view: View | None = None,
    hold_seconds: float = HOLD_SECONDS,
) -> int:
    """Write a GIF or MP4; returns the number of frames in the file.

    `on_frame(i, n)` is called after each frame; returning True cancels. The frames go to a
    temporary sibling that replaces `path` only when the animation is complete, so a cancel, an
    error, Ctrl-C or a kill leaves the previous file at `path` untouched (or none).
    `orbit_degrees` turns the camera that much over the whole animation. The camera keeps the
    view's (or the scene's) direction and frames everything visible over the whole animation,
    so a piece flying in never leaves the picture. The last frame is held `hold_seconds`: a
    longer last frame in a GIF (same frame count), repeated frames in an MP4.
    """
    if view is None and camera is not None:
        view = View(camera=camera)
    path = Path(path)
    if path.suffix.lower() not in (".gif", ".mp4"):
        raise ValueError(f"{path}: animations are .gif or .mp4")
    target = atomic_path(path)
    tmp = target.open()
    try:
        written, cancelled = _write_frames(
            scene, tmp, steps, fps, encoder_size(path, size), orbit_degrees, supersample,
            on_frame, view, hold_seconds,
        )  # fmt: skip
    except BaseException:
        target.discard()
        raise
    if cancelled:
        target.discard()
    else:
        target.commit()
    return written


def _open_writer(path: Path, fps: float, n_frames: int = 0, hold_seconds: float = 0.0):
    """An imageio writer for `path`, whose suffix (.gif or .mp4) picks the format; a GIF's
    last (n-th) frame lasts `hold_seconds` longer."""
    import imageio.v2 as iio2

    if path.suffix.lower() == ".gif":
        frame_ms = 1000.0 / fps
        duration: float | list[float] = frame_ms
        if n_frames and hold_seconds > 0:
            duration = [frame_ms] * (n_frames - 1) + [frame_ms + 1000.0 * hold_seconds]
        return iio2.get_writer(str(path), mode="I", duration=duration, loop=0)
    return iio2.get_writer(str(path), fps=fps, codec="libx264", quality=7, macro_block_size=16)


def _write_frames(
    scene: Scene,
    path: Path,
    steps: Sequence[float],
    fps: float,
    size: tuple[int, int],
    orbit_degrees: float,
    supersample: int,
    on_frame: Callable[[int, int], bool | None] | None,
    view: View | None,
    hold_seconds: float = 0.0,
) -> tuple[int, bool]:
    """Render and encode every frame into `path`: (frames written, cancelled)."""
    k = max(1, int(supersample))
    cancelled = False
    written = 0
    gif = path.suffix.lower() == ".gif"
    with ExitStack() as stack:  # closes the plotter, then the writer, whatever happens
        writer = _open_writer(path, fps, len(steps), hold_seconds)
        stack.callback(writer.close)
        plotter = open_plotter((size[0] * k, size[1] * k), view.theme if view else "light")
        stack.callback(plotter.close)
        shown = _Shown(plotter, scene, steps[0] if steps else 0.0, view)
        if not orbit_degrees:  # a turntable frames itself by the scene's bounds
            shown.aim(shown.points_over(steps))
        turn = orbit_degrees / max(len(steps) - 1, 1)
        frame = None
        for i, step in enumerate(steps):
            shown.apply(step)
            if i and turn:
                shown.renderer.orbit(turn)
            plotter.render()
            frame = _downsample(np.asarray(plotter.screenshot(return_img=True))[..., :3], k)
            writer.append_data(frame)
            written += 1
            if on_frame is not None and on_frame(i + 1, len(steps)):
                cancelled = True
                break
        if not cancelled and not gif and frame is not None:
            for _ in range(round(hold_seconds * fps)):  # an MP4's frame rate is fixed
                writer.append_data(frame)
                written += 1
    return written, cancelled
