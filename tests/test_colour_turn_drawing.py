"""A symmetric piece coloured asymmetrically (a domino with one red end) drawn as placed: two
solutions that fill the same cells with its colours the other way round are two solutions
(`Placement.colours`), so the scene must turn the piece as each one has it, not by its cells
alone. Checked on the scene (pure data: which colour lands on which cell) and on the pixels of
a headless render."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tessera.models.errors import NoSolution
from tessera.solvers.trace import EventKind, stack_at
from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes._surface import view_centres
from tessera.viewer.scenes.base import hex_rgb
from tessera.viewer.scenes.polycube import MAX_PIECE_ACTORS, placement_matrix

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RED, BLUE, GREEN = "#d62728", "#1f77b4", "#2ca02c"

# A row of three, its left cell red: the red-ended domino D fills cells 0-1 or 1-2 with its red
# end either way (nothing maps one onto the other), the plain cube M the cell left over.
ROW = f"""
kind = "polycube"
name = "row"
[colours]
allow = [[1, 1]]
palette = ["{RED}"]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
color = "{BLUE}"
voxel_colours = [[0,0,0,1]]
[pieces.M]
cells = [[0,0,0]]
color = "{GREEN}"
[target]
layers = [["###"]]
voxel_colours = [[0,0,0,1]]
"""


@pytest.fixture(scope="module")
def row(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("row")) / "row.toml"
    path.write_text(ROW)
    family = load(str(path))
    solutions = [family.solution(k) for k in range(4)]
    with pytest.raises(NoSolution, match="no solution 5"):
        family.solution(4)
    return family, solutions


def domino_of(solution):
    return next(p for p in solution.pieces if p.piece == 0)


def turned_pair(solutions):
    """Two solutions with the domino on cells 0-1, red end left in the first."""
    on_left = [s for s in solutions if domino_of(s).placement.cells == (0, 1)]
    return sorted(on_left, key=lambda s: domino_of(s).placement.colours, reverse=True)


def drawn_colours(family, scene, step) -> dict[tuple[int, int, int], set[tuple[int, ...]]]:
    """Per target cell, the colours of the faces the scene draws on it at `step`: each visible
    piece's mesh moved by its pose, each face given to the cell it bounds (a point a little
    inside from its centre, which a shared wall would leave halfway between two cells)."""
    grid = family.puzzle.grid
    cells = family.puzzle.target.cells
    centres = view_centres(grid, cells)
    pose = scene.pose(step)
    out: dict[tuple[int, int, int], set[tuple[int, ...]]] = {}
    for actor in scene.actors:
        if actor.role != "piece" or not pose[actor.key].visible:
            continue
        m = pose[actor.key].matrix
        inside = np.asarray(actor.mesh.cell_centers().points) - 0.25 * actor.mesh.cell_normals
        faces = inside @ m[:3, :3].T + m[:3, 3]
        if actor.rgb:
            colours = [tuple(int(v) for v in c) for c in actor.mesh.cell_data["rgb"]]
        else:
            colours = [hex_rgb(actor.color)] * len(faces)
        nearest = np.linalg.norm(faces[:, None, :] - centres[None], axis=-1).argmin(axis=1)
        for face, cell in enumerate(nearest):
            out.setdefault(tuple(cells[cell].tolist()), set()).add(colours[face])
    return out


def test_the_puzzle_has_solutions_that_differ_only_by_the_coloured_turn(row):
    family, solutions = row
    assert family.puzzle.pieces[0].colour_turns
    first, second = turned_pair(solutions)
    a, b = domino_of(first).placement, domino_of(second).placement
    assert a.cells == b.cells and (a.colours, b.colours) == ((1, 0), (0, 1))


def test_each_solution_draws_the_red_end_where_its_placement_has_it(row):
    family, solutions = row
    for solution in solutions:
        scene = build_scene(family, solution)
        drawn = drawn_colours(family, scene, scene.n_steps)
        domino = domino_of(solution)
        for cell, colour in zip(domino.cells.tolist(), domino.placement.colours, strict=True):
            assert drawn[tuple(cell)] == {hex_rgb(RED if colour else BLUE)}, solution


def test_two_turns_on_the_same_cells_look_different(row):
    family, solutions = row
    first, second = (build_scene(family, s) for s in turned_pair(solutions))
    left, middle = (0, 0, 0), (1, 0, 0)
    a = drawn_colours(family, first, first.n_steps)
    b = drawn_colours(family, second, second.n_steps)
    assert (a[left], a[middle]) == ({hex_rgb(RED)}, {hex_rgb(BLUE)})
    assert (b[left], b[middle]) == ({hex_rgb(BLUE)}, {hex_rgb(RED)})
    assert a[(2, 0, 0)] == b[(2, 0, 0)] == {hex_rgb(GREEN)}


def test_the_placement_matrix_follows_the_colours():
    own = np.array([[0, 0, 0], [1, 0, 0]])
    placed = np.array([[3, 1, 0], [4, 1, 0]])
    red_first = np.array([1, 0])
    for painted, red_at in (((1, 0), (3, 1, 0)), ((0, 1), (4, 1, 0))):
        m = placement_matrix(own, placed, colours=(red_first, painted))
        assert tuple(np.round(m[:3, :3] @ own[0] + m[:3, 3]).astype(int)) == red_at
    with pytest.raises(ValueError, match="not an image"):
        placement_matrix(own, placed, colours=(red_first, (1, 1)))


def test_the_search_scene_turns_each_placement_its_own_way(tmp_path):
    """The trace's placements on the stack, step by step, each drawn with its colours where
    the placement has them (the trace stops at the first solution: `long_row` forces both
    turns into it)."""
    path = tmp_path / "four.toml"
    path.write_text(long_row(4))
    family = load(str(path))
    trace = family.trace()
    problem = trace.decoder
    scene = build_scene(family, None, "search", trace)
    turns = set()
    for step in range(1, len(trace.events) + 1):
        drawn = drawn_colours(family, scene, step)
        for r in stack_at(trace.events, step):
            p = problem.placements[r]
            for cell, colour in zip(p.cells, p.colours, strict=True):
                where = tuple(family.puzzle.target.cells[cell].tolist())
                assert drawn[where] == {hex_rgb(RED if colour else BLUE)}, (step, p)
            turns.add(p.colours)
    assert turns == {(1, 0), (0, 1)}
    assert trace.events[-1].kind is EventKind.SOLUTION


def long_row(n: int) -> str:
    """n red-ended dominoes in a row of 2n cells; a cell of colour 2, which red may not fill,
    in each domino's span turns its red end: right in the first half, left in the second."""
    forbidden = [2 * i if i < n // 2 else 2 * i + 1 for i in range(n)]
    target_colours = ", ".join(f"[{x},0,0,2]" for x in forbidden)
    return f"""
kind = "polycube"
name = "long row"
[colours]
allow = [[1, 1]]
palette = ["{RED}", "#000000"]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
copies = {n}
color = "{BLUE}"
voxel_colours = [[0,0,0,1]]
[target]
layers = [["{"#" * (2 * n)}"]]
voxel_colours = [{target_colours}]
"""


def test_a_chunked_scene_turns_the_copies_by_their_colours(tmp_path):
    """Past `MAX_PIECE_ACTORS` copies the scene draws chunks of copies as one mesh, placed by
    the same matrices: every red end must still land where its placement has it."""
    n = MAX_PIECE_ACTORS + 1
    path = tmp_path / "long.toml"
    path.write_text(long_row(n))
    family = load(str(path))
    solution = family.solution(0)
    scene = build_scene(family, solution)
    assert not any(a.key.startswith("piece-") for a in scene.actors)  # drawn in chunks
    assert any(a.key.startswith("chunk-") and a.rgb for a in scene.actors)
    reds = {(2 * i + 1 if i < n // 2 else 2 * i, 0, 0) for i in range(n)}
    drawn = drawn_colours(family, scene, scene.n_steps)
    assert {cell for cell, colours in drawn.items() if hex_rgb(RED) in colours} == reds


def red_columns(image: np.ndarray) -> np.ndarray:
    """The x of every pixel whose hue is the red end's (shading changes brightness only)."""
    rgb = image[..., :3].astype(float) + 1
    want = np.array(hex_rgb(RED), float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    return np.nonzero(np.abs(chroma - want / want.sum()).max(axis=-1) < 0.06)[1]


def test_a_render_of_each_turn_shows_the_red_end_in_its_own_cell(row, tmp_path):
    family, solutions = row
    images = []
    for k, solution in enumerate(turned_pair(solutions)):
        scene = build_scene(family, solution)
        image = export.render_image(scene, scene.n_steps, (320, 240))
        export.save_png(tmp_path / f"turn{k}.png", image)
        images.append(image)
    first, second = images
    assert np.abs(first.astype(int) - second.astype(int)).max() > 100
    red_a, red_b = red_columns(first), red_columns(second)
    assert len(red_a) > 500 and len(red_b) > 500
    # the camera looks along the row: the left cell is drawn left of the middle one
    assert red_a.mean() + 40 < red_b.mean()
