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
  out, by the fewest whole cells that keep one empty cell between it and the rest of its part
  in every frame where both are shown. Since each part is spread the same way inside, no two
  pieces shown overlap in any frame, nor between frames: a sliding group moves along one
  axis, and both parts stay on their own side of the gap along the axis of the removal.

Every move but a removal is the disassembler's own, cell for cell; a removal only gets longer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tessera.solvers.polycube.disassemble import Disassembly, Separation
from tessera.solvers.polycube.movement import DIRECTION_NAMES, DIRECTIONS, Move
from tessera.viewer.scenes.base import ease

GAP = 1  # empty cells left between two parts once one is out


def _axis_sign(move: Move) -> tuple[int, int]:
    axis = int(np.flatnonzero(move.by)[0])
    return axis, (1 if move.by[axis] > 0 else -1)


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


def spread(cells: Sequence[np.ndarray], result: Disassembly) -> Spread:
    """The frames of `result` as Solution mode draws them (see the module docstring)."""
    n = len(cells)
    at = np.array(result.frames(n), np.int64)
    shown = _visibility(result, n)
    if result.tree is None:
        return Spread(at, shown)
    seen = _seen(shown)
    lo = np.array([np.asarray(c).min(axis=0) for c in cells], np.int64)
    hi = np.array([np.asarray(c).max(axis=0) for c in cells], np.int64)
    big = np.iinfo(np.int64).max // 4

    def low_high(frames: slice, pieces: list[int], axis: int) -> tuple[np.ndarray, np.ndarray]:
        """Per frame, the lowest and highest cell along `axis` of the pieces seen (±big when
        none is)."""
        mask = seen[frames][:, pieces]
        block = at[frames][:, pieces, axis]
        low = np.where(mask, block + lo[pieces, axis], big).min(axis=1)
        high = np.where(mask, block + hi[pieces, axis], -big).max(axis=1)
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
        axis, sign = _axis_sign(node.moves[-1])
        frames = slice(removal + 1, end + 1)
        left_lo, left_hi = low_high(frames, left, axis)
        out_lo, out_hi = low_high(frames, out, axis)
        both = (left_lo < big) & (out_lo < big)
        shift = GAP
        if both.any():
            if sign > 0:
                need = left_hi[both] + GAP + 1 - out_lo[both]
            else:
                need = out_hi[both] - left_lo[both] + GAP + 1
            shift = max(shift, int(need.max()))
        at[removal + 1 :, out, axis] += sign * shift
        return end

    walk(result.tree, 0)
    return Spread(at, shown)


def direction_name(vector: Sequence[int]) -> str:
    unit = tuple(int(np.sign(v)) for v in vector)
    return DIRECTION_NAMES[DIRECTIONS.index(unit)]


@dataclass(frozen=True)
class AssemblyReplay:
    """The disassembly backwards, as Solution mode plays it: step 0 shows the base alone
    (every other piece is apart, not drawn yet), step `n_steps` the assembly; assembly move i
    (1-based) undoes disassembly move `n_steps - i`. Fractional steps glide (smoothstep), so
    the pieces of a move are at whole-cell offsets at whole steps and part-way along their
    straight slide between."""

    result: Disassembly
    frames: Spread

    @classmethod
    def of(cls, cells: Sequence[np.ndarray], result: Disassembly) -> AssemblyReplay:
        return cls(result, spread(cells, result))

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
        way = direction_name([-v for v in move.by])
        if move.removes:
            verb = "come in" if many else "comes in"
            return f"move {i} {head} · {who} {verb} along {way}"
        distance = int(max(abs(v) for v in move.by))
        verb = "slide" if many else "slides"
        return f"move {i} {head} · {who} {verb} {way} by {distance}"

    def bounds(self, cells: Sequence[np.ndarray], margin: float = 0.5) -> tuple[float, ...]:
        """The box every piece shown stays inside, in every frame: the camera's view."""
        lo = np.array([np.asarray(c).min(axis=0) for c in cells], float)
        hi = np.array([np.asarray(c).max(axis=0) for c in cells], float)
        offsets, seen = self.frames.offsets, _seen(self.frames.shown)
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
