"""Hints on partial Soma assemblies: completable ones get a next piece that really belongs to a
completion, impossible ones say why (a trapped cell, a piece sticking out, an overlap)."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.solvers.polycube.hint import hint
from tessera.solvers.polycube.identify import placement_of
from tessera.solvers.polycube.packing import solutions


def type_of(puzzle, name: str) -> int:
    return [p.name for p in puzzle.pieces].index(name)


def test_following_hints_from_an_empty_cube_solves_it(soma, index):
    placed = []
    for _ in range(len(soma.pieces)):
        answer = hint(soma, placed)
        assert answer.completable is True
        assert answer.next is not None and answer.next not in placed
        assert answer.next.piece not in {p.piece for p in placed}
        # the suggested piece is part of the completion the search found
        assert answer.next in [p.placement for p in answer.solution.pieces]
        placed.append(answer.next)
    final = hint(soma, placed)
    assert (final.completable, final.next, final.reason) == (True, None, "solved")
    assert index.number(final.solution) is not None


def test_part_of_a_known_solution_can_be_completed(soma, index):
    solution = index.solution(10)
    placed = [(p.piece, p.cells) for p in solution.pieces[:3]]  # as cells, like Play mode
    answer = hint(soma, placed)
    assert answer.completable is True
    assert answer.next.piece not in {piece for piece, _ in placed}
    assert "can be completed: piece " in answer.reason
    filled = np.vstack([p.cells for p in answer.solution.pieces])
    assert len({tuple(c) for c in filled.tolist()}) == 27
    for piece, cells in placed:  # the completion keeps the placed pieces where they are
        assert placement_of(soma, piece, cells) in [p.placement for p in answer.solution.pieces]


def test_a_trapped_corner_cannot_be_completed(soma):
    # V and L wall in the corner cell (0, 0, 0): no piece can reach a single cell
    v = (type_of(soma, "V"), np.array([(1, 0, 0), (1, 1, 0), (0, 1, 0)]))
    el = (type_of(soma, "L"), np.array([(0, 0, 1), (1, 0, 1), (2, 0, 1), (0, 1, 1)]))
    answer = hint(soma, [v, el])
    assert answer.completable is False
    assert answer.next is None and answer.solution is None
    assert answer.reason == "cannot be completed: take some pieces out"
    assert answer.nodes > 0  # the engine, not a shortcut, said so


def test_single_pieces_agree_with_the_list_of_all_solutions(soma):
    """Ground truth: a placement can be completed exactly when some fixed solution uses it."""
    used = {p.placement for solution in solutions(soma) for p in solution.pieces}
    for name in ("V", "L"):
        placements = soma.placements(type_of(soma, name))
        verdicts = {p: hint(soma, [p]).completable for p in placements}
        assert {p for p, ok in verdicts.items() if ok} == used & set(placements)
        assert 0 < sum(verdicts.values()) < len(placements)  # both answers occur


def test_a_piece_sticking_out_is_named(soma):
    t = (type_of(soma, "T"), np.array([(1, 0, 2), (2, 0, 2), (3, 0, 2), (2, 1, 2)]))
    answer = hint(soma, [t])
    assert answer.completable is False
    assert answer.reason == "piece T sticks out of the target at (3, 0, 2)"


def test_overlapping_pieces_are_named(soma):
    z = (type_of(soma, "Z"), np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)]))
    v = (type_of(soma, "V"), np.array([(1, 1, 0), (1, 2, 0), (2, 2, 0)]))
    answer = hint(soma, [z, v])
    assert answer.completable is False
    assert answer.reason == "pieces Z and V overlap at (1, 1, 0)"


def test_too_many_copies(soma):
    v = type_of(soma, "V")
    first = (v, np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0)]))
    second = (v, np.array([(2, 2, 2), (1, 2, 2), (2, 1, 2)]))
    assert hint(soma, [first, second]).reason == "2 pieces V placed, the set has 1"


def test_cells_of_the_wrong_shape_are_a_programming_error(soma):
    with pytest.raises(ValueError, match="not piece V's shape"):
        hint(soma, [(type_of(soma, "V"), np.array([(0, 0, 0), (1, 0, 0), (2, 0, 0)]))])


def test_every_partial_assembly_of_a_solution_is_completable(soma, index):
    rng = np.random.default_rng(5)
    solution = index.solution(100)
    for _ in range(20):
        keep = [p.placement for p in solution.pieces if rng.random() < 0.5]
        assert hint(soma, keep).completable is True
