"""The .kenken format: the conformance puzzle, round trips, and every kind of bad input."""

from __future__ import annotations

import tomllib

import pytest

from tessera.models.assets import builtin_puzzles
from tessera.models.errors import PuzzleError
from tessera.models.kenken import (
    Cage,
    KenKenPuzzle,
    cage_tuples,
    format_kenken,
    load_kenken,
    parse_kenken,
)
from tessera.solvers.kenken import count_solutions, solve
from tests._paths import CONFORMANCE, needs_conformance

NYT = CONFORMANCE / "kenken" / "nyt-4x4.kenken"


def expected(key: str) -> dict:
    return tomllib.loads((CONFORMANCE / "expected.toml").read_text())[key]


@needs_conformance
def test_conformance_puzzle_solves_to_its_known_solution():
    truth = expected("kenken/nyt-4x4.kenken")
    puzzle = load_kenken(NYT)
    assert puzzle.size == 4 and len(puzzle.cages) == 8
    assert solve(puzzle) == [truth["solution"]]
    assert count_solutions(puzzle) == truth["solutions"]
    assert puzzle.is_solution(truth["solution"])


@needs_conformance
def test_conformance_cages_read_as_written():
    puzzle = load_kenken(str(NYT))
    clues = {cage.cells: (cage.target, cage.op) for cage in puzzle.cages}
    assert clues[((0, 0), (0, 1))] == (1, "-")
    assert clues[((0, 2), (0, 3), (1, 2))] == (9, "+")
    assert clues[((2, 1), (2, 2), (3, 2))] == (6, "+")
    assert clues[((2, 0),)] == (4, "")
    assert puzzle.cages[0].line == 7  # where 'a: 1-' is written


@needs_conformance
def test_is_solution_rejects_a_broken_grid():
    puzzle = load_kenken(NYT)
    good = expected("kenken/nyt-4x4.kenken")["solution"]
    swapped = [row[:] for row in good]
    swapped[0][0], swapped[0][1] = swapped[0][1], swapped[0][0]
    assert not puzzle.is_solution(swapped)
    transposed = [list(col) for col in zip(*good, strict=True)]
    assert not puzzle.is_solution(transposed)  # still Latin, cages broken


def test_unspaced_rows_and_operation_spellings():
    text = "aab\ncdb\ncdd\na: 3+\nb: 6*\nc: 2/\nd: 6x\n"
    spelled = "a a b\nc d b\nc d d\na: 3 +\nb: 6×\nc: 2÷\nd: 6 X  # comment\n"
    assert parse_kenken(text, "t.kenken").cages == parse_kenken(spelled, "t.kenken").cages
    ops = {cage.op for cage in parse_kenken(text, "t.kenken").cages}
    assert ops == {"+", "*", "/"}


@pytest.mark.parametrize("name", sorted(n for n in builtin_puzzles() if n.startswith("kenken-")))
def test_builtins_load_format_back_and_are_unique(name):
    puzzle = load_kenken(name)
    again = parse_kenken(format_kenken(puzzle, ["round trip"]), f"{name}.kenken")
    assert again.cages == puzzle.cages
    assert count_solutions(puzzle, limit=2) == 1


def test_builtins_cover_the_promised_sizes():
    sizes = {load_kenken(name).size for name in builtin_puzzles() if name.startswith("kenken-")}
    assert {4, 6, 9} <= sizes


def test_cage_tuples_respect_rows_and_columns():
    line = Cage(((0, 0), (0, 1)), 4, "+")
    corner = Cage(((0, 0), (0, 1), (1, 0)), 4, "+")  # (0,1) and (1,0) may repeat
    assert sorted(cage_tuples(line, 4)) == [(1, 3), (3, 1)]
    assert (1, 2, 1) not in cage_tuples(corner, 4)  # 1 twice in row 0
    assert sorted(cage_tuples(corner, 4)) == [(2, 1, 1)]
    assert sorted(cage_tuples(Cage(((0, 0), (1, 0)), 3, "/"), 6)) == [
        (1, 3),
        (2, 6),
        (3, 1),
        (6, 2),
    ]


BAD = {
    "letter without a rule": ("a a b\na c b\nd d b\na: 4+\nb: 6+\nd: 5+\n", 2, "'c' has no rule"),
    "rule for a letter not on the grid": (
        "a a b\nc c b\nc d d\na: 3+\nb: 4+\nc: 6+\nd: 3+\nz: 5+\n",
        8,
        "'z', which is not on the grid",
    ),
    "subtraction over three cells": (
        "a a a\nb b c\nb d c\na: 2-\nb: 6+\nc: 3+\nd: 1\n",
        4,
        "must have exactly 2 cells",
    ),
    "division over three cells": (
        "a a b\na c b\nd c b\na: 2/\nb: 6+\nc: 3+\nd: 3\n",
        4,
        "must have exactly 2 cells",
    ),
    "disconnected cage": (
        "a b b\nc c a\nc d d\na: 4+\nb: 4+\nc: 6+\nd: 3+\n",
        2,
        "not connected",
    ),
    "target out of reach": (
        "a a b\nc c b\nc d d\na: 100+\nb: 4+\nc: 6+\nd: 3+\n",
        4,
        "cannot be reached",
    ),
    "product out of reach": (
        "a a b\nc c b\nc d d\na: 7x\nb: 4+\nc: 6+\nd: 3+\n",
        4,
        "cannot be reached",
    ),
    "given over two cells": (
        "a a b\nc c b\nc d d\na: 3\nb: 4+\nc: 6+\nd: 3+\n",
        4,
        "only a one-cell cage",
    ),
    "short row": ("a a b\nc b\nc d d\na: 3+\nb: 4+\n", 2, "2 cells, expected 3"),
    "missing row": ("a a b\nc c b\na: 3+\nb: 4+\nc: 3+\n", 2, "2 rows, expected 3"),
    "bad rule": ("a a b\nc c b\nc d d\na: three\n", 4, "expected TARGET"),
    "rule twice": ("a a b\nc c b\nc d d\na: 3+\na: 4+\n", 5, "second rule"),
    "too big": (("a " * 10 + "\n") * 10 + "a: 5+\n", 1, "sizes run 3..9"),
    "grid after rules": ("a a b\nc c b\na: 3+\nc d d\n", 4, "grid row after"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_names_file_and_line(case, tmp_path):
    text, line, words = BAD[case]
    path = tmp_path / "bad.kenken"
    path.write_text(text)
    with pytest.raises(PuzzleError) as info:
        load_kenken(path)
    err = info.value
    assert (err.path, err.line) == (str(path), line), str(err)
    assert words in err.message
    assert "\n" not in str(err)


def test_missing_file_and_unknown_builtin():
    with pytest.raises(PuzzleError, match="no such file"):
        load_kenken("nowhere/none.kenken")
    with pytest.raises(PuzzleError, match="no built-in puzzle"):
        load_kenken("kenken-does-not-exist")


def test_puzzle_is_plain_data_for_the_viewer():
    puzzle = load_kenken("kenken-4x4")
    assert isinstance(puzzle, KenKenPuzzle)
    grid = puzzle.cage_grid()
    for k, cage in enumerate(puzzle.cages):
        assert all(grid[r][c] == k for r, c in cage.cells)
        assert cage.clue.startswith(str(cage.target))
