"""Solving Instant Insanity: a traced depth-first search, and the counts both methods share.

Two methods find the same set of *raw* solutions (one orientation per die, bottom to top, with
every side of the tower showing every colour once):

* `DiceSearch`: depth-first over the 24 orientations of each die in stacking order, rejecting an
  orientation as soon as one of its sides repeats a colour already on that side of the tower.
  It is the reference: simple enough to trust, lazy, cancellable, and it records the
  place/remove trace the viewer's Search mode replays (`decode_choice` turns a trace choice back
  into a die and an orientation).
* the graph method (`solvers/dice_graph.py`): fast enough for a dozen dice and more.

`distinct_solutions` folds raw solutions into what a person would call different solutions:
stacks that look the same up to turning the tower about its axis and turning every die upside
down in place (see `models.dice.canonical_look`).

Viewer-facing names: `solutions(puzzle, method)` (lazy raw solutions, tuples of orientation
indices), `distinct_solutions(puzzle, method)` (one representative per class), `DiceSearch`
(`.events` when traced) and `decode_choice`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tessera.models.dice import (
    BACK,
    FRONT,
    LEFT,
    ORIENTATIONS,
    RIGHT,
    DicePuzzle,
    Stack,
    canonical_look,
)
from tessera.solvers.search_control import Report, Search, tree_fraction
from tessera.solvers.trace import EventKind, TraceEvent

N_ORIENTATIONS = len(ORIENTATIONS)
METHODS = ("graph", "search")


def encode_choice(die: int, orientation: int) -> int:
    """The trace id of putting `die` (0 = bottom) in `orientation` (0..23)."""
    return die * N_ORIENTATIONS + orientation


def decode_choice(choice: int) -> tuple[int, int]:
    """A trace choice as (die index, orientation index): `orient(puzzle.dice[die], k)` gives
    the colours to paint at stack level `die`."""
    return divmod(choice, N_ORIENTATIONS)


def colour_masks(puzzle: DicePuzzle) -> list[list[tuple[int, int, int, int, int]]]:
    """For each die, its 24 orientations as (k, front, right, back, left) colour bits: the
    whole state of the search is four bitmasks, one per side of the tower."""
    index = {c: i for i, c in enumerate(puzzle.colour_names)}
    out = []
    for die in puzzle.dice:
        bits = [1 << index[c] for c in die]
        out.append(
            [
                (k, bits[p[FRONT]], bits[p[RIGHT]], bits[p[BACK]], bits[p[LEFT]])
                for k, p in enumerate(ORIENTATIONS)
            ]
        )
    return out


class DiceSearch(Search):
    """One depth-first run over a puzzle (not reusable). Depth `d` places die `d`.

    `solutions()` yields raw solutions lazily; `cancel()` (or setting the `cancel` event
    passed in) stops it at the next node from any thread; `progress()` estimates the fraction
    of the tree behind us; with `trace=True`, `events` collects a `TraceEvent` for every
    orientation placed and removed and for every solution.
    """

    CHECK_EVERY = 2048  # nodes between looks at the cancel flag and progress callbacks

    def __init__(
        self,
        puzzle: DicePuzzle,
        *,
        trace: bool = False,
        cancel: threading.Event | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.tracing = trace
        self.events: list[TraceEvent] = []
        Search.__init__(self, cancel)
        self._options = colour_masks(puzzle)
        self._index = [0] * (puzzle.n + 1)
        self._depth = 0
        self.nodes = 0
        self._found = 0
        self.done = False

    def progress(self) -> float:
        """Fraction of the search tree behind us, from the branch indices near the root."""
        if self.done:
            return 1.0
        top = range(min(self._depth + 1, self.puzzle.n, 8))
        return tree_fraction((self._index[d] - 1, N_ORIENTATIONS) for d in top)

    @property
    def found(self) -> int:
        return self._found

    def check_often(self) -> None:
        self.CHECK_EVERY = 64

    def _solutions(self, report: Report | None) -> Iterator[Stack]:
        """Each raw solution: one orientation per die, bottom first."""
        n = self.puzzle.n
        options = self._options
        index = self._index
        placed = [-1] * n
        masks = [(0, 0, 0, 0)] * (n + 1)
        events = self.events if self.tracing else None
        cancel = self._cancel
        d = 0
        check = self.CHECK_EVERY
        while d >= 0:
            self._depth = d
            if placed[d] >= 0:
                if events is not None:
                    events.append(TraceEvent(EventKind.REMOVE, encode_choice(d, placed[d]), d))
                placed[d] = -1
            fm, rm, bm, lm = masks[d]
            opts = options[d]
            i = index[d]
            chosen = None
            while i < N_ORIENTATIONS:
                o = opts[i]
                i += 1
                if not (fm & o[1] or rm & o[2] or bm & o[3] or lm & o[4]):
                    chosen = o
                    break
            index[d] = i
            if chosen is None:
                d -= 1
                continue
            self.nodes += 1
            if self.nodes % check == 0:
                if cancel.is_set():
                    return
                if report is not None:
                    report()
            k = chosen[0]
            placed[d] = k
            if events is not None:
                events.append(TraceEvent(EventKind.PLACE, encode_choice(d, k), d))
            if d + 1 == n:
                self._found += 1
                if events is not None:
                    events.append(TraceEvent(EventKind.SOLUTION, -1, n))
                yield tuple(placed)
                if cancel.is_set():
                    return
                continue  # the next pass removes this die and tries its next orientation
            masks[d + 1] = (fm | chosen[1], rm | chosen[2], bm | chosen[3], lm | chosen[4])
            d += 1
            index[d] = 0
        self._depth = 0
        self.done = True


def solutions(
    puzzle: DicePuzzle, method: str = "graph", *, cancel: threading.Event | None = None
) -> Iterator[Stack]:
    """Every raw solution, lazily, by either method (the order differs, the set does not)."""
    if method == "search":
        return DiceSearch(puzzle, cancel=cancel).solutions()
    if method == "graph":
        from tessera.solvers.dice_graph import graph_solutions

        return graph_solutions(puzzle, cancel=cancel)
    raise ValueError(f"unknown method {method!r} (use one of {', '.join(METHODS)})")


@dataclass(frozen=True)
class DiceResult:
    """What `tessera dice solve` reports: the raw count and one stack per distinct solution
    (the smallest raw solution of its class, classes in that order)."""

    raw: int
    distinct: list[Stack]


def fold(puzzle: DicePuzzle, raw: Iterable[Stack]) -> DiceResult:
    """Count raw solutions and keep one representative per distinct solution."""
    best: dict[tuple, Stack] = {}
    count = 0
    for stack in raw:
        count += 1
        key = canonical_look(puzzle.dice, stack)
        if key not in best or stack < best[key]:
            best[key] = stack
    return DiceResult(count, sorted(best.values()))


def solve(puzzle: DicePuzzle, method: str = "graph") -> DiceResult:
    return fold(puzzle, solutions(puzzle, method))


def distinct_solutions(puzzle: DicePuzzle, method: str = "graph") -> list[Stack]:
    """One stack per distinct solution, in a fixed order whichever method found them."""
    return solve(puzzle, method).distinct


class DistinctStacks(Search):
    """The distinct solutions in `tessera dice solve`'s order (the search protocol), so
    "--solution K" means the same stack everywhere.

    Dice sets have few raw solutions (8 per class, times 2 per extra cycle), so folding them
    all before the first is given costs milliseconds; the graph search itself still stops on
    cancel."""

    def __init__(self, puzzle: DicePuzzle) -> None:
        Search.__init__(self)
        self.puzzle = puzzle
        self.events = []
        self.found = 0
        self.done = False
        self._total = 0

    def progress(self) -> float:
        return 1.0 if self.done else self.found / max(self._total, 1)

    def _solutions(self, report: Report | None) -> Iterator[Stack]:
        result = fold(self.puzzle, solutions(self.puzzle, "graph", cancel=self._cancel))
        self._total = len(result.distinct)
        for stack in result.distinct:
            if self.cancelled:
                return
            self.found += 1
            if report is not None:
                report()
            yield stack
        self.done = True
