"""Play mode without a window: pieces on a table, moved by hand, with undo and fit checks.

The window (viewer/) only draws this model and turns clicks and keys into its operations, so
everything a player can do is testable headless. As in napari, the model announces changes
through psygnal signals (`model.events.moved.connect(fn)`), not Qt signals, and knows nothing
of solvers: which known solution a finished assembly is, and hints, live in
solvers/polycube/identify.py and solvers/polycube/hint.py, fed by `assembly()`.

Everything here asks the puzzle's grid (`models.grids`) and never which grid it is. A pose is
a rotation (an index into the grid's proper transforms, `Grid.transform_all`, whose real-space
matrices are `Grid.matrices`) and an offset that is one of the grid's lattice translations
(`Grid.is_translation`): `cells = images[rotation] + offset`, where `images[r]` is the piece's
own cells under transform r, turned about its *anchor* cell (the one nearest its centroid)
and snapped back by a lattice translation so that cell stays in its lattice cell. On the cube
grid that is the turn about the anchor cube's centre, so four quarter turns give back the
same pose; on the prism grid a sixth of a turn takes an upward triangle to a downward one, and
the snap keeps the piece where it was.

A turn (`rotate`) is the grid's smallest turn about an axis (`Grid.axis_turn`: a quarter on
cubes, a sixth about z and a half about x and y on prisms). The sphere grid's 120 turns are not
a group (its sixth turns about the body diagonals only fit flat shapes), so the result of a
turn is looked up among the piece's valid images, and a turn that takes it off the lattice is
refused (`events.refused` says why). A key move (`move`) is the grid's shortest lattice step
along an axis (`Grid.axis_step`).

Two kinds of table (`PlayModel.interlocked`, decided by `is_interlocking`): on a Soma-style
table pieces may overlap for a moment (a key press that moves a piece into another only shows
the overlap), the mouse lifts pieces over others and lets them fall (viewer/drag.py). An
interlocking puzzle (a burr, a box) is held in the hands: there a key move or a turn that
would put the piece into another is refused (`events.refused` says why) and nothing falls.

How far a piece can slide before it touches another is the project's one movement analysis
(`solvers.polycube.movement.max_slide`, shared with the disassembler and the mouse's drags),
along the grid's own `directions`. Models do not import solvers, so an interlocking table is
given it as `slide_room`, bound to the puzzle's grid, by whoever makes the table
(`viewer.drag.new_table`); this module keeps no collision search of its own. A key step that
is not one of the grid's directions (a prism piece moved along y) is taken as the fewest
direction steps that make it, each checked.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from psygnal import Signal, SignalGroup

from tessera.models.grids import Grid
from tessera.models.polycube import PolycubePuzzle
from tessera.models.undo import Undoable, UndoStack

AXES = {"x": 0, "y": 1, "z": 2}
#: (cells of every piece, the group moving, direction index into the puzzle's
#: `grid.directions`) -> steps the group slides before it touches another piece (None: for
#: ever); `solvers.polycube.movement.max_slide` with the grid bound
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
    #: a move or turn was refused (interlocking puzzles, turns off the lattice): why, for the
    #: status line
    refused = Signal(str)


@dataclass(frozen=True)
class Pose:
    rotation: int  # index into the grid's proper transforms (`PlayPiece.images`)
    offset: tuple[int, int, int]  # a lattice translation of the grid


@dataclass(frozen=True)
class PlayPiece:
    """One physical piece: copies of a piece type are separate pieces on the table."""

    index: int
    piece: int  # piece type: index into puzzle.pieces
    copy: int  # 0 for the first copy
    name: str  # the type's name, numbered when the set has several copies ("L 2")
    base: np.ndarray = field(repr=False)  # the type's cells, normalised
    anchor: np.ndarray = field(repr=False)  # the base cell it turns about
    anchor_index: int = field(default=0, repr=False)  # that cell's row in `base`
    #: (transforms, cells, 3): the base under each proper transform, turned about the anchor
    #: cell and snapped so it stays in its lattice cell; a pose adds its offset
    images: np.ndarray = field(default=None, repr=False, compare=False)
    #: per transform: does the image lie on the lattice (sphere grid: only flat pieces fit
    #: its sixth turns)
    valid: np.ndarray = field(default=None, repr=False, compare=False)
    #: normalised shape key -> the valid transforms giving that shape (a turn's result is
    #: looked up here)
    by_key: dict = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Fit:
    """Per piece, boolean masks over `PlayModel.cells(piece)`: `outside` (cells off the target
    of a piece that is in the target at all: pieces waiting beside it are fine), `overlap`
    (cells another piece also occupies), `colour` (cells of a coloured puzzle whose piece
    colour the colour rules forbid on the target cell under them) and `bad` (any of these:
    what to draw in the flag colour)."""

    outside: tuple[np.ndarray, ...]
    overlap: tuple[np.ndarray, ...]
    colour: tuple[np.ndarray, ...]
    bad: tuple[np.ndarray, ...]
    in_target: tuple[bool, ...]  # at least one cell in the target
    covered: int  # required target cells covered
    required: int
    solved: bool

    @property
    def bad_pieces(self) -> tuple[int, ...]:
        return tuple(k for k, mask in enumerate(self.bad) if mask.any())

    @property
    def colour_pieces(self) -> tuple[int, ...]:
        """The pieces on a cell whose colour they may not fill (a reason of their own for the
        status line: nothing sticks out or overlaps, yet the piece cannot stay)."""
        return tuple(k for k, mask in enumerate(self.colour) if mask.any())


# -- the grid's turns, read off its matrices -----------------------------------------------------
@cache
def axis_turn(grid: Grid, axis: int, turns: int = 1) -> int | None:
    """The transform of `turns` of the grid's smallest turns about a coordinate axis
    (`Grid.axis_turn`, cached: every key press and wheel notch asks)."""
    return grid.axis_turn(axis, turns)


@cache
def product(grid: Grid, g: int, r: int) -> int | None:
    """The proper transform whose matrix is `matrices[g] @ matrices[r]` (transform g after r),
    or None: the sphere grid's turns are not closed under composition."""
    found = grid.transform_index(grid.matrices[g] @ grid.matrices[r])
    return found if found is not None and found < grid.n_rotations else None


@cache
def inverse(grid: Grid, g: int) -> int | None:
    """The proper transform undoing transform g (a turn the other way)."""
    return grid.transform_index(grid.matrices[g].T)


@cache
def turn_axes(grid: Grid) -> tuple[tuple[tuple[float, float, float], int], ...]:
    """Every axis the grid turns about (a unit vector in space, its first non-zero component
    positive) with the transform of its smallest turn, counter-clockwise seen from the axis'
    positive end: the cube's quarter turns about x, y, z, thirds about the body diagonals and
    halves about the face diagonals; the sphere grid's sixths about the body diagonals too.
    The mouse turns about the one nearest the view (`viewer._qt.mouse`)."""
    best: dict[tuple[float, ...], tuple[float, int, np.ndarray]] = {}
    for g in range(grid.n_rotations):
        m = grid.matrices[g]
        angle = float(np.arccos(np.clip((np.trace(m) - 1) / 2, -1.0, 1.0)))
        if angle < 1e-6 or not _whole_turn(grid, m, angle):
            continue
        if np.pi - angle < 1e-6:  # a half turn: its axis is what (M + I) / 2 keeps
            half = (m + np.eye(3)) / 2
            axis = half[:, int(np.argmax(np.linalg.norm(half, axis=0)))]
        else:
            axis = np.array([m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1]])
        axis = axis / np.linalg.norm(axis)
        lead = axis[np.flatnonzero(np.abs(axis) > 1e-6)[0]]
        if lead < 0:
            if np.pi - angle >= 1e-6:
                continue  # clockwise about the positive axis: its inverse is listed
            axis = -axis
        key = tuple(np.round(axis, 6).tolist())
        if key not in best or angle < best[key][0] - 1e-9:
            best[key] = (angle, g, axis)
    return tuple((tuple(float(v) for v in axis), g) for _, (_, g, axis) in sorted(best.items()))


def _whole_turn(grid: Grid, m: np.ndarray, angle: float) -> bool:
    """Whether `m` is a turn by a whole fraction of a circle whose every power is one of the
    grid's transforms: a symmetry axis to turn about, not a sphere-grid composite (a cube
    turn after a sixth about a diagonal) that is a turn about some odd axis."""
    n = 2 * np.pi / angle
    if abs(n - round(n)) > 1e-6:
        return False
    power = m
    for _ in range(round(n) - 2):
        power = power @ m
        if grid.transform_index(power) is None:
            return False
    return True


@cache
def step_path(grid: Grid, step: tuple[int, int, int]) -> tuple[int, ...] | None:
    """The fewest of the grid's directions (indices) whose sum is `step`: how a key move that
    is not itself a direction (a prism piece along y) is checked on an interlocking table."""
    target = tuple(int(v) for v in step)
    frontier: dict[tuple[int, ...], tuple[int, ...]] = {(0, 0, 0): ()}
    for _ in range(4):
        if target in frontier:
            return frontier[target]
        nxt: dict[tuple[int, ...], tuple[int, ...]] = {}
        for at, path in frontier.items():
            for d, vec in enumerate(grid.directions):
                moved = tuple(a + b for a, b in zip(at, vec, strict=True))
                nxt.setdefault(moved, (*path, d))
        frontier = nxt
    return frontier.get(target)


@cache
def _space_matrix(grid: Grid) -> np.ndarray:
    """The linear map of lattice translations (cell units) into the grid's space (that of
    `Grid.centres`), fitted on its directions from one cell: centres move rigidly under
    lattice translations."""
    steps = np.array(grid.directions, np.int64)
    cell = _some_cell(grid)
    moved = grid.centres(cell + steps) - grid.centres(cell[None])
    solved, *_ = np.linalg.lstsq(steps.astype(np.float64), moved, rcond=None)
    matrix = solved.T
    whole = np.round(matrix)
    return np.where(np.abs(matrix - whole) < 1e-12, whole, matrix)


def space_of(grid: Grid, offsets) -> np.ndarray:
    """Lattice translations (`(..., 3)`, cell units) as vectors in the grid's space."""
    return np.asarray(offsets, np.float64) @ _space_matrix(grid).T


def nearest_translation(grid: Grid, vectors, level: int | None = None) -> np.ndarray:
    """For each vector in space (`(..., 3)`), the lattice translation (cell units) nearest to
    it: the rounding of its cell coordinates or one of their neighbours; with `level` (an
    axis), only translations that keep that cell coordinate (a drag across the table)."""
    vectors = np.asarray(vectors, np.float64)
    flat = vectors.reshape(-1, 3)
    rough = flat @ np.linalg.inv(_space_matrix(grid)).T
    base = np.floor(rough).astype(np.int64)
    best = np.zeros_like(base)
    gap = np.full(len(flat), np.inf)
    for corner in np.array(list(itertools.product((0, 1, -1, 2), repeat=3)), np.int64):
        guess = base + corner
        miss = np.linalg.norm(space_of(grid, guess) - flat, axis=1)
        better = grid.is_translation(guess) & (miss < gap - 1e-9)
        if level is not None:
            better &= guess[:, level] == 0
        best[better], gap[better] = guess[better], miss[better]
    return best.reshape(vectors.shape).astype(np.int64)


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


def play_piece(grid: Grid, index: int, t: int, copy: int, name: str, base) -> PlayPiece:
    """A table piece with its images under the grid's turns (see `PlayPiece`)."""
    base = np.asarray(base, np.int64)
    centres = grid.centres(base)
    k = int(np.argmin(((centres - centres.mean(axis=0)) ** 2).sum(axis=1)))
    anchor = base[k]
    turned, ok = grid.transform_all(np.vstack([anchor[None], base]))
    # turned about the anchor cell, which keeps its lattice cell ...
    images = turned[:, 1:] + (grid.anchor(anchor) - grid.anchor(turned[:, 0]))[:, None, :]
    # ... then moved by the lattice translation nearest to where a turn about the origin of
    # space takes that lattice cell: on the cube grid images[r] is R @ base exactly, so a
    # pose's offset is its mesh's translation, as it always was
    home = grid.anchor(anchor)
    swung = np.einsum("gij,j->gi", grid.matrices[: grid.n_rotations], space_of(grid, home))
    images += (nearest_translation(grid, swung) - home)[:, None, :]
    by_key: dict[tuple[int, ...], list[int]] = {}
    for r in np.flatnonzero(ok).tolist():
        by_key.setdefault(grid.key(images[r]), []).append(r)
    return PlayPiece(index, t, copy, name, base, anchor, k, images, ok, by_key)


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
        self.grid: Grid = puzzle.grid
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
            for copy in range(piece.copies):
                name = piece.name if piece.copies == 1 else f"{piece.name} {copy + 1}"
                pieces.append(play_piece(self.grid, len(pieces), t, copy, name, piece.cells))
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
        return self.pieces[piece].images[pose.rotation] + np.asarray(pose.offset, np.int64)

    def cells(self, piece: int) -> np.ndarray:
        """The piece's cells now, (n, 3), in the same order as the masks of `fit()`."""
        return self.cells_at(piece, self._poses[piece])

    def colours(self, piece: int) -> np.ndarray:
        """The piece's colour on each of its cells (`cells`, `cells_at` order: its own cells',
        so a turn carries them along), 0 for the default colour (`Piece.voxel_colours`)."""
        own = self.puzzle.pieces[self.pieces[piece].piece].voxel_colours
        size = len(self.pieces[piece].base)
        return np.zeros(size, np.int64) if own is None else np.asarray(own, np.int64)

    def anchor_cell(self, piece: int, pose: Pose | None = None) -> np.ndarray:
        """The cell the piece turns about, where it is in `pose` (default: now)."""
        pose = self._poses[piece] if pose is None else pose
        return self.cells_at(piece, pose)[self.pieces[piece].anchor_index]

    def pivot(self, piece: int) -> np.ndarray:
        """The point the piece turns about (the centre of its anchor cell, in the grid's
        space: `Grid.centres`), for animations."""
        return self.grid.centres(self.anchor_cell(piece)[None])[0]

    def find(self, name: str) -> int:
        """The piece called `name` (as in `PlayPiece.name`)."""
        for p in self.pieces:
            if p.name == name:
                return p.index
        raise KeyError(name)

    def fit(self) -> Fit:
        """Which cells are out of the target or doubly occupied, and whether it is solved."""
        if self._fit is None:
            self._fit = _fit_of(self)
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
        """The grid's smallest turn about an axis (a quarter on cubes; `turns` of them,
        negative: the other way) about the piece's anchor cell.

        A turn the grid does not have, or that takes the piece off the lattice, is refused
        (the pose stays, `events.refused` says why); so, on an interlocking table, is a turn
        that would put the piece into another (a real piece cannot turn inside others)."""
        a = _axis(axis)
        old = self._poses[piece]
        new = self.try_turn(piece, axis_turn(self.grid, a, int(turns)), old, "xyz"[a])
        if isinstance(new, str):
            self.refuse(new)
            return old
        if self.refuse_turn(piece, a, new):
            return old
        return self._apply(
            "rotate", f"turn {self.pieces[piece].name} about {'xyz'[a]}", {piece: new}
        )

    def try_turn(
        self, piece: int, transform: int | None, pose: Pose | None = None, about: str = ""
    ) -> Pose | str:
        """The pose after turning by one of the grid's proper transforms (an index, e.g. from
        `axis_turn` or `turn_axes`) about the anchor cell, snapped back by a lattice
        translation so that cell stays in its lattice cell; or, when that cannot be done, why
        (for `refuse`). The result is looked up among the piece's valid images, since the
        sphere grid's turns are not a group."""
        name = self.pieces[piece].name
        where = f" about {about}" if about else ""
        if transform is None:
            return f"the {self.grid.title} grid has no turn{where}"
        p = self.pieces[piece]
        pose = self._poses[piece] if pose is None else pose
        cells = self.cells_at(piece, pose)
        anchor = cells[p.anchor_index]
        images, ok = self.grid.transform_all(np.vstack([anchor[None], cells]))
        if not ok[transform]:
            return f"{name} cannot turn{where}: it would leave the {self.grid.title} grid"
        image = images[transform]
        moved = image[1:] + (self.grid.anchor(anchor) - self.grid.anchor(image[0]))
        choices = p.by_key.get(self.grid.key(moved))
        if not choices:
            return f"{name} cannot turn{where}: it would leave the {self.grid.title} grid"
        rotation = product(self.grid, transform, pose.rotation)
        if rotation not in choices:
            rotation = choices[0]
        offset = self.grid.anchor(moved.min(axis=0)) - self.grid.anchor(
            p.images[rotation].min(axis=0)
        )
        return Pose(int(rotation), tuple(int(v) for v in offset))

    def move(self, piece: int, axis: int | str, cells: int = 1) -> Pose:
        """Slide the piece along an axis by `cells` of the grid's shortest lattice steps along
        it (`Grid.axis_step`: one cell on cubes).

        On an interlocking table the whole move is refused (the pose stays, `events.refused`
        says why) when the piece would touch another before it has gone all the way."""
        a = _axis(axis)
        old = self._poses[piece]
        name = self.pieces[piece].name
        cells = int(cells)
        step = np.asarray(self.grid.axis_step(a), np.int64) * (1 if cells >= 0 else -1)
        if self._interlocked and cells:
            hit = self._blocked(piece, old, step, abs(cells))
            if hit is not None:
                way = f"{'+' if cells > 0 else '-'}{'xyz'[a]}"
                self.refuse(f"{name} cannot move {way}: it would go into {hit}")
                return old
        offset = np.asarray(old.offset, np.int64) + abs(cells) * step
        new = Pose(old.rotation, tuple(int(v) for v in offset))
        return self._apply("move", f"move {name} along {'xyz'[a]}", {piece: new})

    def _blocked(self, piece: int, pose: Pose, step: np.ndarray, count: int) -> str | None:
        """What the piece would go into on its way `count` steps of `step` from `pose`
        (None: the way is free), by the movement analysis along the grid's directions: one
        question when the step is a direction, else one per direction step of the fewest
        that make it (in any order that gets through)."""
        vec = tuple(int(v) for v in step)
        directions = self.grid.directions
        if vec in directions:
            room = self._room(piece, directions.index(vec), self.cells_at(piece, pose))
            if room is None or room >= count:
                return None
            at = np.asarray(pose.offset) + (room + 1) * step  # the first place that is taken
            return self.overlaps(piece, Pose(pose.rotation, tuple(int(v) for v in at))) or (
                "another piece"
            )
        path = step_path(self.grid, vec)
        if path is None:
            return None  # no way to ask: let it go
        orders = list(dict.fromkeys(_orders(path)))
        for _ in range(count):
            hit = "another piece"
            for order in orders:
                here, free = pose, True
                for d in order:
                    nxt = Pose(
                        here.rotation,
                        tuple(int(a + b) for a, b in zip(here.offset, directions[d], strict=True)),
                    )
                    room = self._room(piece, d, self.cells_at(piece, here))
                    if room is not None and room < 1:
                        hit = self.overlaps(piece, nxt) or hit
                        free = False
                        break
                    here = nxt
                if free:
                    pose = here
                    break
            else:
                return hit
        return None

    def _room(self, piece: int, direction: int, cells: np.ndarray | None = None) -> int | None:
        """How many steps the piece slides along the grid's `direction` (an index) before it
        touches another, the others where they are (None: for ever): the movement analysis
        given as `slide_room`."""
        others = [self.cells(k) for k in range(len(self.pieces)) if k != piece]
        if not others:
            return None
        own = self.cells(piece) if cells is None else cells
        return self._slide_room([*others, own], [len(others)], direction)

    def refuse(self, reason: str) -> None:
        """Refuse a move (nothing changes): remember and announce why (the status line)."""
        self.refusal = reason
        self.events.refused.emit(reason)

    def refuse_turn(self, piece: int, axis: int | str, turned: Pose) -> bool:
        """On an interlocking table, refuse a turn that would put the piece into another (in
        `turned`, the pose after it) and say why; True when refused. Any turn is fine on a
        Soma-style table (the mouse lifts the piece clear, a key turn shows the overlap).
        `axis` names what it turned about ('x', 0, or any text)."""
        if not self._interlocked or not (hit := self.overlaps(piece, turned)):
            return False
        name = self.pieces[piece].name
        about = "xyz"[_axis(axis)] if axis in (0, 1, 2, *AXES) else str(axis)
        self.refuse(f"{name} cannot turn about {about} there: it would go into {hit}")
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
        n = self.grid.n_rotations
        if not 0 <= pose.rotation < n:
            raise ValueError(f"rotation must be 0..{n - 1}, not {pose.rotation}")
        if not self.pieces[piece].valid[pose.rotation]:
            raise ValueError(f"rotation {pose.rotation} takes the piece off the lattice")
        if not self.grid.is_translation(np.asarray(pose.offset, np.int64)):
            raise ValueError(f"offset {pose.offset} is not a translation of the grid")
        pose = Pose(int(pose.rotation), tuple(int(v) for v in pose.offset))
        label = label or f"place {self.pieces[piece].name}"
        return self._apply("place", label, {piece: pose})

    def turned(
        self, piece: int, axis: int | str, turns: int = 1, pose: Pose | None = None
    ) -> Pose | None:
        """The pose `rotate(piece, axis, turns)` would give (from `pose`, default the current
        one), without applying it (None: the grid has no such turn, or it takes the piece off
        the lattice; `try_turn` says why): the mouse turns a piece and then lifts it clear of
        others before anything is committed."""
        a = _axis(axis)
        new = self.try_turn(piece, axis_turn(self.grid, a, int(turns)), pose, "xyz"[a])
        return None if isinstance(new, str) else new

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
    def pose_for(self, piece: int, cells, colours=None) -> Pose | None:
        """A pose that puts the piece exactly on `cells`, the fewest axis turns away from its
        current rotation; None if the cells are not this piece's shape.

        With `colours` (the piece's colour on each of `cells`, in that order, as
        `Placement.colours` has them), only a turn that puts each colour on its cell: a
        piece whose colours tell turns apart (a domino with one red end) fills the same cells
        in ways the colour rules may tell apart, which its cells alone cannot. None when no
        turn does."""
        want = np.asarray(cells, np.int64).reshape(-1, 3)
        p = self.pieces[piece]
        if len(want) != len(p.base):
            return None
        choices = p.by_key.get(self.grid.key(want))
        if not choices:
            return None
        best = None
        for r in choices:
            offset = self.grid.anchor(want.min(axis=0)) - self.grid.anchor(p.images[r].min(axis=0))
            if colours is not None and not self._paints(piece, r, offset, want, colours):
                continue
            path = self._turn_path(self._poses[piece].rotation, r)
            cost = len(path) if path is not None else 1 << 20
            if best is None or cost < best[0]:
                best = (cost, Pose(int(r), tuple(int(v) for v in offset)))
        return None if best is None else best[1]

    def _paints(self, piece: int, rotation: int, offset, cells: np.ndarray, colours) -> bool:
        """Whether the piece turned by `rotation` and moved by `offset` has colour
        `colours[i]` on `cells[i]` for every i."""
        placed = self.pieces[piece].images[rotation] + np.asarray(offset, np.int64)
        own = self.colours(piece).tolist()
        colour_of = dict(zip(map(tuple, placed.tolist()), own, strict=True))
        here = [colour_of.get(tuple(c)) for c in cells.tolist()]
        return here == [int(v) for v in np.asarray(colours).reshape(-1)]

    def path_to(
        self, piece: int, pose: Pose, single_steps: bool = False
    ) -> list[tuple[str, int, int]]:
        """Operations that take the piece from where it is to `pose`, as
        ('rotate', axis, turns) and ('move', axis, steps) for `rotate()` and `move()`:
        the fewest axis turns, then one slide per axis; with `single_steps`, every turn and
        every one-step move separately (what a player does with the keys). ValueError when the
        axis turns and steps cannot get there (a sphere piece's sixth turns, a prism piece's
        half-step across a row)."""
        ops: list[tuple[str, int, int]] = []
        current = self._poses[piece]
        path = self._turn_path(current.rotation, pose.rotation)
        if path is None:
            raise ValueError("no turns about the axes reach that orientation")
        for axis, turns in path:
            if ops and ops[-1][1] == axis and not single_steps:
                ops[-1] = ("rotate", axis, ops[-1][2] + turns)
            else:
                ops.append(("rotate", axis, turns))
            current = self.try_turn(piece, axis_turn(self.grid, axis, turns), current)
            assert isinstance(current, Pose)
        current = Pose(pose.rotation, current.offset)  # a symmetric piece: the same cells
        for axis in range(3):
            delta = pose.offset[axis] - current.offset[axis]
            size = self.grid.axis_step(axis)[axis]
            if delta % size:
                raise ValueError("the axis steps do not reach that place")
            delta //= size
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
    def _turn_path(self, start: int, goal: int) -> list[tuple[int, int]] | None:
        """The fewest (axis, ±1) axis turns from rotation `start` to `goal` (breadth-first
        over the grid's rotations); None if they never get there (the sphere grid's sixth
        turns are about no coordinate axis)."""
        grid = self.grid
        moves = [
            (axis, turns, g)
            for axis in range(3)
            for turns in (1, -1)
            if (g := axis_turn(grid, axis, turns)) is not None
        ]
        back: dict[int, tuple[int, tuple[int, int]] | None] = {start: None}
        frontier = [start]
        while goal not in back and frontier:
            nxt = []
            for r in frontier:
                for axis, turns, g in moves:
                    s = product(grid, g, r)
                    if s is not None and s not in back:
                        back[s] = (r, (axis, turns))
                        nxt.append(s)
            frontier = nxt
        if goal not in back:
            return None
        path = []
        r = goal
        while back[r] is not None:
            r, move = back[r]
            path.append(move)
        return path[::-1]

    def _layout(self) -> tuple[Pose, ...]:
        """Pieces in rows in front of the target (towards +y), a free cell between them, each
        at a lattice translation at or beyond where the row has got to."""
        grid = self.grid
        lo, hi = (b.astype(int) for b in self.puzzle.target.bounds)
        gap = _cells_per_unit(grid)  # a free cell's width, per axis, in cell units
        width = max(int(hi[0] - lo[0] + 1), 10 * gap[0])
        x, y, row_depth = int(lo[0]), int(hi[1]) + 1 + gap[1], 0
        poses = []
        for p in self.pieces:
            extent = p.base.max(axis=0) + 1
            if x > lo[0] and x + extent[0] > lo[0] + width:
                x, y, row_depth = int(lo[0]), y + row_depth + gap[1], 0
            at = np.array([x, y, int(lo[2])], np.int64)
            offset = _at_or_beyond(grid, at)
            poses.append(Pose(0, tuple(int(v) for v in offset)))
            x = int(offset[0] + extent[0] + gap[0])
            row_depth = max(row_depth, int(offset[1] - y + extent[1]))
        return tuple(poses)

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


def _orders(path: tuple[int, ...]) -> list[tuple[int, ...]]:
    """`path` and its other orders (a zigzag of two direction steps may pass one way round
    an obstacle and not the other)."""
    return [path, *(p for p in itertools.permutations(path) if p != path)]


@cache
def _cells_per_unit(grid: Grid) -> tuple[int, int, int]:
    """Per axis, how many cell units make at least one unit of space (a cell's width): the
    gap the table leaves between pieces (1 on cubes, 2 on prisms along x and on spheres)."""
    out = []
    for a in range(3):
        step = np.asarray(grid.axis_step(a), np.int64)
        cell = _some_cell(grid)
        length = float(np.linalg.norm(grid.centres((cell + step)[None]) - grid.centres(cell[None])))
        out.append(max(1, int(np.ceil(step[a] / length - 1e-9))))
    return (out[0], out[1], out[2])


@cache
def _some_cell(grid: Grid) -> np.ndarray:
    """A cell of the grid near the origin (not every grid has the origin)."""
    block = np.array(list(itertools.product(range(6), repeat=3)), np.int64)
    return block[int(np.argmax(grid.valid(block)))]


def _at_or_beyond(grid: Grid, point: np.ndarray) -> np.ndarray:
    """The lattice translation nearest `point` that is at or beyond it on every axis (the
    grid's `anchor` is at or below; a step along each axis that lags brings it up)."""
    at = grid.anchor(point)
    for a in range(3):
        step = np.asarray(grid.axis_step(a), np.int64)
        while at[a] < point[a]:
            at = at + step
    return at


def _fit_of(model: PlayModel) -> Fit:
    """Which cells of which pieces stick out, overlap or sit on a forbidden colour, and
    whether the table is solved: worked out after every change of the model."""
    all_cells = [model.cells(k) for k in range(len(model.pieces))]
    tuples = [list(map(tuple, c.tolist())) for c in all_cells]
    counts = Counter(c for cells in tuples for c in cells)
    outside, overlap, colour, bad, in_target = [], [], [], [], []
    for k, cells in enumerate(tuples):
        inside = np.array([c in model._target for c in cells])
        placed = bool(inside.any())
        out = ~inside if placed else np.zeros(len(cells), bool)
        over = np.array([counts[c] > 1 for c in cells])
        clash = _colour_clash(model, k, cells, inside)
        outside.append(out)
        overlap.append(over)
        colour.append(clash)
        bad.append(out | over | clash)
        in_target.append(placed)
    covered = len(model._required & counts.keys())
    # every piece of the set in the target, except that a type with a range of copies
    # (BurrTools' 0..6 of a stick) may leave those beyond its minimum on the table
    used = Counter(p.piece for p, inside in zip(model.pieces, in_target, strict=True) if inside)
    solved = (
        covered == len(model._required)
        and all(
            piece.fewest <= used[t] <= piece.copies for t, piece in enumerate(model.puzzle.pieces)
        )
        and not any(mask.any() for mask in bad)
    )
    return Fit(
        outside=tuple(outside),
        overlap=tuple(overlap),
        colour=tuple(colour),
        bad=tuple(bad),
        in_target=tuple(in_target),
        covered=covered,
        required=len(model._required),
        solved=solved,
    )


def _colour_clash(
    model: PlayModel, piece: int, cells: list[tuple], inside: np.ndarray
) -> np.ndarray:
    """Per cell of the piece, whether it lies on a target cell whose colour the colour
    rules forbid for the piece's colour there (`PolycubePuzzle.colour_clashes`, the check
    hints make too)."""
    clash = np.zeros(len(cells), bool)
    if model.puzzle.coloured and inside.any():
        index = model.puzzle.target.index
        ids = [index[c] for c, i in zip(cells, inside.tolist(), strict=True) if i]
        clash[inside] = model.puzzle.colour_clashes(ids, model.colours(piece)[inside])
    return clash
