"""Which assemblies of a polycube puzzle interlock, and how they come apart.

One policy for everything that shows solutions, so the solution list (viewer/_qt/worker.py) and
Solution mode's scene (viewer/scenes/polycube.py) never disagree:

- An assembly that the straight assembly plan (`solvers.polycube_plan`) builds one piece at a
  time, each sliding straight in (`plan_assembles`), is an ordinary assembly (a Soma figure).
  It comes apart, its BurrTools level is "1" (every part splits with a single move), and
  nothing more is asked.
- Any other assembly interlocks: it goes to the disassembler (`solvers.disassemble`), with the
  pieces' BurrTools groups. It is a solution only when it comes apart, as with
  `tessera solve --disassemble`; one the node limit gave up on is not counted either.

The list keeps an interlocking solution as an `InterlockedSolution`: the assembly plus its
`Disassembly`, worked out once in the solver's thread, so neither the list's level nor the
scene has to run the disassembler again in the window's thread. A plain `PolycubeSolution`
(from the design window, a test, a script) is analysed on demand, with the same result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube.disassemble import DEFAULT_NODE_LIMIT, Disassembly, disassemble
from tessera.solvers.polycube.movement import FREE, MovementLimit, distance_matrix
from tessera.solvers.polycube.packing import PolycubeSolution
from tessera.solvers.polycube.plan import AssemblyPlan, assembly_plan

#: The level of an assembly the straight plan builds: one move splits every part.
PLAIN_LEVEL = "1"


@dataclass(frozen=True)
class InterlockedSolution(PolycubeSolution):
    """An interlocking assembly that comes apart, with how (its `disassembly.level`, moves).

    `assembly` is its number among all the assemblies the search listed (1-based), so a
    reader can tell that "Solution 1" was the 7th assembly and the 6 before it stay locked."""

    disassembly: Disassembly | None = None
    assembly: int = 0


@dataclass(frozen=True)
class UnanalysedSolution(PolycubeSolution):
    """An assembly whose movement is past the analysis's limits (`MovementLimit`): shown as
    it is, with `not_analysed` saying why in one line. `plan`, when set, is its straight
    assembly plan, worked out where the solution was found (the solver's thread): for
    thousands of pieces it takes a second, which the window's thread must not spend."""

    not_analysed: str = ""
    plan: AssemblyPlan | None = None


def piece_groups(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[int]:
    """The BurrTools group of every piece instance of the solution (0: none)."""
    return [int(puzzle.pieces[p.piece].group or 0) for p in solution.pieces]


def plan_assembles(cells_by_piece: Sequence[np.ndarray], grid: Grid = CUBES) -> bool:
    """Whether single straight moves, one piece at a time, take the assembly apart (and so,
    backwards, build it): the test behind `solvers.polycube_plan.assembly_plan`'s `complete`,
    answered with the movement analysis's compiled distance table, several times faster
    (the solution list asks it of every one of Bedlam's 19 186 solutions).

    A piece can leave when nothing lies ahead of it along some direction of the grid; taking a
    piece out never blocks another, so taking out every free piece until none is left or none
    is free decides it."""
    rest = [np.asarray(c) for c in cells_by_piece]
    while len(rest) > 1:
        dist = distance_matrix(rest, grid=grid)
        n = len(rest)
        dist[:, np.arange(n), np.arange(n)] = FREE
        free = (dist >= FREE).all(axis=2).any(axis=0)
        if not free.any():
            return False
        rest = [c for c, gone in zip(rest, free, strict=True) if not gone]
    return True


def disassembly_of(
    puzzle: PolycubePuzzle,
    solution: PolycubeSolution,
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> Disassembly | None:
    """How an interlocking assembly comes apart; None when the straight plan assembles it.

    The result may say `complete=False` (it does not come apart, or `gave_up`)."""
    if isinstance(solution, InterlockedSolution) and solution.disassembly is not None:
        return solution.disassembly
    if isinstance(solution, UnanalysedSolution):
        return None  # past the movement analysis: shown by the plan, as assembled
    cells = [p.cells for p in solution.pieces]
    if plan_assembles(cells, puzzle.grid):
        return None
    return disassemble(cells, piece_groups(puzzle, solution), node_limit, puzzle.grid)


def analyse(
    puzzle: PolycubePuzzle,
    solution: PolycubeSolution,
    number: int = 0,
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> PolycubeSolution | None:
    """What the solution list keeps of assembly `number`: the assembly itself when the plan
    builds it, an `InterlockedSolution` when it interlocks and comes apart, None when it
    interlocks and does not (or the node limit gave up): then it is no solution, except on a
    grid whose solutions need not come apart (`Grid.solutions_come_apart`), where it is kept
    as an `UnanalysedSolution` saying it is locked."""
    if len(solution.pieces) < 2:  # nothing to take apart: an assembly, not a solution
        return None
    try:
        result = disassembly_of(puzzle, solution, node_limit)
    except MovementLimit as exc:
        return UnanalysedSolution(solution.pieces, str(exc), assembly_plan(puzzle, solution))
    if result is None:
        return solution
    if not result.complete:
        if puzzle.grid.solutions_come_apart:
            return None
        return UnanalysedSolution(
            solution.pieces,
            "this assembly does not come apart by straight slides; shown as assembled, as "
            f"BurrTools lists every assembly on the {puzzle.grid.title} grid",
        )
    return InterlockedSolution(solution.pieces, result, number)


def solutions(
    puzzle: PolycubePuzzle,
    assemblies: Iterable[PolycubeSolution],
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> Iterator[PolycubeSolution]:
    """The solutions among `assemblies`, in their order, as the window lists them: `analyse`
    on each, the ones that stay locked left out."""
    for number, assembly in enumerate(assemblies, 1):
        kept = analyse(puzzle, assembly, number, node_limit)
        if kept is not None:
            yield kept


def level_of(solution: PolycubeSolution) -> str:
    """BurrTools' level of a listed solution ("1" for one the straight plan builds)."""
    if isinstance(solution, InterlockedSolution) and solution.disassembly is not None:
        return solution.disassembly.level or PLAIN_LEVEL
    return PLAIN_LEVEL


def level_key(level: str) -> tuple[int, ...]:
    """For sorting levels as numbers: 98.2.4.2 after 12.3, hardest last."""
    return tuple(int(v) for v in level.split(".") if v)
