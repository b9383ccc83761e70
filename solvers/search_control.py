"""The one search protocol every family's solver implements.

Polycube packing (the exact-cover engine and its symmetry classes), domino tilings, dice stacks
and KenKen grids are found by different algorithms, but the window, the command line and the
tests drive them all the same way:

* `solutions(on_progress)` yields solutions lazily, so a list fills while the search runs;
* `count(limit, on_progress)` counts, raising `Cancelled` with the partial count on a stop;
* `cancel()` works from any thread (the GUI's Stop, the CLI's Ctrl-C);
* progress is reported as `on_progress(fraction, found)`: how much of the tree lies behind
  us, and how many solutions so far;
* with `trace=True`, `events` collects the place/remove/solution events that Search mode
  replays, and `record_trace()` is the one way to record a bounded trace.

A subclass writes `_solutions(report)`, calling `report()` now and then between nodes, plus
`progress()`, `found` and `done`; everything else comes from here.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tessera.solvers.trace import TraceEvent

#: `on_progress(fraction of the tree behind us, solutions found so far)`.
Progress = Callable[[float, int], None]
#: What a subclass calls between nodes; it forwards to the caller's `Progress`, if any.
Report = Callable[[], None]


class Cancelled(Exception):
    """Raised by `count()` when `cancel()` was called; carries the partial count."""

    def __init__(self, partial: int) -> None:
        super().__init__(f"cancelled after {partial} solutions")
        self.partial = partial


class Cancellable:
    """A thread-safe stop flag; searches look at it between nodes (or compiled slices), so the
    GUI's Cancel and the CLI's Ctrl-C stop them within a fraction of a second."""

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self._cancel = cancel if cancel is not None else threading.Event()

    def cancel(self) -> None:
        """Ask the search to stop at its next check (safe from any thread)."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()


class Search(Cancellable, ABC):
    """One run of a search (not reusable: make a new one to start over)."""

    #: Trace events, filled when the search was made with `trace=True`.
    events: list[TraceEvent]
    #: Whether the whole tree has been explored.
    done: bool
    #: Solutions found so far (an attribute or a property).
    found: int

    @abstractmethod
    def progress(self) -> float:
        """Fraction of the search tree behind us (1.0 when done)."""

    @abstractmethod
    def _solutions(self, report: Report | None) -> Iterator[Any]:
        """Yield solutions lazily, calling `report()` between nodes; stop quietly on cancel."""

    def check_often(self) -> None:
        """Look at the stop flag more often than the default (used while recording a trace,
        so a trace stops soon after its cap instead of a whole slice later)."""

    def solutions(self, on_progress: Progress | None = None) -> Iterator[Any]:
        """Yield each solution as it is found; stops quietly when cancelled."""
        report = None
        if on_progress is not None:

            def report() -> None:
                on_progress(self.progress(), self.found)

        return self._solutions(report)

    def count(self, limit: int | None = None, on_progress: Progress | None = None) -> int:
        """Count solutions (all, or stop at `limit`). Raises `Cancelled` if cancelled."""
        n = 0
        for _ in self.solutions(on_progress):
            n += 1
            if limit is not None and n >= limit:
                return n
        if self.cancelled and not self.done:
            raise Cancelled(n)
        return n

    def record_trace(self, max_events: int) -> tuple[list[TraceEvent], bool]:
        """Run a tracing search up to its first solution, keeping at most `max_events` events:
        what Search mode replays. Returns (events, truncated)."""
        self.check_often()

        def stop_when_full(_fraction: float, _found: int) -> None:
            if len(self.events) > max_events:
                self.cancel()

        for _ in self.solutions(stop_when_full):
            break
        return self.events[:max_events], len(self.events) > max_events


def tree_fraction(branches: Iterable[tuple[int, int]], levels: int = 12) -> float:
    """Fraction of the tree already explored, from (choices done, choices in all) at each depth
    near the root: each level refines the one above it, like digits of a mixed-radix number."""
    frac, scale = 0.0, 1.0
    for depth, (index, count) in enumerate(branches):
        if depth >= levels:
            break
        count = max(count, 1)
        frac += scale * min(max(index, 0), count) / count
        scale /= count
    return min(frac, 1.0)
