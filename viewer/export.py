"""PNG, GIF and MP4 from a scene, off screen: the same scene code as the window, no display.

`tessera render` and `tessera animate` call these directly; the window's File ▸ Export menu
calls them too (with its current scene and camera), so a picture never depends on how it was
asked for. Supersampling renders k times larger and averages k×k blocks: it works the same on
every OpenGL (VTK's FXAA is missing from EGL/OSMesa builds).

Files are written atomically (`models/atomic.py`): a killed or cancelled export leaves the
previous file, or none, never half a video. With no usable X display the plotter renders through
EGL from the start (`use_egl_without_display`), so a headless run prints nothing on stderr.

Long animations stay small and quick by default: a solution glides in fewer frames per step as
it grows (`default_frames_per_step`, at most `MAX_ANIMATION_FRAMES` frames), and a GIF uses one
palette for all its frames (`_GifWriter`), so a frame stores only the pixels that changed (a
108-move disassembly, 640x480: 865 frames and 29.5 MB before, 325 frames and under 2 MB now).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tessera.models.atomic import atomic_path
from tessera.viewer import framing
from tessera.viewer.display import load_library, x_display_usable
from tessera.viewer.inspect import Inspector, InspectState
from tessera.viewer.scenes.base import Scene

DEFAULT_SIZE = (800, 600)
MAX_SEARCH_FRAMES = 600  # a search trace longer than this is sampled, not shown event by event
HOLD_SECONDS = 1.0  # an animation rests on its last frame this long before it loops
FRAMES_PER_STEP = 8  # a solution's glide per step, by default, while it fits the budget below
MAX_ANIMATION_FRAMES = 360  # default budget: a longer solution glides in fewer frames per step
PALETTE_SAMPLES = 9  # frames rendered ahead to choose a GIF's one palette


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
    #: True while the window frames itself (`viewer.framing`): the export then frames each
    #: picture the same way at its own size; False once the user orbited or zoomed: their
    #: camera is kept, widened for a narrower picture and pushed back only if a piece would
    #: be cut off.
    follow: bool = False
    aspect: float | None = None  # the window's width / height, when `camera` is its


def add_lights(plotter) -> None:
    """The light kit plus a soft headlight, so faces turned away are never murky."""
    import pyvista as pv

    plotter.add_light(pv.Light(light_type="headlight", intensity=0.35))


def use_egl_without_display() -> None:
    """Pick VTK's EGL render window when there is no usable X display.

    Left to itself VTK first tries X, and with DISPLAY unset or dead it logs a coloured "bad X
    server connection" warning on stderr before falling back, on every run. VTK reads
    VTK_DEFAULT_OPENGL_WINDOW each time it makes a render window, so setting it here (only when
    the user has not, and only if libEGL loads) is enough even after vtk was imported."""
    if "VTK_DEFAULT_OPENGL_WINDOW" in os.environ or x_display_usable():
        return
    if load_library("libEGL.so.1") is not None:
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
    as the window's inspector does, and the camera is the window's rule (`viewer.framing`)
    or the user's own camera."""

    def __init__(self, plotter, scene: Scene, step: float, view: View | None) -> None:
        from tessera.viewer.render import SceneRenderer

        self.plotter = plotter
        self.view = view or View()
        self.renderer = SceneRenderer(plotter)
        self.renderer.show(scene, step, frame=False)
        state = self.view.inspect
        self.inspector = None
        if state is not None:
            self.inspector = Inspector(self.renderer, state.copy())
            self.inspector.peel = False  # this plotter draws with MSAA (see Inspector.peel)
        self.apply(step)

    @property
    def framed(self) -> bool:
        """Whether this picture frames itself (no user camera to keep)."""
        return self.view.follow or self.view.camera is None

    def user_shot(self, points: np.ndarray) -> framing.Shot:
        """The user's camera, widened by as much as this picture is narrower than the window
        and pushed back if need be, so nothing the window showed (nor any of `points`) is cut
        off."""
        view = self.view
        position, focal, up = view.camera
        shot = framing.Shot(tuple(position), tuple(focal), tuple(up), view.parallel_scale)
        aspect = self.renderer.aspect
        if view.aspect and view.aspect > aspect:
            widen = view.aspect / aspect
            if shot.parallel_scale is not None:
                shot = framing.Shot(shot.position, shot.focal, shot.up, shot.parallel_scale * widen)
            else:
                back = np.asarray(focal) + shot.direction * shot.distance * widen
                shot = framing.Shot(tuple(back), shot.focal, shot.up)
        return framing.contain(shot, points, aspect)

    def aim(self) -> None:
        """The camera for the step shown."""
        if self.framed:
            self.renderer.frame_camera()
        else:
            self.renderer.aim(self.user_shot(self.renderer.visible_corners()))

    def apply(self, step: float) -> None:
        self.renderer.apply(step)
        if self.inspector is not None:
            self.inspector.capture()

    def points_at(self, steps: Sequence[float]) -> list[np.ndarray]:
        """What each frame draws: the corners of every visible actor's box (no rendering)."""
        parts = []
        for step in steps:
            self.apply(step)
            parts.append(self.renderer.visible_corners())
        return parts

    def shots(self, steps: Sequence[float], orbit_degrees: float = 0.0) -> list[framing.Shot]:
        """An animation's camera per frame: the window's rule eased across steps
        (`framing.glide`); a turntable turns the first frame's direction about the scene's up
        and fits each frame; the user's camera stays put, pushed back once for the whole
        animation if a piece would leave it."""
        scene, aspect = self.renderer.scene, self.renderer.aspect
        points = self.points_at(steps)
        hidden = self.inspector.state.hidden if self.inspector is not None else ()
        if orbit_degrees:
            self.apply(steps[0])
            first = self.renderer.shot() if self.framed else self.user_shot(points[0])
            turn = orbit_degrees / max(len(steps) - 1, 1)
            out = []
            for i, pts in enumerate(points):
                d = _turned(first.direction, np.asarray(scene.up, float), turn * i)
                out.append(framing.fit(pts, d, scene.up, aspect, parallel=scene.flat))
            return out
        if self.framed:
            return framing.glide(scene, steps, aspect, points, hidden=hidden)
        fixed = self.user_shot(np.concatenate(points) if points else np.zeros((0, 3)))
        return [fixed] * len(steps)


def _turned(direction: np.ndarray, axis: np.ndarray, degrees: float) -> np.ndarray:
    """`direction` turned about `axis` (Rodrigues)."""
    k = axis / np.linalg.norm(axis)
    a = np.radians(degrees)
    return (
        direction * np.cos(a)
        + np.cross(k, direction) * np.sin(a)
        + k * np.dot(k, direction) * (1 - np.cos(a))
    )


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
        _Shown(plotter, scene, step, view).aim()
        if transparent:  # a gradient is drawn opaque whatever the alpha
            plotter.set_background("white")
        with _ctrl_c_after_render():
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


def default_frames_per_step(n_steps: int) -> int:
    """Frames per step when none is asked for: `FRAMES_PER_STEP` (a smooth glide) while the
    solution fits `MAX_ANIMATION_FRAMES`, fewer as it grows, down to 1 (a 100-move disassembly
    takes 3 a step, about 300 frames, where 8 made 800 and minutes of rendering)."""
    return max(1, min(FRAMES_PER_STEP, MAX_ANIMATION_FRAMES // max(n_steps, 1)))


def animation_steps(scene: Scene, mode: str, frames_per_step: int | None = None) -> list[float]:
    """The step of every frame: in-between frames glide pieces, `frames_per_step` of them a
    step (None: `default_frames_per_step`).

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
    f = default_frames_per_step(n) if frames_per_step is None else max(1, int(frames_per_step))
    return [i / f for i in range(n * f + 1)]


def missing_encoder(path: str | Path) -> str | None:
    """What to install before `path` can be written, or None: an MP4 needs the ffmpeg that
    the imageio-ffmpeg package ships (a GIF needs nothing beyond Pillow)."""
    if Path(path).suffix.lower() != ".mp4":
        return None
    try:
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError):  # not installed, or installed without its binary
        return "pip install imageio-ffmpeg"
    return None


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
    `orbit_degrees` turns the camera that much over the whole animation. The camera is the
    window's (`_Shown.shots`): each frame framed on what it draws and eased across steps, or
    the user's own camera, pushed back once if a piece flying in would leave the picture. The
    last frame is held `hold_seconds`: a longer last frame in a GIF (same frame count),
    repeated frames in an MP4.
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


class _GifWriter:
    """A GIF with one palette for every frame, chosen from sample frames before the first.

    Per-frame palettes (imageio's way) make every pixel of every frame differ a little, so
    each frame is stored whole; with one palette the pixels that did not move map to the same
    colours, and Pillow stores only the box that changed: a disassembly GIF is several times
    smaller and encodes in a fraction of the time. Frames are kept as palette images (a third
    of RGB) and written at `close`, as Pillow writes GIFs; no dithering, whose noise would
    spread into the unchanged pixels."""

    def __init__(self, path: Path, durations: list[float]) -> None:
        self.path = path
        self.durations = durations
        self.palette = None
        self.frames: list = []

    def choose_palette(self, samples: Sequence[np.ndarray], colours: int = 256) -> None:
        from PIL import Image

        mosaic = Image.fromarray(np.concatenate([np.asarray(s) for s in samples], axis=0))
        self.palette = mosaic.quantize(colours, method=Image.Quantize.MEDIANCUT)

    def append_data(self, frame: np.ndarray) -> None:
        from PIL import Image

        image = Image.fromarray(np.ascontiguousarray(frame))
        if self.palette is None:
            self.choose_palette([frame])
        self.frames.append(image.quantize(palette=self.palette, dither=Image.Dither.NONE))

    def close(self) -> None:
        frames, self.frames = self.frames, []
        if not frames:
            return
        durations = (self.durations + self.durations[-1:] * len(frames))[: len(frames)]
        if len(frames) < len(self.durations):  # cancelled: no hold on a frame not the last
            durations[-1] = self.durations[0]
        frames[0].save(
            self.path,
            format="GIF",
            save_all=True,
            append_images=frames[1:],
            duration=durations if len(frames) > 1 else durations[0],
            loop=0,
        )


def _open_writer(path: Path, fps: float, n_frames: int = 0, hold_seconds: float = 0.0):
    """A writer for `path`, whose suffix (.gif or .mp4) picks the format; a GIF's last (n-th)
    frame lasts `hold_seconds` longer."""
    import imageio.v2 as iio2

    if path.suffix.lower() == ".gif":
        frame_ms = 1000.0 / fps
        durations = [frame_ms] * max(n_frames, 1)
        if hold_seconds > 0:
            durations[-1] += 1000.0 * hold_seconds
        return _GifWriter(path, durations)
    return iio2.get_writer(str(path), fps=fps, codec="libx264", quality=7, macro_block_size=16)


def _grab(plotter, k: int) -> np.ndarray:
    return _downsample(np.asarray(plotter.screenshot(return_img=True))[..., :3], k)


def _samples(plotter, shown: _Shown, steps: Sequence[float], shots, k: int) -> list[np.ndarray]:
    """A few frames spread over the animation (its first and last among them), rendered
    ahead: what a GIF's one palette is chosen from."""
    n = min(PALETTE_SAMPLES, len(steps))
    picks = sorted({round(i * (len(steps) - 1) / max(n - 1, 1)) for i in range(n)})
    frames = []
    for i in picks:
        shown.apply(steps[i])
        shown.renderer.aim(shots[i])
        with _ctrl_c_after_render():
            plotter.render()
            frames.append(_grab(plotter, k))
    return frames


@contextmanager
def _ctrl_c_after_render() -> Iterator[None]:
    """Hold a Ctrl-C that lands while VTK renders until the render is over, then raise it.

    The renderer's Python observers (`viewer.render.StaticMerge`) run inside VTK's render; a
    KeyboardInterrupt raised in one reaches VTK's wrapper, which prints "Caught a Ctrl-C
    within python" and exits 1, leaving the export's temporary file behind. Here the signal
    only marks itself, and the interrupt is raised in plain Python once the frame is done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # ignored, or not ours to change: nothing to hold
        yield
        return
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


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
        shots = shown.shots(steps, orbit_degrees) if steps else []
        if isinstance(writer, _GifWriter) and steps:
            writer.choose_palette(_samples(plotter, shown, steps, shots, k))
        frame = None
        for i, step in enumerate(steps):
            shown.apply(step)
            shown.renderer.aim(shots[i])
            with _ctrl_c_after_render():
                plotter.render()
                frame = _grab(plotter, k)
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
