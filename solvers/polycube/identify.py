"""Which of the known distinct solutions is this assembly?

Play mode and the hint only know where pieces are (cells in space); the solution list knows
solutions as `ClassSearch(puzzle).representatives()` yields them. Two assemblies are the same
solution when the puzzle's symmetry group maps one onto the other, so both sides are reduced to
`TargetGroup.canonical` and compared. The representatives are produced lazily and remembered,
so identifying an early solution does not wait for the full list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from tessera.models.grids.base import as_cells
from tessera.models.polycube import Placement, PolycubePuzzle
from tessera.solvers.polycube.packing import PlacedPiece, PolycubeSolution
from tessera.solvers.polycube.symmetry import ClassSearch

#: A piece instance given by where it is: (piece type index, (n, 3) cell coordinates).
PlacedCells = tuple[int, np.ndarray]


def placement_of(puzzle: PolycubePuzzle, piece: int, cells) -> Placement | None:
    """The placement of piece type `piece` that fills exactly `cells`, or None when a cell lies
    outside the target (required or optional cells).

    A piece whose colours tell turns apart (`Piece.colour_turns`) fills the same cells in
    several ways: its cells must then come in the order of the piece's own cells (as
    `PlayModel.cells` gives them), so that colour i lands on cells[i].

    Raises ValueError when the cells are not the piece's shape at all, or not the coloured
    piece turned: that is a caller's bug, not a user's move."""
    grid = puzzle.grid
    arr = as_cells(cells)
    found = _orientation(puzzle, piece, arr)
    if found is None:
        raise ValueError(f"these cells are not piece {puzzle.pieces[piece].name}'s shape")
    orientation, colours = found
    index = puzzle.target.index
    ids = [index.get(c) for c in map(tuple, arr.tolist())]
    if None in ids:
        return None
    offset = tuple(int(v) for v in grid.anchor(arr.min(axis=0)))
    order = sorted(range(len(ids)), key=ids.__getitem__)
    painted = None if colours is None else tuple(colours[i] for i in order)
    return Placement(piece, orientation, offset, tuple(ids[i] for i in order), painted)


def _orientation(
    puzzle: PolycubePuzzle, piece: int, arr: np.ndarray
) -> tuple[int, list[int] | None] | None:
    """(the orientation's number as the placement table counts them, the colour on each of
    `arr` when the piece's colours tell turns apart), or None when `arr` is not the piece's
    shape. A coloured puzzle numbers its pieces' coloured orientations (`colour_fit`)."""
    grid = puzzle.grid
    shape_key = grid.key(arr)
    colours = puzzle.colour_fit(piece)
    the_piece = puzzle.pieces[piece]
    if colours is None:
        shapes = [(shape, None) for shape in the_piece.orientations]
    else:
        shapes = grid.coloured_orientations(the_piece.cells, colours[1])
    matches = [
        (o, values)
        for o, (shape, values) in enumerate(shapes)
        if tuple(shape.ravel().tolist()) == shape_key
    ]
    if not the_piece.colour_turns or not matches:
        return (matches[0][0], None) if matches else None
    # the colours as given: colour i of the piece on cells[i]
    given = tuple(grid.normalise_with(arr, the_piece.voxel_colours)[1].tolist())
    o = next((o for o, v in matches if tuple(v.tolist()) == given), None)
    if o is None:
        raise ValueError(
            f"these cells are piece {the_piece.name}'s shape, but not with its colours in the "
            "order of its own cells"
        )
    return o, [int(v) for v in the_piece.voxel_colours]


def solution_from_cells(puzzle: PolycubePuzzle, pieces: Iterable[PlacedCells]) -> PolycubeSolution:
    """A `PolycubeSolution` from pieces given by their cells (all inside the target)."""
    placed = []
    for piece, cells in pieces:
        placement = placement_of(puzzle, piece, cells)
        if placement is None:
            raise ValueError(f"piece {puzzle.pieces[piece].name} is not inside the target")
        placed.append(placement)
    placed.sort(key=lambda p: (p.piece, p.cells))
    target = puzzle.target.cells
    return PolycubeSolution(tuple(PlacedPiece(p.piece, target[list(p.cells)], p) for p in placed))


class SolutionIndex:
    """Numbers distinct solutions 1, 2, ... in the order `ClassSearch.representatives()`
    yields them, which is the order `tessera solve` prints and the solution list shows."""

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        self.puzzle = puzzle
        self._search = ClassSearch(puzzle, mirrors=mirrors)
        self.group = self._search.group
        self._pending = self._search.representatives()
        self._numbers: dict[object, int] = {}
        self.solutions: list[PolycubeSolution] = []  # solutions[k - 1] is solution k
        self.complete = False

    def cancel(self) -> None:
        self._search.cancel()

    def _advance(self) -> bool:
        if self.complete:
            return False
        try:
            solution = next(self._pending)
        except StopIteration:
            self.complete = True
            return False
        self.solutions.append(solution)
        self._numbers.setdefault(self.group.canonical(solution), len(self.solutions))
        return True

    def number(self, solution: PolycubeSolution | Sequence[PlacedCells]) -> int | None:
        """The solution's number (1-based), or None if it is not a solution of the puzzle."""
        if not isinstance(solution, PolycubeSolution):
            solution = solution_from_cells(self.puzzle, solution)
        canon = self.group.canonical(solution)
        while canon not in self._numbers and self._advance():
            pass
        return self._numbers.get(canon)

    def solution(self, number: int) -> PolycubeSolution | None:
        """Solution `number` (1-based), or None when there are fewer."""
        if number < 1:
            raise ValueError("solutions are numbered from 1")
        while len(self.solutions) < number and self._advance():
            pass
        return self.solutions[number - 1] if number <= len(self.solutions) else None

    def count(self) -> int:
        """How many distinct solutions there are (lists them all)."""
        while self._advance():
            pass
        return len(self.solutions)


def identify(puzzle: PolycubePuzzle, pieces: Sequence[PlacedCells]) -> int | None:
    """The number of the distinct solution these pieces form, or None (one-off; keep a
    `SolutionIndex` to identify many)."""
    return SolutionIndex(puzzle).number(pieces)
