"""The graph method for Instant Insanity (Carteblanche, 1947), extended to list every solution.

Colours are vertices; each die adds its three opposite-face pairs as edges labelled by the die
(a pair of equal colours is a loop). In a solved tower the front/back pairs form a subgraph
with one edge per die in which every colour has degree 2 (it shows once in front, once at the
back), and so do the right/left pairs, on other edges of the same dice. Conversely every such
ordered pair of subgraphs gives solutions: each subgraph is a union of cycles, and walking each
cycle one way or the other decides which face of each pair is in front (or at the right); a
front face and a right face fix the die's orientation. So the raw solutions are, per ordered
pair of subgraphs, 2 ** (cycles in the first + cycles in the second) stacks.

The pair search chooses, die by die, which pair shows front/back and which right/left, keeping
both degree counts at most 2 and checking that the dice left can still fill every colour; the
search space is 6 ** n at most but the pruning keeps n = 12 to milliseconds. Plain Python is
enough (and faster than building networkx graphs for this size).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from itertools import product

from tessera.models.dice import AXES, BY_FRONT_RIGHT, OPPOSITE, DicePuzzle, Stack

# The ordered (front/back pair, right/left pair) choices of a die; the vertical pair is the
# one left over. Pairs are indices into models.dice.AXES.
PAIR_CHOICES = tuple((a, b) for a in range(3) for b in range(3) if a != b)


def _edges(puzzle: DicePuzzle) -> list[list[tuple[int, int]]]:
    """edges[d][p]: the colour indices at the two faces of pair p of die d."""
    index = {c: i for i, c in enumerate(puzzle.colour_names)}
    return [[(index[die[a]], index[die[b]]) for a, b in AXES] for die in puzzle.dice]


def _capacities(
    edges: list[list[tuple[int, int]]], d: int
) -> tuple[dict[int, int], dict[int, int]]:
    """The most die d can add to each colour's degree in one subgraph (the colour's count on
    the die's best pair for it) and in both together (its two best pairs)."""
    one, both = {}, {}
    for c in set(x for pair in edges[d] for x in pair):
        mult = sorted((pair.count(c) for pair in edges[d]), reverse=True)
        one[c], both[c] = mult[0], mult[0] + mult[1]
    return one, both


class _PairSearch:
    """The depth-first search behind `factor_pairs`: dice decided one at a time, degrees and
    capacities updated in place and put back on the way up."""

    def __init__(self, puzzle: DicePuzzle, cancel: threading.Event | None) -> None:
        n = puzzle.n
        m = len(puzzle.colour_names)
        self.m = m
        self.cancel = cancel
        self.edges = _edges(puzzle)
        # cap1[c] / cap2[c]: the most the dice not yet decided can add to colour c's degree in
        # one subgraph / in both together. A colour that cannot reach degree 2 in both ends
        # the branch.
        self.contrib1, self.contrib2 = [], []
        for d in range(n):
            one, both = _capacities(self.edges, d)
            self.contrib1.append(one)
            self.contrib2.append(both)
        self.cap1 = [0] * m
        self.cap2 = [0] * m
        for d in range(n):
            self._add_capacity(d, 1)
        self.deg1 = [0] * m
        self.deg2 = [0] * m
        self.first = [-1] * n
        self.second = [-1] * n
        self.free = set(range(n))
        self.nodes = 0

    def _add_capacity(self, d: int, sign: int) -> None:
        for c, k in self.contrib1[d].items():
            self.cap1[c] += sign * k
        for c, k in self.contrib2[d].items():
            self.cap2[c] += sign * k

    def options(self, d: int) -> list[tuple[int, int]]:
        """Die d's (front/back, right/left) choices that keep every degree at most 2."""
        deg1, deg2, pairs = self.deg1, self.deg2, self.edges[d]
        out = []
        for a, b in PAIR_CHOICES:
            u1, v1 = pairs[a]
            u2, v2 = pairs[b]
            if u1 == v1:
                if deg1[u1] > 0:
                    continue
            elif deg1[u1] > 1 or deg1[v1] > 1:
                continue
            if u2 == v2:
                if deg2[u2] > 0:
                    continue
            elif deg2[u2] > 1 or deg2[v2] > 1:
                continue
            out.append((a, b))
        return out

    def feasible(self) -> bool:
        """Whether the dice left can still bring every colour to degree 2 in both."""
        cap1, cap2 = self.cap1, self.cap2
        for c in range(self.m):
            miss1 = 2 - self.deg1[c]
            miss2 = 2 - self.deg2[c]
            if miss1 > cap1[c] or miss2 > cap1[c] or miss1 + miss2 > cap2[c]:
                return False
        return True

    def _branch_die(self) -> tuple[int, list[tuple[int, int]]]:
        """The die with the fewest choices left (none: dead end), so forced moves are made
        first and contradictions surface near the root."""
        best, best_opts = -1, None
        for d in self.free:
            opts = self.options(d)
            if best_opts is None or len(opts) < len(best_opts):
                best, best_opts = d, opts
                if len(opts) <= 1:
                    break
        return best, best_opts

    def _shift(self, d: int, a: int, b: int, step: int) -> None:
        """Add (step 1) or take back (-1) pair a of die d in front, pair b at the right."""
        u1, v1 = self.edges[d][a]
        u2, v2 = self.edges[d][b]
        self.deg1[u1] += step
        self.deg1[v1] += step
        self.deg2[u2] += step
        self.deg2[v2] += step

    def run(self, depth: int = 0) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Each unordered {H1, H2} once, as (H1, H2)."""
        if not self.free:
            yield tuple(self.first), tuple(self.second)
            return
        self.nodes += 1
        if self.cancel is not None and self.nodes % 256 == 0 and self.cancel.is_set():
            return
        d, opts = self._branch_die()
        self.free.discard(d)
        self._add_capacity(d, -1)
        for a, b in opts:
            # the first die decided uses its lower pair for front/back: the caller adds the
            # other order
            if depth == 0 and a > b:
                continue
            self._shift(d, a, b, 1)
            if self.feasible():
                self.first[d] = a
                self.second[d] = b
                yield from self.run(depth + 1)
            self._shift(d, a, b, -1)
        self.first[d] = self.second[d] = -1
        self._add_capacity(d, 1)
        self.free.add(d)


def factor_pairs(
    puzzle: DicePuzzle, *, cancel: threading.Event | None = None
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every ordered pair (front/back, right/left) of edge-disjoint degree-2 subgraphs, each
    given as one pair index per die. Both orders of a pair are yielded."""
    if len(puzzle.colour_names) != puzzle.n:
        return  # n dice need exactly n colours on every side
    for h1, h2 in _PairSearch(puzzle, cancel).run():
        yield h1, h2
        yield h2, h1


def cycles(puzzle: DicePuzzle, factor: tuple[int, ...]) -> list[list[tuple[int, int]]]:
    """The cycles of a degree-2 subgraph (one pair index per die), each walked one way round
    as (die, face index that leads) steps: the leading faces are the fronts (or rights) of one
    of the two ways to direct that cycle; the other way leads with the opposite faces."""
    edges = _edges(puzzle)
    at: dict[int, list[int]] = {}
    for d, p in enumerate(factor):
        u, v = edges[d][p]
        at.setdefault(u, []).append(d)
        at.setdefault(v, []).append(d)
    used = [False] * puzzle.n
    out: list[list[tuple[int, int]]] = []
    for start in range(puzzle.n):
        if used[start]:
            continue
        a, b = AXES[factor[start]]
        u, v = edges[start][factor[start]]
        cycle = [(start, a)]
        used[start] = True
        here = v
        while here != u:
            d = next(x for x in at[here] if not used[x])
            used[d] = True
            fa, fb = AXES[factor[d]]
            x, y = edges[d][factor[d]]
            if x == here:
                cycle.append((d, fa))
                here = y
            else:
                cycle.append((d, fb))
                here = x
        out.append(cycle)
    return out


def _directions(puzzle: DicePuzzle, factor: tuple[int, ...]) -> list[list[int]]:
    """Every way to direct the cycles: for each, the leading face of every die."""
    ways = []
    cyc = cycles(puzzle, factor)
    for flips in product((False, True), repeat=len(cyc)):
        lead = [0] * puzzle.n
        for cycle, flip in zip(cyc, flips, strict=True):
            for d, face in cycle:
                lead[d] = OPPOSITE[face] if flip else face
        ways.append(lead)
    return ways


def stacks_of(puzzle: DicePuzzle, h1: tuple[int, ...], h2: tuple[int, ...]) -> Iterator[Stack]:
    """The raw solutions with front/back pairs `h1` and right/left pairs `h2`."""
    rights = _directions(puzzle, h2)
    for fronts in _directions(puzzle, h1):
        for right in rights:
            yield tuple(BY_FRONT_RIGHT[f][r] for f, r in zip(fronts, right, strict=True))


def graph_solutions(
    puzzle: DicePuzzle, *, cancel: threading.Event | None = None
) -> Iterator[Stack]:
    """Every raw solution, lazily, via the pairs of subgraphs."""
    for h1, h2 in factor_pairs(puzzle, cancel=cancel):
        yield from stacks_of(puzzle, h1, h2)


def count_raw(puzzle: DicePuzzle) -> int:
    """The number of raw solutions without listing them: sum of 2 ** (cycles) per pair."""
    return sum(
        2 ** (len(cycles(puzzle, h1)) + len(cycles(puzzle, h2))) for h1, h2 in factor_pairs(puzzle)
    )
