"""How a piece moves under the mouse in Play mode, as a piece of a real set would: the rules, free
of Qt and VTK, so they can be tested (and planned with) headless.

A real piece cannot pass through another one, cannot sink into the table, and falls when let
go. The mouse gives only where the hand *wants* the piece (a whole-cell offset); these
functions say where it actually gets, using the one movement analysis of the project
(`solvers.movement.max_slide`, shared with the disassembler):

* `carry`: from where the piece was picked up towards the hand. It slides straight there when
  the way is free; otherwise it is lifted (+z) just high enough to pass over whatever is in the
  way, slides across, and comes down towards the hand's height until it touches something. So
  a piece dragged across the assembly rides over its top, and one dragged onto it rests on it.
* `fall`: let go, the piece drops until it touches a piece or the table (the target's lowest
  layer).
* `snap`: a drop within one cell of a pose where the piece lies wholly in the target without
  overlapping anything goes there (the nearest such pose; none: it stays).
* `turn`: a quarter turn about the piece's anchor cell; if that would put it into another piece
  or the table it is lifted clear first, then falls.

Poses keep their rotation in `carry`, `fall` and `snap`: only `turn` turns.

A piece of an interlocking puzzle (`PlayModel.interlocked`: a burr, a box) is held in the
hands, not set on a table, and moves only along physically free paths:

* `carry` takes it from where the hand holds it now towards the hand, one cell at a time along
  the axis with the most way left (a staircase along the drag), sliding along whatever it
  touches and stopping where every way on is taken: never lifted over anything.
* `drop` lets go where it is (nothing falls) and snaps it into a fitting pose only when one is
  reachable from there by at most `SNAP_STEPS` one-cell slides that pass through nothing
  (`solvers.movement.reach`, a breadth-first search over the piece's translations with the
  others fixed): a pose behind a wall is never a snap away, however near.
* `turn` is refused (the model says why) when the turned piece would overlap another.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tessera.models.play import PlayModel, Pose
from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube.movement import max_slide, reach, slides

UP = 2  # the axis pieces are lifted along and fall along (z: the table is the xy plane)
SNAP_STEPS = 3  # interlocking puzzles: a drop snaps along a free path of at most this many cells


def new_table(puzzle: PolycubePuzzle, interlocked: bool | None = None) -> PlayModel:
    """A Play table for `puzzle` whose key moves use the one movement analysis (`max_slide`):
    models may not import solvers, so the table is given it here (see `models.play`)."""
    return PlayModel(puzzle, interlocked, slide_room=max_slide)


class Table:
    """One piece moving among the others, which stay put: what `max_slide` is asked about.

    Built once per gesture (a drag, a turn), so a mouse move costs only the slides."""

    def __init__(self, model: PlayModel, piece: int) -> None:
        self.model = model
        self.piece = piece
        self.others = [model.cells(k) for k in range(len(model.pieces)) if k != piece]
        self.floor = model.floor
        self.held = model.interlocked  # in the hands: no table to rest on, nothing falls
        self.occupied = model.occupied(exclude=piece)
        tops = [int(c[:, UP].max()) for c in self.others]
        self.top = max(tops) if tops else self.floor - 1

    def cells(self, pose: Pose) -> np.ndarray:
        return self.model.cells_at(self.piece, pose)

    def clear(self, pose: Pose) -> bool:
        """Nothing else there and not below the table."""
        cells = self.cells(pose)
        if int(cells[:, UP].min()) < self.floor:
            return False
        return not any(tuple(c) in self.occupied for c in cells.tolist())

    def slide(self, pose: Pose, axis: int, amount: int) -> Pose:
        """Slide by up to `amount` cells along an axis, stopping where it touches (or on the
        table, going down)."""
        if amount == 0:
            return pose
        sign = 1 if amount > 0 else -1
        direction = 2 * axis + (0 if sign > 0 else 1)
        steps = abs(int(amount))
        if self.others:
            room = max_slide([*self.others, self.cells(pose)], [len(self.others)], direction)
            if room is not None:
                steps = min(steps, room)
        if axis == UP and sign < 0:
            steps = min(steps, int(self.cells(pose)[:, UP].min()) - self.floor)
        steps = max(steps, 0)
        offset = list(pose.offset)
        offset[axis] += sign * steps
        return Pose(pose.rotation, tuple(offset))

    def fall(self, pose: Pose) -> Pose:
        return self.slide(pose, UP, -(1 << 20))

    def push(self, pose: Pose, goal: Sequence[int]) -> Pose:
        """Towards offset `goal` one cell at a time, never lifted: each step along the axis
        with the most way left that is free, so the piece follows the drag in a staircase and
        slides along what it touches; it stops where every way towards the goal is taken."""
        offset = [int(v) for v in pose.offset]
        goal = [int(v) for v in goal]
        for _ in range(sum(abs(g - o) for g, o in zip(goal, offset, strict=True))):
            left = [goal[a] - offset[a] for a in range(3)]
            axes = sorted((a for a in range(3) if left[a]), key=lambda a: -abs(left[a]))
            if not axes:
                break
            room = self.room(Pose(pose.rotation, tuple(offset)))
            for a in axes:
                d = 2 * a + (0 if left[a] > 0 else 1)
                if room[d] is None or room[d] >= 1:
                    offset[a] += 1 if left[a] > 0 else -1
                    break
            else:
                break  # every way towards the hand is taken
        return Pose(pose.rotation, tuple(offset))

    def room(self, pose: Pose) -> tuple[int | None, ...]:
        """How far the piece can slide from `pose` along +x, -x, +y, -y, +z, -z (None: for
        ever): one movement analysis for all six."""
        if not self.others:
            return (None,) * 6
        return slides([*self.others, self.cells(pose)], [len(self.others)])


def carry(
    model: PlayModel, piece: int, start: Pose, goal: Sequence[int], held: Pose | None = None
) -> Pose:
    """Where the piece gets when the hand takes it from `start` towards offset `goal`
    (same rotation): straight if free, else lifted over what is in the way (see the module
    docstring). It never ends inside another piece or below the table; when the goal cannot be
    reached at all (the piece is held down from above), the nearest place it can reach.

    Interlocking puzzles: from `held` (where the hand has it now; default `start`) in a
    staircase of one-cell slides, never lifted (`Table.push`)."""
    table = Table(model, piece)
    if table.held:
        return table.push(start if held is None else held, goal)
    goal = list(int(v) for v in goal)
    lowest = int(table.cells(start)[:, UP].min())
    goal[UP] = max(goal[UP], start.offset[UP] - (lowest - table.floor))  # not into the table
    z0 = start.offset[UP]
    need = max(0, goal[UP] - z0)
    clearance = max(need, table.top + 1 - lowest)  # above everything: nothing is in the way
    best: tuple[int, int, Pose] | None = None
    for lift in range(need, clearance + 1):
        up = table.slide(start, UP, lift)
        blocked = up.offset[UP] - z0 < lift
        for order in ((0, 1), (1, 0)):
            pose = up
            for axis in order:
                pose = table.slide(pose, axis, goal[axis] - pose.offset[axis])
            miss = abs(pose.offset[0] - goal[0]) + abs(pose.offset[1] - goal[1])
            down = table.slide(pose, UP, min(0, goal[UP] - pose.offset[UP]))
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
    """The nearest pose within one cell (each axis) of `pose` where the piece, after falling,
    lies wholly in the target without overlapping anything; None if there is none. A nearer
    one wins, then a lower one (it would fall there), so a piece dropped on the assembly goes
    into the hole under the hand.

    Interlocking puzzles: the fitting pose fewest free one-cell slides away, if at most
    `SNAP_STEPS` (`free_snap`)."""
    table = Table(model, piece)
    if table.held:
        return free_snap(model, piece, pose)
    best: tuple[float, int, Pose] | None = None
    for shift in itertools.product((0, -1, 1), repeat=3):
        offset = tuple(int(a + b) for a, b in zip(pose.offset, shift, strict=True))
        moved = Pose(pose.rotation, offset)
        if not table.clear(moved):
            continue
        rest = table.fall(moved)
        if not model.fits(piece, rest):
            continue
        key = (float(np.dot(shift, shift)), rest.offset[UP], rest)
        if best is None or key[:2] < best[:2]:
            best = key
    return None if best is None else best[2]


def free_snap(model: PlayModel, piece: int, pose: Pose, steps: int = SNAP_STEPS) -> Pose | None:
    """The fitting pose (wholly in the target, overlapping nothing) that the piece reaches from
    `pose` by the fewest one-cell slides through free cells, the others fixed, if at most
    `steps`; None if there is none. The search is `solvers.movement.reach`: a pose on the far
    side of a wall is as far as the way round it."""
    others = [model.cells(k) for k in range(len(model.pieces)) if k != piece]
    found = reach([*others, model.cells_at(piece, pose)], len(others), max_steps=steps)
    for shift, _ in found.reached():  # nearest first
        offset = tuple(int(a + b) for a, b in zip(pose.offset, shift, strict=True))
        moved = Pose(pose.rotation, offset)
        if model.fits(piece, moved):
            return moved
    return None


def drop(model: PlayModel, piece: int, pose: Pose) -> Pose:
    """Let go in `pose`: fall, then snap into the target when a fitting pose is that near."""
    rest = fall(model, piece, pose)
    snapped = snap(model, piece, rest)
    return rest if snapped is None else snapped


def turn(model: PlayModel, piece: int, axis: int, turns: int, pose: Pose | None = None) -> Pose:
    """A quarter turn (or `turns`) about the anchor cell; lifted clear of other pieces and the
    table if needed, then let fall.

    Interlocking puzzles: turned in place, or refused (`PlayModel.refuse`: the status line says
    why; the pose returned is the one it had) when the turned piece would overlap another."""
    table = Table(model, piece)
    turned = model.turned(piece, axis, turns, pose)
    if table.held:
        if model.refuse_turn(piece, axis, turned):
            return model.pose(piece) if pose is None else pose
        return turned
    lowest = int(table.cells(turned)[:, UP].min())
    offset = list(turned.offset)
    offset[UP] += max(0, table.floor - lowest)
    turned = Pose(turned.rotation, tuple(offset))
    for _ in range(table.top - table.floor + 8):
        if table.clear(turned):
            break
        offset[UP] += 1
        turned = Pose(turned.rotation, tuple(offset))
    return table.fall(turned)
