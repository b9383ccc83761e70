"""Hints for a partial assembly: can it still be completed, and where does one more piece go?

A partial assembly is just a smaller exact-cover problem (`PackingProblem(puzzle, fixed=...)`),
so the shared engine answers it, stopping at the first completion. Pieces the user left in an
impossible spot (outside the target, overlapping) are not an exact-cover question at all: they
are reported in words, since that is what the user must fix first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tessera.models.polycube import Placement, PolycubePuzzle
from tessera.solvers.exact_cover import ExactCoverSearch
from tessera.solvers.polycube.identify import PlacedCells, placement_of
from tessera.solvers.polycube.packing import PackingProblem, PolycubeSolution


@dataclass(frozen=True)
class Hint:
    """The answer. `completable` is None when the search gave up at its time limit."""

    completable: bool | None
    next: Placement | None  # one more piece that belongs to a completion
    solution: PolycubeSolution | None  # the completion found (a sample, not the only one)
    reason: str  # a sentence for the status bar
    nodes: int = 0
    seconds: float = 0.0


def _where(cell) -> str:
    return "(" + ", ".join(str(int(v)) for v in cell) + ")"


def _check(
    puzzle: PolycubePuzzle, placed: Sequence[Placement | PlacedCells]
) -> tuple[list[Placement], str | None]:
    """Placements for the placed pieces, or the first reason they cannot be part of a solution."""
    names = [p.name for p in puzzle.pieces]
    placements: list[Placement] = []
    owner: dict[int, int] = {}
    used = [0] * len(puzzle.pieces)
    for item in placed:
        if isinstance(item, Placement):
            placement = item
        else:
            piece, cells = item
            placement = placement_of(puzzle, piece, cells)
            if placement is None:
                index = puzzle.target.index
                out = [c for c in np.asarray(cells).tolist() if tuple(c) not in index]
                return [], f"piece {names[piece]} sticks out of the target at {_where(out[0])}"
        clash = _colour_clash(puzzle, placement)
        if clash is not None:
            where = _where(puzzle.target.cells[clash])
            return [], f"piece {names[placement.piece]} has a colour the target forbids at {where}"
        for cell in placement.cells:
            other = owner.get(cell)
            if other is not None:
                where = _where(puzzle.target.cells[cell])
                return [], f"pieces {names[other]} and {names[placement.piece]} overlap at {where}"
            owner[cell] = placement.piece
        used[placement.piece] += 1
        have = puzzle.pieces[placement.piece].copies
        if used[placement.piece] > have:
            name = names[placement.piece]
            return [], f"{used[placement.piece]} pieces {name} placed, the set has {have}"
        placements.append(placement)
    return placements, None


def _colour_clash(puzzle: PolycubePuzzle, placement: Placement) -> int | None:
    """The first target cell where the placed piece's colour breaks the colour rules, or None.

    The solver's placements obey the rules, but a piece put down by hand need not: left
    unchecked, it is fixed in place and the search, which never looks at its colours again,
    completes the assembly around it (a black cube on a red cell "can be completed"). The
    rule itself is `PolycubePuzzle.colour_clashes`, which Play's fit flags with too."""
    fit = puzzle.colour_fit(placement.piece)
    if fit is None:
        return None
    painted = placement.colours
    if painted is None:
        painted = _painted(puzzle, placement, fit[1])
    cells = list(placement.cells)
    bad = np.flatnonzero(puzzle.colour_clashes(cells, painted))
    return cells[int(bad[0])] if len(bad) else None


def _painted(puzzle: PolycubePuzzle, placement: Placement, own: np.ndarray) -> np.ndarray:
    """The piece's colour on each of the placement's cells, read off its coloured orientation
    (a coloured puzzle numbers those, `PolycubePuzzle.colour_fit`): for a piece whose colours
    tell no turns apart, the cells say the colours."""
    grid = puzzle.grid
    shape, values = grid.coloured_orientations(puzzle.pieces[placement.piece].cells, own)[
        placement.orientation
    ]
    ids = np.asarray(placement.cells, np.int64)
    cells, carried = grid.normalise_with(puzzle.target.cells[ids], ids)
    if not np.array_equal(cells, shape):
        raise ValueError("the placement's cells are not its orientation's shape")
    colour_of = dict(zip(carried.tolist(), values.tolist(), strict=True))
    return np.array([colour_of[c] for c in placement.cells], np.int64)


def hint(
    puzzle: PolycubePuzzle,
    placed: Sequence[Placement | PlacedCells],
    time_limit: float | None = 5.0,
) -> Hint:
    """Whether the placed pieces (placements, or (piece type, cells) pairs) can be completed to
    a solution, and if so one more piece of such a completion.

    The suggested piece is the search's first choice: the one with the fewest ways to fill the
    most constrained spot, which is also the move a person would most likely miss."""
    start = time.perf_counter()
    placements, problem_text = _check(puzzle, placed)
    if problem_text is not None:
        return Hint(False, None, None, problem_text)
    volume = puzzle.volume_problem()
    if volume is not None:
        return Hint(False, None, None, volume)
    problem = PackingProblem(puzzle, fixed=placements)
    search: ExactCoverSearch = problem.search()

    def watch(_fraction: float, _found: int) -> None:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            search.cancel()

    rows = next(iter(search.solutions(watch)), None)
    seconds = time.perf_counter() - start
    if rows is None:
        if search.cancelled and not search.done:
            text = f"no answer within {time_limit:g} s: place more pieces and ask again"
            return Hint(None, None, None, text, search.nodes, seconds)
        text = "cannot be completed: take some pieces out"
        return Hint(False, None, None, text, search.nodes, seconds)
    solution = problem.solution(rows)
    rows = [r for r in rows if r < problem.n_placement_rows]  # not "leave a cell empty"
    if not rows:
        return Hint(True, None, solution, "solved", search.nodes, seconds)
    nxt = problem.placements[rows[0]]
    cells = " ".join(_where(c) for c in puzzle.target.cells[list(nxt.cells)])
    text = f"can be completed: piece {puzzle.pieces[nxt.piece].name} goes to {cells}"
    return Hint(True, nxt, solution, text, search.nodes, seconds)
