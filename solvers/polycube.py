"""Polycube packing as exact cover, on the shared engine.

Columns: the required target cells and one column per piece type (primary; a type with k
copies must be hit k times), then the optional cells (secondary). A row is one placement.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tessera.models.polycube import Placement, PolycubePuzzle
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.search_control import Progress


@dataclass(frozen=True)
class PlacedPiece:
    """One piece instance of a solution: its type and the target coordinates it fills."""

    piece: int
    cells: np.ndarray  # (n, 3) target coordinates
    placement: Placement


@dataclass(frozen=True)
class PolycubeSolution:
    pieces: tuple[PlacedPiece, ...]

    def grid_labels(self, puzzle: PolycubePuzzle) -> dict[tuple[int, int, int], int]:
        """Cell -> index into `pieces` (which piece instance fills it)."""
        return {tuple(c): k for k, p in enumerate(self.pieces) for c in p.cells.tolist()}


class PackingProblem:
    """The exact-cover matrix of a puzzle, remembering what each row means.

    `only` restricts some piece types to a subset of their placements (symmetry breaking,
    hints); `fixed` places pieces before the search starts (a partial assembly).
    """

    def __init__(
        self,
        puzzle: PolycubePuzzle,
        only: dict[int, Sequence[Placement]] | None = None,
        fixed: Sequence[Placement] = (),
    ) -> None:
        self.puzzle = puzzle
        target = puzzle.target
        n_req = target.n_required
        n_cells = len(target.cells)
        n_types = len(puzzle.pieces)
        used_cells: set[int] = set()
        remaining = [p.copies for p in puzzle.pieces]
        for placement in fixed:
            used_cells.update(placement.cells)
            remaining[placement.piece] -= 1
        # columns: open required cells, piece types still to place, then open optional cells
        col_of_cell: dict[int, int] = {}
        column_names: list[str] = []
        for i in range(n_req):
            if i not in used_cells:
                col_of_cell[i] = len(column_names)
                column_names.append(f"cell {tuple(target.cells[i].tolist())}")
        col_of_piece: dict[int, int] = {}
        multiplicity: list[int] = [1] * len(column_names)
        for t in range(n_types):
            if remaining[t] > 0:
                col_of_piece[t] = len(column_names)
                column_names.append(f"piece {puzzle.pieces[t].name}")
                multiplicity.append(remaining[t])
        n_primary = len(column_names)
        for i in range(n_req, n_cells):
            if i not in used_cells:
                col_of_cell[i] = len(column_names)
                column_names.append(f"optional {tuple(target.cells[i].tolist())}")
        self.placements: list[Placement] = []
        rows: list[list[int]] = []
        for t in col_of_piece:
            candidates = only[t] if only and t in only else puzzle.placements(t)
            for placement in candidates:
                if used_cells.intersection(placement.cells):
                    continue
                self.placements.append(placement)
                rows.append([col_of_piece[t]] + [col_of_cell[c] for c in placement.cells])
        self.fixed = tuple(fixed)
        self.exact_cover = ExactCoverProblem(
            rows, n_primary, len(column_names), multiplicity, column_names
        )

    def search(self, trace: bool = False) -> ExactCoverSearch:
        return ExactCoverSearch(self.exact_cover, trace=trace)

    def solution(self, rows: Sequence[int]) -> PolycubeSolution:
        cells = self.puzzle.target.cells
        chosen = list(self.fixed) + [self.placements[r] for r in rows]
        chosen.sort(key=lambda p: (p.piece, p.cells))
        return PolycubeSolution(
            tuple(PlacedPiece(p.piece, cells[list(p.cells)], p) for p in chosen)
        )

    def describe(self, row: int) -> str:
        """Human words for a trace event's choice."""
        p = self.placements[row]
        name = self.puzzle.pieces[p.piece].name
        return f"{name} at {p.offset} (orientation {p.orientation})"

    @cached_property
    def row_cells(self) -> list[np.ndarray]:
        cells = self.puzzle.target.cells
        return [cells[list(p.cells)] for p in self.placements]


def solutions(
    puzzle: PolycubePuzzle, on_progress: Progress | None = None
) -> Iterator[PolycubeSolution]:
    """Every fixed solution, lazily."""
    problem = PackingProblem(puzzle)
    for rows in problem.search().solutions(on_progress):
        yield problem.solution(rows)
