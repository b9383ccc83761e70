"""Design's document on every grid: cells only where the grid has them, turns and mirrors by
the grid's own symmetries, nudges by its lattice steps, and a puzzle that keeps its grid."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.models.design import DesignDocument, DesignState, mirrored, state_from_puzzle
from tessera.models.grids import CUBES, GRIDS, PRISMS, SPHERES
from tessera.solvers.polycube.symmetry import count_solutions

pytestmark = pytest.mark.timeout(120)


def _doc(grid, cells) -> DesignDocument:
    doc = DesignDocument(DesignState(grid=grid))
    doc.set_cells(cells)
    return doc


@pytest.mark.parametrize("grid", GRIDS, ids=[g.name for g in GRIDS])
def test_turns_flips_and_nudges_keep_the_shape_on_its_grid(grid):
    box = np.array(np.meshgrid(*[range(7)] * 3)).reshape(3, -1).T
    cells = box[grid.valid(box)][:4].tolist()
    doc = _doc(grid, cells)
    before = grid.canonical_key(np.array(sorted(doc.cells())), mirrors=True)
    for axis in "xyz":
        doc.rotate(axis)  # False when the turn maps the shape onto itself
        doc.flip(axis)  # False when the shape is its own mirror image there
        assert doc.nudge(axis, 2)
        now = np.array(sorted(doc.cells()))
        assert grid.valid(now).all()
        assert grid.canonical_key(now, mirrors=True) == before
    assert doc.undo() and doc.redo()


def test_off_grid_cells_are_not_drawn():
    doc = _doc(SPHERES, [(0, 0, 0)])
    assert not doc.add_cells([(1, 0, 0)])  # x + y + z odd: no ball there
    assert doc.add_cells([(1, 1, 0)])
    assert doc.cells() == {(0, 0, 0), (1, 1, 0)}


def test_mirror_drawing_on_cubes_is_the_middle_plane_and_on_prisms_stays_on_the_grid():
    assert mirrored([(0, 0, 0)], "x", [(0, 0, 0), (3, 0, 0)]) == {(0, 0, 0), (3, 0, 0)}
    about = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]  # a row of four triangles
    out = mirrored([(0, 0, 0)], "x", about, PRISMS)
    assert len(out) == 2 and PRISMS.valid(np.array(sorted(out))).all()
    (image,) = out - {(0, 0, 0)}
    assert (image[0] + image[1]) % 2 == 0  # a mirror keeps an upward triangle upward


def test_a_prism_design_becomes_a_prism_puzzle_and_back():
    doc = DesignDocument(DesignState(grid=PRISMS))
    doc.set_cells([(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)])  # the target: a strip
    doc.add_piece()
    doc.set_cells([(0, 0, 0), (1, 0, 0)])  # a diamond of two triangles, twice
    doc.set_copies(0, 2)
    puzzle = doc.to_puzzle()
    assert puzzle.grid is PRISMS and all(p.grid is PRISMS for p in puzzle.pieces)
    assert count_solutions(puzzle).fixed == 1
    assert state_from_puzzle(puzzle).grid is PRISMS
    assert DesignState().grid is CUBES
