"""Dice scenes: the geometry of orientations and strips as data, then real renders by pixels."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest

from tessera.cli.main import main
from tessera.models.dice import FRONT, ORIENTATIONS, RIGHT, SIDES, TOP, orient
from tessera.solvers.trace import EventKind, stack_at
from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.base import hex_rgb
from tessera.viewer.scenes.dice import NORMALS, VIEW, _Layout, die_mesh, orientation_matrix
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def insanity():
    family = load(str(puzzle_file("instant-insanity")))
    return family, family.solution(0)


def colour_mask(image: np.ndarray, color: str, tol: float = 0.05) -> np.ndarray:
    """Pixels whose chromaticity matches `color` (shading changes brightness, not hue)."""
    rgb = image[..., :3].astype(float) + 1
    want = np.array(hex_rgb(color), float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    return np.abs(chroma - want / want.sum()).max(axis=-1) < tol


def facing(mesh, matrix: np.ndarray, direction) -> tuple[int, int, int]:
    """The colour of the face of `mesh` (moved by `matrix`) that looks most along `direction`."""
    moved = mesh.transform(matrix, inplace=False)
    normals = moved.compute_normals(cell_normals=True, point_normals=False)["Normals"]
    best = int(np.argmax(normals @ np.asarray(direction, float)))
    return tuple(int(v) for v in moved.cell_data["rgb"][best])


def test_orientation_matrices_are_the_24_rotations_of_the_model():
    seen = set()
    for k, perm in enumerate(ORIENTATIONS):
        m = orientation_matrix(k)[:3, :3]
        assert np.allclose(m @ m.T, np.eye(3)) and round(np.linalg.det(m)) == 1
        for pos in range(6):  # face perm[pos] of the die ends up at position pos
            assert np.allclose(m @ NORMALS[perm[pos]], NORMALS[pos])
        seen.add(tuple(np.round(m).astype(int).ravel()))
    assert len(seen) == 24


def test_each_placed_die_shows_the_colours_of_its_orientation(insanity):
    family, stack = insanity
    puzzle = family.puzzle
    for d, (die, k) in enumerate(zip(puzzle.dice, stack, strict=True)):
        mesh = die_mesh(die, puzzle.colors)
        shown = orient(die, k)
        for pos in (TOP, FRONT, RIGHT):
            got = facing(mesh, orientation_matrix(k), NORMALS[pos])
            assert got == hex_rgb(puzzle.colors[shown[pos]]), (d, pos)


def test_side_strips_show_each_side_of_the_tower_facing_the_camera(insanity):
    family, stack = insanity
    puzzle = family.puzzle
    layout = _Layout(puzzle.n)
    toward = np.array([*VIEW[:2], 0.0])
    for i, side in enumerate(SIDES):
        column = []
        for d, (die, k) in enumerate(zip(puzzle.dice, stack, strict=True)):
            got = facing(die_mesh(die, puzzle.colors), layout.strip(i, d, k), toward)
            want = puzzle.colors[orient(die, k)[side]]
            assert got == hex_rgb(want), (i, d)
            column.append(want)
        assert len(set(column)) == puzzle.n  # a solution: every colour once on every side


def test_solution_drops_the_dice_bottom_first(insanity):
    family, stack = insanity
    scene = build_scene(family, stack)
    n = family.puzzle.n
    assert scene.n_steps == n
    for step in range(n + 1):
        pose = scene.pose(step)
        dice = [k for k, p in pose.items() if k.startswith("die-") and p.visible]
        strips = [k for k, p in pose.items() if k.startswith("strip-") and p.visible]
        assert sorted(dice) == [f"die-{d}" for d in range(step)]
        assert len(strips) == 4 * step
    mid, landed = scene.pose(2.5)["die-2"], scene.pose(3)["die-2"]
    assert mid.matrix[2, 3] > landed.matrix[2, 3] + 1  # still falling, above its level
    assert np.allclose(mid.matrix[:2, 3], landed.matrix[:2, 3])  # straight down
    assert landed.matrix[2, 3] == pytest.approx(2.5)
    assert not scene.pose(2.5)["strip-0-2"].visible  # its strip squares come when it lands
    assert scene.pose(2.5)["cursor"].visible and not scene.pose(n)["cursor"].visible
    assert "die 3 drops in" in scene.describe(2.5)


def test_search_replays_placements_and_backtracks():
    family = load(str(puzzle_file("dice-tantalizer")))
    trace = family.trace()
    events = trace.events
    assert events[-1].kind is EventKind.SOLUTION and not trace.truncated
    removes = [i for i, e in enumerate(events) if e.kind is EventKind.REMOVE]
    assert removes, "no backtracks to show"
    scene = build_scene(family, None, "search", trace)
    assert scene.n_steps == len(events)
    for step in (0, 1, removes[0], removes[0] + 1, len(events) // 2, len(events)):
        pose = scene.pose(step)
        stack = stack_at(events, step)
        visible = sorted(k for k, p in pose.items() if k.startswith("die-") and p.visible)
        assert visible == [f"die-{d}" for d in range(len(stack))] and scene.depth(step) == len(
            stack
        )
        for choice in stack:  # each die at its level, turned as the trace says
            d, k = trace.decoder(choice)
            assert np.allclose(pose[f"die-{d}"].matrix[:3, :3], orientation_matrix(k)[:3, :3])
    assert "backtrack: remove die" in scene.describe(removes[0] + 1)
    assert scene.describe(len(events)) == "solution found"


def test_render_shows_every_face_colour_and_the_falling_die(tmp_path, capsys, insanity):
    family, stack = insanity
    out = tmp_path / "dice.png"
    name = str(puzzle_file("instant-insanity"))
    assert main(["render", name, "--size", "320x240", "--out", str(out)]) == 0
    assert f"{out}: 320x240, step 4 of 4" in capsys.readouterr().out
    image = iio.imread(out)
    assert image.shape == (240, 320, 3) and image.std() > 20
    for name_, color in family.puzzle.colors.items():
        assert colour_mask(image, color).sum() > 300, name_  # tower and strips
    # mid-drop: the falling die is framed by the cursor where the scene puts it
    scene = build_scene(family, stack)
    plotter = export.open_plotter((320, 240))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, 2.5)
        plotter.render()
        image = plotter.screenshot(return_img=True)
        cursor = colour_mask(image, "#ff8c1a", tol=0.04)
        centre = scene.pose(2.5)["die-2"].matrix[:3, 3]
        row, col = renderer.project(centre)[0]
        rows, cols = np.nonzero(cursor)
        near = np.hypot(rows - row, cols - col) < 40  # the frame round the falling die
        assert near.sum() > 40 and rows[near].min() < row < rows[near].max()
        assert cols[near].min() < col < cols[near].max()
        assert (~near).sum() > 40  # and the frame round its (still empty) strip row
        # the middle of its top face shows the colour the stack puts on top of die 3
        top = renderer.project(centre + (0.0, 0.0, 0.47))[0].astype(int)
        spot = (slice(top[0] - 2, top[0] + 3), slice(top[1] - 2, top[1] + 3))
        top_colour = family.puzzle.colors[orient(family.puzzle.dice[2], stack[2])[TOP]]
        assert colour_mask(image[spot], top_colour).all()
        renderer.apply(3)  # landed: that spot in the air is empty again
        plotter.render()
        landed = plotter.screenshot(return_img=True)
        assert not colour_mask(landed[spot], top_colour).any()
        renderer.apply(4)
        plotter.render()
        assert colour_mask(plotter.screenshot(return_img=True), "#ff8c1a", 0.04).sum() < 10
    finally:
        plotter.close()


def test_animate_search_gif(tmp_path, capsys):
    out = tmp_path / "search.gif"
    name = str(puzzle_file("instant-insanity"))
    assert main(["animate", name, "--mode", "search", "--size", "96x72", "--out", str(out)]) == 0
    assert "16 frames, 96x72" in capsys.readouterr().out  # 15 events + the start
    frames = iio.imread(out, index=None)
    assert frames.shape == (16, 72, 96, 3)
    assert not np.array_equal(frames[0], frames[-1])
