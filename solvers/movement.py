"""Movement analysis on the cube grid: how pieces slide along the axes without passing through
each other.

One module answers the question for the disassembler (which searches over slides) and for the
viewer's dragging (a dragged piece slides until it touches), so that pieces everywhere in
Tessera move the way real ones do.

Everything is derived from one table per state, the *distance matrix*
``dist[d, i, j]``: how many cells piece i can slide along direction d before it touches piece j
(``FREE`` when no cell of j lies ahead of any cell of i). It is read off an occupancy grid in
one sweep per axis: along every grid line only *consecutive* cells of different pieces matter,
because a piece that reaches a farther cell first passes the nearer one. That shortcut makes a
single entry an upper bound when a third piece lies between i and j, but the minimum over any
group boundary (i inside, j outside), which is all a move needs, is always exact: the first
cell that stops the group is the next one along some line.

From it:

* the *blocking* relation: i pushes j along d when ``dist[d, i, j] == 0``;
* a group can move along d iff no piece in it pushes a piece outside it (the group is closed
  under pushing); such groups are exactly the unions of the pushing closures of single pieces;
* ``max_slide`` of a group: the minimum of ``dist`` over pairs leaving the group, ``None``
  (free) when that is ``FREE``: nothing ever stops it, it comes apart from the rest.

Moving a group by +d is the same relative motion as moving the rest by -d, so move listings
never move the first piece of a part; states then stay normalised for free.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

# the six directions, index d: axis d // 2, sign + for even d
DIRECTIONS: tuple[tuple[int, int, int], ...] = (
    (1, 0, 0),
    (-1, 0, 0),
    (0, 1, 0),
    (0, -1, 0),
    (0, 0, 1),
    (0, 0, -1),
)
DIRECTION_NAMES: tuple[str, ...] = ("+x", "-x", "+y", "-y", "+z", "-z")
FREE = np.int32(1 << 30)  # "never touches" in a distance matrix
MAX_PIECES = 62  # groups are bit masks in an int64


def direction_index(direction: str | Sequence[int] | int) -> int:
    """0..5 from a name ("+x"), a unit vector ((0, -1, 0)) or an index."""
    if isinstance(direction, str):
        return DIRECTION_NAMES.index(direction)
    if isinstance(direction, int | np.integer):
        if not 0 <= direction < 6:
            raise ValueError(f"direction index {direction} is not 0..5")
        return int(direction)
    vec = tuple(int(v) for v in direction)
    if vec not in DIRECTIONS:
        raise ValueError(f"{vec} is not a unit vector along an axis")
    return DIRECTIONS.index(vec)


def pack_cells(cells_by_piece: Sequence[Iterable]) -> tuple[np.ndarray, np.ndarray]:
    """All pieces' cells in one int32 array plus start indices (the kernels' layout)."""
    arrays = [np.asarray(c, np.int64).reshape(-1, 3) for c in cells_by_piece]
    if len(arrays) > MAX_PIECES:
        raise ValueError(f"at most {MAX_PIECES} pieces can be analysed, got {len(arrays)}")
    for k, a in enumerate(arrays):
        if len(a) == 0:
            raise ValueError(f"piece {k} has no cells")
    starts = np.zeros(len(arrays) + 1, np.int64)
    starts[1:] = np.cumsum([len(a) for a in arrays])
    cells = np.vstack(arrays).astype(np.int32) if arrays else np.zeros((0, 3), np.int32)
    return cells, starts


# ---------------------------------------------------------------------------------------------
# compiled kernels (shared with solvers.disassemble)


@njit(cache=True, nogil=True)
def distances(cells, starts, offsets):
    """dist[d, i, j] for pieces at `offsets` (see the module docstring); FREE when never."""
    n = starts.shape[0] - 1
    dist = np.full((6, n, n), FREE, np.int32)
    lo = np.empty(3, np.int64)
    hi = np.empty(3, np.int64)
    for a in range(3):
        lo[a] = 1 << 40
        hi[a] = -(1 << 40)
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            for a in range(3):
                v = cells[k, a] + offsets[p, a]
                if v < lo[a]:
                    lo[a] = v
                if v > hi[a]:
                    hi[a] = v
    dim = np.empty(3, np.int64)
    for a in range(3):
        dim[a] = hi[a] - lo[a] + 1
    stride = np.empty(3, np.int64)
    stride[0] = 1
    stride[1] = dim[0]
    stride[2] = dim[0] * dim[1]
    grid = np.zeros(dim[0] * dim[1] * dim[2], np.int16)  # owner + 1, 0 empty
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            idx = 0
            for a in range(3):
                idx += (cells[k, a] + offsets[p, a] - lo[a]) * stride[a]
            grid[idx] = p + 1
    for a in range(3):
        b = (a + 1) % 3
        c = (a + 2) % 3
        for ib in range(dim[b]):
            for ic in range(dim[c]):
                base = ib * stride[b] + ic * stride[c]
                prev = -1
                prev_pos = 0
                for ia in range(dim[a]):
                    o = grid[base + ia * stride[a]] - 1
                    if o < 0:
                        continue
                    if prev >= 0 and prev != o:
                        gap = ia - prev_pos - 1
                        if gap < dist[2 * a, prev, o]:
                            dist[2 * a, prev, o] = gap
                        if gap < dist[2 * a + 1, o, prev]:
                            dist[2 * a + 1, o, prev] = gap
                    prev = o
                    prev_pos = ia
    return dist


@njit(cache=True, nogil=True)
def closures(dist, d, n):
    """For each piece, the bit mask of pieces that must move with it along d (itself too)."""
    push = np.zeros(n, np.int64)
    for i in range(n):
        m = np.int64(1) << i
        for j in range(n):
            if dist[d, i, j] == 0:
                m |= np.int64(1) << j
        push[i] = m
    out = np.empty(n, np.int64)
    for i in range(n):
        m = np.int64(1) << i
        while True:
            grown = m
            for j in range(n):
                if (m >> j) & 1:
                    grown |= push[j]
            if grown == m:
                break
            m = grown
        out[i] = m
    return out


@njit(cache=True, nogil=True)
def group_slide(dist, d, mask, n):
    """How far the pieces in `mask` can slide together along d (FREE: they come free)."""
    best = FREE
    for i in range(n):
        if not (mask >> i) & 1:
            continue
        for j in range(n):
            if (mask >> j) & 1:
                continue
            v = dist[d, i, j]
            if v < best:
                best = v
    return best


@njit(cache=True, nogil=True)
def movable_groups(clos, n, fixed, out):
    """Every group that can move (a union of closures) avoiding the pieces in `fixed`.

    Written into `out` (grown by the caller when too small); returns the count, or -1 when
    `out` overflowed. A depth-first walk decides piece by piece "in" (its closure joins) or
    "out"; every leaf is a different group, and branches whose closure would take a piece
    already ruled out end at once, so the work follows the number of groups, not 2^n.
    """
    start_excl = fixed
    for i in range(n):
        if clos[i] & fixed:
            start_excl |= np.int64(1) << i
    stack_in = np.empty(n + 2, np.int64)
    stack_ex = np.empty(n + 2, np.int64)
    top = 0
    stack_in[0] = 0
    stack_ex[0] = start_excl
    top = 1
    count = 0
    full = (np.int64(1) << n) - 1 if n < 63 else np.int64(-1)
    while top > 0:
        top -= 1
        inc = stack_in[top]
        exc = stack_ex[top]
        undecided = full & ~(inc | exc)
        if undecided == 0:
            if inc != 0:
                if count >= out.shape[0]:
                    return -1
                out[count] = inc
                count += 1
            continue
        i = 0
        while not (undecided >> i) & 1:
            i += 1
        # "out" branch first on the stack, so "in" is explored first (order is cosmetic)
        stack_in[top] = inc
        stack_ex[top] = exc | (np.int64(1) << i)
        top += 1
        if clos[i] & exc == 0:
            stack_in[top] = inc | clos[i]
            stack_ex[top] = exc
            top += 1
    return count


# ---------------------------------------------------------------------------------------------
# the Python API


@dataclass(frozen=True)
class Move:
    """A group sliding along one axis.

    `distance` is the farthest it can go (`None`: it comes free, nothing stops it ever); any
    distance from 1 up to that is a legal move.
    """

    pieces: tuple[int, ...]
    direction: int  # index into DIRECTIONS

    distance: int | None

    @property
    def vector(self) -> tuple[int, int, int]:
        return DIRECTIONS[self.direction]

    @property
    def free(self) -> bool:
        return self.distance is None


def _offsets(n: int, offsets) -> np.ndarray:
    if offsets is None:
        return np.zeros((n, 3), np.int32)
    arr = np.asarray(offsets, np.int32).reshape(n, 3)
    return arr


def _mask(group: Iterable[int], n: int) -> int:
    m = 0
    for k in group:
        if not 0 <= int(k) < n:
            raise ValueError(f"piece {k} does not exist (there are {n})")
        m |= 1 << int(k)
    return m


def distance_matrix(cells_by_piece: Sequence[Iterable], offsets=None) -> np.ndarray:
    """dist[d, i, j]: cells piece i slides along DIRECTIONS[d] before touching j (FREE: never).

    Exact for touching (0) and for group boundaries; see the module docstring.
    """
    cells, starts = pack_cells(cells_by_piece)
    return distances(cells, starts, _offsets(len(starts) - 1, offsets))


def blocking(cells_by_piece: Sequence[Iterable], offsets=None) -> np.ndarray:
    """block[d, i, j]: piece i moving one cell along d would hit piece j (it pushes j)."""
    return distance_matrix(cells_by_piece, offsets) == 0


def pushed_with(
    cells_by_piece: Sequence[Iterable], piece: int, direction, offsets=None
) -> tuple[int, ...]:
    """The pieces that must move with `piece` along `direction` (chains of pushing)."""
    n = len(cells_by_piece)
    d = direction_index(direction)
    dist = distance_matrix(cells_by_piece, offsets)
    m = int(closures(dist, d, n)[piece])
    return tuple(k for k in range(n) if m >> k & 1)


def max_slide(
    cells_by_piece: Sequence[Iterable], group: Iterable[int], direction, offsets=None
) -> int | None:
    """How far `group` can slide together along `direction` before it touches another piece:
    0 when blocked at once, `None` when nothing is ever in the way (it comes free).

    The viewer's dragging uses this: a dragged piece (or group) stops where it touches.
    """
    n = len(cells_by_piece)
    mask = _mask(group, n)
    if mask == 0:
        raise ValueError("the group is empty")
    d = direction_index(direction)
    dist = distance_matrix(cells_by_piece, offsets)
    v = int(group_slide(dist, d, np.int64(mask), n))
    return None if v >= FREE else v


def possible_moves(
    cells_by_piece: Sequence[Iterable], offsets=None, fixed: Iterable[int] = (0,)
) -> list[Move]:
    """Every group that can slide at least one cell, per direction, with its farthest slide.

    Groups containing a piece of `fixed` are left out (by default the first piece): moving
    them is the same relative motion as moving the others the opposite way. Pass `fixed=()`
    to list both.
    """
    n = len(cells_by_piece)
    if n == 0:
        return []
    dist = distance_matrix(cells_by_piece, offsets)
    fixed_mask = np.int64(_mask(fixed, n))
    moves: list[Move] = []
    for d in range(6):
        clos = closures(dist, d, n)
        out = np.empty(256, np.int64)
        while (count := movable_groups(clos, n, fixed_mask, out)) < 0:
            out = np.empty(out.shape[0] * 4, np.int64)
        for m in sorted(int(v) for v in out[:count]):
            if m == (1 << n) - 1:
                continue  # everything at once is no motion at all
            v = int(group_slide(dist, d, np.int64(m), n))
            if v == 0:
                continue
            pieces = tuple(k for k in range(n) if m >> k & 1)
            moves.append(Move(pieces, d, None if v >= FREE else v))
    return moves
