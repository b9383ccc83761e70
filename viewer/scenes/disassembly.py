"""Solution mode for interlocking puzzles: the real disassembly, played backwards.

`solvers.disassemble` says how an assembly comes apart: moves that slide a piece or a group of
pieces along an axis, some of which take a part out ("removes"). Played backwards, those moves
are an assembly that a person could do with real pieces: groups slide together over their full
distance, and a part that was taken out flies back in along the axis it left by.

`Disassembly.frames` parks a part that was taken out just clear of the rest's bounding box, which
is enough for the search but not for a picture: the rest then goes on coming apart, and its
pieces may pass through the parked part (Al Packino's twelve pieces all leave upwards, into
the same few cells). `spread` makes a picture of it in which nothing overlaps:

- A piece is shown until it is done: a single piece, or the pieces of one BurrTools group
  that may stay joined, is hidden once its part has split off it (after the flight of a
  piece that was taken out; for the piece left behind, at the same moment). The base, the
  part that holds the assembly's first piece and never moves, stays. Played backwards, that
  is the assembly as a person does it: the base is there, each piece appears just outside
  where it goes in and slides in, and a sub-assembly is built where it will later fly in
  from.
- A part that was taken out and still comes apart further is taken further along its way
  out, by the fewest whole steps that keep one step's room between it and the rest of its
  part in every frame where both are shown (on cubes: one empty cell). Since each part is
  spread the same way inside, no two pieces shown overlap in any frame, nor between frames: a
  sliding group moves along one direction, and both parts stay on their own side of the gap
  along the direction of the removal.

Every move but a removal is the disassembler's own, cell for cell; a removal only gets longer.
Offsets are in cell units, steps along the grid's `directions`; how far a piece reaches along
a direction is measured on its drawn solids (`_surface.reach`), so any grid spreads the same
way (`polycube.py` turns offsets into space with `models.grids.surface.space_vector`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.surface import space_vector
from tessera.solvers.polycube.disassemble import Disassembly, Separation
from tessera.solvers.polycube.movement import Move
from tessera.viewer.scenes._surface import extent, hull_points, reach
from tessera.viewer.scenes.base import ease

GAP = 1  # steps of room left between two parts once one is out (cubes: empty cells)


def step_of(vector: Sequence[int], grid: Grid = CUBES) -> tuple[tuple[int, int, int], int]:
    """A move's vector as (the grid's direction it runs along, how many steps): (0, 0, -3)
    on cubes is three steps along (0, 0, -1). A vector along no direction is one step."""
    by = np.asarray(vector, np.int64)
    best: tuple[tuple[int, int, int], int] | None = None
    for d in grid.directions:
        dv = np.asarray(d, np.int64)
        k = int(by @ dv) // int(dv @ dv)
        if k >= 1 and np.array_equal(k * dv, by) and (best is None or k > best[1]):
            best = (tuple(int(v) for v in d), k)  # type: ignore[assignment]
    return best if best is not None else (tuple(int(v) for v in by), 1)  # type: ignore[return-value]


@dataclass(frozen=True)
class Spread:
    """`offsets`: every piece's offset from its assembled place, before the first move and
    after each move, (moves + 1, pieces, 3) integers. `shown`: whether each piece is drawn
    in each frame, (moves + 1, pieces); while a move runs, the pieces shown are those of the
    frame before it (a piece flying out is seen until it arrives, then hidden)."""

    offsets: np.ndarray
    shown: np.ndarray


def _visibility(result: Disassembly, n: int) -> np.ndarray:
    """Which pieces are drawn in which frame (see the module docstring)."""
    shown = np.ones((len(result.moves) + 1, n), bool)

    def mark(node: Separation | None, start: int, base: bool) -> int:
        if node is None:
            return start
        removal = start + len(node.moves) - 1
        if node.removed is None:
            shown[removal + 1 :, list(node.removed_pieces)] = False
        if node.left is None and not base:
            shown[removal + 1 :, list(node.left_pieces)] = False
        middle = mark(node.left, removal + 1, base)
        return mark(node.removed, middle, False)

    mark(result.tree, 0, True)
    return shown


def _seen(shown: np.ndarray) -> np.ndarray:
    """Where a piece is seen: in the frames it is shown, and at the end of its last flight
    (the frame after, which a glide reaches before the piece is hidden)."""
    seen = shown.copy()
    seen[1:] |= shown[:-1]
    return seen


def spread(cells: Sequence[np.ndarray], result: Disassembly, grid: Grid = CUBES) -> Spread:
    """The frames of `result` as Solution mode draws them (see the module docstring)."""
    n = len(cells)
    at = np.array(result.frames(n), np.int64)
    shown = _visibility(result, n)
    if result.tree is None:
        return Spread(at, shown)
    seen = _seen(shown)
    hulls = [hull_points(grid, c) for c in cells]
    big = np.inf

    def low_high(
        frames: slice, pieces: list[int], way: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per frame, how far the pieces seen reach along the unit vector `way` (lowest,
        highest; ±inf when none is)."""
        mask = seen[frames][:, pieces]
        moved = space_vector(grid, at[frames][:, pieces]) @ way
        ends = np.array([reach(hulls[p], way) for p in pieces]).reshape(-1, 2)
        low = np.where(mask, moved + ends[:, 0], big).min(axis=1)
        high = np.where(mask, moved + ends[:, 1], -big).max(axis=1)
        return low, high

    def walk(node: Separation | None, start: int) -> int:
        """Spread a subtree whose first move has index `start`; returns its end (exclusive).
        Children first: a part's shift moves its whole subtree rigidly, so theirs stay valid."""
        if node is None:
            return start
        removal = start + len(node.moves) - 1
        middle = walk(node.left, removal + 1)
        end = walk(node.removed, middle)
        left, out = list(node.left_pieces), list(node.removed_pieces)
        direction, _ = step_of(node.moves[-1].by, grid)
        step = space_vector(grid, direction)
        length = float(np.linalg.norm(step))
        way = step / length
        frames = slice(removal + 1, end + 1)
        _, left_hi = low_high(frames, left, way)
        out_lo, _ = low_high(frames, out, way)
        both = (left_hi > -big) & (out_lo < big)
        shift = GAP
        if both.any():  # steps until the part starts GAP steps beyond the rest
            need = (left_hi[both] + GAP * length - out_lo[both]) / length
            shift = max(shift, int(np.ceil(need.max() - 1e-9)))
        at[removal + 1 :, out] += shift * np.asarray(direction, np.int64)
        return end

    walk(result.tree, 0)
    return Spread(at, shown)


def direction_name(vector: Sequence[int], grid: Grid = CUBES) -> str:
    """The grid's name for the direction a move runs along ("-z"), or the direction itself
    where the grid names none."""
    direction, _ = step_of(vector, grid)
    if grid.direction_names and direction in grid.directions:
        return grid.direction_names[grid.directions.index(direction)]
    return "(" + ", ".join(str(v) for v in direction) + ")"


@dataclass(frozen=True)
class AssemblyReplay:
    """The disassembly backwards, as Solution mode plays it: step 0 shows the base alone
    (every other piece is apart, not drawn yet), step `n_steps` the assembly; assembly move i
    (1-based) undoes disassembly move `n_steps - i`. Fractional steps glide (smoothstep), so
    the pieces of a move are at whole-cell offsets at whole steps and part-way along their
    straight slide between."""

    result: Disassembly
    frames: Spread
    grid: Grid = CUBES

    @classmethod
    def of(
        cls, cells: Sequence[np.ndarray], result: Disassembly, grid: Grid = CUBES
    ) -> AssemblyReplay:
        return cls(result, spread(cells, result, grid), grid)

    @property
    def n_steps(self) -> int:
        return len(self.result.moves)

    def at(self, step: float) -> tuple[np.ndarray, np.ndarray]:
        """Every piece's offset (float) and whether it is shown, at an assembly step."""
        n = self.n_steps
        t = n - min(max(step, 0.0), float(n))  # where the disassembly is
        k = min(math.floor(t), n)
        frac = t - k
        offsets, shown = self.frames.offsets, self.frames.shown
        if frac <= 0 or k >= n:
            return offsets[k].astype(float), shown[k]
        a, b = offsets[k], offsets[k + 1]
        return a + (b - a) * ease(frac), shown[k]

    def move_at(self, step: float) -> tuple[int, Move] | None:
        """(assembly move number, the disassembly move it undoes) shown at `step`: the one
        under way, or the one just finished at a whole step; None at step 0."""
        i = math.ceil(min(max(step, 0.0), float(self.n_steps)))
        if i <= 0:
            return None
        return i, self.result.moves[self.n_steps - i]

    def describe(self, step: float, names: Sequence[str]) -> str:
        """E.g. "move 37 of 108 · level 98.2.4.2 · S3, S4 slide -y by 2"."""
        level = self.result.level
        head = f"of {self.n_steps} · level {level}"
        shown = self.move_at(step)
        if self.n_steps == 0:  # pieces of one BurrTools group, which may stay joined
            return "the pieces stay together: one group"
        if shown is None:
            return f"move 0 {head} · the pieces are apart"
        i, move = shown
        who = ", ".join(names[p] for p in move.pieces)
        many = len(move.pieces) > 1
        way = direction_name([-v for v in move.by], self.grid)
        if move.removes:
            verb = "come in" if many else "comes in"
            return f"move {i} {head} · {who} {verb} along {way}"
        _, distance = step_of(move.by, self.grid)
        verb = "slide" if many else "slides"
        return f"move {i} {head} · {who} {verb} {way} by {distance}"

    def bounds(self, cells: Sequence[np.ndarray], margin: float = 0.0) -> tuple[float, ...]:
        """The box every piece shown stays inside, in every frame, in view space (the
        pieces' drawn solids, `margin` more on each side): the camera's view."""
        boxes = [extent(self.grid, c) for c in cells]
        lo = np.array([b[0] for b in boxes], float)
        hi = np.array([b[1] for b in boxes], float)
        offsets = space_vector(self.grid, self.frames.offsets)
        seen = _seen(self.frames.shown)
        low = np.where(seen[..., None], offsets + lo[None], np.inf).min(axis=(0, 1)) - margin
        high = np.where(seen[..., None], offsets + hi[None], -np.inf).max(axis=(0, 1)) + margin
        return (low[0], high[0], low[1], high[1], low[2], high[2])


def shells(cells: Sequence[np.ndarray], groups: Sequence[int]) -> set[int]:
    """The pieces drawn see-through so the inside can be watched: boxes, cages and frames.

    The rule: a piece, or the pieces of one BurrTools group together (Cube in Cage's three
    frames), that spans the whole assembly's bounding box and holds every cell of some other
    piece within its own bounding box. Al Packino's box and Pelikan's cage are such shells;
    the sticks of a burr span one axis at most and a Soma piece never the whole cube, so
    ordinary pieces stay solid."""
    arrays = [np.asarray(c) for c in cells]
    every = np.vstack(arrays)
    whole_lo, whole_hi = every.min(axis=0), every.max(axis=0)
    units: list[list[int]] = [[i] for i in range(len(arrays))]
    for g in sorted({g for g in groups if g}):
        members = [i for i, h in enumerate(groups) if h == g]
        if len(members) > 1:
            units.append(members)
    out: set[int] = set()
    for unit in units:
        mine = np.vstack([arrays[i] for i in unit])
        lo, hi = mine.min(axis=0), mine.max(axis=0)
        if not (np.array_equal(lo, whole_lo) and np.array_equal(hi, whole_hi)):
            continue
        holds = any(
            bool(np.all((arrays[j] >= lo) & (arrays[j] <= hi)))
            for j in range(len(arrays))
            if j not in unit
        )
        if holds:
            out.update(unit)
    return out
