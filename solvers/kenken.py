"""KenKen search: cage candidates × Latin square propagation, then branching on one cell.

Why not exact cover? It works (see `exact_cover_problem`, the benchmark's reference), but
propagation does what a human does: every cage keeps the digit tuples still possible, a
cell's candidates are what those tuples allow, and the row/column rules trim both. Most
puzzles then solve with no or few guesses, and the guesses that remain are the trace the
viewer replays (a digit placed in a cell, taken back on backtracking).

Representation, chosen for speed in pure Python:

* a cell's candidates are a bit mask (bit d−1 for digit d);
* a cage's candidate tuple is one int: bit i·N + d−1 says "cell i of the cage holds d", so a
  tuple survives the current candidates iff `tuple & forbidden == 0`, and the union of the
  survivors, cut into N-bit slices, is each cell's new candidates. Above those bits each tuple
  also records which digits it puts in each row or column holding two or more of its cells;
  AND-ing the survivors there tells which digits the cage *must* place in that line, which
  rules them out of the line's other cells (Keen's "hard" deduction).

Deduction levels (used to grade difficulty, see `grade`; they follow Keen's): every level uses
naked and hidden singles in rows and columns. 0 easy: a cage only tells which digits it uses
somewhere; 1 normal: which digits each of its cells can take; 2 hard: + digits a cage must
place in a row or column, ruled out of that line's other cells. Needing a guess: "extreme".

Search: branch on the cell with fewest candidates (weighted towards cages that keep causing
contradictions), or on the places left for a digit in a row or column when those are fewer;
after a branch is exhausted its choice is ruled out in the parent and propagated. A search
that goes `AUTO_BUDGET` nodes without a solution is started over with failed-literal probing
at every node, which settles even the worst 9×9 we have seen with almost no branching.

Trace: each event is a `KenKenEvent` that also carries every cell's candidates just after it,
as the search had them (Search mode's pencil marks): after a guess, what propagation left;
after a backtrack, the node's candidates with the refuted digit struck out (and propagated,
when the node goes on). Two bytes a cell, so a 9×9 trace of the 20,000 events Search mode
records at most (`solvers.registry.MAX_TRACE_EVENTS`) holds about 4 MB of them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from math import prod
from operator import and_, or_

from tessera.models.kenken import KenKenPuzzle, cage_tuples
from tessera.solvers.exact_cover import ExactCoverProblem
from tessera.solvers.search_control import Cancelled, Report, Search, tree_fraction
from tessera.solvers.trace import EventKind, TraceEvent, stack_at

__all__ = [
    "Cancelled",
    "KenKenEvent",
    "KenKenSearch",
    "LEVELS",
    "NodeLimit",
    "candidates_at",
    "choice_id",
    "count_solutions",
    "decode_choice",
    "digits_of",
    "exact_cover_problem",
    "grade",
    "known_digits",
    "solve",
]

#: Difficulty names by deduction level; "extreme" means no level solves it without guessing.
LEVELS = ("easy", "normal", "hard", "extreme")
MAX_LEVEL = 2

Grid = list[list[int]]


def choice_id(row: int, col: int, digit: int, size: int) -> int:
    """The trace id of "digit in (row, col)": (row·size + col)·10 + digit."""
    return (row * size + col) * 10 + digit


def decode_choice(choice: int, size: int) -> tuple[int, int, int]:
    """(row, col, digit) of a trace choice id, for the viewer's Search mode."""
    cell, digit = divmod(choice, 10)
    return cell // size, cell % size, digit


@dataclass(frozen=True, slots=True)
class KenKenEvent(TraceEvent):
    """A trace event that also says what the search knew just after it: every cell's
    candidates as a bit mask (bit d−1 for digit d), packed two bytes a cell in reading order.
    One mechanism for the viewer: the same events, with the state Search mode draws."""

    candidates: bytes = field(default=b"", repr=False, compare=False)

    def masks(self) -> list[int]:
        """The candidates of each cell, in reading order."""
        return array("H", self.candidates).tolist()


def _pack(dom: Sequence[int]) -> bytes:
    return array("H", dom).tobytes()


class _Plan:
    """What never changes during a search: cells, peers, cages and their packed tuples."""

    def __init__(self, puzzle: KenKenPuzzle) -> None:
        n = self.n = puzzle.size
        self.full = (1 << n) - 1
        self.ncells = n * n
        self.units = [tuple(r * n + c for c in range(n)) for r in range(n)]
        self.units += [tuple(r * n + c for r in range(n)) for c in range(n)]
        self.peers = [
            tuple(p for p in self.units[i // n] + self.units[n + i % n] if p != i)
            for i in range(self.ncells)
        ]
        self.cage_cells: list[tuple[int, ...]] = []
        self.cage_of = [0] * self.ncells
        # None for a cage too large to list (see models.kenken.TUPLE_LIMIT): bounds instead
        self.tuples: list[list[int] | None] = []
        self.ops = [cage.op for cage in puzzle.cages]
        # per cage: the positions of its cells grouped by grid row, and by column (distinct)
        self.cage_rows: list[list[list[int]]] = []
        self.cage_cols: list[list[list[int]]] = []
        self.targets = [cage.target for cage in puzzle.cages]
        # per cage: [(bit offset of the line slice, cells of that line outside the cage)]
        self.lines: list[list[tuple[int, tuple[int, ...]]]] = []
        # failures seen per cage: the search prefers cells in cages that keep failing
        self.weight = [1] * len(puzzle.cages)
        for k, cage in enumerate(puzzle.cages):
            cells = tuple(r * n + c for r, c in cage.cells)
            self.cage_cells.append(cells)
            for cell in cells:
                self.cage_of[cell] = k
            groups: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (positions, others)
            for unit in self.units:
                inside = tuple(i for i, cell in enumerate(cells) if cell in unit)
                if len(inside) >= 2:
                    groups.append((inside, tuple(u for u in unit if u not in cells)))
            base = len(cells) * n
            by_row: dict[int, list[int]] = {}
            by_col: dict[int, list[int]] = {}
            for i, (r, c) in enumerate(cage.cells):
                by_row.setdefault(r, []).append(i)
                by_col.setdefault(c, []).append(i)
            self.cage_rows.append(list(by_row.values()))
            self.cage_cols.append(list(by_col.values()))
            tuples = cage_tuples(cage, n)
            if tuples is None:
                self.lines.append([])
                self.tuples.append(None)
                continue
            self.lines.append([(base + j * n, others) for j, (_, others) in enumerate(groups)])
            packed = []
            for digits in tuples:
                bits = 0
                for i, d in enumerate(digits):
                    bits |= 1 << (i * n + d - 1)
                for j, (inside, _) in enumerate(groups):
                    for i in inside:
                        bits |= 1 << (base + j * n + digits[i] - 1)
                packed.append(bits)
            self.tuples.append(packed)


class _State:
    """Candidates of every cell and surviving tuples of every cage; copied at each guess."""

    __slots__ = ("dom", "tups", "uni")

    def __init__(self, dom: list[int], tups: list[list[int] | None], uni: list[int]) -> None:
        self.dom, self.tups, self.uni = dom, tups, uni

    def copy(self) -> _State:
        return _State(self.dom[:], self.tups[:], self.uni[:])


def _initial(plan: _Plan, level: int) -> _State | None:
    state = _State(
        [plan.full] * plan.ncells,
        [None if t is None else list(t) for t in plan.tuples],
        [-1] * len(plan.tuples),
    )
    for k, tups in enumerate(state.tups):
        if tups is not None and not tups:
            return None
        state.uni[k] = -1  # force a first revision of every cage
    if not _propagate(plan, state, set(range(len(plan.cage_cells))), [], level):
        return None
    return state


def _strike(
    plan: _Plan, dom: list[int], cells, bits: int, dirty: set[int], singles: list[int]
) -> bool:
    """Take the digits `bits` out of every cell in `cells` (a placed digit from its peers, a
    cage's sure digits from the rest of their line); False when a cell is left with none.
    Each changed cell's cage is marked dirty, and a cell down to one digit is a new single."""
    cage_of = plan.cage_of
    for p in cells:
        d = dom[p]
        if d & bits:
            d &= ~bits
            if not d:
                plan.weight[cage_of[p]] += 1
                return False
            dom[p] = d
            dirty.add(cage_of[p])
            if not d & (d - 1):
                singles.append(p)
    return True


def _propagate(plan: _Plan, state: _State, dirty: set[int], singles: list[int], level: int) -> bool:
    """Apply the deductions up to `level` until nothing changes; False on a contradiction."""
    n, full = plan.n, plan.full
    dom, tups, uni = state.dom, state.tups, state.uni
    cage_of, peers, cage_cells = plan.cage_of, plan.peers, plan.cage_cells
    while True:
        while singles or dirty:
            while singles:
                cell = singles.pop()
                if not _strike(plan, dom, peers[cell], dom[cell], dirty, singles):
                    return False
            if not dirty:
                break
            k = dirty.pop()
            cells = cage_cells[k]
            forced = uni[k] == -1
            forbid = 0
            shift = 0
            for cell in cells:
                forbid |= (full ^ dom[cell]) << shift
                shift += n
            if not (forbid & uni[k]) and not forced:
                continue
            if tups[k] is None:  # too large to list: uni[k] stays -1, so every change gets here
                if not _bounds(plan, k, dom, singles):
                    plan.weight[k] += 1
                    return False
                continue
            survivors = [t for t in tups[k] if not t & forbid]
            if not survivors:
                plan.weight[k] += 1
                return False
            tups[k] = survivors
            union = reduce(or_, survivors)
            uni[k] = union
            if level == 0:  # easy: only which digits the cage uses, not where
                anywhere = 0
                for shift in range(0, len(cells) * n, n):
                    anywhere |= union >> shift
                slices = [dom[cell] & anywhere for cell in cells]
            else:
                slices = [(union >> shift) & full for shift in range(0, len(cells) * n, n)]
            for cell, d in zip(cells, slices, strict=True):
                if d != dom[cell]:
                    if not d:
                        plan.weight[k] += 1
                        return False
                    dom[cell] = d
                    if not d & (d - 1):
                        singles.append(cell)
            if level >= 2 and plan.lines[k]:
                must = reduce(and_, survivors)
                for offset, others in plan.lines[k]:
                    need = (must >> offset) & full
                    if need and not _strike(plan, dom, others, need, dirty, singles):
                        return False
        # hidden singles: a digit with one place left in a row or column goes there
        changed = False
        for unit in plan.units:
            once = twice = 0
            for cell in unit:
                d = dom[cell]
                twice |= once & d
                once |= d
            if once != full:
                return False
            lonely = once & ~twice
            if lonely:
                for cell in unit:
                    d = dom[cell]
                    hit = d & lonely
                    if hit and d != hit:
                        if hit & (hit - 1):
                            return False  # two digits that both need this one cell
                        dom[cell] = hit
                        dirty.add(cage_of[cell])
                        singles.append(cell)
                        changed = True
        if not changed:
            return True


def _bounds(plan: _Plan, k: int, dom: list[int], singles: list[int]) -> bool:
    """Revise a cage too large to list its tuples, by bounds: each cell keeps the digits d
    for which the other cells' smallest and largest sum (or product) can still make the
    target. The cells of one row are distinct, so a row's part is at least its m smallest
    digits (a whole-grid `126+` cage is decided at once); the same by columns, and a digit
    must pass both. Repeated until nothing changes
    (unlike a tuple filter, one pass is not enough); exact once every cell is fixed, so the
    search stays correct. False on a contradiction."""
    cells, target, full = plan.cage_cells[k], plan.targets[k], plan.full
    adding = plan.ops[k] == "+"
    changed = True
    while changed:
        doms = [dom[cell] for cell in cells]
        keep = _bound_masks(doms, plan.cage_rows[k], target, adding)
        across = _bound_masks(doms, plan.cage_cols[k], target, adding) if keep else None
        if keep is None or across is None:
            return False
        keep = [a & b for a, b in zip(keep, across, strict=True)]
        changed = False
        for cell, mask in zip(cells, keep, strict=True):
            d = dom[cell] & mask & full
            if d != dom[cell]:
                if not d:
                    return False
                dom[cell] = d
                changed = True
                if not d & (d - 1):
                    singles.append(cell)
    return True


def _combine(values: Sequence[int], adding: bool) -> int:
    return sum(values) if adding else prod(values)


def _span(doms: Sequence[int], adding: bool) -> tuple[int, int] | None:
    """Smallest and largest sum (or product) of distinct digits, one from each domain (the
    cells of one row of a cage); None when the domains hold fewer digits than cells."""
    union = 0
    for d in doms:
        union |= d
    digits = [i + 1 for i in range(union.bit_length()) if union >> i & 1]
    m = len(doms)
    if len(digits) < m:
        return None
    lows = [(d & -d).bit_length() for d in doms]
    highs = [d.bit_length() for d in doms]
    low = max(_combine(lows, adding), _combine(digits[:m], adding))
    high = min(_combine(highs, adding), _combine(digits[len(digits) - m :], adding))
    return (low, high) if low <= high else None


def _bound_masks(
    doms: list[int], rows: list[list[int]], target: int, adding: bool
) -> list[int] | None:
    """Per cell of the cage (cage order), the digits the bounds allow; None if none can."""
    spans = []
    for members in rows:
        span = _span([doms[i] for i in members], adding)
        if span is None:
            return None
        spans.append(span)
    total_low = _combine([lo for lo, _ in spans], adding)
    total_high = _combine([hi for _, hi in spans], adding)
    if not total_low <= target <= total_high:
        return None
    masks = [0] * len(doms)
    for (g_low, g_high), members in zip(spans, rows, strict=True):
        for i in members:
            if len(members) == 1:
                rest_low, rest_high = (0, 0) if adding else (1, 1)
            else:
                rest = _span([doms[j] for j in members if j != i], adding)
                if rest is None:
                    return None
                rest_low, rest_high = rest
            if adding:
                lo = total_low - g_low + rest_low
                hi = total_high - g_high + rest_high
                a, b = max(1, target - hi), target - lo
                masks[i] = 0 if b < a else ((1 << b) - 1) & ~((1 << (a - 1)) - 1)
            else:
                lo = total_low // g_low * rest_low
                hi = total_high // g_high * rest_high
                mask, d = 0, doms[i]
                while d:
                    bit = d & -d
                    digit = bit.bit_length()
                    if not target % digit and lo <= target // digit <= hi:
                        mask |= bit
                    d ^= bit
                masks[i] = mask
    return masks


def _grid(plan: _Plan, dom: Sequence[int]) -> Grid:
    n = plan.n
    return [[dom[r * n + c].bit_length() for c in range(n)] for r in range(n)]


#: Nodes of plain search without a new solution before `probe="auto"` starts over with
#: failed-literal probing; a puzzle that has already given `AUTO_MAX_FOUND` solutions is
#: plainly easy to enumerate and is left to plain search.
AUTO_BUDGET = 150
AUTO_MAX_FOUND = 16


class NodeLimit(Exception):
    """Raised by `KenKenSearch` when its `node_limit` is spent (the generator's way of giving
    up on a candidate that would take long to decide)."""


class _Restart(Exception):
    pass


class KenKenSearch(Search):
    """One search over a puzzle: lazy solutions, counting, a trace, progress and cancel.

    The search protocol of `solvers.search_control`: make a new one to start over.

    `probe` picks the strength: False is propagation and branching only (cheap per node);
    True adds failed-literal probing at every node (costly per node, but it solves the
    hardest puzzles with hardly any branching); "auto" runs plain search and, if it goes
    `AUTO_BUDGET` nodes without a new solution (while few have been found), starts over with
    probing, skipping solutions it already gave. The trace then shows the first attempt
    taken back."""

    def __init__(
        self,
        puzzle: KenKenPuzzle,
        *,
        trace: bool = False,
        probe: bool | str = "auto",
        node_limit: int | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.tracing = trace
        self.probe = probe
        self.node_limit = node_limit
        self.events: list[TraceEvent] = []
        self.nodes = 0
        self.found = 0
        self.done = False
        Search.__init__(self)
        self._plan = _Plan(puzzle)
        self._branches: list[list[int]] = []  # per depth: [index, count]
        self._probing = probe is True
        self._budget: int | None = None

    def progress(self) -> float:
        """Fraction of the search tree behind us, from the branch indices near the root."""
        if self.done:
            return 1.0
        return tree_fraction(self._branches)

    def _solutions(self, report: Report | None) -> Iterator[Grid]:
        """Each solution as rows of digits."""
        state = _initial(self._plan, MAX_LEVEL)
        if state is not None:
            given: set[tuple[tuple[int, ...], ...]] = set()
            if self.probe == "auto":
                self._budget = self.nodes + AUTO_BUDGET
                try:
                    for grid in self._search(state.copy(), 0, report):
                        if len(given) < AUTO_MAX_FOUND:
                            given.add(tuple(map(tuple, grid)))
                            self._budget = self.nodes + AUTO_BUDGET
                        else:
                            self._budget = None
                        yield grid
                    state = None
                except _Restart:  # every open guess was taken back on the way out
                    self._budget = None
                    self._probing = True
            if state is not None:
                for grid in self._search(state, 0, report):
                    if given and tuple(map(tuple, grid)) in given:
                        self.found -= 1
                        continue
                    yield grid
        if not self.cancelled:
            self.done = True

    def _trace(self, kind: EventKind, choice: int, depth: int, dom: Sequence[int]) -> None:
        self.events.append(KenKenEvent(kind, choice, depth, _pack(dom)))

    def _search(self, state: _State, depth: int, report: Report | None):
        """Depth-first below `state`; raises `NodeLimit` when the node limit is spent."""
        plan = self._plan
        tracing = self.tracing
        if self._probing and not _probe(plan, state):
            return
        options = _branching(plan, state.dom)
        if options is None:
            self.found += 1
            if tracing:
                self._trace(EventKind.SOLUTION, -1, depth, state.dom)
            yield _grid(plan, state.dom)
            return
        branch = [0, len(options)]
        self._branches.append(branch)
        n = plan.n
        try:
            for index, (cell, digit) in enumerate(options):
                bit = 1 << (digit - 1)
                if not state.dom[cell] & bit:
                    continue  # ruled out by refuting the options before it
                if self._cancel.is_set():
                    return
                branch[0] = index
                self.nodes += 1
                if self._budget is not None and self.nodes > self._budget:
                    raise _Restart
                if self.node_limit is not None and self.nodes > self.node_limit:
                    raise NodeLimit(f"gave up after {self.node_limit} nodes")
                if report is not None and not self.nodes & 63:
                    report()
                choice = choice_id(cell // n, cell % n, digit, n)
                last = index == len(options) - 1
                # a trace keeps this node's candidates for its backtrack event
                child = state if last and not tracing else state.copy()
                child.dom[cell] = bit
                consistent = _propagate(plan, child, {plan.cage_of[cell]}, [cell], MAX_LEVEL)
                if tracing:  # what propagation left (up to the contradiction, if it failed)
                    self._trace(EventKind.PLACE, choice, depth, child.dom)
                if consistent:
                    try:
                        yield from self._search(child, depth + 1, report)
                    except _Restart:  # started over: every open guess is taken back
                        if tracing:
                            self._trace(EventKind.REMOVE, choice, depth, state.dom)
                        raise
                if self._cancel.is_set():
                    return
                # every solution with this choice is behind us: rule it out and propagate
                remaining = state.dom[cell] & ~bit
                going_on = not last and remaining
                if going_on:
                    state.dom[cell] = remaining
                    singles = [cell] if not remaining & (remaining - 1) else []
                    going_on = _propagate(plan, state, {plan.cage_of[cell]}, singles, MAX_LEVEL)
                if tracing:
                    if going_on:
                        self._trace(EventKind.REMOVE, choice, depth, state.dom)
                    else:  # a dead end: the cell keeps what is left of it, maybe nothing
                        dom = state.dom[:]
                        dom[cell] = remaining
                        self._trace(EventKind.REMOVE, choice, depth, dom)
                if not going_on:
                    break
        finally:
            self._branches.pop()


def _probe(plan: _Plan, state: _State) -> bool:
    """Failed-literal test (singleton consistency): a digit whose placement propagates to a
    contradiction is ruled out, until no probe fails. A probe that succeeds *supports* every
    digit it fixed, and those need no probe of their own in the same pass: placing one of them
    restricts less than the successful probe did, so it cannot fail either."""
    n, ncells = plan.n, plan.ncells
    cage_of = plan.cage_of
    changed = True
    while changed:
        changed = False
        support = [0] * ncells
        for cell in range(ncells):
            d = state.dom[cell]
            if not d & (d - 1):
                continue
            for digit in range(n):
                bit = 1 << digit
                if not state.dom[cell] & bit or support[cell] & bit:
                    continue
                trial = state.copy()
                trial.dom[cell] = bit
                if _propagate(plan, trial, {cage_of[cell]}, [cell], MAX_LEVEL):
                    for other, t in enumerate(trial.dom):
                        if not t & (t - 1):
                            support[other] |= t
                    continue
                rest = state.dom[cell] & ~bit
                if not rest:
                    return False
                state.dom[cell] = rest
                singles = [cell] if not rest & (rest - 1) else []
                if not _propagate(plan, state, {cage_of[cell]}, singles, MAX_LEVEL):
                    return False
                changed = True
    return True


def _branching(plan: _Plan, dom: Sequence[int]) -> list[tuple[int, int]] | None:
    """The (cell, digit) alternatives to try, one of which must hold; None when solved.

    Either the digits of the cell with fewest candidates, or the cells of the row or column
    where some digit has fewest places left, whichever is fewer."""
    best, best_score, best_count = -1, 1e9, 99
    weight, cage_of = plan.weight, plan.cage_of
    for cell, d in enumerate(dom):
        if d & (d - 1):
            count = d.bit_count()
            score = count / weight[cage_of[cell]]
            if score < best_score:
                best, best_score, best_count = cell, score, count
    if best < 0:
        return None
    if best_count > 2:
        n = plan.n
        for unit in plan.units:
            doms = [dom[cell] for cell in unit]
            for digit in range(n):
                bit = 1 << digit
                places = [cell for cell, d in zip(unit, doms, strict=True) if d & bit]
                if 1 < len(places) < best_count:
                    best_count = len(places)
                    options = [(cell, digit + 1) for cell in places]
                    if best_count == 2:
                        return options
        if best_count < dom[best].bit_count():
            return options
    d = dom[best]
    return [(best, digit + 1) for digit in range(plan.n) if d >> digit & 1]


def solve(puzzle: KenKenPuzzle, limit: int | None = None) -> list[Grid]:
    """All solutions (or the first `limit`) as rows of digits."""
    out: list[Grid] = []
    for grid in KenKenSearch(puzzle).solutions():
        out.append(grid)
        if limit is not None and len(out) >= limit:
            break
    return out


def count_solutions(puzzle: KenKenPuzzle, limit: int | None = None) -> int:
    """How many solutions (stopping at `limit`): 1 means the puzzle is proper."""
    return KenKenSearch(puzzle).count(limit)


def grade(puzzle: KenKenPuzzle) -> str:
    """The difficulty: the lowest deduction level (see `LEVELS`) that solves the puzzle with
    no guessing, or "extreme" when every level needs a guess."""
    plan = _Plan(puzzle)
    for level in range(MAX_LEVEL + 1):
        state = _initial(plan, level)
        if state is not None and all(not d & (d - 1) for d in state.dom):
            return LEVELS[level]
    return LEVELS[-1]


def _replay(puzzle: KenKenPuzzle, choices: Sequence[int]) -> list[int]:
    """Every cell's candidates after placing trace `choices` and propagating; an inconsistent
    set of choices stops at the first that fails, shown placed."""
    plan = _Plan(puzzle)
    state = _initial(plan, MAX_LEVEL)
    if state is None:
        return [0] * plan.ncells
    for choice in choices:
        r, c, digit = decode_choice(choice, plan.n)
        cell = r * plan.n + c
        trial = state.copy()
        trial.dom[cell] &= 1 << (digit - 1)
        if not trial.dom[cell] or not _propagate(plan, trial, {plan.cage_of[cell]}, [cell], 2):
            state.dom[cell] = 1 << (digit - 1)
            break
        state = trial
    return state.dom


def digits_of(masks: Sequence[int], size: int) -> Grid:
    """The digits certain in a set of candidates (a one-digit mask); 0 marks an open cell."""
    return [
        [d.bit_length() if d and not d & (d - 1) else 0 for d in masks[r * size : r * size + size]]
        for r in range(size)
    ]


def known_digits(puzzle: KenKenPuzzle, choices: Sequence[int] = ()) -> Grid:
    """The digits certain after placing trace `choices` (e.g. `stack_at(events, step)`) and
    propagating. 0 marks an open cell; an inconsistent set of choices shows the cells placed
    so far."""
    return digits_of(_replay(puzzle, choices), puzzle.size)


def candidates_at(puzzle: KenKenPuzzle, events: list[TraceEvent], step: int) -> list[int]:
    """Every cell's candidates (bit masks, reading order) after the first `step` events of a
    trace: what Search mode shows at that step. A `KenKenEvent` says it itself; at step 0 it
    is what propagation alone gives, exactly where the search starts; a plain event (a trace
    written by hand) is replayed from the guesses standing then."""
    step = min(max(step, 0), len(events))
    if step and isinstance(events[step - 1], KenKenEvent) and events[step - 1].candidates:
        return events[step - 1].masks()
    return _replay(puzzle, stack_at(events, step) if step else ())


# -- the exact-cover formulation (the benchmark's reference, and an independent check) -----


#: The exact-cover reference lists every tuple; past this it refuses rather than fill memory.
EXACT_COVER_LIMIT = 200_000


def exact_cover_problem(puzzle: KenKenPuzzle) -> tuple[ExactCoverProblem, list[tuple[int, tuple]]]:
    """KenKen as exact cover: one row per (cage, candidate tuple), covering the cage, its
    cells and the (row, digit) and (column, digit) pairs it uses. Returns the problem and
    what each row means, for `grid_from_rows`."""
    n = puzzle.size
    rows: list[list[int]] = []
    meaning: list[tuple[int, tuple]] = []
    base_row, base_col, base_cage = n * n, 2 * n * n, 3 * n * n
    for k, cage in enumerate(puzzle.cages):
        tuples = cage_tuples(cage, n, EXACT_COVER_LIMIT)
        if tuples is None:
            raise ValueError(f"cage {cage.clue} has over {EXACT_COVER_LIMIT} digit tuples")
        for digits in tuples:
            columns = [base_cage + k]
            for (r, c), d in zip(cage.cells, digits, strict=True):
                columns += [r * n + c, base_row + r * n + d - 1, base_col + c * n + d - 1]
            rows.append(columns)
            meaning.append((k, digits))
    total = base_cage + len(puzzle.cages)
    return ExactCoverProblem(rows, total, total), meaning


def grid_from_rows(
    puzzle: KenKenPuzzle, meaning: Sequence[tuple[int, tuple]], chosen: Sequence[int]
) -> Grid:
    """The digit grid of an exact-cover solution (row numbers of `exact_cover_problem`)."""
    grid = [[0] * puzzle.size for _ in range(puzzle.size)]
    for row in chosen:
        k, digits = meaning[row]
        for (r, c), d in zip(puzzle.cages[k].cells, digits, strict=True):
            grid[r][c] = d
    return grid
