"""PNG, GIF and MP4 from a scene, off screen: the same scene code as the window, no display.

`tessera render` and `tessera animate` call these directly; the window's File ▸ Export menu
calls them too (with its current scene and camera), so a picture never depends on how it was
asked for. Supersampling renders k times larger and averages k×k blocks: it works the same on
every OpenGL (VTK's FXAA is missing from EGL/OSMesa builds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tessera.viewer.scenes.base import Scene

DEFAULT_SIZE = (800, 600)
MAX_SEARCH_FRAMES = 600  # a search trace longer than this is sampled, not shown event by event


def add_lights(plotter) -> None:
    """The light kit plus a soft headlight, so faces turned away are never murky."""
    import pyvista as pv

    plotter.add_light(pv.Light(light_type="headlight", intensity=0.35))


def open_plotter(size: tuple[int, int]):
    """An off-screen plotter with the app's look (works with no display at all)."""
    import pyvista as pv

    from tessera.viewer.render import style_plotter

    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    style_plotter(plotter, anti_aliasing=None)
    add_lights(plotter)
    return plotter


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
) -> np.ndarray:
    """One still: (h, w, 3) uint8, or (h, w, 4) with a transparent background."""
    from tessera.viewer.render import SceneRenderer

    k = max(1, int(supersample))
    plotter = open_plotter((size[0] * k, size[1] * k))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, step)
        if camera is not None:
            plotter.camera_position = camera
            plotter.renderer.ResetCameraClippingRange()
        if transparent:  # a gradient is drawn opaque whatever the alpha
            plotter.set_background("white")
        plotter.render()
        image = plotter.screenshot(transparent_background=transparent, return_img=True)
    finally:
        plotter.close()
    return _downsample(np.asarray(image), k)


def save_png(path: str | Path, image: np.ndarray) -> None:
    import imageio.v3 as iio

    iio.imwrite(str(path), image)


def animation_steps(scene: Scene, mode: str, frames_per_step: int = 8) -> list[float]:
    """The step of every frame: in-between frames glide pieces.

    No repeated frames (a hold at the end): GIF writers merge identical frames, and a file
    whose frame count is not what was asked for is harder to check and to edit.
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
) -> int:
    """Write a GIF or MP4; returns the number of frames written.

    `on_frame(i, n)` is called after each frame; returning True cancels (the partial file is
    removed). `orbit_degrees` turns the camera that much over the whole animation.
    """
    import imageio.v2 as iio2

    from tessera.viewer.render import SceneRenderer

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"{path}: animations are .gif or .mp4")
    size = encoder_size(path, size)
    k = max(1, int(supersample))
    if suffix == ".gif":
        writer = iio2.get_writer(str(path), mode="I", duration=1000.0 / fps, loop=0)
    else:
        writer = iio2.get_writer(
            str(path), fps=fps, codec="libx264", quality=7, macro_block_size=16
        )
    plotter = open_plotter((size[0] * k, size[1] * k))
    cancelled = False
    written = 0
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, steps[0] if steps else 0.0)
        if camera is not None:
            plotter.camera_position = camera
        turn = orbit_degrees / max(len(steps) - 1, 1)
        for i, step in enumerate(steps):
            renderer.apply(step)
            if i and turn:
                renderer.orbit(turn)
            plotter.render()
            frame = plotter.screenshot(return_img=True)
            writer.append_data(_downsample(np.asarray(frame)[..., :3], k))
            written += 1
            if on_frame is not None and on_frame(i + 1, len(steps)):
                cancelled = True
                break
    finally:
        plotter.close()
        writer.close()
    if cancelled:
        path.unlink(missing_ok=True)
    return written
