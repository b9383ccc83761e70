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

For one piece among fixed others (Play mode's hand: the others stay where they lie) there is
also `reach`: a breadth-first search over the piece's translations by one-cell slides, which
says whether, and by how few slides, a pose is reachable without passing through anything. It
searches a bounded box: once the piece is clear of the others' bounding box nothing can stop
it, so one layer of such translations around the box is enough to go round everything, and
the answer is exact, not a guess bounded by effort.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from tessera.models.errors import PuzzleError

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
#: The kernels keep the pieces' occupancy in a grid of their bounding box; a box larger than
#: this (pieces with cells far apart) is not analysed.
MAX_BOX_CELLS = 1 << 24


class MovementLimit(PuzzleError):
    """The assembly is past what the movement analysis handles (too many pieces, or spread
    over too large a box): the window, render and animate show it unanalysed and say so in
    one line; a command that asked for the disassembly is refused with it (exit 2)."""


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
        raise MovementLimit(
            f"the movement is not analysed: at most {MAX_PIECES} pieces can be, this "
            f"assembly has {len(arrays)}"
        )
    for k, a in enumerate(arrays):
        if len(a) == 0:
            raise ValueError(f"piece {k} has no cells")
    starts = np.zeros(len(arrays) + 1, np.int64)
    starts[1:] = np.cumsum([len(a) for a in arrays])
    cells = np.vstack(arrays).astype(np.int32) if arrays else np.zeros((0, 3), np.int32)
    if len(cells):
        box = int(np.prod((cells.max(axis=0) - cells.min(axis=0) + 1).astype(object)))
        if box > MAX_BOX_CELLS:
            raise MovementLimit(
                f"the movement is not analysed: the pieces spread over a box of {box:,} cells "
                f"(at most {MAX_BOX_CELLS:,} can be)"
            )
    return cells, starts


# ---------------------------------------------------------------------------------------------
# compiled kernels (shared with solvers.disassemble)


@njit(cache=True, nogil=True)
def _box(cells, starts, offsets, skip):
    """(lo, hi) corners of the bounding box of every piece but `skip` (-1: none) at
    `offsets`; an empty box (lo > hi) when there is no such piece."""
    lo = np.full(3, 1 << 40, np.int64)
    hi = np.full(3, -(1 << 40), np.int64)
    for p in range(starts.shape[0] - 1):
        if p == skip:
            continue
        for k in range(starts[p], starts[p + 1]):
            for a in range(3):
                v = cells[k, a] + offsets[p, a]
                if v < lo[a]:
                    lo[a] = v
                if v > hi[a]:
                    hi[a] = v
    return lo, hi


@njit(cache=True, nogil=True)
def distances(cells, starts, offsets):
    """dist[d, i, j] for pieces at `offsets` (see the module docstring); FREE when never."""
    n = starts.shape[0] - 1
    dist = np.full((6, n, n), FREE, np.int32)
    lo, hi = _box(cells, starts, offsets, -1)
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
    """A group of pieces (indices into the assembly) sliding along one axis.

    Listed as a possibility (`possible_moves`), `distance` is the farthest it can go (`None`:
    it comes free, nothing stops it ever); any distance from 1 up to that is a legal move. As
    a step of a disassembly (`solvers.polycube.disassemble`), `distance` is how far it goes;
    with `removes`, the group slides away for ever and its part splits in two, `distance` then
    being the shortest slide that takes it clear of the rest's bounding box, so a replay can
    park it there.
    """

    pieces: tuple[int, ...]
    direction: int  # index into DIRECTIONS
    distance: int | None
    removes: bool = False

    @property
    def vector(self) -> tuple[int, int, int]:
        return DIRECTIONS[self.direction]

    @property
    def free(self) -> bool:
        return self.distance is None

    @property
    def by(self) -> tuple[int, int, int]:
        """The shift the move makes (a step of a disassembly: its distance is known)."""
        if self.distance is None:
            raise ValueError("a free move has no single shift")
        x, y, z = self.vector
        return (x * self.distance, y * self.distance, z * self.distance)

    def as_dict(self) -> dict:
        return {"pieces": list(self.pieces), "by": list(self.by), "removes": self.removes}


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


# ---------------------------------------------------------------------------------------------
# one piece among fixed others: where it can get by one-cell slides


@njit(cache=True, nogil=True)
def translation_reach(cells, starts, offsets, piece, lo, dims, max_steps, goal, stop_at_goal):
    """Breadth-first search over translations of `piece` with the other pieces fixed.

    Translations s (added to the piece's offset) range over the box `lo` .. `lo + dims - 1`;
    the search starts at s = 0. Returns (steps, parent): per translation the fewest one-cell
    slides that reach it without the piece ever overlapping another (-1: not reached), and the
    direction index of the last of them. It stops after `max_steps` slides (< 0: no limit) or
    once the translation `goal` is reached (with `stop_at_goal`).
    """
    n = starts.shape[0] - 1
    # the others' occupancy over their bounding box
    olo, ohi = _box(cells, starts, offsets, piece)
    have_others = olo[0] <= ohi[0]
    odim = np.ones(3, np.int64)
    if have_others:
        for a in range(3):
            odim[a] = ohi[a] - olo[a] + 1
    grid = np.zeros(odim[0] * odim[1] * odim[2], np.bool_)
    for p in range(n):
        if p == piece:
            continue
        for k in range(starts[p], starts[p + 1]):
            idx = (cells[k, 0] + offsets[p, 0] - olo[0]) + odim[0] * (
                (cells[k, 1] + offsets[p, 1] - olo[1])
                + odim[1] * (cells[k, 2] + offsets[p, 2] - olo[2])
            )
            grid[idx] = True
    m = starts[piece + 1] - starts[piece]
    own = np.empty((m, 3), np.int64)
    for k in range(m):
        for a in range(3):
            own[k, a] = cells[starts[piece] + k, a] + offsets[piece, a]
    total = dims[0] * dims[1] * dims[2]
    steps = np.full(total, -1, np.int32)
    parent = np.full(total, -1, np.int8)
    queue = np.empty(total, np.int64)
    start = (0 - lo[0]) + dims[0] * ((0 - lo[1]) + dims[1] * (0 - lo[2]))
    target = -1
    if stop_at_goal:
        target = (goal[0] - lo[0]) + dims[0] * ((goal[1] - lo[1]) + dims[1] * (goal[2] - lo[2]))
    steps[start] = 0
    queue[0] = start
    head, tail = 0, 1
    s = np.empty(3, np.int64)
    while head < tail:
        cur = queue[head]
        head += 1
        if cur == target:
            break
        if max_steps >= 0 and steps[cur] >= max_steps:
            continue
        s[0] = cur % dims[0] + lo[0]
        s[1] = (cur // dims[0]) % dims[1] + lo[1]
        s[2] = cur // (dims[0] * dims[1]) + lo[2]
        for d in range(6):
            a = d // 2
            sign = 1 if d % 2 == 0 else -1
            s[a] += sign
            inside = lo[a] <= s[a] < lo[a] + dims[a]
            if inside:
                nxt = (s[0] - lo[0]) + dims[0] * ((s[1] - lo[1]) + dims[1] * (s[2] - lo[2]))
                if steps[nxt] < 0:
                    free = True
                    if have_others:
                        for k in range(m):
                            x = own[k, 0] + s[0] - olo[0]
                            y = own[k, 1] + s[1] - olo[1]
                            z = own[k, 2] + s[2] - olo[2]
                            if 0 <= x < odim[0] and 0 <= y < odim[1] and 0 <= z < odim[2]:
                                if grid[x + odim[0] * (y + odim[1] * z)]:
                                    free = False
                                    break
                    if free:
                        steps[nxt] = steps[cur] + 1
                        parent[nxt] = d
                        queue[tail] = nxt
                        tail += 1
            s[a] -= sign
    return steps, parent


@dataclass(frozen=True)
class Reach:
    """Where one piece can get by one-cell slides while the others stay put (see `reach`).

    Translations are relative to where the piece was when asked."""

    piece: int
    lo: tuple[int, int, int]  # the translation of index 0 of the arrays
    steps_grid: np.ndarray = field(repr=False)  # (z, y, x) fewest slides; -1 not reached
    parent_grid: np.ndarray = field(repr=False)  # (z, y, x) the last slide's direction

    def _index(self, shift: Sequence[int]) -> tuple[int, int, int] | None:
        rel = [int(shift[a]) - self.lo[a] for a in range(3)]
        dims = self.steps_grid.shape[::-1]
        if not all(0 <= rel[a] < dims[a] for a in range(3)):
            return None
        return rel[2], rel[1], rel[0]

    def steps(self, shift: Sequence[int]) -> int | None:
        """The fewest one-cell slides that move the piece by `shift`, or None if it cannot
        get there (or not within the search's limit)."""
        idx = self._index(shift)
        if idx is None:
            return None
        v = int(self.steps_grid[idx])
        return None if v < 0 else v

    def path(self, shift: Sequence[int]) -> list[int] | None:
        """The direction indices of such a shortest way, first slide first; None if none."""
        if self.steps(shift) is None:
            return None
        out: list[int] = []
        here = [int(v) for v in shift]
        while any(here):
            d = int(self.parent_grid[self._index(here)])
            out.append(d)
            for a in range(3):
                here[a] -= DIRECTIONS[d][a]
        return out[::-1]

    def reached(self) -> list[tuple[tuple[int, int, int], int]]:
        """Every translation reached, with its number of slides, nearest first."""
        z, y, x = np.nonzero(self.steps_grid >= 0)
        found = [
            ((int(a) + self.lo[0], int(b) + self.lo[1], int(c) + self.lo[2]), int(s))
            for a, b, c, s in zip(x, y, z, self.steps_grid[z, y, x], strict=True)
        ]
        return sorted(found, key=lambda t: (t[1], t[0]))


def reach(
    cells_by_piece: Sequence[Iterable],
    piece: int,
    offsets=None,
    max_steps: int | None = None,
    towards: Sequence[int] | None = None,
) -> Reach:
    """Where `piece` can get by sliding one cell at a time along the axes, never through
    another piece, while the others stay where they are: a breadth-first search over its
    translations (Play mode asks whether a drop or a drag is physically possible).

    `max_steps` bounds the search to that many slides (and to translations that short);
    `towards` (a translation) stops it as soon as that one is reached. Without a limit the
    searched box is the others' bounding box grown by the piece's size and one more cell (plus
    the start and `towards`): outside it nothing is in the way, and its outer layer lets the
    piece go round everything, so the answer is exact; a translation outside the box is
    reachable exactly when the box's outer layer is (`Reach.steps` answers None for it: ask
    with `towards`).
    """
    n = len(cells_by_piece)
    if not 0 <= piece < n:
        raise ValueError(f"piece {piece} does not exist (there are {n})")
    cells, starts = pack_cells(cells_by_piece)
    offs = _offsets(n, offsets)
    world = cells.astype(np.int64) + np.repeat(offs, np.diff(starts), axis=0)
    own = world[starts[piece] : starts[piece + 1]]
    rest = np.delete(world, np.s_[starts[piece] : starts[piece + 1]], axis=0)
    goal = np.zeros(3, np.int64) if towards is None else np.asarray(towards, np.int64)
    if len(rest):
        lo = rest.min(axis=0) - own.max(axis=0) - 1
        hi = rest.max(axis=0) - own.min(axis=0) + 1
    else:
        lo = hi = np.zeros(3, np.int64)
    lo = np.minimum(np.minimum(lo, 0), goal)
    hi = np.maximum(np.maximum(hi, 0), goal)
    if max_steps is not None:  # exactly what that many slides can reach
        lo = np.minimum(np.full(3, -max_steps, np.int64), goal)
        hi = np.maximum(np.full(3, max_steps, np.int64), goal)
    dims = hi - lo + 1
    steps, parent = translation_reach(
        cells,
        starts,
        offs,
        piece,
        lo.astype(np.int64),
        dims.astype(np.int64),
        -1 if max_steps is None else int(max_steps),
        goal,
        towards is not None,
    )
    shape = (int(dims[2]), int(dims[1]), int(dims[0]))
    return Reach(piece, tuple(int(v) for v in lo), steps.reshape(shape), parent.reshape(shape))


def free_path(
    cells_by_piece: Sequence[Iterable],
    piece: int,
    shift: Sequence[int],
    offsets=None,
    max_steps: int | None = None,
) -> list[int] | None:
    """The fewest one-cell slides (direction indices) that move `piece` by `shift` without
    passing through another piece, the others fixed; None when there is no such way (within
    `max_steps` slides, if given)."""
    return reach(cells_by_piece, piece, offsets, max_steps, towards=shift).path(shift)


def slides(
    cells_by_piece: Sequence[Iterable], group: Iterable[int], offsets=None
) -> tuple[int | None, ...]:
    """`max_slide` of `group` along each of the six directions at once (one distance matrix):
    how far it can go along +x, -x, +y, -y, +z, -z before it touches (None: for ever)."""
    n = len(cells_by_piece)
    mask = _mask(group, n)
    if mask == 0:
        raise ValueError("the group is empty")
    dist = distance_matrix(cells_by_piece, offsets)
    out = []
    for d in range(6):
        v = int(group_slide(dist, d, np.int64(mask), n))
        out.append(None if v >= FREE else v)
    return tuple(out)
