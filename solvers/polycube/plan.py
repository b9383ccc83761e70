"""Assembly plans: an order in which pieces slide straight into place, one at a time.

Searching disassembly is easier than assembly: a piece can leave along direction d when no
cell of another remaining piece lies on the ray from any of its cells along d. Taking a piece
out never blocks another, so removing greedily finds an order whenever one exists; reversed, it
is the assembly, each piece moving opposite to the way it left.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube.packing import PolycubeSolution

DIRECTIONS: dict[str, tuple[int, int, int]] = {
    "+x": (1, 0, 0),
    "-x": (-1, 0, 0),
    "+y": (0, 1, 0),
    "-y": (0, -1, 0),
    "+z": (0, 0, 1),
    "-z": (0, 0, -1),
}


@dataclass(frozen=True)
class PlanStep:
    piece_index: int  # index into solution.pieces
    direction: str  # the way the piece moves while sliding in, e.g. "-z" (falls from above)

    @property
    def vector(self) -> tuple[int, int, int]:
        return DIRECTIONS[self.direction]


@dataclass(frozen=True)
class AssemblyPlan:
    steps: tuple[PlanStep, ...]
    complete: bool  # False: the rest needs multi-piece moves; `steps` then covers what can go
    stuck: tuple[int, ...] = ()  # pieces that could not be placed by single straight moves


def _free_direction(cells: np.ndarray, others: set[tuple[int, int, int]], lo, hi) -> str | None:
    for name, (dx, dy, dz) in DIRECTIONS.items():
        d = np.array((dx, dy, dz))
        blocked = False
        for cell in cells:
            p = cell + d
            while np.all(p >= lo) and np.all(p <= hi):
                if tuple(p.tolist()) in others:
                    blocked = True
                    break
                p = p + d
            if blocked:
                break
        if not blocked:
            return name
    return None


def assembly_plan(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> AssemblyPlan:
    lo, hi = puzzle.target.bounds
    remaining = list(range(len(solution.pieces)))
    removal: list[PlanStep] = []
    while remaining:
        occupied = {tuple(c): k for k in remaining for c in solution.pieces[k].cells.tolist()}
        for k in remaining:
            others = {c for c, owner in occupied.items() if owner != k}
            way_out = _free_direction(solution.pieces[k].cells, others, lo, hi)
            if way_out is not None:
                inward = way_out.replace("+", "*").replace("-", "+").replace("*", "-")
                removal.append(PlanStep(k, inward))
                remaining.remove(k)
                break
        else:
            return AssemblyPlan(tuple(reversed(removal)), False, tuple(remaining))
    return AssemblyPlan(tuple(reversed(removal)), True)
