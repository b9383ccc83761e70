"""BurrTools' five grids behind one interface: geometry that tiles space, orientations and
symmetry that stay on the lattice, and BurrTools' own example files counted as burrTxt counts
them (`../shared/conformance/burrtools-grids/README.md`)."""

from __future__ import annotations

import itertools
import tomllib

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.grids import GRIDS, PRISMS, RHOMBIC, SPHERES, TETRA_OCTA, grid_named
from tessera.solvers.polycube.symmetry import TargetGroup, count_solutions
from tests._paths import CONFORMANCE, FIXTURES, needs_conformance

pytestmark = pytest.mark.timeout(300)

IDS = [g.name for g in GRIDS]


def _cells_in_box(grid, size: int = 10) -> np.ndarray:
    box = np.array(list(itertools.product(range(size), repeat=3)), np.int64)
    return box[grid.valid(box)]


@pytest.mark.parametrize("grid", GRIDS, ids=IDS)
def test_every_transform_lands_on_cells_and_keeps_distances(grid):
    cells = _cells_in_box(grid)[::7][:12]
    images, ok = grid.transform_all(cells, mirrors=True)
    assert len(images) == 2 * grid.n_rotations and ok[0]
    before = grid.centres(cells)
    gaps = np.linalg.norm(before[:, None] - before[None], axis=2)
    for image in images[ok]:
        assert grid.valid(image).all()
        after = grid.centres(image)
        assert np.allclose(np.linalg.norm(after[:, None] - after[None], axis=2), gaps)


@pytest.mark.parametrize("grid", [g for g in GRIDS if g is not SPHERES], ids=lambda g: g.name)
def test_solids_tile_space_with_outward_faces(grid):
    """Over whole lattice cells, the solids' volumes add up to the space they span, and each
    face turns outwards (STL needs both)."""
    cells = _cells_in_box(grid, 10 if grid is RHOMBIC else 6)
    volume = 0.0
    for cell in cells:
        vertices, faces = grid.solid(cell)
        centre = vertices.mean(axis=0)
        for face in faces:
            p = vertices[list(face)]
            normal = np.cross(p[1] - p[0], p[2] - p[0])
            assert normal @ (p[0] - centre) > 0
            for k in range(1, len(face) - 1):
                volume += np.dot(p[0], np.cross(p[k], p[k + 1])) / 6
    lo = grid.centres(cells).min(axis=0)
    span = {"cubes": 6**3, "prisms": 3 * (6 * np.sqrt(0.75)) * 6, "rhombic": 2**3,
            "tetra-octa": 2**3}[grid.name]  # fmt: skip
    assert lo.min() >= 0
    assert volume == pytest.approx(span, rel=1e-9)


def test_one_cell_orientations_are_its_kinds():
    """One prism points up or down; a rhombic cell is one of a cube's 24 tetrahedra; a ball is
    a ball: the orientations of one cell are the kinds of cell the rotations reach."""
    assert len(PRISMS.orientations([[0, 0, 0]])) == 2
    assert len(RHOMBIC.orientations([[2, 1, 0]])) == 24
    assert len(SPHERES.orientations([[0, 0, 0]])) == 1
    assert len(TETRA_OCTA.orientations([[1, 1, 1]])) == 2  # the big tetrahedron, two ways


def test_a_flat_sphere_piece_turns_within_a_hexagonal_layer():
    """Balls on one hexagonal layer (x - y - z = 0) also take the sixth-turns about that
    layer's axis, which the cube's 24 turns lack; four balls in a tetrahedron take none."""
    flat = [[0, 0, 0], [1, 1, 0], [2, 2, 0], [2, 1, 1]]
    _, ok = SPHERES.transform_all(flat)
    assert ok[:24].all() and ok.sum() > 24
    _, ok = SPHERES.transform_all([[0, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]])
    assert ok.sum() == 24


def test_prism_translations_keep_the_triangles_pointing_the_same_way():
    assert PRISMS.is_translation([[2, 0, 0], [1, 1, 5], [0, 0, -3]]).all()
    assert not PRISMS.is_translation([[1, 0, 0], [0, 1, 0]]).any()
    assert TETRA_OCTA.is_translation([[3, 3, 0], [6, 0, 0]]).all()
    assert not TETRA_OCTA.is_translation([[3, 0, 0], [1, 1, 1]]).any()


def test_grids_are_named_as_files_name_them():
    assert [grid_named(g.name) for g in GRIDS] == list(GRIDS)
    with pytest.raises(KeyError, match="spheres"):
        grid_named("hexagons")


#: (file, problem, assemblies) from burrTxt 0.7.1, as the conformance README lists them
BURRTXT = [
    ("Bermuda.xmpuzzle", 1, 1),
    ("BallRoom.xmpuzzle", 1, 2),
    ("BallRoom.xmpuzzle", 2, 1),
    ("BallRoom.xmpuzzle", 3, 3),
    ("12PieceSeparation.xmpuzzle", 1, 1),
    ("FourPieceTetrahedron.xmpuzzle", 1, 1),
]


@needs_conformance
@pytest.mark.parametrize(("name", "problem", "assemblies"), BURRTXT)
def test_burrtools_examples_on_every_grid_count_as_burrtxt(name, problem, assemblies):
    path = CONFORMANCE / "burrtools-grids" / name
    puzzle = load_xmpuzzle(path, problem)
    assert not puzzle.grid.is_cubic
    counts = count_solutions(puzzle)
    assert counts.up_to_symmetry == assemblies
    # the group really is the figure's: every element maps the target's cells onto them
    group = TargetGroup(puzzle)
    for maps in group.cell_maps:
        assert sorted(maps.tolist()) == list(range(len(puzzle.target.cells)))


ORACLE = sorted((FIXTURES / "burrtools_grids").glob("*.xmpuzzle"))


@pytest.mark.parametrize("path", ORACLE, ids=[p.stem for p in ORACLE])
def test_generated_cases_count_as_burrtxt(path):
    """40 random problems on the four grids (tests/fixtures/burrtools_grids/generate.py),
    each with burrTxt 0.7.1's assembly count recorded beside it."""
    expected = tomllib.loads(path.with_suffix(".toml").read_text(encoding="utf-8"))
    puzzle = load_xmpuzzle(path)
    assert puzzle.grid.burrtools_type == expected["grid"]
    assert count_solutions(puzzle).up_to_symmetry == expected["assemblies"]


def test_there_are_generated_cases_on_every_grid():
    grids = {p.stem.rstrip("0123456789") for p in ORACLE}
    assert len(ORACLE) >= 40 and len(grids) == 4, grids


@pytest.mark.parametrize("grid", GRIDS, ids=IDS)
def test_hand_turns_mirrors_and_steps_exist_on_every_grid(grid):
    """Design and Play turn a shape about x, y and z by the grid's smallest turn, mirror it
    and nudge it by one lattice step: each exists, and the turn's powers close up."""
    cells = _cells_in_box(grid)[:5]
    for axis in range(3):
        turn = grid.axis_turn(axis)
        assert turn not in (None, 0)
        assert grid.axis_mirror(axis) is not None
        step = np.array(grid.axis_step(axis))
        assert grid.is_translation(step) and step[axis] > 0
        shape = cells
        for _ in range(12):
            shape = grid.turned_in_place(shape, turn)
            assert grid.valid(shape).all()
        assert grid.key(shape) == grid.key(cells)  # 12 is a multiple of 2, 4 and 6
    assert PRISMS.axis_turn(2) != PRISMS.axis_turn(2, 2)  # sixth turns on prisms


def test_locked_assemblies_are_listed_where_burrtools_lists_every_assembly():
    """On spheres (rhombic, tetra-octa) BurrTools lists every assembly; Tessera takes each
    apart where straight slides can and keeps the rest, said to be locked: the polysphere
    pyramid's assembly is shown, not 'no solution'. On prisms, as BurrTools' -d, a locked
    assembly is no solution (prism06: 2 assemblies, 0 solutions)."""
    from tessera.models.polycube import load_polycube
    from tessera.solvers.polycube.interlocking import UnanalysedSolution, solutions
    from tessera.solvers.polycube.packing import PackingProblem

    def listed(puzzle):
        problem = PackingProblem(puzzle)
        found = (problem.solution(r) for r in problem.search()._solutions(None))
        return list(solutions(puzzle, found))

    pyramid = load_polycube(FIXTURES.parent.parent / "assets/puzzles/polysphere-pyramid.toml")
    kept = listed(pyramid)
    assert len(kept) == 8 and all(isinstance(s, UnanalysedSolution) for s in kept)
    assert "does not come apart" in kept[0].not_analysed
    assert listed(load_xmpuzzle(FIXTURES / "burrtools_grids" / "prism06.xmpuzzle")) == []
