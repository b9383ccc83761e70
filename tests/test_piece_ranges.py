"""Piece ranges (min..max copies, BurrTools' way) and groups, in format 1 and .xmpuzzle, counted
exactly by the engine: each number of copies once, never once per choice of unused copies."""

from __future__ import annotations

import pytest

from tessera.models.errors import PuzzleError
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load_puzzle
from tests._paths import case_file, needs_conformance

# A 1x4 strip from dominoes (0..2) and monominoes (0..4): compositions of 4 into parts 1 and
# 2 = Fibonacci F(5) = 5 fixed tilings; with exactly 2 dominoes only 1.
RANGED = """
kind = "polycube"
[pieces.D]
cells = [[0,0,0],[1,0,0]]
min = 0
max = 2
[pieces.M]
cells = [[0,0,0]]
min = 0
max = 4
group = 1
[target]
layers = [["####"]]
"""


def write(tmp_path, text):
    path = tmp_path / "p.toml"
    path.write_text(text)
    return path


def test_a_range_counts_every_number_of_copies_once(tmp_path):
    puzzle = load_polycube(write(tmp_path, RANGED))
    d, m = puzzle.pieces
    assert (d.fewest, d.copies, d.ranged, m.group) == (0, 2, True, 1)
    assert PackingProblem(puzzle).search().count() == 5
    solutions = [
        PackingProblem(puzzle).solution(r) for r in PackingProblem(puzzle).search().solutions()
    ]
    assert sorted(len(s.pieces) for s in solutions) == [2, 3, 3, 3, 4]
    counts = ClassSearch(puzzle).tally()
    assert counts.fixed == 5 and counts.up_to_symmetry == 4  # DD, DMM = MMD, MDM, MMMM


def test_a_minimum_is_honoured(tmp_path):
    puzzle = load_polycube(write(tmp_path, RANGED.replace("min = 0\nmax = 2", "min = 2\nmax = 2")))
    assert not puzzle.pieces[0].ranged
    assert PackingProblem(puzzle).search().count() == 1


@pytest.mark.parametrize(
    "change, message",
    [
        ("min = 0\nmax = 2", "min = 3\nmax = 2"),
        ("min = 0\nmax = 2", "copies = 1\nmax = 2"),
        ("group = 1", "group = -1"),
    ],
)
def test_bad_ranges_are_one_line_with_the_line(tmp_path, change, message):
    with pytest.raises(PuzzleError) as info:
        load_polycube(write(tmp_path, RANGED.replace(change, message)))
    assert "p.toml:" in str(info.value)


@needs_conformance
@pytest.mark.parametrize("problem", [1, 2])
def test_burrtools_piece_ranges_give_its_one_assembly(problem):
    puzzle = load_puzzle(
        case_file("burrtools/DemoMirrorParadox.xmpuzzle"), "polycube", problem=problem
    )
    assert any(p.ranged for p in puzzle.pieces)
    assert ClassSearch(puzzle).tally().up_to_symmetry == 1  # analysis.toml: 1 assembly each


@needs_conformance
def test_burrtools_groups_are_read():
    puzzle = load_puzzle(case_file("burrtools/CubeInCage.xmpuzzle"), "polycube")
    assert [p.group for p in puzzle.pieces][:2] == [1, 1]
