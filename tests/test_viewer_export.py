"""Headless export, checked by its pixels and frame counts (the same scene code as the window)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest

from tessera.cli.main import main
from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.base import hex_rgb
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def soma():
    family = load(str(puzzle_file("soma")))
    return family, build_scene(family, family.solution(0))


def colour_mask(image: np.ndarray, color: str, tol: float = 0.06) -> np.ndarray:
    """Pixels whose chromaticity matches `color` (shading changes brightness, not hue)."""
    rgb = image[..., :3].astype(float) + 1
    want = np.array(hex_rgb(color), float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    return np.abs(chroma - want / want.sum()).max(axis=-1) < tol


def test_render_cli_png_shows_every_piece_colour(tmp_path, capsys, soma):
    family, _ = soma
    out = tmp_path / "soma.png"
    assert main(["render", str(puzzle_file("soma")), "--size", "320x240", "--out", str(out)]) == 0
    assert f"{out}: 320x240, step 7 of 7" in capsys.readouterr().out
    image = iio.imread(out)
    assert image.shape == (240, 320, 3)
    assert image.std() > 20  # not blank
    shown = [c for c in family.puzzle.colors() if colour_mask(image, c).sum() > 100]
    assert len(shown) >= 6, shown  # the assembled cube: one piece may hide inside


def test_the_moving_piece_is_where_the_scene_puts_it(soma):
    family, scene = soma
    plotter = export.open_plotter((320, 240))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, 1.0)
        key = next(k for k, p in scene.pose(1.0).items() if p.visible)
        color = renderer.specs[key].color
        centres = {}
        for step in (1.0, 0.4):  # landed, then part-way along its flight
            renderer.apply(step)
            plotter.render()
            image = plotter.screenshot(return_img=True)
            mask = colour_mask(image, color)
            assert mask.sum() > 200
            rows, cols = np.nonzero(mask)
            matrix = scene.pose(step)[key].matrix
            mesh_centre = renderer.specs[key].mesh.points.mean(axis=0)
            world = matrix[:3, :3] @ mesh_centre + matrix[:3, 3]
            expected = renderer.project(world)[0]
            seen = np.array([rows.mean(), cols.mean()])
            assert np.linalg.norm(seen - expected) < 25, (step, seen, expected)
            centres[step] = seen
        assert np.linalg.norm(centres[1.0] - centres[0.4]) > 20  # it really moved
    finally:
        plotter.close()


def test_transparent_background(tmp_path, soma):
    _, scene = soma
    image = export.render_image(scene, 7, (160, 120), transparent=True, supersample=2)
    assert image.shape == (120, 160, 4)
    assert image[0, 0, 3] == 0 and image[60, 80, 3] == 255


def test_each_step_shows_its_moving_piece_in_full_colour(soma):
    family, scene = soma
    colors = family.puzzle.colors()
    plotter = export.open_plotter((240, 180))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, 0)
        for step in range(1, scene.n_steps):
            renderer.apply(step)
            plotter.render()
            image = plotter.screenshot(return_img=True)
            poses = scene.pose(step)
            (active,) = [k for k, p in poses.items() if p.emphasis == "active"]
            color = colors[int(active.split("-")[1])]
            assert colour_mask(image, color, tol=0.03).sum() > 100, (step, color)
            for key, pose in poses.items():  # the others are dimmed: their colour is washed out
                if pose.visible and key != active:
                    assert colour_mask(image, renderer.specs[key].color, 0.03).sum() < 30
    finally:
        plotter.close()


def test_animate_gif_has_a_frame_per_glide_step(tmp_path, capsys):
    out = tmp_path / "soma.gif"
    args = ["animate", str(puzzle_file("soma")), "--frames-per-step", "2", "--size", "96x72"]
    assert main(args + ["--fps", "10", "--out", str(out)]) == 0
    assert "15 frames" in capsys.readouterr().out
    frames = iio.imread(out, index=None)
    assert frames.shape == (15, 72, 96, 3)
    assert not np.array_equal(frames[0], frames[-1])


def test_animate_mp4_search_trace_at_an_encoder_size(tmp_path, capsys):
    out = tmp_path / "search.mp4"
    name = str(puzzle_file("six-piece-cube"))
    assert main(["animate", name, "--mode", "search", "--size", "100x75", "--out", str(out)]) == 0
    family = load(name)
    scene = build_scene(family, None, "search", family.trace())
    # the last frame held a second: 12 more frames at 12 fps (an MP4's frame rate is fixed)
    expected = len(export.animation_steps(scene, "search")) + round(export.HOLD_SECONDS * 12)
    assert f"{expected} frames, 112x80" in capsys.readouterr().out
    reader = iio2.get_reader(out)
    try:
        assert reader.count_frames() == expected
        assert reader.get_meta_data()["size"] == (112, 80)
    finally:
        reader.close()


@pytest.mark.parametrize(
    "args, message",
    [
        (["render", "no-such-puzzle", "--out", "x.png"], "no built-in puzzle named"),
        (["render", "soma", "--step", "99", "--out", "x.png"], "step must lie between 0 and 7"),
        (["render", "soma", "--out", "x.jpg"], "x.jpg: unknown extension '.jpg'; the output must"),
        (["animate", "soma", "--out", "x.avi"], "the output must end in .gif or .mp4"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    args = [str(puzzle_file("soma")) if a == "soma" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_bad_size_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["render", "soma", "--size", "12", "--out", "x.png"])
    assert exit_info.value.code == 2
    assert "size must look like 800x600" in capsys.readouterr().err


def _blocked(tmp_path, how: str):
    """An output path that cannot be written, and the error (a missing or wrong folder is
    named itself: cli/output.py's one rule for every export)."""
    if how == "parent is a file":
        (tmp_path / "file").write_text("")
        return tmp_path / "file" / "x.png", f"{tmp_path / 'file'}: is not a folder"
    if how == "is a directory":
        (tmp_path / "x.png").mkdir()
        return tmp_path / "x.png", "{out}: cannot write: Is a directory"
    return (
        tmp_path / "missing" / "x.png",
        f"{tmp_path / 'missing'}: no such folder (create it first)",
    )


@pytest.mark.parametrize("command", ["render", "animate"])
@pytest.mark.parametrize("how", ["parent is a file", "is a directory", "parent is missing"])
def test_an_unwritable_output_is_one_line_before_any_rendering(
    tmp_path, capsys, monkeypatch, command, how
):
    out, error = _blocked(tmp_path, how)
    if command == "animate":
        out = out.with_suffix(".gif")
        if how == "is a directory":
            out.mkdir()

    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered before checking the output path")

    monkeypatch.setattr(export, "render_image", no_rendering)
    monkeypatch.setattr(export, "export_animation", no_rendering)
    assert main([command, str(puzzle_file("soma")), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err == "tessera: error: " + error.replace("{out}", str(out)) + "\n"
    assert captured.out == ""


def _unprivileged() -> list[str]:
    """A command prefix under which file permissions bind even for root."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("as root this needs setpriv")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]


@pytest.mark.parametrize("command", ["render", "animate"])
def test_a_read_only_folder_is_one_line_and_exit_2(tmp_path, command):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    out = folder / ("x.png" if command == "render" else "x.mp4")
    result = subprocess.run(
        [*_unprivileged(), sys.executable, "-m", "tessera", command, "soma", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    folder.chmod(0o755)
    assert result.returncode == 2
    assert result.stderr == f"tessera: error: {out}: cannot write: Permission denied\n"
    assert not list(folder.iterdir())


@pytest.mark.parametrize(
    ("command", "name", "reason"),
    [
        ("render", "picture", "has no extension; the output must end in .png"),
        ("render", "picture.jpeg", "unknown extension '.jpeg'; the output must end in .png"),
        ("animate", "movie", "has no extension; the output must end in .gif or .mp4"),
        ("animate", "movie.webm", "unknown extension '.webm'; the output must end in .gif or .mp4"),
    ],
)
def test_an_unknown_extension_is_refused_up_front(tmp_path, capsys, command, name, reason):
    out = tmp_path / name
    assert main([command, "no-such-puzzle", "--out", str(out)]) == 2  # before loading anything
    assert capsys.readouterr().err == f"tessera: error: {out}: {reason}\n"
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("display", [None, ":77"], ids=["no DISPLAY", "dead DISPLAY"])
def test_headless_render_leaves_stderr_empty(tmp_path, display):
    """No usable display: VTK goes straight to EGL, without the "bad X server" warning."""
    out = tmp_path / "x.png"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "VTK_DEFAULT_OPENGL_WINDOW")}
    if display:
        env["DISPLAY"] = display  # no X server there
    result = subprocess.run(
        [sys.executable, "-m", "tessera", "render", "soma", "--size", "160x120", "--out", str(out)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == f"{out}: 160x120, step 7 of 7\n"
    image = iio.imread(out)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # a real picture: many colours
    pieces = [c for c in load("soma").puzzle.colors() if colour_mask(image, c).sum() > 20]
    assert len(pieces) >= 5, pieces


def test_headless_animate_leaves_stderr_empty(tmp_path):
    out = tmp_path / "x.gif"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "VTK_DEFAULT_OPENGL_WINDOW")}
    argv = ["animate", "soma", "--size", "64x48", "--frames-per-step", "1", "--out", str(out)]
    result = subprocess.run(
        [sys.executable, "-m", "tessera", *argv],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    frames = iio.imread(out, index=None)
    assert frames.shape == (8, 48, 64, 3) and frames[-1].std() > 20


def test_cancelling_an_animation_keeps_the_previous_file(tmp_path, soma):
    _, scene = soma
    out = tmp_path / "soma.gif"
    out.write_bytes(b"previous")
    steps = export.animation_steps(scene, "solution", 1)
    frames = export.export_animation(scene, out, steps, size=(48, 36), on_frame=lambda i, n: i == 3)
    assert frames == 3
    assert out.read_bytes() == b"previous"
    assert [p.name for p in tmp_path.iterdir()] == ["soma.gif"]
