"""The shared engine: exact cover with multiplicities, laziness, tracing, cancellation."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from tessera.solvers.exact_cover import Cancelled, ExactCoverProblem, ExactCoverSearch, solve
from tessera.solvers.trace import EventKind, stack_at


def brute_force(rows, n_primary, n_columns, mult):
    """Reference: try every subset of rows. As in Algorithm X, a row that touches no primary
    column is never chosen (nothing asks for it)."""
    useful = [r for r, row in enumerate(rows) if any(c < n_primary for c in row)]
    found = []
    for k in range(len(useful) + 1):
        for subset in itertools.combinations(useful, k):
            hits = np.zeros(n_columns, int)
            for r in subset:
                for c in rows[r]:
                    hits[c] += 1
            if all(hits[c] == mult[c] for c in range(n_primary)) and all(
                hits[c] <= 1 for c in range(n_primary, n_columns)
            ):
                found.append(subset)
    return found


def test_knuth_example():
    rows = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]
    assert solve(ExactCoverProblem(rows, 7, 7)) == [(3, 0, 4)]


@pytest.mark.parametrize("seed", range(40))
def test_random_problems_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_cols = int(rng.integers(3, 7))
    n_primary = int(rng.integers(1, n_cols + 1))
    mult = [int(rng.integers(1, 3)) if c < n_primary else 1 for c in range(n_cols)]
    rows = []
    for _ in range(int(rng.integers(3, 11))):
        size = int(rng.integers(1, 4))
        rows.append(sorted(rng.choice(n_cols, size, replace=False).tolist()))
    want = brute_force(rows, n_primary, n_cols, mult)
    got = list(ExactCoverSearch(ExactCoverProblem(rows, n_primary, n_cols, mult)).solutions())
    assert sorted(tuple(sorted(s)) for s in got) == sorted(want)
    assert ExactCoverSearch(ExactCoverProblem(rows, n_primary, n_cols, mult)).count() == len(want)


def domino_strip(n: int) -> ExactCoverProblem:
    cells = [(x, y) for y in range(2) for x in range(n)]
    index = {c: i for i, c in enumerate(cells)}
    rows = []
    for x, y in cells:
        for dx, dy in ((1, 0), (0, 1)):
            if (x + dx, y + dy) in index:
                rows.append([index[(x, y)], index[(x + dx, y + dy)], len(cells)])
    return ExactCoverProblem(rows, len(cells) + 1, len(cells) + 1, [1] * len(cells) + [n])


def test_identical_copies_are_not_told_apart():
    assert ExactCoverSearch(domino_strip(12)).count() == 233  # Fibonacci, not 233 * 12!


def test_solutions_are_lazy():
    search = ExactCoverSearch(domino_strip(30))
    first = next(iter(search.solutions()))
    assert len(first) == 30
    assert search.found == 1 and not search.done


def test_trace_replays_to_each_solution():
    search = ExactCoverSearch(domino_strip(5), trace=True)
    solutions = list(search.solutions())
    events = search.events
    assert events[0].kind is EventKind.PLACE and events[0].depth == 0
    at_solution = [i + 1 for i, e in enumerate(events) if e.kind is EventKind.SOLUTION]
    assert len(at_solution) == len(solutions) == 8
    for step, rows in zip(at_solution, solutions, strict=True):
        assert sorted(stack_at(events, step)) == sorted(rows)
    assert stack_at(events, len(events)) == []  # every placement is removed again
    places = sum(e.kind is EventKind.PLACE for e in events)
    removes = sum(e.kind is EventKind.REMOVE for e in events)
    assert places == removes


def test_cancel_from_another_thread_stops_a_long_count():
    search = ExactCoverSearch(domino_strip(80), slice_nodes=2000)  # ~3.8e16 solutions
    timer = threading.Timer(0.3, search.cancel)
    timer.start()
    with pytest.raises(Cancelled) as info:
        search.count()  # the test's timeout catches a search that never looks at the flag
    assert info.value.partial == search.found > 0


def test_progress_grows():
    search = ExactCoverSearch(domino_strip(24), slice_nodes=500)
    seen = []
    search.count(on_progress=lambda fraction, found: seen.append(fraction))
    assert seen[-1] == 1.0
    assert 0 < seen[len(seen) // 2] < 1
