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
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tessera.models.play import PlayModel, Pose
from tessera.solvers.movement import max_slide

UP = 2  # the axis pieces are lifted along and fall along (z: the table is the xy plane)


class Table:
    """One piece moving among the others, which stay put: what `max_slide` is asked about.

    Built once per gesture (a drag, a turn), so a mouse move costs only the slides."""

    def __init__(self, model: PlayModel, piece: int) -> None:
        self.model = model
        self.piece = piece
        self.others = [model.cells(k) for k in range(len(model.pieces)) if k != piece]
        self.floor = model.floor
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


def carry(model: PlayModel, piece: int, start: Pose, goal: Sequence[int]) -> Pose:
    """Where the piece gets when the hand takes it from `start` towards offset `goal`
    (same rotation): straight if free, else lifted over what is in the way (see the module
    docstring). It never ends inside another piece or below the table; when the goal cannot be
    reached at all (the piece is held down from above), the nearest place it can reach."""
    table = Table(model, piece)
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
    """Where the piece comes to rest when let go in `pose`."""
    return Table(model, piece).fall(pose)


def snap(model: PlayModel, piece: int, pose: Pose) -> Pose | None:
    """The nearest pose within one cell (each axis) of `pose` where the piece, after falling,
    lies wholly in the target without overlapping anything; None if there is none. A nearer
    one wins, then a lower one (it would fall there), so a piece dropped on the assembly goes
    into the hole under the hand."""
    table = Table(model, piece)
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


def drop(model: PlayModel, piece: int, pose: Pose) -> Pose:
    """Let go in `pose`: fall, then snap into the target when a fitting pose is that near."""
    rest = fall(model, piece, pose)
    snapped = snap(model, piece, rest)
    return rest if snapped is None else snapped


def turn(model: PlayModel, piece: int, axis: int, turns: int, pose: Pose | None = None) -> Pose:
    """A quarter turn (or `turns`) about the anchor cell; lifted clear of other pieces and the
    table if needed, then let fall."""
    table = Table(model, piece)
    turned = model.turned(piece, axis, turns, pose)
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
