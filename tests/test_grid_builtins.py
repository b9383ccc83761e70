"""Tessera's own built-ins on BurrTools' other grids (issue 24): a set of twelve polyspheres
that fills both a 5×11 board and a square pyramid, a hexagonal block of two-layer prism
pieces, a square pyramid of rhombic dodecahedra, and a tetrahedron of tetrahedra and
octahedra.

The counts are the project's own figures, not published anywhere: measured with
`tessera solve NAME --count` when the files were written, and the same numbers of assemblies
came from burrTxt 0.7.1 on each file converted to `.xmpuzzle`. A change in them means the
file, a grid or the solver changed. Every count here takes a few seconds at most, so the
full counts run in the ordinary test suite."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from tessera.models.assets import builtin_puzzles
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.models.puzzle_writers import to_xmpuzzle
from tessera.solvers.polycube.symmetry import count_solutions
from tests._paths import ROOT, run_cli

pytestmark = pytest.mark.timeout(300)

BURRTXT = ROOT.parent / "shared" / "reference" / "burrtools" / "burrTxt"
needs_burrtxt = pytest.mark.skipif(
    not BURRTXT.exists(), reason="../shared/reference/burrtools/burrTxt is not beside this clone"
)

#: name -> (grid, pieces, target cells, (fixed, up to rotation, up to symmetry))
BUILTINS = {
    "polysphere-board-5x11": ("spheres", 12, 55, (4856, 1214, 1214)),
    "polysphere-pyramid": ("spheres", 12, 55, (8, 2, 1)),
    "prisms-hexagon-block": ("prisms", 8, 48, (12, 1, 1)),
    "rhombic-pyramid": ("rhombic", 5, 14 * 48, (64, 16, 8)),
    "tetra-octa-tetrahedron": ("tetra-octa", 4, 11 + 4 * 8, (24, 2, 1)),
}

#: a whole rhombic dodecahedron is 48 of the rhombic grid's tetrahedra
DODECAHEDRON = 48
#: an octahedron is the tetra-octa grid's eight small tetrahedra around a lattice corner
OCTAHEDRON = 8


def _load(name: str) -> PolycubePuzzle:
    return load_polycube(builtin_puzzles()[name])


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_loads_on_its_grid_with_the_right_cells(name: str) -> None:
    grid, n_pieces, n_cells, _ = BUILTINS[name]
    puzzle = _load(name)
    assert puzzle.warnings == []
    assert puzzle.grid.name == grid
    assert all(p.grid is puzzle.grid for p in puzzle.pieces)
    assert len(puzzle.pieces) == n_pieces and all(p.copies == 1 for p in puzzle.pieces)
    assert puzzle.target.n_required == n_cells and len(puzzle.target.optional) == 0
    assert puzzle.piece_volume == n_cells
    assert puzzle.grid.valid(puzzle.target.cells).all()
    for piece in puzzle.pieces:
        assert puzzle.grid.is_connected(piece.cells), piece.name
    # every piece is a different shape: no two are one piece under two names
    keys = [p.shape_key for p in puzzle.pieces]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_counts_what_was_recorded(name: str) -> None:
    counts = count_solutions(_load(name))
    assert not counts.partial
    assert (counts.fixed, counts.up_to_rotation, counts.up_to_symmetry) == BUILTINS[name][3]


def test_one_set_of_flat_polyspheres_fills_the_board_and_the_pyramid() -> None:
    board, pyramid = _load("polysphere-board-5x11"), _load("polysphere-pyramid")
    assert sorted(p.shape_key for p in board.pieces) == sorted(p.shape_key for p in pyramid.pieces)
    for piece in board.pieces:
        assert 3 <= piece.size <= 5
        # flat: every ball in one plane through the first
        assert np.linalg.matrix_rank(piece.cells - piece.cells[0]) <= 2, piece.name
    # the board is one square layer, 11 balls by 5 along its diagonals (x ± y)
    x, y, z = board.target.cells.T
    assert len(set(z.tolist())) == 1
    cols, rows = (x + y) // 2, (y - x) // 2
    cells = set(zip((cols - cols.min()).tolist(), (rows - rows.min()).tolist(), strict=True))
    assert cells == {(c, r) for c in range(11) for r in range(5)}
    # the pyramid: square layers of 25, 16, 9, 4 and 1 balls
    _, per_layer = np.unique(pyramid.target.cells[:, 2], return_counts=True)
    assert per_layer.tolist() == [25, 16, 9, 4, 1]


def test_prism_block_is_two_layers_of_a_hexagon_and_every_piece_spans_both() -> None:
    puzzle = _load("prisms-hexagon-block")
    layers, per_layer = np.unique(puzzle.target.cells[:, 2], return_counts=True)
    assert per_layer.tolist() == [24, 24] and layers.tolist() == [0, 1]
    for piece in puzzle.pieces:
        assert piece.size == 6 and set(piece.cells[:, 2].tolist()) == {0, 1}, piece.name


def test_rhombic_pieces_are_whole_dodecahedra() -> None:
    puzzle = _load("rhombic-pyramid")
    sizes = sorted(p.size // DODECAHEDRON for p in puzzle.pieces)
    assert all(p.size % DODECAHEDRON == 0 for p in puzzle.pieces)
    assert sizes == [2, 3, 3, 3, 3]
    # the two 120-degree pieces are each other's mirror image, and no other piece's
    mirrored = {p.name for p in puzzle.pieces if p.mirror_key != p.shape_key}
    assert mirrored == {"angle120", "angle120-mirror"}
    by_name = {p.name: p for p in puzzle.pieces}
    assert by_name["angle120"].mirror_key == by_name["angle120-mirror"].shape_key


def test_tetra_octa_pieces_are_one_octahedron_with_tetrahedra_on_it() -> None:
    puzzle = _load("tetra-octa-tetrahedron")
    for piece in puzzle.pieces:
        # a big tetrahedron is the centre (1, 1, 1) of its cube's 3x3x3 block; the rest are
        # the small tetrahedra of one octahedron
        big = int((piece.cells % 3 == 1).all(axis=1).sum())
        assert piece.size - big == OCTAHEDRON
        assert piece.name == f"octa{big}"
    assert sorted(int(p.name[4:]) for p in puzzle.pieces) == [1, 2, 3, 5]
    big = int((puzzle.target.cells % 3 == 1).all(axis=1).sum())
    assert big == 11 and puzzle.target.n_required - big == 4 * OCTAHEDRON


@needs_burrtxt
@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_burrtxt_counts_the_same_assemblies(name: str, tmp_path) -> None:
    path = tmp_path / f"{name}.xmpuzzle"
    path.write_bytes(to_xmpuzzle(_load(name)))
    out = subprocess.run(
        [str(BURRTXT), "-q", str(path)], capture_output=True, text=True, timeout=240, check=False
    ).stdout
    found = re.search(r"(\d+) assemblies", out)
    assert found, out
    assert int(found.group(1)) == BUILTINS[name][3][2]


def test_cli_lists_and_counts_them(capsys) -> None:
    code, out, _ = run_cli(["list"], capsys)
    assert code == 0
    listed = {line.split()[1]: line.split()[0] for line in out.splitlines() if line.strip()}
    for name in BUILTINS:
        assert listed[name] == "polycube"
    code, out, _ = run_cli(["solve", "prisms-hexagon-block", "--count"], capsys)
    assert code == 0
    assert "fixed: 12" in out and "up to symmetry: 1" in out
