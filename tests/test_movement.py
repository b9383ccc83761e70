"""Movement analysis: pushing chains, slide distances, move listings (hand-made cases)."""

from __future__ import annotations

import pytest

from tessera.solvers.polycube.movement import (
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


def brute_slide(pieces, group, unit) -> int | None:
    """Step the group one cell at a time until it hits something (sets only)."""
    mine = {tuple(c) for k in group for c in pieces[k]}
    rest = {tuple(c) for k in range(len(pieces)) if k not in group for c in pieces[k]}
    if not rest:
        return None
    span = 1 + max(max(abs(v) for v in c) for c in mine | rest) * 2
    for step in range(1, span + 2):
        moved = {(x + unit[0] * step, y + unit[1] * step, z + unit[2] * step) for x, y, z in mine}
        if moved & rest:
            return step - 1
    return None


def random_assembly(rng, n_pieces: int, size: int = 4) -> list[list[tuple[int, int, int]]]:
    """A box cut into random grown pieces (some cells left empty), so pieces interlock."""
    import numpy as np

    owner = -np.ones((size, size, size), int)
    free = [tuple(c) for c in np.argwhere(owner < 0)]
    seeds = rng.choice(len(free), n_pieces, replace=False)
    frontier = []
    for k, s in enumerate(seeds):
        owner[free[s]] = k
        frontier.append([free[s]])
    for _ in range(size**3):
        k = int(rng.integers(n_pieces))
        x, y, z = frontier[k][int(rng.integers(len(frontier[k])))]
        dx, dy, dz = DIRECTIONS[int(rng.integers(6))]
        c = (x + dx, y + dy, z + dz)
        if all(0 <= v < size for v in c) and owner[c] < 0 and rng.random() < 0.8:
            owner[c] = k
            frontier[k].append(c)
    return [[tuple(int(v) for v in c) for c in np.argwhere(owner == k)] for k in range(n_pieces)]


def test_max_slide_agrees_with_stepping_on_random_assemblies() -> None:
    import itertools

    import numpy as np

    rng = np.random.default_rng(13)
    for _ in range(12):
        pieces = random_assembly(rng, int(rng.integers(2, 6)))
        n = len(pieces)
        for r in range(1, n):
            for group in itertools.combinations(range(n), r):
                for d, unit in enumerate(DIRECTIONS):
                    assert max_slide(pieces, group, d) == brute_slide(pieces, set(group), unit)


def test_the_search_kernels_cached_distances_agree_on_group_slides() -> None:
    import itertools

    import numpy as np

    from tessera.solvers.polycube.disassemble import _cached_distances
    from tessera.solvers.polycube.movement import distances, group_slide, pack_cells

    rng = np.random.default_rng(5)
    for _ in range(10):
        pieces = random_assembly(rng, 5)
        cells, starts = pack_cells(pieces)
        n = 5
        while True:  # random relative positions, but no two pieces in one cell
            offsets = rng.integers(-2, 3, size=(n, 3)).astype(np.int32)
            placed = [tuple(c + offsets[k]) for k in range(n) for c in np.asarray(pieces[k])]
            if len(placed) == len(set(placed)):
                break
        grid = distances(cells, starts, offsets)
        pair = np.empty((6, n, n), np.int32)
        _cached_distances(
            cells, starts, offsets, pair, np.full(8, -1, np.int64), np.empty((8, 6), np.int32),
            0, np.empty(6, np.int32),
        )  # fmt: skip
        # touching is exact in both, and so is every group's slide
        for d in range(6):
            for r in range(1, n):
                for group in itertools.combinations(range(n), r):
                    mask = np.int64(sum(1 << k for k in group))
                    assert group_slide(grid, d, mask, n) == group_slide(pair, d, mask, n)
