"""The KenKen search and generator: counts, laziness, trace, cancel, uniqueness, grades."""

from __future__ import annotations

import threading
from itertools import islice

import pytest

from tessera.models.kenken import Cage, KenKenPuzzle, load_kenken
from tessera.solvers.exact_cover import Cancelled, ExactCoverSearch
from tessera.solvers.kenken import (
    LEVELS,
    KenKenSearch,
    NodeLimit,
    choice_id,
    count_solutions,
    decode_choice,
    exact_cover_problem,
    grade,
    known_digits,
    solve,
)
from tessera.solvers.kenken_generate import generate, latin_square
from tessera.solvers.trace import EventKind, stack_at

# Latin squares of order 3, 4, 5 (OEIS A002860)
LATIN_SQUARES = {3: 12, 4: 576, 5: 161280}


def rows_puzzle(n: int) -> KenKenPuzzle:
    """Each row one + cage: every Latin square solves it."""
    cages = tuple(Cage(tuple((r, c) for c in range(n)), n * (n + 1) // 2, "+") for r in range(n))
    return KenKenPuzzle(n, cages, "rows")


def exact_cover_count(puzzle: KenKenPuzzle, limit: int | None = None) -> int:
    problem, _ = exact_cover_problem(puzzle)
    return ExactCoverSearch(problem).count(limit)


@pytest.mark.parametrize("n", [3, 4])
def test_counts_every_latin_square(n):
    assert count_solutions(rows_puzzle(n)) == LATIN_SQUARES[n]
    assert exact_cover_count(rows_puzzle(n)) == LATIN_SQUARES[n]


@pytest.mark.parametrize("probe", [False, True, "auto"])
def test_every_strength_finds_the_same_solutions(probe):
    puzzle = rows_puzzle(4)
    found = list(KenKenSearch(puzzle, probe=probe).solutions())
    assert len(found) == 576
    assert len({tuple(map(tuple, g)) for g in found}) == 576
    assert all(puzzle.is_solution(g) for g in found)


def test_solutions_are_lazy_and_counts_stop_at_the_limit():
    search = KenKenSearch(rows_puzzle(5))
    first_two = list(islice(search.solutions(), 2))
    assert len(first_two) == 2 and first_two[0] != first_two[1]
    assert not search.done
    assert KenKenSearch(rows_puzzle(5)).count(limit=7) == 7
    assert solve(rows_puzzle(5), limit=3)[2] != first_two[0]


def test_cancel_from_another_thread_stops_counting():
    search = KenKenSearch(rows_puzzle(5))
    timer = threading.Timer(0.2, search.cancel)
    timer.start()
    with pytest.raises(Cancelled) as info:
        search.count()
    timer.join()
    assert 0 < info.value.partial < LATIN_SQUARES[5]
    assert search.cancelled and not search.done


def test_progress_moves_forward_and_ends_at_one():
    search = KenKenSearch(rows_puzzle(4), probe=False)
    seen = []
    search.count(on_progress=lambda fraction, found: seen.append(fraction))
    assert seen and all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)
    assert search.progress() == 1.0


def test_no_solution_is_an_empty_list():
    # two givens of 1 in the same row; every cage on its own is fine
    cages = [Cage(((0, 0),), 1, ""), Cage(((0, 1),), 1, ""), Cage(((0, 2), (1, 2)), 5, "+")]
    cages += [Cage(((1, 0), (1, 1)), 3, "+"), Cage(((2, 0), (2, 1), (2, 2)), 6, "+")]
    puzzle = KenKenPuzzle(3, tuple(cages))
    assert solve(puzzle) == []
    assert count_solutions(puzzle) == 0
    assert exact_cover_count(puzzle) == 0


def test_choice_ids_decode():
    assert decode_choice(choice_id(3, 5, 7, 9), 9) == (3, 5, 7)
    assert decode_choice(choice_id(0, 0, 1, 4), 4) == (0, 0, 1)
    ids = {choice_id(r, c, d, 9) for r in range(9) for c in range(9) for d in range(1, 10)}
    assert len(ids) == 729


def test_trace_replays_to_the_solution():
    puzzle = load_kenken("kenken-9x9")  # graded extreme: needs guessing
    search = KenKenSearch(puzzle, trace=True, probe=False)
    (solution,) = list(search.solutions())
    events = search.events
    kinds = [e.kind for e in events]
    assert kinds.count(EventKind.SOLUTION) == 1
    assert kinds.count(EventKind.PLACE) == search.nodes > 0
    assert kinds.count(EventKind.REMOVE) == kinds.count(EventKind.PLACE)
    at = kinds.index(EventKind.SOLUTION)
    stack = stack_at(events, at)
    assert len(stack) == events[at].depth
    for choice in stack:
        r, c, digit = decode_choice(choice, puzzle.size)
        assert solution[r][c] == digit
    assert known_digits(puzzle, stack) == solution
    assert known_digits(puzzle, []) != solution  # the givens alone do not settle it


def test_auto_restart_takes_its_first_attempt_back_in_the_trace(monkeypatch):
    import tessera.solvers.kenken as kenken

    monkeypatch.setattr(kenken, "AUTO_BUDGET", 2)
    puzzle = load_kenken("kenken-9x9")
    search = KenKenSearch(puzzle, trace=True)
    assert len(list(search.solutions())) == 1
    placed = sum(e.kind is EventKind.PLACE for e in search.events)
    removed = sum(e.kind is EventKind.REMOVE for e in search.events)
    assert placed == removed >= 2
    assert stack_at(search.events, len(search.events)) == []


def test_node_limit_gives_up():
    with pytest.raises(NodeLimit):
        KenKenSearch(rows_puzzle(5), probe=False, node_limit=10).count()


def test_grades():
    assert grade(load_kenken("kenken-keen-5x5")) == "easy"  # as Keen itself rates it
    assert grade(load_kenken("kenken-9x9")) == "extreme"
    assert grade(load_kenken("kenken-6x6")) == "hard"


def test_latin_square_is_latin():
    import random

    for n in range(3, 10):
        square = latin_square(n, random.Random(n))
        want = set(range(1, n + 1))
        assert all(set(row) == want for row in square)
        assert all({square[r][c] for r in range(n)} == want for c in range(n))


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8, 9])
@pytest.mark.parametrize("seed,givens", [(1, True), (2, False), (3, False), (4, True)])
def test_generated_puzzles_have_exactly_one_solution(size, seed, givens):
    made = generate(size, seed=seed, givens=givens)
    puzzle = made.puzzle
    assert count_solutions(puzzle) == 1  # full count, no limit
    assert exact_cover_count(puzzle, limit=2) == 1  # and by an independent method
    assert solve(puzzle) == [made.solution]
    sizes = [len(cage.cells) for cage in puzzle.cages]
    assert max(sizes) <= 5 and min(sizes) >= (1 if givens else 2)
    assert all(cage.op == "" for cage in puzzle.cages if len(cage.cells) == 1)
    assert puzzle.difficulty == grade(puzzle)


def test_generation_is_reproducible():
    assert generate(6, seed=42).puzzle == generate(6, seed=42).puzzle
    assert generate(6, seed=42).puzzle != generate(6, seed=43).puzzle


@pytest.mark.parametrize("difficulty", LEVELS)
def test_generator_meets_the_difficulty(difficulty):
    made = generate(6, seed=5, difficulty=difficulty)
    assert made.puzzle.difficulty == difficulty == grade(made.puzzle)
    assert count_solutions(made.puzzle, limit=2) == 1


# -- cages too large to list: propagated by bounds (issue 11) -------------------------------


def _random_cages(size: int, seed: int, op: str) -> KenKenPuzzle:
    """Big cages (whole rows, or 3-cell L shapes) over a Latin square, all + or all ×."""
    import random

    from tessera.models.kenken import cage_value

    rng = random.Random(seed)
    square = latin_square(size, rng)
    cages = []
    for r in range(0, size, 2):
        cells = [(r, c) for c in range(size)]
        if r + 1 < size:
            cells += [(r + 1, c) for c in range(rng.randrange(size))]
        cages.append(cells)
    taken = {cell for cells in cages for cell in cells}
    cages += [
        [cell] for cell in ((r, c) for r in range(size) for c in range(size)) if cell not in taken
    ]
    return KenKenPuzzle(
        size,
        tuple(
            Cage(
                tuple(sorted(cells)),
                cage_value(op if len(cells) > 1 else "", [square[r][c] for r, c in cells]),
                op if len(cells) > 1 else "",
            )
            for cells in cages
        ),
    )


@pytest.mark.parametrize("op", ["+", "*"])
@pytest.mark.parametrize("seed", range(4))
def test_bounds_propagation_finds_what_the_tuples_find(monkeypatch, op, seed):
    """With every cage of 3+ cells forced to bounds mode, the same solutions come out."""
    import tessera.solvers.kenken as solver

    puzzle = _random_cages(5, seed, op)
    expected = {tuple(map(tuple, g)) for g in islice(KenKenSearch(puzzle).solutions(), 300)}
    real = solver.cage_tuples

    def unlisted(cage, size, limit=None):
        return None if len(cage.cells) >= 3 else real(cage, size)

    monkeypatch.setattr(solver, "cage_tuples", unlisted)
    found = list(islice(KenKenSearch(puzzle).solutions(), 300))
    assert all(puzzle.is_solution(g) for g in found)
    assert {tuple(map(tuple, g)) for g in found} == expected


def test_cages_too_large_to_list_load_fast_and_solve():
    from tessera.models.keen_id import decode_keen_id
    from tessera.models.kenken import cage_tuples

    puzzle = decode_keen_id("6:yyj,a126")
    assert cage_tuples(puzzle.cages[0], 6) is None
    assert count_solutions(puzzle, 2) == 2
    nine = KenKenPuzzle(9, (Cage(tuple((r, c) for r in range(9) for c in range(9)), 405, "+"),))
    assert len(solve(nine, 1)) == 1
