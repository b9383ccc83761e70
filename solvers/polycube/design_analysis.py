"""Design mode's live analysis, Qt-free: can the drawn pieces fill the drawn target, and in how
many ways up to symmetry?

The editor runs one `DesignAnalysis` per edit in a worker thread and cancels it when the next
edit comes; so `run()` must answer the cheap questions first (is anything drawn, do the volumes
match — the reason is what a designer needs most while drawing) and only then count, and the
count must stop promptly from another thread (`cancel()`).

The count is `ClassSearch.tally()` rather than `ClassSearch.count()`: both give the number of
classes up to symmetry, but `tally` counts the orbits of the anchor piece whose solutions are
all distinct without listing them (Soma: 30 ms against 0.8 s for listing), and spreads long
counts over both cores. While it runs it reports the fixed solutions found so far; a class
holds at most |G| of them (G the target's symmetry group), so `fixed / |G|` is an honest lower
bound for the badge's "counting… N+".

A document with piece ranges (`min..max` copies) stands for one puzzle per combination of
counts whose volume fits; their counts add up, since solutions with different piece counts are
different solutions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from tessera.models.design import DesignError, DesignState, to_puzzle, volume_fits
from tessera.models.errors import PuzzleError
from tessera.solvers.polycube.symmetry import ClassSearch, Counts
from tessera.solvers.search_control import Cancellable

#: `on_progress(fraction done, solutions up to symmetry so far — a lower bound)`.
Progress = Callable[[float, int], None]


@dataclass(frozen=True)
class Analysis:
    """What the badge shows. `status` is one of:

    - 'empty': nothing to count yet (no target, no pieces, an empty piece); `reason` says what;
    - 'impossible': the volumes cannot match; `reason` is the badge text, `detail` the long one;
    - 'counted': `counts` is complete;
    - 'stopped': cancelled; `counts` holds the partial count (a lower bound);
    - 'error': the puzzle cannot be searched (too big); `reason` says why.
    """

    status: str
    reason: str = ""
    detail: str = ""
    counts: Counts | None = None
    seconds: float = 0.0

    @property
    def solutions(self) -> int | None:
        """Solutions up to symmetry (None when nothing was counted)."""
        return self.counts.up_to_symmetry if self.counts is not None else None

    @property
    def badge(self) -> str:
        """'240 solutions', 'no solution: pieces 26 cells, target 27', 'stopped: 1200+'."""
        if self.status == "counted":
            n = self.solutions or 0
            if n == 0:
                return "no solution"
            return f"{n} solution{'s' if n != 1 else ''}"
        if self.status == "stopped":
            return f"stopped: {self.solutions or 0}+ solutions"
        return self.reason


def volume_reason(state: DesignState) -> tuple[str, str] | None:
    """(badge text, long reason) when no count of the pieces can fill the target, else None.

    The long reason is `PolycubePuzzle.volume_problem()`'s, the one the CLI prints; the badge
    says the same in the issue's few words."""
    lo, hi = state.piece_volume_range
    need, room = len(state.target.required), len(state.target.cells)
    if hi < need or lo > room:
        have = f"{lo}..{hi}" if lo != hi else str(lo)
        optional = room - need
        target = f"{need} + {optional} optional" if optional else str(need)
        badge = f"no solution: pieces {have} cells, target {target}"
        if lo == hi:
            try:
                detail = to_puzzle(state).volume_problem() or badge
            except DesignError:
                detail = badge
        else:
            detail = badge
        return badge, detail
    return None


def precheck(state: DesignState) -> Analysis | None:
    """The cheap answers, in the order a designer meets them; None when a count is due."""
    if not state.target.required:
        return Analysis("empty", "draw the target")
    if not state.pieces:
        return Analysis("empty", "add a piece")
    empty = next((p.name for p in state.pieces if not p.cells), None)
    if empty is not None:
        return Analysis("empty", f"piece {empty} has no cubes")
    reason = volume_reason(state)
    if reason is not None:
        return Analysis("impossible", reason[0], reason[1])
    return None


class DesignAnalysis(Cancellable):
    """One analysis of one snapshot (not reusable). `run()` in any thread, `cancel()` from
    any other."""

    def __init__(self, state: DesignState) -> None:
        super().__init__()
        self.state = state
        self._search: ClassSearch | None = None

    def cancel(self) -> None:
        super().cancel()
        search = self._search
        if search is not None:
            search.cancel()

    def run(self, on_progress: Progress | None = None) -> Analysis:
        start = time.perf_counter()
        early = precheck(self.state)
        if early is not None:
            return early
        if not volume_fits(self.state):
            return Analysis("impossible", "no solution: no count of the pieces fits the target")
        try:  # ranges stay ranges: one search counts every number of copies, as BurrTools does
            search = ClassSearch(to_puzzle(self.state))
        except PuzzleError as exc:
            return Analysis("error", str(exc).removeprefix("None: "))
        self._search = search
        if self.cancelled:
            search.cancel()
        group = max(len(search.group.elements), 1)

        def report(fraction: float, fixed: int) -> None:
            if on_progress is not None:
                on_progress(fraction, math.ceil(fixed / group))

        counts = search.tally(report)
        seconds = time.perf_counter() - start
        status = "stopped" if counts.partial else "counted"
        return Analysis(status, counts=counts, seconds=seconds)


def analyse(state: DesignState, on_progress: Progress | None = None) -> Analysis:
    """One analysis, in the calling thread (tests, scripts)."""
    return DesignAnalysis(state).run(on_progress)
