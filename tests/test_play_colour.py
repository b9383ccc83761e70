"""Play mode on coloured puzzles, without a window: a hint's piece is put in the turn the hint
found (a domino with one red end fills the same cells turned either way, and only one of them
may keep the colour rules), and a piece lying on a target cell whose colour it may not fill
is flagged like one sticking out, by the same rule hints check."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.play import PlayModel
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.solvers.polycube.hint import hint
from tessera.solvers.polycube.packing import solutions

CASES = Path(__file__).parent / "fixtures" / "burrtools"

# A row of four: black (2), red (1), black, black; red fills red only, black black only. D is
# a blue domino with a red end (its colours tell its two turns apart), E a black domino. The
# one solution: D on the left two cells with its red end on the red cell, E on the right. D
# starts on the table with its red end at its lower x, so the left two cells in its own turn
# put red on black: the hint's placement needs it turned end for end.
RED_END = """
kind = "polycube"
name = "red end"
[colours]
allow = [[1, 1], [2, 2]]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
voxel_colours = [[0,0,0,1]]
color = "#1f77b4"
[pieces.E]
cells = [[0,0,0],[1,0,0]]
voxel_colours = [[0,0,0,2],[1,0,0,2]]
color = "#2ca02c"
[target]
layers = [["####"]]
voxel_colours = [[0,0,0,2],[1,0,0,1],[2,0,0,2],[3,0,0,2]]
"""
LEFT = np.array([(0, 0, 0), (1, 0, 0)])  # D's cells in the solution, in D's own turn too


def red_end(folder: Path) -> PolycubePuzzle:
    path = folder / "red-end.toml"
    path.write_text(RED_END)
    return load_polycube(path)


@pytest.fixture(scope="module")
def puzzle(tmp_path_factory) -> PolycubePuzzle:
    return red_end(Path(tmp_path_factory.mktemp("red-end")))


def painted(model: PlayModel, piece: int) -> dict[tuple[int, ...], int]:
    """The colour on each cell the table piece covers."""
    cells = map(tuple, model.cells(piece).tolist())
    return dict(zip(cells, model.colours(piece).tolist(), strict=True))


def hinted(puzzle: PolycubePuzzle, answer) -> dict[tuple[int, ...], int]:
    """The colour on each cell of the hint's placement."""
    cells = map(tuple, puzzle.target.cells[list(answer.next.cells)].tolist())
    return dict(zip(cells, answer.next.colours, strict=True))


def test_the_hints_turn_is_the_one_put_down(puzzle) -> None:
    model = PlayModel(puzzle)
    answer = hint(puzzle, model.assembly())
    assert answer.completable and answer.next.piece == 0  # D goes first: cell 0 only takes it
    assert hinted(puzzle, answer) == {(0, 0, 0): 0, (1, 0, 0): 1}
    cells = puzzle.target.cells[list(answer.next.cells)]
    # the cells alone pick D's own turn (no turn needed), which puts red on the black cell
    model.place(0, model.pose_for(0, cells))
    assert painted(model, 0) == {(0, 0, 0): 1, (1, 0, 0): 0}
    assert hint(puzzle, model.assembly()).reason == (
        "piece D has a colour the target forbids at (0, 0, 0)"
    )
    model.undo()
    # with the placement's colours: turned end for end, as the hint has it
    pose = model.pose_for(0, cells, answer.next.colours)
    assert pose is not None and pose.rotation != 0
    model.place(0, pose)
    assert painted(model, 0) == hinted(puzzle, answer)
    after = hint(puzzle, model.assembly())
    assert after.completable is True and after.next.piece == 1, after.reason
    model.place(1, model.pose_for(1, puzzle.target.cells[list(after.next.cells)]))
    assert model.solved


def test_no_turn_paints_colours_it_does_not_have(puzzle) -> None:
    model = PlayModel(puzzle)
    assert model.pose_for(0, LEFT, (1, 1)) is None  # D has one red cell, not two
    assert model.pose_for(0, LEFT, (2, 0)) is None
    assert model.pose_for(1, LEFT, (2, 2)) is not None
    assert model.pose_for(1, LEFT, None) == model.pose_for(1, LEFT)


def test_a_piece_on_a_forbidden_colour_is_bad_until_it_moves_off(puzzle) -> None:
    model = PlayModel(puzzle)
    assert model.fit().bad_pieces == ()  # on the table, beside the target: nothing to say
    model.place(0, model.pose_for(0, LEFT))  # red end on the black cell (0, 0, 0)
    fit = model.fit()
    assert fit.bad_pieces == fit.colour_pieces == (0,)
    red_first = np.array([(0, 0, 0), (1, 0, 0)])
    assert [tuple(c) for c in model.cells(0)[fit.colour[0]].tolist()] == [(0, 0, 0)]
    assert not fit.outside[0].any() and not fit.overlap[0].any()
    assert np.array_equal(fit.bad[0], fit.colour[0])
    assert np.array_equal(model.cells(0), red_first)
    model.move(0, "x", 1)  # red end on the red cell, the plain end on black: fine
    assert model.fit().bad_pieces == () and model.fit().colour_pieces == ()
    model.move(0, "x", 1)  # red end on black again
    assert model.fit().colour_pieces == (0,)
    model.move(0, "y", -3)  # off the target entirely: nothing under it to clash with
    assert model.fit().bad_pieces == ()


def test_every_cell_filled_with_a_colour_wrong_is_not_solved(puzzle) -> None:
    model = PlayModel(puzzle)
    model.place(0, model.pose_for(0, LEFT))
    model.place(1, model.pose_for(1, [(2, 0, 0), (3, 0, 0)]))
    fit = model.fit()
    assert fit.covered == fit.required == 4 and not fit.solved
    assert fit.bad_pieces == (0,)
    model.undo()
    model.place(0, model.pose_for(0, LEFT, (0, 1)))
    model.place(1, model.pose_for(1, [(2, 0, 0), (3, 0, 0)]))
    assert model.solved and model.fit().bad_pieces == ()


def hand_turns(puzzle: PolycubePuzzle, t: int):
    """Every turn of piece type t's cells (in its own order, as Play has them) at every offset
    where it lies wholly inside the target."""
    grid, piece = puzzle.grid, puzzle.pieces[t]
    index = puzzle.target.index
    images, ok = grid.transform_all(piece.cells)
    for image in images[ok[: len(images)]]:
        for cell in puzzle.target.cells:
            offset = cell - image[0]
            if grid.is_translation(offset):
                cells = image + offset
                if all(tuple(c) in index for c in cells.tolist()):
                    yield cells


@pytest.mark.parametrize("name", ["colour05", "turn01", "turn08", "hand06"])
def test_the_flag_and_the_hint_judge_alike(name) -> None:
    """One rule, two readers: a piece put down by hand is flagged on the table exactly when a
    hint refuses it for its colours."""
    puzzle = load_xmpuzzle(CASES / f"{name}.xmpuzzle")
    model = PlayModel(puzzle, interlocked=False)
    tally = {"flagged": 0, "fine": 0}
    for k, table_piece in enumerate(model.pieces):
        if table_piece.copy:
            continue
        own = model.colours(k)
        for cells in hand_turns(puzzle, table_piece.piece):
            pose = model.pose_for(k, cells, own)
            assert pose is not None
            model.place(k, pose)
            # colour i on cells[i] (a turn with the same colours may order them otherwise)
            want = zip(map(tuple, cells.tolist()), own.tolist(), strict=True)
            assert painted(model, k) == dict(want)
            refused = " forbids at " in hint(puzzle, model.assembly(), time_limit=None).reason
            flagged = model.fit().colour_pieces == (k,)
            assert flagged is refused and (k in model.fit().bad_pieces) is flagged
            tally["flagged" if flagged else "fine"] += 1
        model.reset()
    assert tally["flagged"] > 0 and tally["fine"] > 0, tally


@pytest.mark.parametrize("name", ["turn01", "turn05", "hand03", "colour08"])
def test_every_solution_laid_by_its_placements_colours_is_solved(name) -> None:
    """Each piece of each solution put down by `pose_for` with its placement's colours has
    those colours on those cells, and the table is solved with nothing flagged."""
    puzzle = load_xmpuzzle(CASES / f"{name}.xmpuzzle")
    model = PlayModel(puzzle, interlocked=False)
    turned = 0
    for solution in itertools.islice(solutions(puzzle), 40):
        model.reset()
        free = [p.index for p in model.pieces]
        for placed in solution.pieces:
            k = next(i for i in free if model.pieces[i].piece == placed.piece)
            free.remove(k)
            colours = placed.placement.colours
            model.place(k, model.pose_for(k, placed.cells, colours))
            if colours is not None:
                cells = map(tuple, placed.cells.tolist())
                assert painted(model, k) == dict(zip(cells, colours, strict=True))
                turned += 1
        assert model.solved and model.fit().bad_pieces == ()
    assert turned > 0
