"""One adapter per puzzle family: how to load it, list its solutions, and record a search.

The window, the worker thread and the headless exporter only speak to this small interface, so
adding a family never touches them. Nothing here imports Qt or VTK: the worker runs
`Family.solve()` in a thread, the command line uses it directly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from tessera.models.assets import builtin_puzzles, resolve_puzzle
from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.trace import TraceEvent

#: How many trace events Search mode records at most (a long search is cut, not frozen on).
MAX_TRACE_EVENTS = 20_000

Progress = Callable[[float, int], None]


@dataclass
class Trace:
    """A recorded search: its events, and the family's decoder for their `choice` ids."""

    events: list[TraceEvent]
    decoder: Any
    describe: Callable[[int], str]
    truncated: bool = False


class SolveJob:
    """A lazy, cancellable listing of one solution per class (what the solution list shows)."""

    def __init__(self, solutions: Callable[[Progress | None], Iterator[Any]], cancel) -> None:
        self._solutions = solutions
        self._cancel = cancel

    def solutions(self, on_progress: Progress | None = None) -> Iterator[Any]:
        return self._solutions(on_progress)

    def cancel(self) -> None:
        self._cancel()


@dataclass
class Family:
    """A loaded puzzle of some family. Subclasses fill in the three hooks."""

    puzzle: Any
    source: str
    name: str = ""
    notes: list[str] = field(default_factory=list)
    family: ClassVar[str] = ""

    @classmethod
    def load(cls, path_or_id: str | Path) -> Any:
        raise NotImplementedError

    def solve(self) -> SolveJob:
        raise NotImplementedError

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        raise NotImplementedError

    def solution(self, k: int) -> Any:
        """The k-th solution (0-based) in listing order, found without a thread (CLI)."""
        job = self.solve()
        found = next(itertools.islice(job.solutions(), k, None), None)
        job.cancel()
        if found is None:
            raise NoSolution(
                f"{self.source}: no solution {k + 1}" if k else f"{self.source}: no solution"
            )
        return found


# -- polycube --------------------------------------------------------------------------------


class PolycubeFamily(Family):
    family = "polycube"

    @classmethod
    def load(cls, path_or_id: str | Path) -> Any:
        path = Path(path_or_id)
        if path.suffix.lower() == ".xmpuzzle":
            from tessera.models.burrtools import load_xmpuzzle

            return load_xmpuzzle(path)
        from tessera.models.polycube import load_polycube

        return load_polycube(path)

    def solve(self) -> SolveJob:
        from tessera.solvers.polycube_symmetry import ClassSearch

        search = ClassSearch(self.puzzle)
        return SolveJob(search.representatives, search.cancel)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        from tessera.solvers.polycube import PackingProblem

        problem = PackingProblem(self.puzzle)
        search = problem.search(trace=True)
        search.slice_nodes = 256  # stop soon after max_events instead of a whole slice later
        for _ in search.solutions(lambda s: len(s.events) > max_events and s.cancel()):
            break
        truncated = len(search.events) > max_events
        return Trace(search.events[:max_events], problem, problem.describe, truncated)


# -- dice ------------------------------------------------------------------------------------


class DiceFamily(Family):
    """Instant Insanity: one stack (an orientation per die, bottom first) per solution."""

    family = "dice"

    @classmethod
    def load(cls, path_or_id: str | Path) -> Any:
        from tessera.models.dice import load_dice

        return load_dice(path_or_id)

    def solve(self) -> SolveJob:
        # The distinct solutions in `tessera dice solve`'s order, so "--solution K" means the
        # same stack everywhere. Dice sets have few raw solutions (8 per class, times 2 per
        # extra cycle), so folding them all before the first is shown costs milliseconds; the
        # graph search itself still stops on cancel.
        import threading

        from tessera.solvers.dice import fold, solutions

        cancel = threading.Event()

        def listing(on_progress: Progress | None) -> Iterator[Any]:
            result = fold(self.puzzle, solutions(self.puzzle, "graph", cancel=cancel))
            if cancel.is_set():
                return
            for k, stack in enumerate(result.distinct):
                if on_progress is not None:
                    on_progress((k + 1) / len(result.distinct), k)
                yield stack

        return SolveJob(listing, cancel.set)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        from tessera.models.dice import SIDE_NAMES, SIDES, orient
        from tessera.solvers.dice import DiceSearch, decode_choice

        search = DiceSearch(self.puzzle, trace=True)
        search.CHECK_EVERY = 64  # look at the event count often: stop soon after the cap
        for _ in search.solutions(lambda s: len(s.events) > max_events and s.cancel()):
            break
        dice = self.puzzle.dice

        def describe(choice: int) -> str:
            die, k = decode_choice(choice)
            faces = orient(dice[die], k)
            sides = ", ".join(f"{SIDE_NAMES[i]} {faces[s]}" for i, s in enumerate(SIDES))
            return f"die {die + 1} turned {k} ({sides})"

        truncated = len(search.events) > max_events
        return Trace(search.events[:max_events], decode_choice, describe, truncated)


# -- domino ----------------------------------------------------------------------------------


class DominoFamily(Family):
    """Domino boards: a solution is a list of ((r1, c1), (r2, c2)) cell pairs."""

    family = "domino"

    @classmethod
    def load(cls, path_or_id: str | Path) -> Any:
        from tessera.models.domino import load_domino

        return load_domino(path_or_id)

    def solve(self) -> SolveJob:
        from tessera.solvers.domino import DominoSolver

        solver = DominoSolver(self.puzzle)

        def listing(on_progress: Progress | None) -> Iterator[Any]:
            report = None
            if on_progress is not None:

                def report(search) -> None:
                    on_progress(search.progress(), search.found)

            return solver.solutions(report)

        return SolveJob(listing, solver.cancel)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        from tessera.solvers.domino import DominoSolver

        solver = DominoSolver(self.puzzle, trace=True)
        solver.search.slice_nodes = 256  # stop soon after max_events, not a whole slice later
        for _ in solver.solutions(lambda s: len(s.events) > max_events and s.cancel()):
            break
        events = solver.events

        def describe(row: int) -> str:
            a, b, (lo, hi) = solver.decode(row)
            return f"tile {lo}-{hi} on {a} {b}"

        return Trace(events[:max_events], solver, describe, len(events) > max_events)


# -- kenken ----------------------------------------------------------------------------------


class KenKenFamily(Family):
    """KenKen: a solution is the grid of digits, rows top to bottom."""

    family = "kenken"

    @classmethod
    def load(cls, path_or_id: str | Path) -> Any:
        from tessera.models.kenken import load_kenken

        return load_kenken(path_or_id)

    def solve(self) -> SolveJob:
        from tessera.solvers.kenken import KenKenSearch

        search = KenKenSearch(self.puzzle)

        def listing(on_progress: Progress | None) -> Iterator[Any]:
            report = None
            if on_progress is not None:

                def report(s) -> None:
                    on_progress(s.progress(), s.found)

            return search.solutions(report)

        return SolveJob(listing, search.cancel)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        from functools import partial

        from tessera.solvers.kenken import KenKenSearch, decode_choice

        search = KenKenSearch(self.puzzle, trace=True)
        for _ in search.solutions(lambda s: len(s.events) > max_events and s.cancel()):
            break
        decode = partial(decode_choice, size=self.puzzle.size)

        def describe(choice: int) -> str:
            r, c, digit = decode(choice)
            return f"{digit} in row {r + 1}, column {c + 1}"

        truncated = len(search.events) > max_events
        return Trace(search.events[:max_events], decode, describe, truncated)


FAMILIES: dict[str, type[Family]] = {
    "polycube": PolycubeFamily,
    "dice": DiceFamily,
    "domino": DominoFamily,
    "kenken": KenKenFamily,
}


def register(kind: str, cls: type[Family]) -> None:
    FAMILIES[kind] = cls


def family_of_file(path: Path) -> str:
    """The family a puzzle file belongs to, from its suffix or its `kind` key."""
    suffix = path.suffix.lower()
    if suffix == ".kenken":
        return "kenken"
    if suffix == ".xmpuzzle":
        return "polycube"
    from tessera.models.fileformat import parse_document, read_text

    data = parse_document(read_text(path), path)
    kind = data.get("kind", "polycube")
    return kind if isinstance(kind, str) else "polycube"


def load(name_or_path: str | Path) -> Family:
    """Any puzzle the app knows: a file, a built-in name, or a Dominosa/Keen game ID."""
    text = str(name_or_path)
    if not Path(text).exists() and text not in builtin_puzzles():
        from tessera.models.dominosa_id import looks_like_id
        from tessera.models.keen_id import looks_like_keen_id

        # Both IDs start `N:`; a Keen ID always has a comma (walls, then clues), Dominosa's
        # digits never do.
        if looks_like_keen_id(text) and "," in text:
            return _make("kenken", text, text)
        if looks_like_id(text):
            return _make("domino", text, text)
    path = resolve_puzzle(text)
    return _make(family_of_file(path), path, text)


def _make(kind: str, path_or_id, label: str) -> Family:
    if kind not in FAMILIES:
        raise PuzzleError(f"the viewer does not know the puzzle kind '{kind}'", str(path_or_id))
    cls = FAMILIES[kind]
    puzzle = cls.load(path_or_id)
    name = getattr(puzzle, "name", None) or Path(str(label)).stem
    return cls(puzzle, str(path_or_id), name=name)


def builtin_groups() -> dict[str, list[tuple[str, Path]]]:
    """Built-in puzzles grouped by family, for the browser."""
    groups: dict[str, list[tuple[str, Path]]] = {}
    for stem, path in builtin_puzzles().items():
        try:
            kind = family_of_file(path)
        except PuzzleError:
            continue
        groups.setdefault(kind, []).append((stem, path))
    return groups
