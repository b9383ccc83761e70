"""Movement analysis: pushing chains, slide distances, move listings (hand-made cases)."""

from __future__ import annotations

import pytest

from tessera.solvers.movement import (
    DIRECTIONS,
    FREE,
    blocking,
    direction_index,
    distance_matrix,
    max_slide,
    possible_moves,
    pushed_with,
)

# three cubes in a row along x, and a wall two cells after the last one
ROW = [[(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)], [(5, 0, 0)]]


def test_pushing_chains_along_the_row() -> None:
    assert pushed_with(ROW, 0, "+x") == (0, 1, 2)
    assert pushed_with(ROW, 2, "+x") == (2,)
    assert pushed_with(ROW, 2, "-x") == (0, 1, 2)
    assert pushed_with(ROW, 1, "+y") == (1,)


def test_blocking_is_touching_ahead() -> None:
    block = blocking(ROW)
    px, mx = direction_index("+x"), direction_index("-x")
    assert block[px, 0, 1] and block[px, 1, 2] and not block[px, 2, 3]
    assert block[mx, 1, 0] and not block[mx, 0, 1]
    assert not block[direction_index("+z")].any()


def test_max_slide_stops_where_the_group_touches() -> None:
    assert max_slide(ROW, [0], "+x") == 0  # pushes piece 1 at once
    assert max_slide(ROW, [2], "+x") == 2  # two empty cells before the wall
    assert max_slide(ROW, [0, 1, 2], (1, 0, 0)) == 2
    assert max_slide(ROW, [0], "-x") is None  # nothing ever in the way
    assert max_slide(ROW, [3], "-x") == 2
    assert max_slide(ROW, [0, 1, 2, 3], "+x") is None  # everything: nothing left to hit


def test_offsets_move_pieces() -> None:
    offsets = [(0, 0, 0), (0, 0, 0), (1, 0, 0), (0, 0, 0)]  # piece 2 one step closer
    assert max_slide(ROW, [2], "+x", offsets) == 1
    assert max_slide(ROW, [1], "+x", offsets) == 1


def test_distance_matrix_values() -> None:
    dist = distance_matrix(ROW)
    px = direction_index("+x")
    assert dist[px, 2, 3] == 2
    assert dist[direction_index("-x"), 3, 2] == 2
    assert dist[direction_index("+y"), 0, 1] == FREE


def test_interlock_blocks_every_way_but_one() -> None:
    u_shape = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (2, 1, 0)]
    plug = [(1, 1, 0)]
    pieces = [u_shape, plug]
    assert max_slide(pieces, [1], "+y") is None
    assert max_slide(pieces, [1], "-y") == 0
    assert max_slide(pieces, [1], "+x") == 0
    assert max_slide(pieces, [1], "+z") is None
    moves = possible_moves(pieces)
    assert {(m.pieces, DIRECTIONS[m.direction], m.distance) for m in moves} == {
        ((1,), (0, 1, 0), None),
        ((1,), (0, 0, 1), None),
        ((1,), (0, 0, -1), None),
    }


def test_possible_moves_lists_unions_of_closures() -> None:
    moves = possible_moves(ROW)  # piece 0 stays
    plusx = {(m.pieces, m.distance) for m in moves if m.direction == direction_index("+x")}
    # {2}, {2,3}, {3}: 1 and 2 cannot go without 2, which pushes nobody (wall 2 away)
    assert plusx == {((2,), 2), ((3,), None), ((2, 3), None), ((1, 2), 2), ((1, 2, 3), None)}


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        max_slide(ROW, [], "+x")
    with pytest.raises(ValueError):
        max_slide(ROW, [9], "+x")
    with pytest.raises(ValueError):
        direction_index((1, 1, 0))
