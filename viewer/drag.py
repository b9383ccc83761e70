"""How a piece moves under the mouse in Play mode, as a piece of a real set would: the rules, free
of Qt and VTK, so they can be tested (and planned with) headless.

A real piece cannot pass through another one, cannot sink into the table, and falls when let
go. The mouse gives only where the hand *wants* the piece (a lattice translation); these
functions say where it actually gets, using the one movement analysis of the project
(`solvers.movement.max_slide`, shared with the disassembler), along the grid's own directions:

* `carry`: from where the piece was picked up towards the hand. It slides straight there when
  the way is free; otherwise it is lifted just high enough to pass over whatever is in the
  way, slides across, and comes down towards the hand's height until it touches something. So
  a piece dragged across the assembly rides over its top, and one dragged onto it rests on it.
* `fall`: let go, the piece drops until it touches a piece or the table (the target's lowest
  layer).
* `snap`: a drop within one cell of a pose where the piece lies wholly in the target without
  overlapping anything goes there (the nearest such pose; none: it stays).
* `turn`: the grid's smallest turn about an axis through the piece's anchor cell; if that
  would put it into another piece or the table it is lifted clear first, then falls.

Every grid is handled the same way, through its `Frame`: three of its directions that make
every lattice translation, `a` along the table, `b` across it (both level) and `c` the one
most nearly up. A pose's offset is written in them, and the cube grid's rules (slide along x,
then y; lift and fall along z) are run on those three: on the cube grid they are x, y and z,
on the prism grid a side of a triangle, the next side round and z, on the sphere grid two
level neighbours and a neighbour in the layer above.

Poses keep their rotation in `carry`, `fall` and `snap`: only `turn` turns.

A piece of an interlocking puzzle (`PlayModel.interlocked`: a burr, a box) is held in the
hands, not set on a table, and moves only along physically free paths:

* `carry` takes it from where the hand holds it now towards the hand, one step at a time
  along the grid direction that brings it nearest (a staircase along the drag), sliding
  along whatever it touches and stopping where every way on is taken: never lifted over
  anything.
* `drop` lets go where it is (nothing falls) and snaps it into a fitting pose only when one is
  reachable from there by at most `SNAP_STEPS` one-step slides that pass through nothing
  (`solvers.movement.reach`, a breadth-first search over the piece's translations with the
  others fixed): a pose behind a wall is never a snap away, however near.
* `turn` is refused (the model says why) when the turned piece would overlap another.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, partial

import numpy as np

from tessera.models.grids import Grid
from tessera.models.play import PlayModel, Pose, axis_turn, space_of
from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube.movement import max_slide, reach, slides
from tessera.viewer.scenes._surface import extent

UP = 2  # the frame axis pieces are lifted along and fall along (the table is level)
SNAP_STEPS = 3  # interlocking puzzles: a drop snaps along a free path of at most this many steps


def new_table(puzzle: PolycubePuzzle, interlocked: bool | None = None) -> PlayModel:
    """A Play table for `puzzle` whose key moves use the one movement analysis (`max_slide`,
    bound to the puzzle's grid): models may not import solvers, so the table is given it
    here (see `models.play`)."""
    return PlayModel(puzzle, interlocked, slide_room=partial(max_slide, grid=puzzle.grid))


# -- the grid's frame ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """Three of the grid's directions that make every lattice translation: `basis` holds them
    as columns (cell units), `dirs[axis]` their indices in `grid.directions` (+, -)."""

    basis: np.ndarray
    inverse: np.ndarray
    dirs: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]

    def coords(self, offset: Sequence[int]) -> np.ndarray:
        """A lattice translation in the frame's directions (whole numbers)."""
        return np.rint(self.inverse @ np.asarray(offset, float)).astype(np.int64)

    def offset(self, coords: Sequence[int]) -> tuple[int, int, int]:
        v = self.basis @ np.asarray(coords, np.int64)
        return (int(v[0]), int(v[1]), int(v[2]))


def space(grid: Grid, offsets) -> np.ndarray:
    """Lattice translations (cell units) as vectors in the grid's space (`Grid.centres`)."""
    return space_of(grid, offsets)


@cache
def frame(grid: Grid) -> Frame:
    """The grid's frame (see the module docstring): `a` the first level direction, `b` the
    first level one that makes every level translation with it (pointing to +y in space),
    `c` the direction most nearly up (the first of those)."""
    dirs = [np.asarray(d, np.int64) for d in grid.directions]
    index = {tuple(d.tolist()): k for k, d in enumerate(dirs)}
    level = [d for d in dirs if d[2] == 0]
    a = level[0]
    area = min(abs(int(a[0] * d[1] - a[1] * d[0])) or 1 << 30 for d in level)
    b = next(d for d in level if abs(int(a[0] * d[1] - a[1] * d[0])) == area)
    if space(grid, b)[1] < 0:
        b = -b
    rising = [d for d in dirs if d[2] > 0]
    c = max(rising, key=lambda d: space(grid, d)[2] / np.linalg.norm(space(grid, d)))
    basis = np.stack([a, b, c], axis=1)
    pairs = tuple((index[tuple(v.tolist())], index[tuple((-v).tolist())]) for v in (a, b, c))
    return Frame(basis, np.linalg.inv(basis.astype(float)), pairs)  # type: ignore[arg-type]


@cache
def overlap_layers(grid: Grid) -> int:
    """How many cell layers up a cell must be to pass clear over a cell of the layer below:
    one on cubes and prisms (a cell is one layer tall), two on spheres (a ball is taller
    than the gap between layers)."""
    cell = _cell(grid)
    lo, hi = extent(grid, cell[None])
    step = np.asarray(grid.axis_step(2), np.int64)
    per_layer = float(space(grid, step)[2]) / int(step[2])
    return max(1, int(np.ceil((hi[2] - lo[2]) / per_layer - 1e-9)))


@cache
def _cell(grid: Grid) -> np.ndarray:
    block = np.array(list(itertools.product(range(6), repeat=3)), np.int64)
    return block[int(np.argmax(grid.valid(block)))]


@cache
def near_shifts(grid: Grid) -> tuple[tuple[int, int, int], ...]:
    """The lattice translations within one cell (the shortest direction's length) on every
    axis of space, in the order a drop tries them: on cubes the 27 of {-1, 0, 1}³, (0, 0, 0)
    first."""
    basis = frame(grid).basis
    cell = min(float(np.linalg.norm(space(grid, d))) for d in grid.directions)
    out: dict[tuple[int, int, int], None] = {}
    for k in itertools.product((0, -1, 1, -2, 2), repeat=3):
        shift = basis @ np.array(k, np.int64)
        if (np.abs(space(grid, shift)) <= cell + 1e-9).all():
            out.setdefault((int(shift[0]), int(shift[1]), int(shift[2])), None)
    return tuple(out)


def _shifted(pose: Pose, by) -> Pose:
    return Pose(pose.rotation, tuple(int(a + b) for a, b in zip(pose.offset, by, strict=True)))


class Table:
    """One piece moving among the others, which stay put: what `max_slide` is asked about.

    Built once per gesture (a drag, a turn), so a mouse move costs only the slides."""

    def __init__(self, model: PlayModel, piece: int) -> None:
        self.model = model
        self.piece = piece
        self.grid = model.grid
        self.frame = frame(model.grid)
        self.rise = int(self.frame.basis[2, UP])  # cell layers one step up climbs
        self.others = [model.cells(k) for k in range(len(model.pieces)) if k != piece]
        self.floor = model.floor
        self.held = model.interlocked  # in the hands: no table to rest on, nothing falls
        self.occupied = model.occupied(exclude=piece)
        tops = [int(c[:, 2].max()) for c in self.others]
        self.top = max(tops) if tops else self.floor - 1

    def cells(self, pose: Pose) -> np.ndarray:
        return self.model.cells_at(self.piece, pose)

    def coords(self, pose: Pose) -> np.ndarray:
        """The pose's offset in the frame's directions."""
        return self.frame.coords(pose.offset)

    def clear(self, pose: Pose) -> bool:
        """Nothing else there and not below the table."""
        cells = self.cells(pose)
        if int(cells[:, 2].min()) < self.floor:
            return False
        return not any(tuple(c) in self.occupied for c in cells.tolist())

    def slide(self, pose: Pose, axis: int, amount: int) -> Pose:
        """Slide by up to `amount` steps along a frame direction, stopping where it touches
        (or on the table, going down)."""
        if amount == 0:
            return pose
        sign = 1 if amount > 0 else -1
        direction = self.frame.dirs[axis][0 if sign > 0 else 1]
        steps = abs(int(amount))
        if self.others:
            room = max_slide(
                [*self.others, self.cells(pose)], [len(self.others)], direction, grid=self.grid
            )
            if room is not None:
                steps = min(steps, room)
        drop = int(self.frame.basis[2, axis]) * sign
        if drop < 0:  # going down: not through the table
            steps = min(steps, (int(self.cells(pose)[:, 2].min()) - self.floor) // -drop)
        steps = max(steps, 0)
        return _shifted(pose, self.frame.basis[:, axis] * sign * steps)

    def fall(self, pose: Pose) -> Pose:
        return self.slide(pose, UP, -(1 << 20))

    def push(self, pose: Pose, goal: Sequence[int]) -> Pose:
        """Towards offset `goal` one step at a time, never lifted: each step along the grid
        direction that brings it nearest the goal and is free (on cubes: the axis with the
        most way left), so the piece follows the drag in a staircase and slides along what it
        touches; it stops where every way towards the goal is taken."""
        grid = self.grid
        steps = np.array(grid.directions, np.int64)
        ways = space(grid, steps)
        here = np.asarray(pose.offset, np.int64)
        want = np.asarray(goal, np.int64)
        for _ in range(2 * int(np.abs(self.frame.coords(want - here)).sum())):
            left = space(grid, want - here)
            gain = ways @ left
            closer = gain > (ways * ways).sum(axis=1) / 2 + 1e-9  # strictly nearer the goal
            if not closer.any():
                break
            room = self.room(Pose(pose.rotation, tuple(int(v) for v in here)))
            for d in sorted(np.flatnonzero(closer), key=lambda d: -gain[d]):
                if room[d] is None or room[d] >= 1:
                    here = here + steps[d]
                    break
            else:
                break  # every way towards the hand is taken
        return Pose(pose.rotation, tuple(int(v) for v in here))

    def room(self, pose: Pose) -> tuple[int | None, ...]:
        """How far the piece can slide from `pose` along each of the grid's directions (None:
        for ever): one movement analysis for all of them."""
        if not self.others:
            return (None,) * len(self.grid.directions)
        return slides([*self.others, self.cells(pose)], [len(self.others)], grid=self.grid)


def carry(
    model: PlayModel, piece: int, start: Pose, goal: Sequence[int], held: Pose | None = None
) -> Pose:
    """Where the piece gets when the hand takes it from `start` towards offset `goal` (a
    lattice translation; same rotation): straight if free, else lifted over what is in the
    way (see the module docstring). It never ends inside another piece or below the table;
    when the goal cannot be reached at all (the piece is held down from above), the nearest
    place it can reach.

    Interlocking puzzles: from `held` (where the hand has it now; default `start`) in a
    staircase of one-step slides, never lifted (`Table.push`)."""
    table = Table(model, piece)
    if table.held:
        return table.push(start if held is None else held, goal)
    want = table.frame.coords(goal)
    here = table.coords(start)
    lowest = int(table.cells(start)[:, 2].min())
    want[UP] = max(want[UP], here[UP] - (lowest - table.floor) // table.rise)  # not into the table
    z0 = int(here[UP])
    need = max(0, int(want[UP]) - z0)
    # above everything: a layer over the top, or more where a cell is taller than a layer
    # (a ball one layer up sits in the hollows, and cannot slide across them)
    above = table.top + overlap_layers(model.grid) - lowest
    clearance = max(need, -(-above // table.rise))
    best: tuple[int, int, Pose] | None = None
    for lift in range(need, clearance + 1):
        up = table.slide(start, UP, lift)
        blocked = table.coords(up)[UP] - z0 < lift
        for order in ((0, 1), (1, 0)):
            pose = up
            for axis in order:
                pose = table.slide(pose, axis, int(want[axis] - table.coords(pose)[axis]))
            at = table.coords(pose)
            miss = int(abs(at[0] - want[0]) + abs(at[1] - want[1]))
            down = table.slide(pose, UP, min(0, int(want[UP] - at[UP])))
            if miss == 0:
                return down
            if best is None or (miss, lift) < best[:2]:
                best = (miss, lift, down)
        if blocked:
            break
    assert best is not None
    return best[2]


def fall(model: PlayModel, piece: int, pose: Pose) -> Pose:
    """Where the piece comes to rest when let go in `pose` (where it is, for a piece of an
    interlocking puzzle: it is held, nothing falls)."""
    table = Table(model, piece)
    return pose if table.held else table.fall(pose)


def snap(model: PlayModel, piece: int, pose: Pose) -> Pose | None:
    """The nearest pose within one cell (`near_shifts`) of `pose` where the piece, after
    falling, lies wholly in the target without overlapping anything; None if there is none. A
    nearer one wins, then a lower one (it would fall there), so a piece dropped on the
    assembly goes into the hole under the hand.

    Interlocking puzzles: the fitting pose fewest free one-step slides away, if at most
    `SNAP_STEPS` (`free_snap`)."""
    table = Table(model, piece)
    if table.held:
        return free_snap(model, piece, pose)
    best: tuple[float, int, Pose] | None = None
    for shift in near_shifts(model.grid):
        moved = _shifted(pose, shift)
        if not table.clear(moved):
            continue
        rest = table.fall(moved)
        if not model.fits(piece, rest):
            continue
        way = space(model.grid, shift)
        key = (round(float(np.dot(way, way)), 9), rest.offset[2], rest)
        if best is None or key[:2] < best[:2]:
            best = key
    return None if best is None else best[2]


def free_snap(model: PlayModel, piece: int, pose: Pose, steps: int = SNAP_STEPS) -> Pose | None:
    """The fitting pose (wholly in the target, overlapping nothing) that the piece reaches from
    `pose` by the fewest one-step slides through free cells, the others fixed, if at most
    `steps`; None if there is none. The search is `solvers.movement.reach`: a pose on the far
    side of a wall is as far as the way round it."""
    others = [model.cells(k) for k in range(len(model.pieces)) if k != piece]
    found = reach(
        [*others, model.cells_at(piece, pose)], len(others), max_steps=steps, grid=model.grid
    )
    for shift, _ in found.reached():  # nearest first
        moved = _shifted(pose, shift)
        if model.fits(piece, moved):
            return moved
    return None


def drop(model: PlayModel, piece: int, pose: Pose) -> Pose:
    """Let go in `pose`: fall, then snap into the target when a fitting pose is that near."""
    rest = fall(model, piece, pose)
    snapped = snap(model, piece, rest)
    return rest if snapped is None else snapped


def turn(model: PlayModel, piece: int, axis: int, turns: int, pose: Pose | None = None) -> Pose:
    """The grid's smallest turn about a coordinate axis (`turns` of them) about the anchor
    cell; lifted clear of other pieces and the table if needed, then let fall (`turn_by`)."""
    return turn_by(model, piece, axis_turn(model.grid, axis, turns), "xyz"[axis], pose)


def turn_by(
    model: PlayModel, piece: int, transform: int | None, about: str, pose: Pose | None = None
) -> Pose:
    """One of the grid's turns (a transform index) about the anchor cell; lifted clear of
    other pieces and the table if needed, then let fall. A turn the grid does not have, or
    one that takes the piece off the lattice, is refused (`PlayModel.refuse`: the status line
    says why; the pose returned is the one it had).

    Interlocking puzzles: turned in place, or refused when the turned piece would overlap
    another."""
    here = model.pose(piece) if pose is None else pose
    turned = model.try_turn(piece, transform, here, about)
    if isinstance(turned, str):
        model.refuse(turned)
        return here
    table = Table(model, piece)
    if table.held:
        if model.refuse_turn(piece, about, turned):
            return here
        return turned
    lowest = int(table.cells(turned)[:, 2].min())
    turned = table_lift(table, turned, max(0, -(-(table.floor - lowest) // table.rise)))
    for _ in range(table.top - table.floor + 8):
        if table.clear(turned):
            break
        turned = table_lift(table, turned, 1)
    return table.fall(turned)


def table_lift(table: Table, pose: Pose, steps: int) -> Pose:
    """`steps` frame steps up, through anything (a turned piece is lifted clear by hand)."""
    return _shifted(pose, table.frame.basis[:, UP] * steps)
