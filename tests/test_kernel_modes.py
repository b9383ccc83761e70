"""The kernel's two ways of holding the live options, sparse sets and bitsets: the engine picks
bitsets for small matrices, so these tests run every problem both ways and compare with brute
force and with each other (solutions, multiplicities, capacities with lower bounds, traces)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tessera.models.assets import resolve_puzzle
from tessera.models.polycube import load_polycube
from tessera.solvers import _cells_layout as K
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.trace import EventKind


@pytest.fixture(params=["bits", "sets"])
def mode(request, monkeypatch):
    """Run the test with bitsets (the default for these small matrices) or sparse sets (the
    default above `BITS_MAX_WORDS`, here forced by lowering it)."""
    if request.param == "sets":
        monkeypatch.setattr(K, "BITS_MAX_WORDS", 0)
    return request.param


def test_the_choice_can_be_forced():
    problem = ExactCoverProblem([[0, 1], [0], [1]], 2, 2)
    assert ExactCoverSearch(problem)._bits
    assert not ExactCoverSearch(problem, bitsets=False)._bits
    assert ExactCoverSearch(problem, bitsets=False).count() == 2


def brute_force(rows, n_primary, n_columns, mult, low):
    """Every set of rows (each touching a primary column) covering each primary column
    exactly mult times and each secondary column between low and mult times."""
    useful = [r for r, row in enumerate(rows) if any(c < n_primary for c in row)]
    found = []
    for k in range(len(useful) + 1):
        for subset in itertools.combinations(useful, k):
            hits = np.zeros(n_columns, int)
            for r in subset:
                for c in rows[r]:
                    hits[c] += 1
            primary_ok = all(hits[c] == mult[c] for c in range(n_primary))
            secondary_ok = all(low[c] <= hits[c] <= mult[c] for c in range(n_primary, n_columns))
            if primary_ok and secondary_ok:
                found.append(tuple(sorted(subset)))
    return sorted(found)


def random_problem(seed: int) -> tuple[ExactCoverProblem, list]:
    rng = np.random.default_rng(seed)
    n_cols = int(rng.integers(3, 8))
    n_primary = int(rng.integers(1, n_cols + 1))
    mult = [int(rng.integers(1, 3)) for _ in range(n_cols)]
    low = [0] * n_primary + [int(rng.integers(0, m + 1)) for m in mult[n_primary:]]
    rows = [
        sorted(rng.choice(n_cols, int(rng.integers(1, 4)), replace=False).tolist())
        for _ in range(int(rng.integers(3, 12)))
    ]
    problem = ExactCoverProblem(rows, n_primary, n_cols, mult, low)
    return problem, brute_force(rows, n_primary, n_cols, mult, low)


@pytest.mark.parametrize("seed", range(60))
def test_random_problems_match_brute_force(seed, mode):
    problem, want = random_problem(seed)
    search = ExactCoverSearch(problem)
    assert search._bits == (mode == "bits")
    got = sorted(tuple(sorted(s)) for s in search.solutions())
    if any(m > 1 for m in problem.multiplicity or ()):
        # a multi item's options are taken in order: each multiset of rows once
        assert sorted(set(got)) == want and len(got) == len(want)
    else:
        assert got == want
    assert ExactCoverSearch(problem).count() == len(want)


@pytest.mark.parametrize(("name", "fixed"), [("soma", 11520), ("pentominoes-3x20", 8)])
def test_puzzles_count_the_same_both_ways(name, fixed, mode):
    matrix = PackingProblem(load_polycube(resolve_puzzle(name))).exact_cover
    assert ExactCoverSearch(matrix).count() == fixed


def test_a_trace_replays_to_its_solutions(mode):
    """Every solution event sits on the rows placed and not removed before it."""
    matrix = PackingProblem(load_polycube(resolve_puzzle("soma"))).exact_cover
    search = ExactCoverSearch(matrix, trace=True)
    solutions = [tuple(sorted(s)) for s in itertools.islice(search.solutions(), 20)]
    stack: list[int] = []
    replayed = []
    for event in search.events:
        if event.kind is EventKind.PLACE:
            del stack[event.depth :]
            stack.append(event.choice)
        elif event.kind is EventKind.REMOVE:
            del stack[event.depth :]
        else:
            replayed.append(tuple(sorted(stack)))
    assert replayed == solutions


def test_a_budget_resumes_where_it_stopped(mode):
    matrix = PackingProblem(load_polycube(resolve_puzzle("soma"))).exact_cover
    search = ExactCoverSearch(matrix)
    slices = 0
    while not search.advance(97):
        slices += 1
    assert slices > 100 and search.found == 11520
