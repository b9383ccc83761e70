"""Simon Tatham's Keen game IDs: decoding, encoding, round trips and malformed IDs."""

from __future__ import annotations

import pytest

from tessera.models.errors import PuzzleError
from tessera.models.keen_id import (
    decode_keen_id,
    decode_walls,
    encode_keen_id,
    encode_walls,
    looks_like_keen_id,
)
from tessera.solvers.exact_cover import ExactCoverSearch
from tessera.solvers.kenken import count_solutions, exact_cover_problem, grid_from_rows, solve
from tessera.solvers.kenken_generate import generate

EXAMPLE = "5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7a10s2s2d2s3m40m2s2"


def test_example_decodes_to_a_valid_unique_5x5():
    puzzle = decode_keen_id(EXAMPLE)
    assert puzzle.size == 5 and puzzle.difficulty == "easy"
    assert not puzzle.multiplication_only
    clues = [cage.clue for cage in puzzle.cages]
    assert clues == ["5+", "15×", "7+", "10+", "2−", "2−", "2÷", "3−", "40×", "2×", "2−"]
    cells = {cage.clue: cage.cells for cage in puzzle.cages}
    assert cells["10+"] == ((0, 4), (1, 4), (2, 4), (3, 4))
    assert cells["40×"] == ((3, 1), (4, 0), (4, 1))
    assert sorted(len(cage.cells) for cage in puzzle.cages) == [2] * 9 + [3, 4]
    (solution,) = solve(puzzle)
    assert puzzle.is_solution(solution)
    # an independent check: the exact-cover formulation finds the same single answer
    problem, meaning = exact_cover_problem(puzzle)
    found = list(ExactCoverSearch(problem).solutions())
    assert [grid_from_rows(puzzle, meaning, rows) for rows in found] == [solution]


def test_example_reencodes_to_the_same_string():
    assert encode_keen_id(decode_keen_id(EXAMPLE)) == EXAMPLE
    assert encode_keen_id(decode_keen_id(EXAMPLE)) == EXAMPLE


def test_multiplication_only_flag_round_trips():
    mult = EXAMPLE.replace("5de:", "5dem:")
    puzzle = decode_keen_id(mult)
    assert puzzle.multiplication_only and puzzle.difficulty == "easy"
    assert encode_keen_id(puzzle) == mult
    bare = decode_keen_id(EXAMPLE.replace("5de:", "5m:"))
    assert bare.multiplication_only and bare.difficulty is None
    assert encode_keen_id(bare).startswith("5m:")


def test_multiplication_only_generated_puzzle():
    made = generate(5, seed=3, multiplication_only=True, givens=False)
    assert all(cage.op == "*" for cage in made.puzzle.cages)
    game_id = encode_keen_id(made.puzzle)
    assert game_id.split(":")[0].endswith("m")
    assert set(game_id.split(",")[1]) <= set("m0123456789")
    back = decode_keen_id(game_id)
    assert back.multiplication_only and back.cages == made.puzzle.cages


@pytest.mark.parametrize(
    "size,seed,givens", [(3, 1, True), (4, 2, True), (5, 3, False), (6, 4, True), (7, 5, False)]
)
def test_generated_puzzles_round_trip(size, seed, givens):
    puzzle = generate(size, seed=seed, givens=givens).puzzle
    game_id = encode_keen_id(puzzle)
    back = decode_keen_id(game_id)
    assert back.cages == puzzle.cages
    assert back.difficulty == puzzle.difficulty
    assert encode_keen_id(back) == game_id
    assert count_solutions(back, limit=2) == 1


def test_one_cell_givens_use_the_modes_clue_letter():
    puzzle = generate(6, seed=4, givens=True).puzzle
    assert any(cage.op == "" for cage in puzzle.cages)
    clues = encode_keen_id(puzzle).split(",")[1]
    givens = [c for c in puzzle.cages if c.op == ""]
    assert f"a{givens[0].target}" in clues


def test_long_open_runs_follow_keens_reader():
    # every row one cage: 72 open vertical lines in a row, then all walls
    rows = [r for r in range(9) for _ in range(9)]
    code = encode_walls(rows, 9)
    assert code == "yyv_72"  # y = 25 open lines and no wall (as keen.c reads it)
    cages, end = decode_walls(code, 9)
    assert end == len(code)
    assert cages == [list(range(9 * r, 9 * r + 9)) for r in range(9)]
    columns = [c for _ in range(9) for c in range(9)]
    cages, _ = decode_walls(encode_walls(columns, 9), 9)
    assert cages == [list(range(c, 81, 9)) for c in range(9)]


def test_looks_like_keen_id():
    assert looks_like_keen_id(EXAMPLE)
    assert looks_like_keen_id("9:_,a1")
    assert not looks_like_keen_id("kenken-4x4")
    assert not looks_like_keen_id("puzzles/x.kenken")


MALFORMED = {
    "no colon": ("5de", "PARAMS:DESCRIPTION"),
    "size 12": ("12de:" + EXAMPLE.split(":")[1], "outside 3..9"),
    "bad difficulty": ("5dq:" + EXAMPLE.split(":")[1], "difficulty letter 'q'"),
    "bad wall char": ("5de:a__A_3a_5a_a_a_3b_bac_,a5m15a7a10s2s2d2s3m40m2s2", "unexpected 'A'"),
    "walls short": ("5de:a__a_3a_5a_a_a_3b_ba,a5m15", "not enough cage walls"),
    "walls long": ("5de:a__a_3a_5a_a_a_3b_bac_zz,a5", "too many cage walls"),
    "no clues": ("5de:a__a_3a_5a_a_a_3b_bac_", "expected ','"),
    "too few clues": ("5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7", "too few clues"),
    "too many clues": (EXAMPLE + "a3", "too many clues"),
    "clue without number": ("5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7a10s2s2d2s3m40ms2", "no number"),
    "unknown clue": ("5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7q10s2s2d2s3m40m2s2", "clue type 'q'"),
    "subtract three": ("5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7a10s2s2d2s3s40m2s2", "2 cells"),
    "unreachable": ("5de:a__a_3a_5a_a_a_3b_bac_,a99m15a7a10s2s2d2s3m40m2s2", "cannot be reached"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_ids_are_one_line_errors(case):
    game_id, words = MALFORMED[case]
    with pytest.raises(PuzzleError) as info:
        decode_keen_id(game_id)
    assert words in str(info.value)
    assert info.value.path == game_id
    assert str(info.value).startswith(f"{game_id}: malformed Keen ID")
    assert "\n" not in str(info.value)
