"""Domino scenes: tiles, pips and marks as data, then real renders checked by their pixels."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest

from tessera.cli.main import main
from tessera.models.domino import ORIENTED
from tessera.models.domino_html import PAD, pip_positions
from tessera.solvers.trace import EventKind, stack_at
from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.base import hex_rgb
from tessera.viewer.scenes.domino import PIP, TILE_HEIGHT, cell_centre, tile_matrix, tile_mesh
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def double_six():
    family = load(str(puzzle_file("domino-double-six")))
    return family, family.solution(0)


def pip_centres(mesh, matrix: np.ndarray) -> np.ndarray:
    """World (x, y) centres of the pips of a tile mesh: its small dark bodies (not the bar)."""
    moved = mesh.transform(matrix, inplace=False)
    dark = np.nonzero(np.all(moved.cell_data["rgb"] == hex_rgb(PIP), axis=1))[0]
    centres = []
    for body in moved.extract_cells(dark).split_bodies():
        lo, hi = np.array(body.bounds[0::2]), np.array(body.bounds[1::2])
        if (hi - lo)[:2].max() < 0.2:
            centres.append(((lo + hi) / 2)[:2])
    return np.array(centres).reshape(-1, 2)


def test_tiles_have_real_pips_where_tatham_draws_them(double_six):
    family, solution = double_six
    puzzle = family.puzzle
    assert puzzle.oriented_pips
    checked = 0
    for pair in solution:
        matrix = tile_matrix(puzzle, pair)
        pips = pip_centres(tile_mesh(puzzle.tile_at(pair), puzzle.suits), matrix)
        assert len(pips) == sum(puzzle.numbers[r][c] for r, c in pair)
        for r, c in pair:
            n, mark = puzzle.numbers[r][c], puzzle.marks[r][c]
            centre = cell_centre((r, c))
            mine = pips[np.abs(pips - centre[:2]).max(axis=1) < 0.5]
            span = 1 - 2 * PAD
            # the face the web page draws for this cell (h or v), in world coordinates
            want = [(centre[0] + (u - 0.5) * span, centre[1] - (v - 0.5) * span)
                    for u, v in pip_positions(n, mark or "h")]  # fmt: skip
            assert len(mine) == n
            if n:
                got = sorted(map(tuple, np.round(mine, 3)))
                assert np.allclose(got, sorted(map(tuple, np.round(want, 3))), atol=2e-3)
            checked += n in ORIENTED
    assert checked > 5  # 2, 3 and 6 lie along or across as their marks say


def test_solution_lays_tiles_one_by_one(double_six):
    family, solution = double_six
    scene = build_scene(family, solution)
    assert scene.n_steps == len(solution) == 28
    for step in (0, 1, 14, 28):
        pose = scene.pose(step)
        assert sum(p.visible for k, p in pose.items() if k.startswith("tile-")) == step
    mid, laid = scene.pose(4.5), scene.pose(5)
    (key,) = [k for k, p in laid.items() if p.visible and k.startswith("tile-") and not
              scene.pose(4)[k].visible]  # fmt: skip
    assert mid[key].matrix[2, 3] > 0.5 and laid[key].matrix[2, 3] == 0  # dropping onto it
    assert np.allclose(mid[key].matrix[:2, :], laid[key].matrix[:2, :])
    assert mid["cursor"].visible and not scene.pose(28)["cursor"].visible
    assert scene.describe(5).startswith("tile ")


def test_search_replays_the_exact_cover_trace():
    family = load(str(puzzle_file("domino-dominosa-hard")))
    trace = family.trace()
    events = trace.events
    assert events[-1].kind is EventKind.SOLUTION
    removes = [i for i, e in enumerate(events) if e.kind is EventKind.REMOVE]
    assert removes
    scene = build_scene(family, None, "search", trace)
    assert scene.n_steps == len(events)
    for step in (0, 3, removes[0], removes[0] + 1, len(events)):
        stack = stack_at(events, step)
        pose = scene.pose(step)
        shown = {k for k, p in pose.items() if k.startswith("tile-") and p.visible}
        assert shown == {f"tile-{t[0]}-{t[1]}" for t in (trace.decoder.decode(r)[2] for r in stack)}
        assert scene.depth(step) == len(stack)
    assert scene.describe(removes[0] + 1).startswith("backtrack: remove tile")


def ivory(image: np.ndarray) -> np.ndarray:
    """Lit tile tops: bright and warm (the board's numbers are bright but cool)."""
    rgb = image[..., :3].astype(float)
    return (rgb.min(axis=-1) > 150) & (rgb[..., 0] - rgb[..., 2] > 12)


def dark_on_ivory(image: np.ndarray, reach: int = 4) -> np.ndarray:
    """Dark pixels with tile surface all round them: pips (and the tiles' middle bars)."""
    dark = image[..., :3].max(axis=-1) < 90
    light = ivory(image)
    around = np.ones_like(dark)
    for dr, dc in ((reach, 0), (-reach, 0), (0, reach), (0, -reach)):
        around &= np.roll(light, (dr, dc), axis=(0, 1))
    return dark & around


def test_render_shows_dark_pips_on_light_tiles(tmp_path, capsys):
    name = str(puzzle_file("domino-small"))
    out, empty = tmp_path / "tiles.png", tmp_path / "empty.png"
    assert main(["render", name, "--size", "400x300", "--out", str(out)]) == 0
    assert main(["render", name, "--step", "0", "--size", "400x300", "--out", str(empty)]) == 0
    assert "step 6 of 6" in capsys.readouterr().out
    image, board = iio.imread(out), iio.imread(empty)
    assert ivory(image).sum() > 5000 and ivory(board).sum() < 50
    assert dark_on_ivory(image, reach=8).sum() > 60  # top-down: pips ~14 px
    assert dark_on_ivory(board).sum() == 0
    felt = np.array(hex_rgb("#2f6b4f"), float)
    assert (np.abs(board[..., :3] - felt).max(axis=-1) < 60).sum() > 5000  # the board itself


def test_each_tile_lands_on_its_two_cells(double_six):
    family, solution = double_six
    scene = build_scene(family, solution)
    plotter = export.open_plotter((400, 300))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, 0)
        previous = None
        for step in (0, 1, 2, 3):
            renderer.apply(step)
            plotter.render()
            image = plotter.screenshot(return_img=True)
            mask = ivory(image)
            if step == 0:
                assert mask.sum() < 30
            else:
                new = mask & ~previous  # the tile that appeared in this step
                rows, cols = np.nonzero(new)
                assert len(rows) > 150, step
                key = next(k for k, p in scene.pose(step).items()
                           if k.startswith("tile-") and p.visible and
                           not scene.pose(step - 1)[k].visible)  # fmt: skip
                m = scene.pose(step)[key].matrix
                expected = renderer.project(m[:3, 3] + (0, 0, TILE_HEIGHT))[0]
                seen = np.array([rows.mean(), cols.mean()])
                assert np.linalg.norm(seen - expected) < 15, (step, seen, expected)
            previous = mask
    finally:
        plotter.close()


def test_dominosa_id_renders(tmp_path, capsys):
    out = tmp_path / "id.png"
    assert main(["render", "2:001200112122", "--size", "160x120", "--out", str(out)]) == 0
    assert "step 6 of 6" in capsys.readouterr().out
    assert dark_on_ivory(iio.imread(out), reach=4).sum() > 5
