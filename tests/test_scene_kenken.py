"""KenKen scenes: the digit wheels as geometry, the fill order, the search, and real renders."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest

from tessera.cli.main import main
from tessera.solvers.kenken import candidates_at, choice_id, digits_of
from tessera.solvers.trace import EventKind, TraceEvent, stack_at
from tessera.viewer import export
from tessera.viewer.families import Trace, load
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.kenken import (
    DIGIT_HEIGHT,
    GLYPH_DEPTH,
    Wheel,
    cell_centre,
    flat_triangles,
)
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# A 9×9 Keen puzzle (made by solvers.kenken_generate, seed 3), as a game ID.
KEEN_9 = (
    "9dx:a_a3_aa_a_a__a_a__aba_aa_a__baa_3a3__bab_b_a__a__a_4a__ba_6b_5a_a__a_3aa_6aa__b,"
    "m12a7a19d2m30m63s7s3a16a16m90m24m336a24s2s2d4d2a16d3a7s6a14s3s2a7m108s4a22d2a3s3a19"
)


@pytest.fixture(scope="module")
def nyt():
    family = load(str(puzzle_file("nyt-4x4")))
    return family, family.solution(0)


def ink(image: np.ndarray) -> np.ndarray:
    """Digit pixels: clearly blue, even where thin strokes blend into the white board (the
    background's blue-grey gradient is much less blue)."""
    rgb = image[..., :3].astype(int)
    return rgb[..., 2] - rgb[..., 0] > 60


@pytest.mark.parametrize("n", range(3, 10))
def test_each_wheel_shows_one_digit_and_hides_the_rest(n):
    wheel = Wheel(n)
    mesh = wheel.mesh()
    sizes = [len(flat_triangles(str(d), DIGIT_HEIGHT)[0]) for d in range(1, n + 1)]
    block_depth = wheel.radius + wheel.outer
    centre = cell_centre(n, 0, 0)
    assert wheel.min_grow < 0.6  # a digit is seen growing for most of its step
    for digit in range(1, n + 1):
        for grow in (1.0, (1.0 + wheel.min_grow) / 2, wheel.min_grow):
            m = wheel.matrix(centre, digit, grow)
            points = mesh.points @ m[:3, :3].T + m[:3, 3]
            above = points[:, 2] > 0
            assert above.sum() == sizes[digit - 1], (digit, grow)  # that glyph and no other
            top = points[above]
            assert top[:, 2].min() > 0 and top[:, 2].max() <= GLYPH_DEPTH + 0.01
            assert np.abs(top[:, :2] - centre[:2]).max() < 0.5  # inside its cell
            assert points[:, 2].min() > -block_depth  # the rest stays inside the board block
            expected = np.arange(sizes[digit - 1]) + sum(sizes[: digit - 1])
            assert np.array_equal(np.nonzero(above)[0], expected)


def test_solution_fills_cells_one_by_one_cage_by_cage(nyt):
    family, grid = nyt
    puzzle = family.puzzle
    scene = build_scene(family, grid)
    assert scene.n_steps == 16
    order = [cell for cage in puzzle.cages for cell in cage.cells]
    for step in range(17):
        pose = scene.pose(step)
        shown = {k for k, p in pose.items() if k.startswith("digit-") and p.visible}
        assert shown == {f"digit-{r}-{c}" for r, c in order[:step]}
    mid = scene.pose(2.5)
    r, c = order[2]
    assert mid[f"digit-{r}-{c}"].emphasis == "active" and mid["cursor"].visible
    assert not scene.pose(16)["cursor"].visible
    assert scene.describe(1) == f"{grid[0][0]} in row 1, column 1 (cage 1−)"


def check_search_poses(family, trace) -> None:
    """At every step: the digits shown are the cells the search has one candidate left for."""
    events = trace.events
    scene = build_scene(family, None, "search", trace)
    n = family.puzzle.size
    assert scene.n_steps == len(events)
    for step in range(len(events) + 1):
        stack = stack_at(events, step)
        grid = digits_of(candidates_at(family.puzzle, events, step), n)
        pose = scene.pose(step)
        shown = {k for k, p in pose.items() if k.startswith("digit-") and p.visible}
        assert shown == {f"digit-{r}-{c}" for r in range(n) for c in range(n) if grid[r][c]}
        for r, c, _ in map(trace.decoder, stack):  # guesses in ink, the newest marked
            assert pose[f"digit-{r}-{c}"].emphasis in ("normal", "active")
        assert scene.depth(step) == len(stack)
    assert scene.describe(len(events)) == "solution found"


def test_search_replays_the_solvers_trace():
    family = load(KEEN_9)
    trace = family.trace()
    assert trace.events[-1].kind is EventKind.SOLUTION and not trace.truncated
    check_search_poses(family, trace)


def test_search_shows_guesses_and_backtracks(nyt):
    """A trace with a wrong guess taken back (the real solver may need none on this puzzle)."""
    family, grid = nyt
    real = family.trace()
    right = grid[1][1]
    wrong = next(d for d in range(1, 5) if d != right)
    events = [
        TraceEvent(EventKind.PLACE, choice_id(1, 1, wrong, 4), 0),
        TraceEvent(EventKind.REMOVE, choice_id(1, 1, wrong, 4), 0),
        TraceEvent(EventKind.PLACE, choice_id(1, 1, right, 4), 0),
        TraceEvent(EventKind.SOLUTION, -1, 1),
    ]
    trace = Trace(events, real.decoder, real.describe)
    check_search_poses(family, trace)
    scene = build_scene(family, None, "search", trace)
    guess = scene.pose(1)
    assert guess["digit-1-1"].emphasis == "active" and guess["cursor"].visible
    assert guess["digit-1-1"].matrix is not None
    assert scene.describe(1) == f"guess {wrong} in row 2, column 2"
    assert scene.describe(2) == f"backtrack: take back {wrong} in row 2, column 2"
    assert not scene.pose(2)["cursor"].visible and scene.depth(2) == 0
    # the wheel shows the digit guessed, then the right one
    wheel = Wheel(4)
    for step, digit in ((1, wrong), (3, right)):
        m = scene.pose(step)["digit-1-1"].matrix
        assert np.allclose(m, wheel.matrix(cell_centre(4, 1, 1), digit))


def test_render_shows_cages_digits_and_the_cell_being_filled(tmp_path, capsys, nyt):
    family, grid = nyt
    name = str(puzzle_file("nyt-4x4"))
    full, empty = tmp_path / "full.png", tmp_path / "empty.png"
    assert main(["render", name, "--size", "320x240", "--out", str(full)]) == 0
    assert main(["render", name, "--step", "0", "--size", "320x240", "--out", str(empty)]) == 0
    assert "step 16 of 16" in capsys.readouterr().out
    image, board = iio.imread(full), iio.imread(empty)
    cages = (board[..., :3].max(axis=-1) < 70).sum()
    assert cages > 800  # thick dark cage borders (and clues) on the empty board
    assert ink(image).sum() > 250 and ink(board).sum() < 5
    # one step at a time: the new digit appears in its own cell
    scene = build_scene(family, grid)
    order = [cell for cage in family.puzzle.cages for cell in cage.cells]
    plotter = export.open_plotter((320, 240))
    try:
        renderer = SceneRenderer(plotter)
        renderer.show(scene, 0)

        def ink_at(step: float) -> np.ndarray:
            renderer.apply(step)
            plotter.render()
            return ink(plotter.screenshot(return_img=True))

        cells = [(r, c) for r in range(4) for c in range(4)]
        centres = renderer.project(np.array([cell_centre(4, r, c) for r, c in cells]))
        for step in (1, 2, 7, 16):
            rows, cols = np.nonzero(ink_at(step) & ~ink_at(step - 1))
            assert len(rows) > 20, step
            # each new ink pixel's nearest cell; most are in the cell this step fills (a few
            # are the previous digit's edges, paler on the cursor's yellow than on white)
            pixels = np.column_stack([rows, cols])
            near = np.argmin(np.linalg.norm(pixels[:, None] - centres[None], axis=2), axis=1)
            nearest = cells[int(np.bincount(near).argmax())]
            assert nearest == order[step - 1], step
    finally:
        plotter.close()


def test_keen_id_renders_and_animates_its_search(tmp_path, capsys):
    out = tmp_path / "keen.png"
    assert main(["render", KEEN_9, "--size", "320x240", "--out", str(out)]) == 0
    assert "step 81 of 81" in capsys.readouterr().out
    assert ink(iio.imread(out)).sum() > 300
    gif = tmp_path / "search.gif"
    args = ["animate", "4:ab__aa_7a3_,s1a9s2s1a4a6s2a1", "--mode", "search"]
    assert main(args + ["--size", "64x48", "--out", str(gif)]) == 0
    assert "2 frames, 64x48" in capsys.readouterr().out  # no guess needed: start, solved
    assert iio.imread(gif, index=None).shape == (2, 48, 64, 3)
