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

from models.assets import builtin_puzzles, resolve_puzzle
from models.errors import NoSolution, PuzzleError
from solvers.trace import TraceEvent

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
            from models.burrtools import load_xmpuzzle

            return load_xmpuzzle(path)
        from models.polycube import load_polycube

        return load_polycube(path)

    def solve(self) -> SolveJob:
        from solvers.polycube_symmetry import ClassSearch

        search = ClassSearch(self.puzzle)
        return SolveJob(search.representatives, search.cancel)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        from solvers.polycube import PackingProblem

        problem = PackingProblem(self.puzzle)
        search = problem.search(trace=True)
        search.slice_nodes = 256  # stop soon after max_events instead of a whole slice later
        for _ in search.solutions(lambda s: len(s.events) > max_events and s.cancel()):
            break
        truncated = len(search.events) > max_events
        return Trace(search.events[:max_events], problem, problem.describe, truncated)


FAMILIES: dict[str, type[Family]] = {"polycube": PolycubeFamily}


def register(kind: str, cls: type[Family]) -> None:
    FAMILIES[kind] = cls


def family_of_file(path: Path) -> str:
    """The family a puzzle file belongs to, from its suffix or its `kind` key."""
    suffix = path.suffix.lower()
    if suffix == ".kenken":
        return "kenken"
    if suffix == ".xmpuzzle":
        return "polycube"
    from models.fileformat import parse_document, read_text

    data = parse_document(read_text(path), path)
    kind = data.get("kind", "polycube")
    return kind if isinstance(kind, str) else "polycube"


def load(name_or_path: str | Path) -> Family:
    """Any puzzle the app knows: a file, a built-in name, or a Dominosa/Keen game ID."""
    text = str(name_or_path)
    if not Path(text).exists() and text not in builtin_puzzles():
        from models.dominosa_id import looks_like_id
        from models.keen_id import looks_like_keen_id

        if looks_like_id(text):
            return _make("domino", text, text)
        if looks_like_keen_id(text):
            return _make("kenken", text, text)
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
