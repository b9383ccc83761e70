"""Pieces whose colours tell apart turns that fill the same cells (a domino with one red end),
counted as BurrTools counts them: a placement is its cells and the colour on each, and two
assemblies that differ by such a turn are two, unless a symmetry of the whole problem (shape and
colours) maps one onto the other. tests/test_burrtools_cases.py holds burrTxt's own counts
(cases colour05, colour08, turn*, hand*); these are counted by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.solvers.polycube.identify import SolutionIndex, placement_of
from tessera.solvers.polycube.packing import PackingProblem, placement_table, solutions
from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load_puzzle

CASES = Path(__file__).parent / "fixtures" / "burrtools"

RED_ENDED_DOMINO = """
kind = "polycube"
name = "row"
[colours]
allow = [[1, 1]]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
voxel_colours = [[0,0,0,1]]
[target]
layers = [["##"]]
"""


def _load(tmp_path: Path, text: str) -> PolycubePuzzle:
    path = tmp_path / "p.toml"
    path.write_text(text)
    return load_polycube(path)


def _with_target_colours(colours: str) -> str:
    return RED_ENDED_DOMINO.replace('layers = [["##"]]', f'layers = [["##"]]\n{colours}')


@pytest.mark.parametrize(
    ("target_colours", "counts"),
    [
        # plain row: red left and red right are one assembly turned over
        ("", (2, 1, 1)),
        # the left cell red: no symmetry keeps it, so the two are two
        ("voxel_colours = [[0,0,0,1]]", (2, 2, 2)),
        # and the right one of another colour, which red may not fill: one way
        ("voxel_colours = [[0,0,0,1],[1,0,0,2]]", (1, 1, 1)),
    ],
)
def test_a_red_ended_domino_in_a_row_of_two(tmp_path, target_colours, counts) -> None:
    puzzle = _load(tmp_path, _with_target_colours(target_colours))
    assert puzzle.pieces[0].colour_turns
    tally = ClassSearch(puzzle).tally()
    assert (tally.fixed, tally.up_to_rotation, tally.up_to_symmetry) == counts
    assert sum(1 for _ in ClassSearch(puzzle).representatives()) == counts[2]
    rows = placement_table(puzzle).placements(0)
    assert len(rows) == counts[0] and len({p.cells for p in rows}) == 1


def test_equal_red_ended_dominoes_are_one_piece_with_copies(tmp_path) -> None:
    """Two equal pieces (format 1 makes them one type): a row of four takes them as ab and
    cd, each red at either end: 4 fixed. Turning the row over maps red on {a, c} to {b, d}
    and keeps {a, d} and {b, c}: 3 up to rotation."""
    text = RED_ENDED_DOMINO.replace('layers = [["##"]]', 'layers = [["####"]]') + (
        "[pieces.E]\ncells = [[0,0,0],[1,0,0]]\nvoxel_colours = [[1,0,0,1]]\n"
    )
    puzzle = _load(tmp_path, text)
    tally = ClassSearch(puzzle).tally()
    assert (tally.fixed, tally.up_to_rotation) == (4, 3)
    table = placement_table(puzzle)
    red = set()
    for solution in solutions(puzzle):
        assert sorted(p.piece for p in solution.pieces) == [0, 1]  # handed out to D and E
        for placed in solution.pieces:
            p = placed.placement
            assert table.find(p.piece, p.cells, p.colours) == p
            red |= {c for c, k in zip(p.cells, p.colours, strict=True) if k}
    assert red == {0, 1, 2, 3}


@pytest.mark.parametrize(("name", "expected"), [("colour05", 0), ("turn07", 4), ("hand03", 2)])
def test_the_table_agrees_with_the_plain_loop(name, expected) -> None:
    """colour05's colour rules let its red-ended piece fill any cells one way only."""
    puzzle = load_xmpuzzle(CASES / f"{name}.xmpuzzle")
    table = placement_table(puzzle)
    doubled = 0  # pieces with two placements on the same cells, coloured differently
    for t in range(len(puzzle.pieces)):
        plain = [p.identity for p in puzzle.placements(t)]
        fast = [p.identity for p in table.placements(t)]
        assert len(set(fast)) == len(fast) and set(plain) == set(fast)
        doubled += len({p.cells for p in table.placements(t)}) < len(fast)
    assert doubled == expected


def test_play_mode_cells_say_which_way_round(tmp_path) -> None:
    """Cells given in the piece's own order carry its colours: the same two cells are a
    different solution with the red end on the other one, unless a symmetry maps them."""
    left_red = [(0, 0, 0), (1, 0, 0)]
    right_red = [(1, 0, 0), (0, 0, 0)]
    coloured = _load(tmp_path, _with_target_colours("voxel_colours = [[0,0,0,1]]"))
    index = SolutionIndex(coloured)
    numbers = {index.number([(0, left_red)]), index.number([(0, right_red)])}
    assert numbers == {1, 2}
    plain = SolutionIndex(_load(tmp_path, RED_ENDED_DOMINO))
    assert plain.number([(0, left_red)]) == plain.number([(0, right_red)]) == 1
    a, b = placement_of(coloured, 0, left_red), placement_of(coloured, 0, right_red)
    assert a.cells == b.cells and (a.colours, b.colours) == ((1, 0), (0, 1))
    assert {a, b} == set(placement_table(coloured).placements(0))


def test_cells_out_of_the_pieces_order_are_refused(tmp_path) -> None:
    text = (
        RED_ENDED_DOMINO.replace("[[0,0,0],[1,0,0]]", "[[0,0,0],[1,0,0],[2,0,0]]")
        .replace("voxel_colours = [[0,0,0,1]]", "voxel_colours = [[0,0,0,1],[2,0,0,2]]")
        .replace('layers = [["##"]]', 'layers = [["###"]]')
    )
    puzzle = _load(tmp_path, text)
    assert placement_of(puzzle, 0, [(2, 0, 0), (1, 0, 0), (0, 0, 0)]).colours == (2, 0, 1)
    with pytest.raises(ValueError, match="order of its own cells"):
        placement_of(puzzle, 0, [(0, 0, 0), (2, 0, 0), (1, 0, 0)])


def test_uncoloured_puzzles_keep_the_plain_path() -> None:
    soma = load_puzzle("soma", "polycube")
    table = placement_table(soma)
    assert all(c is None for c in table.colours)
    assert not any(p.colour_turns for p in soma.pieces)
    assert PackingProblem(soma).row_colours is None
    assert table.placements(0)[0].colours is None
