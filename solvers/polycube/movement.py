"""Movement analysis on every grid: how pieces slide along the grid's directions without
passing through each other.

One module answers the question for the disassembler (which searches over slides) and for the
viewer's dragging (a dragged piece slides until it touches), so that pieces everywhere in
Tessera move the way real ones do.

A direction is one of the grid's `directions`, a lattice translation a piece makes one step
at a time. One step of a cell is stopped not only by the cell it lands on but by every cell
its swept volume meets (a triangle sliding along a side passes the neighbour in front): the
grid's *blocker sets* (`models.grids.sweep`), the offsets r such that a cell at `cell + r`
stops one step of `cell` along d. On the cube grid that set is {d}; nothing below knows which
grid it is on.

Everything is derived from one table per state, the *distance matrix*
``dist[d, i, j]``: how many steps piece i can slide along direction d before it touches piece
j (``FREE`` when no cell of j lies ahead of any cell of i). It is read off an occupancy grid:
from every cell, along the line of each of its blockers, the first occupied cell is all that
matters, because a piece that reaches a farther cell first passes the nearer one (and a cell of
its own there has the rest of the line ahead of it: d is always among its blockers). On the
cube grid these lines are the axes and the first cells the consecutive ones. That shortcut
makes a single entry an upper bound when a third piece lies between i and j, but the minimum
over any group boundary (i inside, j outside), which is all a move needs, is always exact: the
first cell that stops the group is the first one along some line.

From it:

* the *blocking* relation: i pushes j along d when ``dist[d, i, j] == 0``;
* a group can move along d iff no piece in it pushes a piece outside it (the group is closed
  under pushing); such groups are exactly the unions of the pushing closures of single pieces;
* ``max_slide`` of a group: the minimum of ``dist`` over pairs leaving the group, ``None``
  (free) when that is ``FREE``: nothing ever stops it, it comes apart from the rest.

Moving a group by +d is the same relative motion as moving the rest by -d, so move listings
never move the first piece of a part; states then stay normalised for free.

For one piece among fixed others (Play mode's hand: the others stay where they lie) there is
also `reach`: a breadth-first search over the piece's translations by one-step slides, which
says whether, and by how few slides, a pose is reachable without passing through anything. It
searches a bounded box: once the piece is clear of the others' bounding box nothing can stop
it, so one layer of such translations around the box is enough to go round everything, and
the answer is exact, not a guess bounded by effort.

Every function takes the `grid` (the cube grid unless told), whose `directions` index the
first axis of the distance matrix and whose `direction_names` name moves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from tessera.models.errors import PuzzleError
from tessera.models.grids import CUBES, Grid
from tessera.models.grids.sweep import Sweep, sweep

#: the cube grid's six directions, index d: axis d // 2, sign + for even d (other grids: their
#: own `directions`, always in opposite pairs d, d ^ 1)
DIRECTIONS: tuple[tuple[int, int, int], ...] = CUBES.directions
DIRECTION_NAMES: tuple[str, ...] = CUBES.direction_names
FREE = np.int32(1 << 30)  # "never touches" in a distance matrix
MAX_PIECES = 62  # groups are bit masks in an int64
#: The kernels keep the pieces' occupancy in a grid of their bounding box; a box larger than
#: this (pieces with cells far apart) is not analysed.
MAX_BOX_CELLS = 1 << 24


class MovementLimit(PuzzleError):
    """The assembly is past what the movement analysis handles (too many pieces, or spread
    over too large a box): the window, render and animate show it unanalysed and say so in
    one line; a command that asked for the disassembly is refused with it (exit 2)."""


def direction_index(direction: str | Sequence[int] | int, grid: Grid = CUBES) -> int:
    """The index into `grid.directions` from a name ("+x"), a vector ((0, -1, 0)) or an
    index."""
    if isinstance(direction, str):
        if direction not in grid.direction_names:
            raise ValueError(f"{direction!r} is not a direction of the {grid.name} grid")
        return grid.direction_names.index(direction)
    if isinstance(direction, int | np.integer):
        if not 0 <= direction < len(grid.directions):
            raise ValueError(f"direction index {direction} is not 0..{len(grid.directions) - 1}")
        return int(direction)
    vec = tuple(int(v) for v in direction)
    if vec not in grid.directions:
        raise ValueError(f"{vec} is not a direction of the {grid.name} grid")
    return grid.directions.index(vec)


@dataclass(frozen=True)
class Lattice:
    """A grid's directions and blocker sets, as the compiled kernels take them: `dirs` (D, 3),
    and the blockers of a step along d of a cell of kind k, `offsets[start[d * n_kinds + k] :
    start[d * n_kinds + k + 1]]`."""

    grid: Grid
    dirs: np.ndarray
    start: np.ndarray
    offsets: np.ndarray
    n_kinds: int
    reach: int  # largest |coordinate| of a direction or blocker
    step: int  # largest |coordinate| of a direction
    table: Sweep = field(repr=False)
    #: what the kernels take: (dirs, start, offsets, n_kinds, extent), extent[d] the least
    #: then the largest coordinates of d's blockers over every kind (a (D, 6) array)
    arrays: tuple = field(repr=False)

    def kinds(self, cells: np.ndarray, starts=None, offsets=None) -> np.ndarray:
        """Each cell's kind (int64), of packed pieces at `offsets` when given: all 0 on a grid
        with one kind of cell (without a look at the cells: the movement analysis asks this
        for every state of a dragged piece)."""
        if self.n_kinds == 1:
            return np.zeros(len(cells), np.int64)
        world = np.asarray(cells, np.int64)
        if offsets is not None:
            world = world + np.repeat(np.asarray(offsets, np.int64), np.diff(starts), axis=0)
        return self.table.kinds(world)


_LATTICES: dict[Grid, Lattice] = {}


def lattice(grid: Grid = CUBES) -> Lattice:
    """The grid's `Lattice` (worked out once per grid)."""
    found = _LATTICES.get(grid)
    if found is None:
        table = sweep(grid)
        dirs = np.ascontiguousarray(table.directions, np.int64)
        start = np.ascontiguousarray(table.start, np.int64)
        offsets = np.ascontiguousarray(table.offsets, np.int64)
        extent = np.empty((len(dirs), 6), np.int64)
        for d in range(len(dirs)):
            mine = offsets[start[d * table.n_kinds] : start[(d + 1) * table.n_kinds]]
            extent[d, :3] = mine.min(axis=0)
            extent[d, 3:] = mine.max(axis=0)
        found = Lattice(
            grid,
            dirs,
            start,
            offsets,
            table.n_kinds,
            table.reach,
            int(np.abs(dirs).max()),
            table,
            (dirs, start, offsets, np.int64(table.n_kinds), extent),
        )
        _LATTICES[grid] = found
    return found


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
# compiled kernels


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
def lattice_distances(cells, starts, offsets, kinds, lat):
    """dist[d, i, j] for pieces at `offsets` (see the module docstring); FREE when never.
    `kinds[k]`: the kind of cell k; `lat`: the grid's `Lattice.arrays`.

    The lines are walked along d only, for d and its opposite at once: the cells met walking
    one way are the cells that meet walking the other way (a blocker set seen from the other
    cell is the opposite direction's), and along every line each pair of consecutive occupied
    cells is found, which is all the group boundaries need. The occupancy grid has a border as
    wide as the farthest blocker, marked `outside`: a walk stops there (a line never comes back
    into the box), and only a line that starts in the border needs a closer look."""
    dirs, bstart, boff, nk, _ = lat
    n = starts.shape[0] - 1
    nd = dirs.shape[0]
    dist = np.full((nd, n, n), FREE, np.int32)
    pad = 0
    for b in range(boff.shape[0]):
        for a in range(3):
            pad = max(pad, abs(boff[b, a]))
    lo, hi = _box(cells, starts, offsets, -1)
    box = np.empty(3, np.int64)
    dim = np.empty(3, np.int64)
    for a in range(3):
        box[a] = hi[a] - lo[a] + 1
        dim[a] = box[a] + 2 * pad
        lo[a] -= pad
    sy = dim[0]
    sz = dim[0] * dim[1]
    outside = np.int16(-1)
    grid = np.full(dim[0] * dim[1] * dim[2], outside, np.int16)  # owner + 1, 0 empty
    for z in range(pad, pad + box[2]):
        for y in range(pad, pad + box[1]):
            row = y * sy + z * sz
            for x in range(pad, pad + box[0]):
                grid[row + x] = 0
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            x = cells[k, 0] + offsets[p, 0] - lo[0]
            y = cells[k, 1] + offsets[p, 1] - lo[1]
            z = cells[k, 2] + offsets[p, 2] - lo[2]
            grid[x + y * sy + z * sz] = p + 1
    dstep = np.empty(nd, np.int64)
    for d in range(nd):
        dstep[d] = dirs[d, 0] + dirs[d, 1] * sy + dirs[d, 2] * sz
    bstep = np.empty(boff.shape[0], np.int64)
    for b in range(boff.shape[0]):
        bstep[b] = boff[b, 0] + boff[b, 1] * sy + boff[b, 2] * sz
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            x0 = cells[k, 0] + offsets[p, 0] - lo[0]
            y0 = cells[k, 1] + offsets[p, 1] - lo[1]
            z0 = cells[k, 2] + offsets[p, 2] - lo[2]
            here = x0 + y0 * sy + z0 * sz
            for d in range(0, nd, 2):  # d ^ 1 is the same lines walked the other way
                row = d * nk + kinds[k]
                for b in range(bstart[row], bstart[row + 1]):
                    # along the blocker's line, the first occupied cell is all that counts
                    idx = here + bstep[b]
                    step = np.int64(0)
                    if grid[idx] == outside:
                        # it starts in the border: a coordinate out of the box comes back in
                        # within `pad` steps if ever (one that leaves never does)
                        x = x0 + boff[b, 0]
                        y = y0 + boff[b, 1]
                        z = z0 + boff[b, 2]
                        while step < pad and not (
                            pad <= x < pad + box[0]
                            and pad <= y < pad + box[1]
                            and pad <= z < pad + box[2]
                        ):
                            x += dirs[d, 0]
                            y += dirs[d, 1]
                            z += dirs[d, 2]
                            step += 1
                        if not (
                            pad <= x < pad + box[0]
                            and pad <= y < pad + box[1]
                            and pad <= z < pad + box[2]
                        ):
                            continue
                        idx = x + y * sy + z * sz
                    while True:
                        o = grid[idx]
                        if o != 0:
                            if o > 0 and o != p + 1 and step < dist[d, p, o - 1]:
                                dist[d, p, o - 1] = step
                                dist[d ^ 1, o - 1, p] = step
                            break
                        idx += dstep[d]
                        step += 1
    return dist


def distances(cells, starts, offsets, grid: Grid = CUBES) -> np.ndarray:
    """`lattice_distances` for packed pieces (`pack_cells`) at `offsets` on `grid`."""
    lat = _LATTICES.get(grid) or lattice(grid)
    return lattice_distances(cells, starts, offsets, lat.kinds(cells, starts, offsets), lat.arrays)


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
    """A group of pieces (indices into the assembly) sliding along one of the grid's
    directions.

    Listed as a possibility (`possible_moves`), `distance` is the farthest it can go (`None`:
    it comes free, nothing stops it ever); any distance from 1 up to that is a legal move. As
    a step of a disassembly (`solvers.polycube.disassemble`), `distance` is how far it goes;
    with `removes`, the group slides away for ever and its part splits in two, `distance` then
    being the shortest slide that takes it clear of the rest's bounding box, so a replay can
    park it there.
    """

    pieces: tuple[int, ...]
    direction: int  # index into grid.directions
    distance: int | None  # in steps of that direction
    removes: bool = False
    grid: Grid = field(default=CUBES, repr=False)

    @property
    def vector(self) -> tuple[int, int, int]:
        return self.grid.directions[self.direction]

    @property
    def name(self) -> str:
        """The direction's name on its grid ("+x", "-x+y")."""
        return self.grid.direction_names[self.direction]

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


def distance_matrix(
    cells_by_piece: Sequence[Iterable], offsets=None, grid: Grid = CUBES
) -> np.ndarray:
    """dist[d, i, j]: steps piece i slides along grid.directions[d] before touching j (FREE:
    never).

    Exact for touching (0) and for group boundaries; see the module docstring.
    """
    cells, starts = pack_cells(cells_by_piece)
    return distances(cells, starts, _offsets(len(starts) - 1, offsets), grid)


def blocking(cells_by_piece: Sequence[Iterable], offsets=None, grid: Grid = CUBES) -> np.ndarray:
    """block[d, i, j]: piece i moving one step along d would hit piece j (it pushes j)."""
    return distance_matrix(cells_by_piece, offsets, grid) == 0


def pushed_with(
    cells_by_piece: Sequence[Iterable], piece: int, direction, offsets=None, grid: Grid = CUBES
) -> tuple[int, ...]:
    """The pieces that must move with `piece` along `direction` (chains of pushing)."""
    n = len(cells_by_piece)
    d = direction_index(direction, grid)
    dist = distance_matrix(cells_by_piece, offsets, grid)
    m = int(closures(dist, d, n)[piece])
    return tuple(k for k in range(n) if m >> k & 1)


def max_slide(
    cells_by_piece: Sequence[Iterable],
    group: Iterable[int],
    direction,
    offsets=None,
    grid: Grid = CUBES,
) -> int | None:
    """How far `group` can slide together along `direction` before it touches another piece:
    0 when blocked at once, `None` when nothing is ever in the way (it comes free).

    The viewer's dragging uses this: a dragged piece (or group) stops where it touches.
    """
    n = len(cells_by_piece)
    mask = _mask(group, n)
    if mask == 0:
        raise ValueError("the group is empty")
    d = direction_index(direction, grid)
    dist = distance_matrix(cells_by_piece, offsets, grid)
    v = int(group_slide(dist, d, np.int64(mask), n))
    return None if v >= FREE else v


def possible_moves(
    cells_by_piece: Sequence[Iterable],
    offsets=None,
    fixed: Iterable[int] = (0,),
    grid: Grid = CUBES,
) -> list[Move]:
    """Every group that can slide at least one step, per direction, with its farthest slide.

    Groups containing a piece of `fixed` are left out (by default the first piece): moving
    them is the same relative motion as moving the others the opposite way. Pass `fixed=()`
    to list both.
    """
    n = len(cells_by_piece)
    if n == 0:
        return []
    dist = distance_matrix(cells_by_piece, offsets, grid)
    fixed_mask = np.int64(_mask(fixed, n))
    moves: list[Move] = []
    for d in range(len(dist)):
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
            moves.append(Move(pieces, d, None if v >= FREE else v, grid=grid))
    return moves


# ---------------------------------------------------------------------------------------------
# one piece among fixed others: where it can get by one-cell slides


@njit(cache=True, nogil=True)
def translation_reach(
    cells, starts, offsets, piece, lo, dims, max_steps, goal, stop_at_goal, kinds, lat
):
    """Breadth-first search over translations of `piece` with the other pieces fixed.

    Translations s (added to the piece's offset) range over the box `lo` .. `lo + dims - 1`;
    the search starts at s = 0. Returns (steps, parent): per translation the fewest one-step
    slides that reach it without the piece ever passing through another (no cell of another
    piece among the blockers of any of its cells' steps; -1: not reached), and the direction
    index of the last of them. It stops after `max_steps` slides (< 0: no limit) or once the
    translation `goal` is reached (with `stop_at_goal`). `kinds`: per cell of `cells`; `lat`:
    the grid's `Lattice.arrays`.
    """
    dirs, bstart, boff, nk, _ = lat
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
    own_kind = np.empty(m, np.int64)
    for k in range(m):
        own_kind[k] = kinds[starts[piece] + k]
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
        for d in range(dirs.shape[0]):
            inside = True
            for a in range(3):
                t = s[a] + dirs[d, a]
                if not lo[a] <= t < lo[a] + dims[a]:
                    inside = False
            if not inside:
                continue
            nxt = (s[0] + dirs[d, 0] - lo[0]) + dims[0] * (
                (s[1] + dirs[d, 1] - lo[1]) + dims[1] * (s[2] + dirs[d, 2] - lo[2])
            )
            if steps[nxt] >= 0:
                continue
            free = True
            if have_others:
                for k in range(m):
                    row = d * nk + own_kind[k]
                    for b in range(bstart[row], bstart[row + 1]):
                        x = own[k, 0] + s[0] + boff[b, 0] - olo[0]
                        y = own[k, 1] + s[1] + boff[b, 1] - olo[1]
                        z = own[k, 2] + s[2] + boff[b, 2] - olo[2]
                        if 0 <= x < odim[0] and 0 <= y < odim[1] and 0 <= z < odim[2]:
                            if grid[x + odim[0] * (y + odim[1] * z)]:
                                free = False
                                break
                    if not free:
                        break
            if free:
                steps[nxt] = steps[cur] + 1
                parent[nxt] = d
                queue[tail] = nxt
                tail += 1
    return steps, parent


@dataclass(frozen=True)
class Reach:
    """Where one piece can get by one-step slides while the others stay put (see `reach`).

    Translations are relative to where the piece was when asked."""

    piece: int
    lo: tuple[int, int, int]  # the translation of index 0 of the arrays
    steps_grid: np.ndarray = field(repr=False)  # (z, y, x) fewest slides; -1 not reached
    parent_grid: np.ndarray = field(repr=False)  # (z, y, x) the last slide's direction
    grid: Grid = field(default=CUBES, repr=False)

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
                here[a] -= self.grid.directions[d][a]
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
    grid: Grid = CUBES,
) -> Reach:
    """Where `piece` can get by sliding one step at a time along the grid's directions, never
    through another piece, while the others stay where they are: a breadth-first search over
    its translations (Play mode asks whether a drop or a drag is physically possible).

    `max_steps` bounds the search to that many slides (and to translations that short);
    `towards` (a translation) stops it as soon as that one is reached. Without a limit the
    searched box is the others' bounding box grown by the piece's size and a margin (one cell
    on the cube grid; as far as a step and its blockers reach on others) (plus the start and
    `towards`): outside it nothing is in the way, and its outer layer lets the piece go round
    everything, so the answer is exact; a translation outside the box is reachable exactly
    when the box's outer layer is (`Reach.steps` answers None for it: ask with `towards`).
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
    lat = lattice(grid)
    margin = lat.reach + lat.step - 1  # clear of everything, and room to go round it
    if len(rest):
        lo = rest.min(axis=0) - own.max(axis=0) - margin
        hi = rest.max(axis=0) - own.min(axis=0) + margin
    else:
        lo = hi = np.zeros(3, np.int64)
    lo = np.minimum(np.minimum(lo, 0), goal)
    hi = np.maximum(np.maximum(hi, 0), goal)
    if max_steps is not None:  # exactly what that many slides can reach
        lo = np.minimum(np.full(3, -max_steps * lat.step, np.int64), goal)
        hi = np.maximum(np.full(3, max_steps * lat.step, np.int64), goal)
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
        lat.kinds(world),
        lat.arrays,
    )
    shape = (int(dims[2]), int(dims[1]), int(dims[0]))
    return Reach(
        piece, tuple(int(v) for v in lo), steps.reshape(shape), parent.reshape(shape), grid
    )


def free_path(
    cells_by_piece: Sequence[Iterable],
    piece: int,
    shift: Sequence[int],
    offsets=None,
    max_steps: int | None = None,
    grid: Grid = CUBES,
) -> list[int] | None:
    """The fewest one-step slides (direction indices) that move `piece` by `shift` without
    passing through another piece, the others fixed; None when there is no such way (within
    `max_steps` slides, if given)."""
    return reach(cells_by_piece, piece, offsets, max_steps, towards=shift, grid=grid).path(shift)


def slides(
    cells_by_piece: Sequence[Iterable], group: Iterable[int], offsets=None, grid: Grid = CUBES
) -> tuple[int | None, ...]:
    """`max_slide` of `group` along each of the grid's directions at once (one distance
    matrix): on the cube grid how far it can go along +x, -x, +y, -y, +z, -z before it touches
    (None: for ever)."""
    n = len(cells_by_piece)
    mask = _mask(group, n)
    if mask == 0:
        raise ValueError("the group is empty")
    dist = distance_matrix(cells_by_piece, offsets, grid)
    out = []
    for d in range(len(dist)):
        v = int(group_slide(dist, d, np.int64(mask), n))
        out.append(None if v >= FREE else v)
    return tuple(out)
