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

from tessera.models.errors import PuzzleError
from tessera.models.grids import CUBES, Grid
from tessera.models.grids.sweep import Sweep, sweep
from tessera.solvers.polycube._movement_codes import FREE

#: the cube grid's six directions, index d: axis d // 2, sign + for even d (other grids: their
#: own `directions`, always in opposite pairs d, d ^ 1)
DIRECTIONS: tuple[tuple[int, int, int], ...] = CUBES.directions
DIRECTION_NAMES: tuple[str, ...] = CUBES.direction_names
MAX_PIECES = 62  # groups are bit masks in an int64
#: The kernels keep the pieces' occupancy in a grid of their bounding box; a box larger than
#: this (pieces with cells far apart) is not analysed.
MAX_BOX_CELLS = 1 << 24


#: The compiled kernels, by name: loaded from `_movement_kernel` on first use (importing numba)
KERNELS = ("lattice_distances", "closures", "group_slide", "movable_groups", "translation_reach")


def _kernels():
    """The compiled kernels' module, imported when a kernel is first needed: importing this
    module (the disassembler and the command line do) then costs no numba import."""
    from tessera.solvers.polycube import _movement_kernel

    return _movement_kernel


def __getattr__(name: str):
    if name in KERNELS:
        return getattr(_kernels(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def distances(cells, starts, offsets, grid: Grid = CUBES) -> np.ndarray:
    """`lattice_distances` for packed pieces (`pack_cells`) at `offsets` on `grid`."""
    lat = _LATTICES.get(grid) or lattice(grid)
    return _kernels().lattice_distances(
        cells, starts, offsets, lat.kinds(cells, starts, offsets), lat.arrays
    )


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
    m = int(_kernels().closures(dist, d, n)[piece])
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
    v = int(_kernels().group_slide(dist, d, np.int64(mask), n))
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
        clos = _kernels().closures(dist, d, n)
        out = np.empty(256, np.int64)
        while (count := _kernels().movable_groups(clos, n, fixed_mask, out)) < 0:
            out = np.empty(out.shape[0] * 4, np.int64)
        for m in sorted(int(v) for v in out[:count]):
            if m == (1 << n) - 1:
                continue  # everything at once is no motion at all
            v = int(_kernels().group_slide(dist, d, np.int64(m), n))
            if v == 0:
                continue
            pieces = tuple(k for k in range(n) if m >> k & 1)
            moves.append(Move(pieces, d, None if v >= FREE else v, grid=grid))
    return moves


# ---------------------------------------------------------------------------------------------
# one piece among fixed others: where it can get by one-cell slides


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
    steps, parent = _kernels().translation_reach(
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
        v = int(_kernels().group_slide(dist, d, np.int64(mask), n))
        out.append(None if v >= FREE else v)
    return tuple(out)
