"""Play mode without a window: pieces on a table, moved by hand, with undo and fit checks.

The window (viewer/) only draws this model and turns clicks and keys into its operations, so
everything a player can do is testable headless. As in napari, the model announces changes
through psygnal signals (`model.events.moved.connect(fn)`), not Qt signals, and knows nothing
of solvers: which known solution a finished assembly is, and hints, live in
solvers/polycube/identify.py and solvers/polycube/hint.py, fed by `assembly()`.

A pose is a rotation (an index into `geometry.rotations()`) and an integer offset:
`cells = base @ R.T + offset`. Rotations turn a piece about the centre of its *anchor* cell
(the one nearest its centroid): turning about a cell centre maps whole cells to whole cells,
so the piece stays on the grid, turns in place, and four quarter turns give back the same pose.

Two kinds of table (`PlayModel.interlocked`, decided by `is_interlocking`): on a Soma-style
table pieces may overlap for a moment (a key press that moves a piece into another only shows
the overlap), the mouse lifts pieces over others and lets them fall (viewer/drag.py). An
interlocking puzzle (a burr, a box) is held in the hands: there a key move or a turn that
would put the piece into another is refused (`events.refused` says why) and nothing falls.

How far a piece can slide before it touches another is the project's one movement analysis
(`solvers.polycube.movement.max_slide`, shared with the disassembler and the mouse's drags).
Models do not import solvers, so an interlocking table is given it as `slide_room` by whoever
makes the table (`viewer.drag.new_table`); this module keeps no collision search of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from psygnal import Signal, SignalGroup

from tessera.models import geometry
from tessera.models.polycube import PolycubePuzzle
from tessera.models.undo import Undoable, UndoStack

AXES = {"x": 0, "y": 1, "z": 2}
#: (cells of every piece, the group moving, direction index 0..5 as +x, -x, +y, -y, +z, -z) ->
#: cells the group slides before it touches another piece (None: for ever); the signature of
#: `solvers.polycube.movement.max_slide`
SlideRoom = Callable[[Sequence[np.ndarray], Sequence[int], int], "int | None"]


class PlayEvents(SignalGroup):
    """What a view of the table listens to (psygnal, the one event system of the viewer's
    models, so this module stays free of Qt while Qt widgets can still follow it).

    Callbacks may take fewer arguments than a signal carries (psygnal passes what fits)."""

    #: poses changed: (pieces whose pose changed, kind) with kind one of 'rotate', 'move',
    #: 'place', 'undo', 'redo' or 'reset'
    moved = Signal(tuple, str)
    #: the selection changed: the piece index, or None
    selected = Signal(object)
    #: after every change of poses: (can_undo, can_redo)
    history = Signal(bool, bool)
    #: the table became solved (True) or stopped being solved (False)
    solved = Signal(bool)
    #: a move or turn was refused (interlocking puzzles): why, for the status line
    refused = Signal(str)


@dataclass(frozen=True)
class Pose:
    rotation: int  # index into geometry.rotations()
    offset: tuple[int, int, int]


@dataclass(frozen=True)
class PlayPiece:
    """One physical piece: copies of a piece type are separate pieces on the table."""

    index: int
    piece: int  # piece type: index into puzzle.pieces
    copy: int  # 0 for the first copy
    name: str  # the type's name, numbered when the set has several copies ("L 2")
    base: np.ndarray = field(repr=False)  # the type's cells, normalised
    anchor: np.ndarray = field(repr=False)  # the base cell it turns about


@dataclass(frozen=True)
class Fit:
    """Per piece, boolean masks over `PlayModel.cells(piece)`: `outside` (cells off the target
    of a piece that is in the target at all: pieces waiting beside it are fine), `overlap`
    (cells another piece also occupies) and `bad` (either: what to draw red)."""

    outside: tuple[np.ndarray, ...]
    overlap: tuple[np.ndarray, ...]
    bad: tuple[np.ndarray, ...]
    in_target: tuple[bool, ...]  # at least one cell in the target
    covered: int  # required target cells covered
    required: int
    solved: bool

    @property
    def bad_pieces(self) -> tuple[int, ...]:
        return tuple(k for k, mask in enumerate(self.bad) if mask.any())


@cache
def _rotation_tables() -> tuple[np.ndarray, np.ndarray]:
    """compose[q, r] = index of R_q @ R_r; quarter[axis] = the +90° turn about that axis
    (counter-clockwise seen from the positive end of the axis)."""
    mats = geometry.rotations()
    index = {m.tobytes(): i for i, m in enumerate(mats)}
    compose = np.array([[index[(q @ r).tobytes()] for r in mats] for q in mats], np.int64)
    quarter = []
    for axis in range(3):
        m = np.zeros((3, 3), np.int64)
        m[axis, axis] = 1
        b, c = (axis + 1) % 3, (axis + 2) % 3
        m[b, c], m[c, b] = -1, 1
        quarter.append(index[m.tobytes()])
    return compose, np.array(quarter)


@cache
def quarter_turn(axis: int, turns: int = 1) -> int:
    """The rotation index of `turns` quarter turns about `axis` (negative: the other way)."""
    compose, quarter = _rotation_tables()
    r = 0
    for _ in range(turns % 4):
        r = int(compose[quarter[axis], r])
    return r


def is_interlocking(puzzle: PolycubePuzzle) -> bool:
    """Whether the puzzle's pieces hold each other, so that Play must move them only along
    physically free paths (no lifting over others, no dropping through a wall, no turning
    inside another piece, nothing falls).

    The rule is read from the puzzle itself, with no solving: a puzzle is interlocking when

    * it was read from a BurrTools file (``.xmpuzzle``): BurrTools is the tool of interlocking
      puzzles, and its problems are solved by taking the assembly apart by slides; or
    * one of its pieces belongs to a group (``group`` > 0 in format 1 or BurrTools): a group
      only means something for a puzzle that is taken apart (pieces that may stay joined).

    A rule from the solutions ("no straight-line assembly plan", `solvers.polycube_plan`)
    would need the puzzle solved before Play could start, and would still call most solid
    six-piece burrs free: their pieces do slide in one at a time, but along their axes into
    notches, never dropped in from above. Everything else (Soma, pentominoes, Bedlam) is a
    packing on a table.
    """
    source = (puzzle.source or "").lower()
    if source.split("#")[0].endswith(".xmpuzzle"):
        return True
    return any(p.group > 0 for p in puzzle.pieces)


def _axis(axis: int | str) -> int:
    a = AXES.get(axis, axis) if isinstance(axis, str) else axis
    if a not in (0, 1, 2):
        raise ValueError(f"axis must be 0, 1, 2 or 'x', 'y', 'z', not {axis!r}")
    return a


class PlayModel(Undoable):
    """The pieces of a puzzle on a table beside its empty target, moved one step at a time.

    `interlocked` overrides `is_interlocking(puzzle)` (None: ask it). An interlocking table
    needs `slide_room` (see the module docstring) to refuse key moves into other pieces."""

    def __init__(
        self,
        puzzle: PolycubePuzzle,
        interlocked: bool | None = None,
        slide_room: SlideRoom | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.events = PlayEvents()
        self._interlocked = is_interlocking(puzzle) if interlocked is None else interlocked
        if self._interlocked and slide_room is None:
            raise ValueError(
                "an interlocking table needs slide_room (solvers.polycube.movement.max_slide): "
                "make it with viewer.drag.new_table"
            )
        self._slide_room = slide_room
        self.refusal: str | None = None  # why the last refused move was refused
        pieces = []
        for t, piece in enumerate(puzzle.pieces):
            centre = piece.cells.mean(axis=0)
            anchor = piece.cells[np.argmin(((piece.cells - centre) ** 2).sum(axis=1))]
            for copy in range(piece.copies):
                name = piece.name if piece.copies == 1 else f"{piece.name} {copy + 1}"
                pieces.append(PlayPiece(len(pieces), t, copy, name, piece.cells, anchor))
        self.pieces: tuple[PlayPiece, ...] = tuple(pieces)
        self._target = set(puzzle.target.index)
        self._required = {tuple(c) for c in puzzle.target.required.tolist()}
        self.start: tuple[Pose, ...] = self._layout()
        self._poses: list[Pose] = list(self.start)
        #: entries hold the poses a step changed: (piece, before, after) (`models.undo`)
        self.history: UndoStack[tuple[tuple[int, Pose, Pose], ...]] = UndoStack()
        self._fit: Fit | None = None
        self._solved = False
        self.selected: int | None = None

    # -- reading ------------------------------------------------------------------------------
    @property
    def interlocked(self) -> bool:
        """Pieces hold each other (a burr, a box): they move only along physically free paths
        (see `is_interlocking` and the module docstring)."""
        return self._interlocked

    def pose(self, piece: int) -> Pose:
        return self._poses[piece]

    def cells_at(self, piece: int, pose: Pose) -> np.ndarray:
        """Where the piece's cells would be in `pose`, in the order of its base cells."""
        rotation = geometry.rotations()[pose.rotation]
        return self.pieces[piece].base @ rotation.T + np.asarray(pose.offset, np.int64)

    def cells(self, piece: int) -> np.ndarray:
        """The piece's cells now, (n, 3), in the same order as the masks of `fit()`."""
        return self.cells_at(piece, self._poses[piece])

    def pivot(self, piece: int) -> np.ndarray:
        """The point the piece turns about (the centre of its anchor cell), for animations."""
        rotation = geometry.rotations()[self._poses[piece].rotation]
        anchor = rotation @ self.pieces[piece].anchor + np.asarray(self._poses[piece].offset)
        return anchor + 0.5

    def find(self, name: str) -> int:
        """The piece called `name` (as in `PlayPiece.name`)."""
        for p in self.pieces:
            if p.name == name:
                return p.index
        raise KeyError(name)

    def fit(self) -> Fit:
        """Which cells are out of the target or doubly occupied, and whether it is solved."""
        if self._fit is None:
            self._fit = self._compute_fit()
        return self._fit

    @property
    def solved(self) -> bool:
        return self.fit().solved

    def assembly(self) -> list[tuple[int, np.ndarray]]:
        """(piece type, cells) of every piece in the target: what hints and identification
        take (`solvers.polycube_hint.hint`, `solvers.polycube_identify.SolutionIndex`)."""
        fit = self.fit()
        return [(p.piece, self.cells(p.index)) for p in self.pieces if fit.in_target[p.index]]

    # -- operations ---------------------------------------------------------------------------
    def select(self, piece: int | None) -> None:
        if piece is not None and not 0 <= piece < len(self.pieces):
            raise IndexError(piece)
        if piece != self.selected:
            self.selected = piece
            self.events.selected.emit(piece)

    def rotate(self, piece: int, axis: int | str, turns: int = 1) -> Pose:
        """A quarter turn (or `turns` of them; negative: the other way) about an axis through
        the piece's anchor cell.

        On an interlocking table a turn that would put the piece into another is refused: the
        pose stays, `events.refused` says why (a real piece cannot turn inside others)."""
        a = _axis(axis)
        compose, _ = _rotation_tables()
        old = self._poses[piece]
        rotation = int(compose[quarter_turn(a, turns), old.rotation])
        new = self._turned(piece, old, rotation)
        if self.refuse_turn(piece, a, new):
            return old
        return self._apply(
            "rotate", f"turn {self.pieces[piece].name} about {'xyz'[a]}", {piece: new}
        )

    def move(self, piece: int, axis: int | str, cells: int = 1) -> Pose:
        """Slide the piece by whole cells along an axis.

        On an interlocking table the whole move is refused (the pose stays, `events.refused`
        says why) when the piece would touch another before it has gone `cells` cells."""
        a = _axis(axis)
        old = self._poses[piece]
        name = self.pieces[piece].name
        offset = list(old.offset)
        cells = int(cells)
        if self._interlocked and cells:
            sign = 1 if cells > 0 else -1
            room = self._room(piece, 2 * a + (0 if sign > 0 else 1))
            if room is not None and room < abs(cells):
                offset[a] += sign * (room + 1)  # the first cell of the way that is taken
                hit = self.overlaps(piece, Pose(old.rotation, tuple(offset))) or "another piece"
                way = f"{'+' if sign > 0 else '-'}{'xyz'[a]}"
                self.refuse(f"{name} cannot move {way}: it would go into {hit}")
                return old
        offset[a] += cells
        new = Pose(old.rotation, tuple(offset))
        return self._apply("move", f"move {name} along {'xyz'[a]}", {piece: new})

    def _room(self, piece: int, direction: int) -> int | None:
        """How far the piece slides along `direction` (0..5) before it touches another, the
        others where they are (None: for ever): the movement analysis given as `slide_room`."""
        others = [self.cells(k) for k in range(len(self.pieces)) if k != piece]
        if not others:
            return None
        return self._slide_room([*others, self.cells(piece)], [len(others)], direction)

    def refuse(self, reason: str) -> None:
        """Refuse a move (nothing changes): remember and announce why (the status line)."""
        self.refusal = reason
        self.events.refused.emit(reason)

    def refuse_turn(self, piece: int, axis: int | str, turned: Pose) -> bool:
        """On an interlocking table, refuse a turn that would put the piece into another (in
        `turned`, the pose after it) and say why; True when refused. Any turn is fine on a
        Soma-style table (the mouse lifts the piece clear, a key turn shows the overlap)."""
        if not self._interlocked or not (hit := self.overlaps(piece, turned)):
            return False
        name, a = self.pieces[piece].name, "xyz"[_axis(axis)]
        self.refuse(f"{name} cannot turn about {a} there: it would go into {hit}")
        return True

    def overlaps(self, piece: int, pose: Pose) -> str:
        """The names of the pieces the piece would overlap in `pose` ('' when none): what an
        interlocking table refuses."""
        cells = {tuple(c) for c in self.cells_at(piece, pose).tolist()}
        hit = [
            p.name
            for p in self.pieces
            if p.index != piece and cells & {tuple(c) for c in self.cells(p.index).tolist()}
        ]
        return ", ".join(hit)

    def place(self, piece: int, pose: Pose, label: str | None = None) -> Pose:
        """Put the piece in a given pose at once (drag and drop, a hint's 'show me', a turn
        by the mouse that also lifts the piece clear): one undoable step named `label`."""
        if not 0 <= pose.rotation < 24:
            raise ValueError(f"rotation must be 0..23, not {pose.rotation}")
        pose = Pose(int(pose.rotation), tuple(int(v) for v in pose.offset))
        label = label or f"place {self.pieces[piece].name}"
        return self._apply("place", label, {piece: pose})

    def turned(self, piece: int, axis: int | str, turns: int = 1, pose: Pose | None = None) -> Pose:
        """The pose `rotate(piece, axis, turns)` would give (from `pose`, default the current
        one), without applying it: the mouse turns a piece and then lifts it clear of others
        before anything is committed."""
        compose, _ = _rotation_tables()
        old = self._poses[piece] if pose is None else pose
        rotation = int(compose[quarter_turn(_axis(axis), turns), old.rotation])
        return self._turned(piece, old, rotation)

    def occupied(self, exclude: int | None = None) -> set[tuple[int, int, int]]:
        """Every cell a piece occupies now, but those of `exclude` (what a moving piece must
        not enter)."""
        return {
            tuple(c)
            for k in range(len(self.pieces))
            if k != exclude
            for c in self.cells(k).tolist()
        }

    def fits(self, piece: int, pose: Pose) -> bool:
        """Whether the piece in `pose` lies wholly in the target without overlapping another
        piece (where a drop may snap to)."""
        cells = [tuple(c) for c in self.cells_at(piece, pose).tolist()]
        return all(c in self._target for c in cells) and not (
            set(cells) & self.occupied(exclude=piece)
        )

    @property
    def floor(self) -> int:
        """The table's height: the lowest layer of the target (pieces rest at or above it)."""
        return int(self.puzzle.target.bounds[0][2])

    def reset(self) -> None:
        """Every piece back beside the target (one undoable step)."""
        changes = {k: pose for k, pose in enumerate(self.start) if pose != self._poses[k]}
        if changes:
            self._apply("reset", "reset", changes)

    def undo(self) -> bool:
        step = self.history.undo()
        if step is None:
            return False
        self._set({k: before for k, before, _ in step.data}, "undo")
        return True

    def redo(self) -> bool:
        step = self.history.redo()
        if step is None:
            return False
        self._set({k: after for k, _, after in step.data}, "redo")
        return True

    # -- finding moves ------------------------------------------------------------------------
    def pose_for(self, piece: int, cells) -> Pose | None:
        """A pose that puts the piece exactly on `cells`, the fewest quarter turns away from
        its current rotation; None if the cells are not this piece's shape."""
        want = geometry.as_cells(cells)
        key = geometry.key(want)
        best = None
        for r, m in enumerate(geometry.rotations()):
            turned = self.pieces[piece].base @ m.T
            if geometry.key(turned) == key:
                offset = tuple((want.min(axis=0) - turned.min(axis=0)).tolist())
                cost = len(self._turn_path(self._poses[piece].rotation, r))
                if best is None or cost < best[0]:
                    best = (cost, Pose(r, offset))
        return None if best is None else best[1]

    def path_to(
        self, piece: int, pose: Pose, single_steps: bool = False
    ) -> list[tuple[str, int, int]]:
        """Operations that take the piece from where it is to `pose`, as
        ('rotate', axis, turns) and ('move', axis, cells) for `rotate()` and `move()`:
        the fewest quarter turns, then one slide per axis; with `single_steps`, every quarter
        turn and every one-cell move separately (what a player does with the keys)."""
        compose, _ = _rotation_tables()
        ops: list[tuple[str, int, int]] = []
        current = self._poses[piece]
        for axis, turns in self._turn_path(current.rotation, pose.rotation):
            if ops and ops[-1][1] == axis and not single_steps:
                ops[-1] = ("rotate", axis, ops[-1][2] + turns)
            else:
                ops.append(("rotate", axis, turns))
            rotation = int(compose[quarter_turn(axis, turns), current.rotation])
            current = self._turned(piece, current, rotation)
        for axis in range(3):
            delta = pose.offset[axis] - current.offset[axis]
            if delta and single_steps:
                ops.extend([("move", axis, 1 if delta > 0 else -1)] * abs(delta))
            elif delta:
                ops.append(("move", axis, delta))
        return ops

    def play(self, piece: int, ops: Iterable[tuple[str, int, int]]) -> None:
        """Apply operations from `path_to`, one undoable step each."""
        for op, axis, amount in ops:
            if op == "rotate":
                self.rotate(piece, axis, amount)
            elif op == "move":
                self.move(piece, axis, amount)
            else:
                raise ValueError(f"unknown operation {op!r}")

    # -- internals ----------------------------------------------------------------------------
    def _turned(self, piece: int, old: Pose, rotation: int) -> Pose:
        """`old` turned to `rotation` about the anchor cell, which stays where it is."""
        rots = geometry.rotations()
        anchor = self.pieces[piece].anchor
        world = rots[old.rotation] @ anchor + np.asarray(old.offset)
        offset = world - rots[rotation] @ anchor
        return Pose(rotation, tuple(int(v) for v in offset))

    @staticmethod
    def _turn_path(start: int, goal: int) -> list[tuple[int, int]]:
        """The fewest (axis, ±1) quarter turns from rotation `start` to `goal` (breadth-first
        over the 24 rotations)."""
        compose, quarter = _rotation_tables()
        moves = [(axis, turns) for axis in range(3) for turns in (1, -1)]
        back: dict[int, tuple[int, tuple[int, int]] | None] = {start: None}
        frontier = [start]
        while goal not in back:
            nxt = []
            for r in frontier:
                for axis, turns in moves:
                    s = int(compose[quarter_turn(axis, turns), r])
                    if s not in back:
                        back[s] = (r, (axis, turns))
                        nxt.append(s)
            frontier = nxt
        path = []
        r = goal
        while back[r] is not None:
            r, move = back[r]
            path.append(move)
        return path[::-1]

    def _layout(self) -> tuple[Pose, ...]:
        """Pieces in rows in front of the target (towards +y), one free cell between them."""
        lo, hi = (b.astype(int) for b in self.puzzle.target.bounds)
        width = max(int(hi[0] - lo[0] + 1), 10)
        x, y, row_depth = int(lo[0]), int(hi[1]) + 2, 0
        poses = []
        for p in self.pieces:
            extent = p.base.max(axis=0) + 1
            if x > lo[0] and x + extent[0] > lo[0] + width:
                x, y, row_depth = int(lo[0]), y + row_depth + 1, 0
            poses.append(Pose(0, (x, y, int(lo[2]))))
            x += int(extent[0]) + 1
            row_depth = max(row_depth, int(extent[1]))
        return tuple(poses)

    def _compute_fit(self) -> Fit:
        all_cells = [self.cells(k) for k in range(len(self.pieces))]
        tuples = [list(map(tuple, c.tolist())) for c in all_cells]
        counts = Counter(c for cells in tuples for c in cells)
        outside, overlap, bad, in_target = [], [], [], []
        for cells in tuples:
            inside = np.array([c in self._target for c in cells])
            placed = bool(inside.any())
            out = ~inside if placed else np.zeros(len(cells), bool)
            over = np.array([counts[c] > 1 for c in cells])
            outside.append(out)
            overlap.append(over)
            bad.append(out | over)
            in_target.append(placed)
        covered = len(self._required & counts.keys())
        # every piece of the set in the target, except that a type with a range of copies
        # (BurrTools' 0..6 of a stick) may leave those beyond its minimum on the table
        used = Counter(p.piece for p, inside in zip(self.pieces, in_target, strict=True) if inside)
        solved = (
            covered == len(self._required)
            and all(
                piece.fewest <= used[t] <= piece.copies
                for t, piece in enumerate(self.puzzle.pieces)
            )
            and not any(mask.any() for mask in bad)
        )
        return Fit(
            tuple(outside),
            tuple(overlap),
            tuple(bad),
            tuple(in_target),
            covered,
            len(self._required),
            solved,
        )

    def _apply(self, kind: str, label: str, changes: dict[int, Pose]) -> Pose:
        for piece in changes:
            if not 0 <= piece < len(self.pieces):
                raise IndexError(piece)
        step = tuple((k, self._poses[k], pose) for k, pose in changes.items())
        step = tuple(c for c in step if c[1] != c[2])
        if step:
            self.history.push(label, step)
            self._set({k: after for k, _, after in step}, kind)
        return self._poses[next(iter(changes))]

    def _set(self, poses: dict[int, Pose], kind: str) -> None:
        for k, pose in poses.items():
            self._poses[k] = pose
        self._fit = None
        self.events.moved.emit(tuple(sorted(poses)), kind)
        self.events.history.emit(self.can_undo, self.can_redo)
        solved = self.fit().solved
        if solved != self._solved:
            self._solved = solved
            self.events.solved.emit(solved)
