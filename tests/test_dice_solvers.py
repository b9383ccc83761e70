"""The dice solvers against the published counts, against each other, and the generator."""

from __future__ import annotations

import random
import threading

import pytest

from tessera.models.dice import DicePuzzle, is_solution, load_dice, orient
from tessera.solvers.dice import (
    DiceSearch,
    decode_choice,
    distinct_solutions,
    encode_choice,
    solutions,
    solve,
)
from tessera.solvers.dice_generate import generate, planted
from tessera.solvers.dice_graph import count_raw, factor_pairs
from tessera.solvers.trace import EventKind, stack_at
from tests._paths import CONFORMANCE, HAVE_CONFORMANCE, case_file, ground_truth, needs_conformance

DICE = ground_truth("dice/")
DICE_IDS = [c[0] for c in DICE]


def test_the_published_cases_are_there():
    assert {"own:dice/five-dice.toml", "own:dice/instant-insanity.toml"} <= set(DICE_IDS)
    if HAVE_CONFORMANCE:
        assert "shared:dice/five-dice.toml" in DICE_IDS


@pytest.mark.parametrize("path, want", [c[1:] for c in DICE], ids=DICE_IDS)
@pytest.mark.parametrize("method", ["search", "graph"])
def test_counts_match_the_published_ones(path, want, method):
    result = solve(load_dice(path), method)
    assert result.raw == want["raw"]
    assert len(result.distinct) == want["distinct"]


@pytest.mark.parametrize("path, want", [c[1:] for c in DICE], ids=DICE_IDS)
def test_every_raw_solution_really_solves_and_count_raw_agrees(path, want):
    puzzle = load_dice(path)
    raw = list(solutions(puzzle, "graph"))
    assert len(raw) == len(set(raw)) == count_raw(puzzle) == want["raw"]
    assert all(is_solution(puzzle.dice, s) for s in raw)


@needs_conformance
def test_builtin_classic_sets_are_the_conformance_dice():
    from tessera.models.assets import builtin_puzzles

    for builtin, case in [("instant-insanity", "instant-insanity"), ("dice-five", "five-dice")]:
        ours = load_dice(builtin_puzzles()[builtin])
        truth = load_dice(CONFORMANCE / "dice" / f"{case}.toml")
        assert len(ours.dice) == len(truth.dice)
        for mine, theirs in zip(ours.dice, truth.dice, strict=True):
            assert tuple(theirs) in {orient(mine, k) for k in range(24)}


def _random_sets(count: int, seed: int) -> list[list[list[str]]]:
    """Half with a planted solution, a quarter of those spoiled by one swapped face, and the
    rest plain random dice: a mix of solvable and unsolvable sets."""
    rng = random.Random(seed)
    sets = []
    for i in range(count):
        n = rng.randint(4, 6)
        names = "rgbycm"[:n]
        if i % 4 == 0:
            dice = [[rng.choice(names) for _ in range(6)] for _ in range(n)]
        else:
            dice = planted(n, rng)
            if i % 4 == 1:
                d, f = rng.randrange(n), rng.randrange(6)
                dice[d][f] = rng.choice(names)
        sets.append(dice)
    return sets


def test_search_and_graph_agree_on_200_random_sets():
    solvable = unsolvable = 0
    for dice in _random_sets(200, seed=20240601):
        puzzle = DicePuzzle("random", dice)
        by_search = list(solutions(puzzle, "search"))
        by_graph = list(solutions(puzzle, "graph"))
        assert len(by_graph) == len(set(by_graph)), dice
        assert set(by_search) == set(by_graph), dice
        assert count_raw(puzzle) == len(by_graph)
        assert all(is_solution(dice, s) for s in by_graph)
        if by_graph:
            solvable += 1
            assert distinct_solutions(puzzle, "search") == distinct_solutions(puzzle, "graph")
        else:
            unsolvable += 1
    assert solvable >= 100 and unsolvable >= 20


def test_search_trace_replays_to_each_solution():
    puzzle = load_dice(case_file("dice/five-dice.toml"))
    search = DiceSearch(puzzle, trace=True)
    found = list(search.solutions())
    events = search.events
    assert search.done and search.found == len(found) == 24
    places = [e for e in events if e.kind is EventKind.PLACE]
    removes = [e for e in events if e.kind is EventKind.REMOVE]
    assert len(places) == search.nodes and len(removes) == len(places)
    ends = [i + 1 for i, e in enumerate(events) if e.kind is EventKind.SOLUTION]
    replayed = []
    for end in ends:
        stack = stack_at(events, end)
        pairs = [decode_choice(c) for c in stack]
        assert [d for d, _ in pairs] == list(range(puzzle.n))
        replayed.append(tuple(k for _, k in pairs))
    assert replayed == found
    assert stack_at(events, len(events)) == []
    for e in places:
        assert decode_choice(e.choice)[0] == e.depth
    assert decode_choice(encode_choice(3, 17)) == (3, 17)


def test_search_is_lazy_and_cancellable():
    puzzle = generate(10, seed=5)
    stop = threading.Event()
    search = DiceSearch(puzzle, cancel=stop)
    it = search.solutions()
    first = next(it)
    assert is_solution(puzzle.dice, first)
    assert not search.done and 0.0 < search.progress() < 1.0
    stop.set()
    assert list(it) == []
    assert not search.done


def test_cancel_from_another_thread_stops_a_long_search():
    # seven dice in six colours: hopeless, but only deep in the tree, so it runs on
    puzzle = DicePuzzle("seven dice, six colours", [list("abcdef")] * 7)
    search = DiceSearch(puzzle)
    seen = []

    def report(fraction, found):
        seen.append(fraction)
        if len(seen) == 3:
            threading.Thread(target=search.cancel).start()

    assert list(search.solutions(report)) == []
    assert search.cancelled and not search.done and len(seen) >= 3
    assert seen == sorted(seen)


def test_graph_method_finds_the_pairs_of_subgraphs_of_the_classic_set():
    puzzle = load_dice(case_file("dice/instant-insanity.toml"))
    pairs = list(factor_pairs(puzzle))
    assert len(pairs) == 2 and pairs[0] == pairs[1][::-1]
    h1, h2 = pairs[0]
    assert all(a != b for a, b in zip(h1, h2, strict=True))


def test_fewer_colours_than_dice_has_no_solution():
    puzzle = DicePuzzle("two colours", [list("rgrgrg")] * 3)
    assert list(solutions(puzzle, "graph")) == list(solutions(puzzle, "search")) == []


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 10, 12])
def test_generated_sets_have_exactly_one_distinct_solution(n):
    puzzle = generate(n, seed=100 + n)
    assert puzzle.n == n and len(puzzle.colour_names) == n
    assert len(distinct_solutions(puzzle, "graph")) == 1
    if n <= 6:
        assert len(distinct_solutions(puzzle, "search")) == 1


def test_generation_is_reproducible_and_varies_with_the_seed():
    assert generate(8, seed=42).dice == generate(8, seed=42).dice
    assert generate(8, seed=42).dice != generate(8, seed=43).dice
    with pytest.raises(ValueError):
        generate(0)
