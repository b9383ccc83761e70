"""Hints on coloured puzzles: a piece put down by hand where the colour rules forbid it (a
coloured voxel on a target cell whose colour it may not fill) makes the assembly impossible,
and the hint names the piece and the cell, as it names a piece sticking out. The solver's own
placements obey the rules already; a hand's need not, and the search, which takes a placed
piece as fixed, would otherwise complete the assembly around it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.solvers.polycube.hint import _colour_clash, hint
from tessera.solvers.polycube.identify import placement_of
from tessera.solvers.polycube.packing import placement_table, solutions

CASES = Path(__file__).parent / "fixtures" / "burrtools"

# A row of three: the left cell red (1), the right one black (2); red fills red only, black
# black only. D is a domino with a red end (its colours tell its two turns apart), R a black
# cube. The one solution: D on the left two cells, red end left, R on the right.
ROW = """
kind = "polycube"
name = "row"
[colours]
allow = [[1, 1], [2, 2]]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
voxel_colours = [[0,0,0,1]]
[pieces.R]
cells = [[0,0,0]]
voxel_colours = [[0,0,0,2]]
[target]
layers = [["###"]]
voxel_colours = [[0,0,0,1],[2,0,0,2]]
"""


@pytest.fixture(scope="module")
def row(tmp_path_factory) -> PolycubePuzzle:
    path = Path(tmp_path_factory.mktemp("row")) / "row.toml"
    path.write_text(ROW)
    return load_polycube(path)


def forbids(name: str, cell: tuple[int, int, int]) -> str:
    return f"piece {name} has a colour the target forbids at ({', '.join(map(str, cell))})"


@pytest.mark.parametrize(
    ("placed", "reason"),
    [
        # the black cube on the red cell: the search alone "completed" this one
        ([(1, [(0, 0, 0)])], forbids("R", (0, 0, 0))),
        # the red end (the domino's first cell) on the black cell
        ([(0, [(2, 0, 0), (1, 0, 0)])], forbids("D", (2, 0, 0))),
        # both pieces in, one of them wrong: still named
        ([(0, [(0, 0, 0), (1, 0, 0)]), (1, [(0, 0, 0)])], forbids("R", (0, 0, 0))),
    ],
)
def test_a_piece_against_the_colour_rules_is_named(row, placed, reason) -> None:
    answer = hint(row, placed)
    assert (answer.completable, answer.next, answer.solution) == (False, None, None)
    assert answer.reason == reason


def test_the_same_cells_in_the_other_turn_are_fine(row) -> None:
    """The domino on the left two cells either way round: red on the red cell or on the plain
    one; both fit the rules, and only the first leaves R a black cell."""
    red_left = hint(row, [(0, [(0, 0, 0), (1, 0, 0)])])
    assert red_left.completable is True and "piece R goes to (2, 0, 0)" in red_left.reason
    red_middle = hint(row, [(0, [(1, 0, 0), (0, 0, 0)])])
    assert red_middle.completable is True


def test_placements_as_objects_are_checked_too(row) -> None:
    wrong = placement_of(row, 1, [(0, 0, 0)])
    assert wrong is not None and wrong.colours is None  # a cube: its cells say its colours
    assert hint(row, [wrong]).reason == forbids("R", (0, 0, 0))
    turned = placement_of(row, 0, [(2, 0, 0), (1, 0, 0)])
    assert turned is not None and turned.colours == (0, 1)
    assert hint(row, [turned]).reason == forbids("D", (2, 0, 0))


def hand_placements(puzzle: PolycubePuzzle, t: int):
    """Every way a hand can put piece type t into the target: each turn of its cells (in the
    piece's own order, as Play mode gives them) at each offset where it lies inside, one per
    placement it makes (cells and, for a piece whose colours tell turns apart, colours)."""
    grid, piece = puzzle.grid, puzzle.pieces[t]
    index = puzzle.target.index
    seen = {}
    images, ok = grid.transform_all(piece.cells)
    for image in images[ok]:
        for cell in puzzle.target.cells:
            offset = cell - image[0]
            if not grid.is_translation(offset):
                continue
            cells = image + offset
            if all(tuple(c) in index for c in cells.tolist()):
                placement = placement_of(puzzle, t, cells)
                seen.setdefault(placement.identity, (cells, placement))
    return list(seen.values())


@pytest.mark.parametrize("name", ["colour05", "colour08", "turn01", "turn05", "hand06"])
def test_one_hand_placed_piece_against_every_completion(name) -> None:
    """Ground truth from the solver's own lists: a hand placement breaks the colour rules
    exactly when it is none of the piece's placements (which obey them), and one that keeps
    them can be completed exactly when some solution uses it."""
    puzzle = load_xmpuzzle(CASES / f"{name}.xmpuzzle")
    used = {(p.piece, p.placement.identity) for s in solutions(puzzle) for p in s.pieces}
    tally = {"forbidden": 0, "completable": 0, "dead end": 0}
    for t, piece in enumerate(puzzle.pieces):
        legal = {p.identity for p in puzzle.placements(t)}
        for cells, placement in hand_placements(puzzle, t):
            answer = hint(puzzle, [(t, cells)], time_limit=None)
            if placement.identity not in legal:
                assert answer.completable is False
                prefix = f"piece {piece.name} has a colour the target forbids at ("
                assert answer.reason.startswith(prefix), answer.reason
                assert hint(puzzle, [placement], time_limit=None).reason == answer.reason
                tally["forbidden"] += 1
            else:
                assert answer.completable is ((t, placement.identity) in used), answer.reason
                tally["completable" if answer.completable else "dead end"] += 1
    assert tally["forbidden"] > 0 and tally["completable"] > 0, tally


def test_the_named_cell_is_one_the_rules_forbid() -> None:
    """The cell a hint names holds a piece voxel whose colour may not fill it."""
    puzzle = load_xmpuzzle(CASES / "turn08.xmpuzzle")
    target_colours = puzzle.target.colours
    named = 0
    for t in range(len(puzzle.pieces)):
        for cells, _ in hand_placements(puzzle, t):
            reason = hint(puzzle, [(t, cells)], time_limit=None).reason
            if " forbids at " not in reason:
                continue
            where = tuple(int(v) for v in reason.split(" at (")[1].rstrip(")").split(", "))
            k = [tuple(c) for c in np.asarray(cells).tolist()].index(where)
            own = int(puzzle.pieces[t].voxel_colours[k])
            there = int(target_colours[puzzle.target.index[where]])
            assert own and there and (own, there) not in puzzle.colour_rules.allow
            named += 1
    assert named > 0


def test_the_solvers_own_placements_all_keep_the_rules() -> None:
    """Every row the placement table and the plain loop make (which the colour rules
    filtered) passes the hint's check, read off the orientation when no colours are stored."""
    checked = 0
    for path in sorted(CASES.glob("*.xmpuzzle")):
        if not path.stem.startswith(("colour", "turn", "hand")):
            continue
        puzzle = load_xmpuzzle(path)
        table = placement_table(puzzle)
        for t in range(len(puzzle.pieces)):
            for placement in [*puzzle.placements(t), *table.placements(t)]:
                assert _colour_clash(puzzle, placement) is None, (path.stem, placement)
                checked += 1
    assert checked > 1000
