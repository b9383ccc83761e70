"""What every family's search shares, whatever its algorithm: a stop button that works from
any thread, and an estimate of how much of the search tree lies behind us."""

from __future__ import annotations

import threading
from collections.abc import Iterable


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
