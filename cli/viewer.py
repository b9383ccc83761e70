"""`tessera view`, `tessera render`, `tessera animate`: the window and its headless exports.

`render` and `animate` never touch Qt: they build the same scene the window shows and draw it
with an off-screen PyVista plotter, so they work over SSH and in CI without a display.

The output path is checked before any rendering (extension, folder, permission: one line and
exit 2), and the file is written atomically, so a failed or killed run never leaves half a
picture or video at the path.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from tessera._numba_cache import quiet_render_caches
from tessera.cli.output import check_writable, writing
from tessera.models.errors import PuzzleError

#: Bounds on what an export may ask for, so a typo cannot take minutes and gigabytes (each
#: measured here with software OpenGL: about 70 bytes of memory per pixel drawn, on top of
#: about 0.35 GB; 1920x1080 with --supersample 2 is 8.3 million pixels, 0.95 GB, 4 s).
MAX_SIDE = 4096
MAX_RENDER_PIXELS = 8_500_000  # width × height × supersample², what the plotter draws
MAX_SUPERSAMPLE = 8
MAX_FRAMES_PER_STEP = 240
MAX_FRAMES = 3000
MAX_FRAME_PIXELS = 1920 * 1080  # one animation frame
MAX_GIF_BYTES = 400_000_000  # a GIF's frames are kept (one byte a pixel) until it is written

#: Qt platform plugins that need a display server (X: $DISPLAY, Wayland: $WAYLAND_DISPLAY).
_DISPLAY_PLUGINS = ("xcb", "wayland", "wayland-egl")


def no_display_reason() -> str | None:
    """Why a Qt window cannot open here, or None when it can (or we cannot tell).

    Only Linux and the BSDs need a display server. Qt then picks the plugin named by
    QT_QPA_PLATFORM (a ';'-separated list, tried in order), else Wayland or X: with none of
    their variables set, or an X display that refuses the connection, Qt aborts the process
    (SIGABRT) instead of raising, so the command has to ask first."""
    if sys.platform in ("win32", "darwin"):
        return None
    wanted = os.environ.get("QT_QPA_PLATFORM", "").strip()
    plugins = [p.split(":", 1)[0].strip() for p in wanted.split(";") if p.strip()]
    if not plugins:
        plugins = ["wayland", "xcb"]
    if any(p not in _DISPLAY_PLUGINS for p in plugins):
        return None  # offscreen, vnc, eglfs...: no display server needed
    if any(p.startswith("wayland") for p in plugins) and os.environ.get("WAYLAND_DISPLAY"):
        return None
    if "xcb" in plugins:
        display = os.environ.get("DISPLAY")
        if not display:
            return "DISPLAY is not set"
        from tessera.viewer.display import x_display_usable

        if not x_display_usable():
            return f"cannot connect to the X display {display!r}"
        return None
    return "WAYLAND_DISPLAY is not set"


def check_display(command: str) -> None:
    """Refuse to open a window where there is no display, in one line that says what to do
    instead (exit 2), before Qt is imported."""
    reason = no_display_reason()
    if reason:
        raise PuzzleError(
            f"no display to open a window on ({reason}); export headless with "
            f"'tessera render' / 'tessera animate', or run under 'xvfb-run tessera {command} ...'"
        )


def _size(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text)
    if not m or not (16 <= int(m.group(1)) <= MAX_SIDE and 16 <= int(m.group(2)) <= MAX_SIDE):
        raise argparse.ArgumentTypeError(
            f"size must look like 800x600 (16..{MAX_SIDE}), not {text!r}"
        )
    return int(m.group(1)), int(m.group(2))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number ≥ 1, not {text!r}")
    return value


def _at_most(limit: int):
    """A whole number from 1 to `limit` (an argparse type)."""

    def parse(text: str) -> int:
        value = _positive(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit}, not {text!r}")
        return value

    return parse


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 120:
        raise argparse.ArgumentTypeError(f"fps must be between 0 and 120, not {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    """Add the viewer's subcommands."""
    view = sub.add_parser("view", help="open the window (the default with no arguments)")
    view.add_argument("puzzle", nargs="?", help="file, built-in name or game ID (default: soma)")
    view.add_argument("--solution", type=_positive, default=1, metavar="K", help="solution K")
    view.add_argument("--step", type=float, default=None, metavar="S", help="step S")
    view.add_argument(
        "--mode", choices=("solution", "search"), default="solution", help="what steps show"
    )
    view.add_argument(
        "--screenshot", metavar="FILE.png", help="open, go there, save a grab of the window, quit"
    )
    view.set_defaults(func=cmd_view)

    render = sub.add_parser("render", help="draw one step of a solution to a PNG, off screen")
    render.add_argument("puzzle", help="file, built-in name or game ID")
    render.add_argument("--solution", type=_positive, default=1, metavar="K", help="default 1")
    render.add_argument(
        "--step", type=float, default=None, metavar="S",
        help="step S (default: the last; a fraction shows a piece part-way in)",
    )  # fmt: skip
    render.add_argument("--size", type=_size, default=(800, 600), metavar="WxH")
    render.add_argument("--transparent", action="store_true", help="transparent background")
    render.add_argument(
        "--supersample",
        type=_at_most(MAX_SUPERSAMPLE),
        default=2,
        metavar="N",
        help=f"anti-aliasing (default 2, at most {MAX_SUPERSAMPLE})",
    )
    render.add_argument("--out", required=True, metavar="FILE.png")
    render.set_defaults(func=cmd_render)

    animate = sub.add_parser("animate", help="a GIF or MP4 of a solution or a search, off screen")
    animate.add_argument("puzzle", help="file, built-in name or game ID")
    animate.add_argument("--solution", type=_positive, default=1, metavar="K", help="default 1")
    animate.add_argument("--mode", choices=("solution", "search"), default="solution")
    animate.add_argument("--fps", type=_fps, default=12.0, metavar="F", help="default 12")
    animate.add_argument(
        "--frames-per-step",
        type=_at_most(MAX_FRAMES_PER_STEP),
        default=None,
        metavar="N",
        help="glide frames per step (default 8, fewer for a long solution: at most about "
        "360 frames in all)",
    )
    animate.add_argument("--size", type=_size, default=(640, 480), metavar="WxH")
    animate.add_argument(
        "--orbit", type=float, default=0.0, metavar="DEG", help="turn the camera DEG degrees"
    )
    animate.add_argument("--out", required=True, metavar="FILE.gif|FILE.mp4")
    animate.set_defaults(func=cmd_animate)


def _scene(args: argparse.Namespace, mode: str):
    from tessera.viewer.families import load
    from tessera.viewer.scenes import build_scene

    family = load(args.puzzle)
    if mode == "search":
        return family, build_scene(family, None, "search", family.trace())
    solution = family.solution(args.solution - 1)
    note = getattr(solution, "not_analysed", "")
    if note:  # shown as assembled, and said so (more pieces than the movement analysis takes)
        print(f"tessera: {note}", file=sys.stderr)
    return family, build_scene(family, solution, "solution")


def _check_out(out: str, suffixes: tuple[str, ...]) -> Path:
    """The output path, refused up front when its extension is not one we write or it cannot
    be written at all (the render may take minutes; the typo should not)."""
    path = Path(out)
    wanted = " or ".join(suffixes)
    if not path.suffix:
        raise PuzzleError(f"has no extension; the output must end in {wanted}", out)
    if path.suffix.lower() not in suffixes:
        raise PuzzleError(
            f"unknown extension {path.suffix!r}; the output must end in {wanted}", out
        )
    check_writable(path)
    return path


def cmd_render(args: argparse.Namespace) -> int:
    quiet_render_caches()
    from tessera.viewer.export import render_image, save_png

    out = _check_out(args.out, (".png",))
    (w, h), n = args.size, args.supersample
    if w * h * n * n > MAX_RENDER_PIXELS:
        raise PuzzleError(
            f"{w}x{h} with --supersample {n} draws {w * h * n * n:,} pixels; the limit is "
            f"{MAX_RENDER_PIXELS:,} (a smaller --size or --supersample)",
            args.out,
        )
    _, scene = _scene(args, "solution")
    step = scene.n_steps if args.step is None else args.step
    if not 0 <= step <= scene.n_steps:
        raise PuzzleError(f"step must lie between 0 and {scene.n_steps}, not {step:g}", args.out)
    image = render_image(scene, step, args.size, args.transparent, args.supersample)
    with writing(out):
        save_png(out, image)
    print(f"{out}: {image.shape[1]}x{image.shape[0]}, step {step:g} of {scene.n_steps}")
    return 0


def cmd_animate(args: argparse.Namespace) -> int:
    quiet_render_caches()
    from tessera.cli.progress import ProgressBar
    from tessera.viewer.export import (
        animation_steps,
        encoder_size,
        export_animation,
        missing_encoder,
    )

    out = _check_out(args.out, (".gif", ".mp4"))
    install = missing_encoder(out)
    if install:
        raise PuzzleError(f"writing {out.suffix.lower()} needs ffmpeg: {install}", out)
    w, h = args.size
    if w * h > MAX_FRAME_PIXELS:
        raise PuzzleError(
            f"{w}x{h} is {w * h:,} pixels a frame; an animation's limit is {MAX_FRAME_PIXELS:,} "
            "(1920x1080)",
            args.out,
        )
    _, scene = _scene(args, args.mode)
    _check_frame_count(scene, args, out)
    steps = animation_steps(scene, args.mode, args.frames_per_step)
    bar = ProgressBar("animate")

    def on_frame(i: int, n: int) -> None:
        bar.update(i / n, f"frame {i}/{n}")

    try:
        with writing(out):
            frames = export_animation(
                scene, out, steps, args.fps, args.size, args.orbit, on_frame=on_frame
            )
    finally:
        bar.close()
    w, h = encoder_size(out, args.size)
    print(f"{out}: {frames} frames, {w}x{h}, {args.fps:g} fps, {args.mode} of {scene.n_steps}")
    return 0


def _check_frame_count(scene, args: argparse.Namespace, out: Path) -> None:
    """Refuse an animation past the frame bounds before a single frame (or the list of their
    steps) is made."""
    from tessera.viewer.export import default_frames_per_step

    if args.mode != "solution":
        return  # a search is sampled down to a bounded number of frames
    per_step = args.frames_per_step or default_frames_per_step(scene.n_steps)
    frames = scene.n_steps * per_step + 1
    w, h = args.size
    if frames > MAX_FRAMES:
        raise PuzzleError(
            f"{scene.n_steps} steps × {per_step} frames per step is {frames:,} frames; the "
            f"limit is {MAX_FRAMES:,} (a smaller --frames-per-step)",
            out,
        )
    if out.suffix.lower() == ".gif" and frames * w * h > MAX_GIF_BYTES:
        raise PuzzleError(
            f"{frames:,} frames of {w}x{h} is too big for a GIF (the limit is "
            f"{MAX_GIF_BYTES // 1_000_000:,} MB of frames): a smaller --size, fewer frames, "
            "or .mp4",
            out,
        )


def cmd_view(args: argparse.Namespace) -> int:
    if args.screenshot:
        check_writable(args.screenshot)
    check_display("view")
    quiet_render_caches()
    from tessera.viewer._qt.app import run

    return run(
        args.puzzle or "soma",
        solution=args.solution - 1,
        step=args.step,
        mode=args.mode,
        screenshot=args.screenshot,
        argv=sys.argv[:1],
    )
