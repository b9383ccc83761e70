"""The design document of Design mode: pieces and a target drawn cube by cube, Qt-free.

napari-style, like `models.play.PlayModel`: the document owns the facts and announces each
change through psygnal signals (`doc.events`); the editor's 3D view, its layer view, its side
panel and the live analysis all listen and change the document only through its methods, so a
test or a script can build a puzzle without a window.

Every edit replaces one immutable `DesignState` by another and pushes the old one on the undo
stack (`models.undo.UndoStack`, the one Play's table keeps too). Undo is then a swap of
snapshots: no edit needs an inverse of its own, and a composite edit (a mirrored click adds two
cubes, a rotation moves them all) undoes in one step.

Shapes keep the coordinates they were drawn at (the editor's grid); they are normalised only
when the document becomes a `PolycubePuzzle` or a file. A piece's count is a range
`min_copies..max_copies`; a fixed count is the range of one value. Format 1 writes a range as
`min`/`max` and BurrTools XML as its own min/max, so both round-trip.

**Pre-placed pieces** (`DesignState.placed`) are what a yass `.soma` figure's letters put in
place (`models.soma_figure`): pieces fixed in the figure, which the solver never moves. They sit
in the target's frame beside its cells, are drawn with it in their own colours, move with it
when the whole target turns or moves, and cannot be drawn over. As a puzzle they are what the
loader makes of them (their cells out of the target, the pieces out of the set, kept as
`preplaced` so symmetries are counted as yass counts them). A file keeps them only where its
format can: a `.soma` figure writes them back as letters; format 1 TOML has no such thing, so
saving there asks the user to release them first (`release_placed`: ordinary pieces again,
their cells back in the target); BurrTools has none either, so an `.xmpuzzle` export holds the
puzzle the solver sees, the pre-placed cells left out of the target.
"""

from __future__ import annotations

import gzip
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from psygnal import Signal, SignalGroup

from tessera.models import geometry
from tessera.models.atomic import atomic_path
from tessera.models.errors import PuzzleError
from tessera.models.grids import CUBES, Grid
from tessera.models.polycube import PALETTE, Piece, PolycubePuzzle, Target
from tessera.models.puzzle_writers import to_format1
from tessera.models.puzzle_writers import to_xmpuzzle as puzzle_to_xmpuzzle
from tessera.models.soma_figure import (
    FIGURE_CELLS,
    LETTERS,
    Preplaced,
    SomaFigure,
    soma_pieces,
)
from tessera.models.undo import Entry, Undoable, UndoStack

Cell = tuple[int, int, int]
#: The shape index of the target (pieces are 0, 1, ...).
TARGET = -1
_AXES = {"x": 0, "y": 1, "z": 2}


class DesignError(PuzzleError):
    """An edit or a conversion the document refuses (a clear reason, never a traceback)."""


@dataclass(frozen=True)
class DesignPiece:
    """A piece type as drawn: cells where the user put them, a colour, a count range."""

    name: str
    cells: frozenset[Cell] = frozenset()
    color: str = "#d62728"
    min_copies: int = 1
    max_copies: int = 1

    @property
    def is_range(self) -> bool:
        return self.max_copies != self.min_copies

    @property
    def count_text(self) -> str:
        """'1', '3' or '0..2': what the side panel shows beside the name."""
        if self.is_range:
            return f"{self.min_copies}..{self.max_copies}"
        return str(self.min_copies)


@dataclass(frozen=True)
class DesignTarget:
    """The shape to fill: required cells and optional (BurrTools 'variable', `+`) cells."""

    required: frozenset[Cell] = frozenset()
    optional: frozenset[Cell] = frozenset()

    @property
    def cells(self) -> frozenset[Cell]:
        return self.required | self.optional


@dataclass(frozen=True)
class DesignPlaced:
    """A pre-placed piece: fixed on its cells of the figure (the target's frame), not in the
    piece list, never moved by the solver (a yass `.soma` letter)."""

    name: str
    cells: frozenset[Cell]
    color: str


@dataclass(frozen=True)
class DesignState:
    """One immutable snapshot of the whole document (what undo and redo swap)."""

    name: str = "Untitled"
    pieces: tuple[DesignPiece, ...] = ()
    target: DesignTarget = field(default_factory=DesignTarget)
    placed: tuple[DesignPlaced, ...] = ()
    #: the lattice every shape is drawn on (BurrTools' five grids; cubes by default)
    grid: Grid = CUBES

    def shape_cells(self, shape: int) -> frozenset[Cell]:
        """All cells of a shape (target: required and optional)."""
        return self.target.cells if shape == TARGET else self.pieces[shape].cells

    @property
    def placed_cells(self) -> frozenset[Cell]:
        return frozenset().union(*(p.cells for p in self.placed))

    @property
    def figure_cells(self) -> frozenset[Cell]:
        """The whole figure: the target's cells and the pre-placed pieces' cells."""
        return self.target.cells | self.placed_cells

    @property
    def piece_volume_range(self) -> tuple[int, int]:
        lo = sum(len(p.cells) * p.min_copies for p in self.pieces)
        hi = sum(len(p.cells) * p.max_copies for p in self.pieces)
        return lo, hi


class DesignEvents(SignalGroup):
    """What the editor's views follow (callbacks may take fewer arguments than emitted)."""

    #: the document changed (any edit, undo, redo, load): the edit's label
    changed = Signal(str)
    #: the shape being edited changed (TARGET or a piece index)
    current = Signal(int)
    #: (can undo, can redo)
    history = Signal(bool, bool)
    #: unsaved changes or not
    dirty = Signal(bool)
    #: the file the document is saved to (a path, or '' for none)
    path = Signal(str)


def _cells(cells: Iterable[Sequence[int]]) -> frozenset[Cell]:
    return frozenset((int(c[0]), int(c[1]), int(c[2])) for c in cells)


def _array(cells: Iterable[Cell]) -> np.ndarray:
    return np.array(sorted(cells), np.int64).reshape(-1, 3)


def mirrored(
    cells: Iterable[Cell],
    axes: Iterable[str | int],
    about: Iterable[Cell],
    grid: Grid = CUBES,
) -> set[Cell]:
    """`cells` plus their mirror images across the middle plane of `about` (the shape as it is)
    on each axis in `axes`, and across every combination of them: drawing with mirrors on x and
    y puts four cubes. The middle of an empty shape is the cell itself, so a first cube is one.
    On another grid the mirror is the grid's own, placed where the shape's mirror image lies
    on the shape (a lattice translation apart)."""
    cells = set(cells)
    reference = list(about) or list(cells)
    if not reference:
        return cells
    ref = _array(reference)
    out = set(cells)
    for axis in axes:
        a = _AXES.get(axis, axis) if isinstance(axis, str) else axis
        mirror = grid.axis_mirror(a)
        if mirror is None:
            continue
        # one call for both: a grid may turn a shape about its first cell (spheres)
        both = np.vstack([ref, _array(out)])
        image = grid.transform_all(both, mirrors=True)[0][mirror]
        shift = _middle_shift(grid, ref, image[: len(ref)])
        out |= {(int(x), int(y), int(z)) for x, y, z in (image[len(ref) :] + shift).tolist()}
    return out


def _middle_shift(grid: Grid, ref: np.ndarray, image: np.ndarray) -> np.ndarray:
    """The lattice translation putting a mirror image of `ref` where `ref` lies: the one that
    best matches the two shapes' middles (on cubes exactly min + max - x)."""
    want = grid.centres(ref).mean(axis=0)
    base = grid.anchor(ref.min(axis=0)) - grid.anchor(image.min(axis=0))
    best, best_gap = base, np.inf
    for dx, dy, dz in itertools.product((-1, 0, 1), repeat=3):
        step = (
            dx * np.array(grid.axis_step(0))
            + dy * np.array(grid.axis_step(1))
            + dz * np.array(grid.axis_step(2))
        )
        gap = np.linalg.norm(grid.centres(image + base + step).mean(axis=0) - want)
        if gap < best_gap - 1e-9:
            best, best_gap = base + step, gap
    return best


def _turned(cells: frozenset[Cell], grid: Grid, transform: int) -> dict[Cell, Cell]:
    """Each cell's image under one of the grid's transforms, moved back so the shape keeps
    its place (a turn of the whole shape stays where it was drawn, on the ground)."""
    arr = _array(cells)
    if len(arr) == 0:
        return {}
    moved = grid.turned_in_place(arr, transform)
    return {
        (int(a[0]), int(a[1]), int(a[2])): (int(b[0]), int(b[1]), int(b[2]))
        for a, b in zip(arr, moved, strict=True)
    }


class DesignDocument(Undoable):
    """The document: the current snapshot, the shape being edited, undo/redo, the dirty flag
    and the file it belongs to. Every method that changes the puzzle is one undoable edit."""

    def __init__(self, state: DesignState | None = None, path: str | Path | None = None) -> None:
        self.events = DesignEvents()
        self.state = state or DesignState()
        self.current = TARGET
        self.path: Path | None = Path(path) if path else None
        #: entries hold (snapshot, shape edited) from before the edit (`models.undo`)
        self.history: UndoStack[tuple[DesignState, int]] = UndoStack()
        self._saved: DesignState | None = self.state

    # -- reading ------------------------------------------------------------------------------
    @property
    def pieces(self) -> tuple[DesignPiece, ...]:
        return self.state.pieces

    @property
    def target(self) -> DesignTarget:
        return self.state.target

    @property
    def name(self) -> str:
        return self.state.name

    def cells(self, shape: int | None = None) -> frozenset[Cell]:
        """All cells of a shape (default: the one being edited)."""
        return self.state.shape_cells(self.current if shape is None else shape)

    def figure_cells(self, shape: int | None = None) -> frozenset[Cell]:
        """What a shape occupies on the grid: for the target, its cells and the pre-placed
        pieces' (the middle that mirror drawing reflects about, what a click cannot add to)."""
        shape = self.current if shape is None else shape
        return self.state.figure_cells if shape == TARGET else self.cells(shape)

    @property
    def placed(self) -> tuple[DesignPlaced, ...]:
        return self.state.placed

    def placed_at(self, cell: Sequence[int]) -> int | None:
        """The index of the pre-placed piece on `cell`, or None."""
        cell = (int(cell[0]), int(cell[1]), int(cell[2]))
        return next((k for k, p in enumerate(self.placed) if cell in p.cells), None)

    def shape_name(self, shape: int | None = None) -> str:
        shape = self.current if shape is None else shape
        return "target" if shape == TARGET else self.pieces[shape].name

    @property
    def dirty(self) -> bool:
        return self.state is not self._saved

    # -- the one way a snapshot changes -------------------------------------------------------
    def _commit(self, state: DesignState, label: str, current: int | None = None) -> bool:
        if state == self.state and (current is None or current == self.current):
            return False
        was_dirty = self.dirty
        self.history.push(label, (self.state, self.current))
        self.state = state
        self._set_current(self.current if current is None else current, emit=True)
        self._announce(label, was_dirty)
        return True

    def _announce(self, label: str, was_dirty: bool) -> None:
        self.events.changed.emit(label)
        self.events.history.emit(self.can_undo, self.can_redo)
        if self.dirty != was_dirty:
            self.events.dirty.emit(self.dirty)

    def _set_current(self, shape: int, emit: bool = True) -> None:
        shape = shape if shape == TARGET or 0 <= shape < len(self.pieces) else TARGET
        if shape != self.current:
            self.current = shape
            if emit:
                self.events.current.emit(shape)

    def select(self, shape: int) -> None:
        """Edit another shape (TARGET or a piece index); not an edit, not undoable."""
        if shape != TARGET and not 0 <= shape < len(self.pieces):
            raise IndexError(f"no piece {shape}")
        self._set_current(shape)

    def undo(self) -> bool:
        return self._swap(self.history.undo(self._here))

    def redo(self) -> bool:
        return self._swap(self.history.redo(self._here))

    def _here(self, _entry) -> tuple[DesignState, int]:
        """What the other stack keeps: the snapshot being left, to come back to."""
        return (self.state, self.current)

    def _swap(self, entry: Entry[tuple[DesignState, int]] | None) -> bool:
        if entry is None:
            return False
        was_dirty = self.dirty
        self.state, current = entry.data
        self._set_current(current)
        self._announce(entry.label, was_dirty)
        return True

    def replace_all(self, state: DesignState, path: str | Path | None = None) -> None:
        """A new document (New, Open): history cleared, clean."""
        was_dirty = self.dirty
        self.state = state
        self.history.clear()
        self._saved = state
        self.current = TARGET
        self.events.current.emit(TARGET)
        self.path = Path(path) if path else None
        self.events.path.emit(str(self.path or ""))
        self._announce("open", was_dirty)
        if not was_dirty:
            self.events.dirty.emit(False)

    # -- editing cells --------------------------------------------------------------------------
    def _with_cells(
        self, shape: int, required: frozenset[Cell], optional: frozenset[Cell] = frozenset()
    ) -> DesignState:
        if shape == TARGET:
            return replace(self.state, target=DesignTarget(required, optional - required))
        pieces = list(self.pieces)
        pieces[shape] = replace(pieces[shape], cells=required)
        return replace(self.state, pieces=tuple(pieces))

    def _parts(self, shape: int) -> tuple[frozenset[Cell], frozenset[Cell]]:
        if shape == TARGET:
            return self.target.required, self.target.optional
        return self.pieces[shape].cells, frozenset()

    def add_cells(
        self,
        cells: Iterable[Sequence[int]],
        shape: int | None = None,
        optional: bool = False,
        label: str | None = None,
    ) -> bool:
        """Add cubes to a shape; `optional` marks target cells `+` (a piece has no optional
        cells, so there it is ignored). A cell already there takes the new kind; a cell a
        pre-placed piece holds is not the target's to take."""
        shape = self.current if shape is None else shape
        new = _cells(cells)
        if new:  # the editor offers only the grid's cells; a script may not
            arr = _array(new)
            new = _cells(arr[self.state.grid.valid(arr)].tolist())
        if shape == TARGET:
            new -= self.state.placed_cells
        req, opt = self._parts(shape)
        if optional and shape == TARGET:
            req, opt = req - new, opt | new
        else:
            req, opt = req | new, opt - new
        n = len(new)
        what = "optional cube" if optional and shape == TARGET else "cube"
        label = label or f"add {n} {what}{'s' if n != 1 else ''} to {self.shape_name(shape)}"
        return self._commit(self._with_cells(shape, req, opt), label)

    def remove_cells(
        self, cells: Iterable[Sequence[int]], shape: int | None = None, label: str | None = None
    ) -> bool:
        shape = self.current if shape is None else shape
        gone = _cells(cells)
        req, opt = self._parts(shape)
        n = len(gone & (req | opt))
        label = label or f"remove {n} cube{'s' if n != 1 else ''} from {self.shape_name(shape)}"
        return self._commit(self._with_cells(shape, req - gone, opt - gone), label)

    def set_cells(
        self,
        required: Iterable[Sequence[int]],
        optional: Iterable[Sequence[int]] = (),
        shape: int | None = None,
        label: str = "draw shape",
    ) -> bool:
        """Replace a shape's cells at once (a scripted drawing, one undo step)."""
        shape = self.current if shape is None else shape
        return self._commit(self._with_cells(shape, _cells(required), _cells(optional)), label)

    def clear_shape(self, shape: int | None = None) -> bool:
        shape = self.current if shape is None else shape
        label = f"clear {self.shape_name(shape)}"
        return self._commit(self._with_cells(shape, frozenset(), frozenset()), label)

    # -- moving the whole shape ----------------------------------------------------------------
    def _map_shape(self, shape: int, mapping: dict[Cell, Cell], label: str) -> bool:
        """Move a shape's cells by `mapping`; the target's pre-placed pieces move with it."""
        req, opt = self._parts(shape)
        new_req = frozenset(mapping.get(c, c) for c in req)
        new_opt = frozenset(mapping.get(c, c) for c in opt)
        state = self._with_cells(shape, new_req, new_opt)
        if shape == TARGET and state.placed:
            placed = tuple(
                replace(p, cells=frozenset(mapping.get(c, c) for c in p.cells))
                for p in state.placed
            )
            state = replace(state, placed=placed)
        return self._commit(state, label)

    def rotate(self, axis: str | int, turns: int = 1, shape: int | None = None) -> bool:
        """A quarter turn (or `turns` of them) of the whole shape about an axis."""
        shape = self.current if shape is None else shape
        a = _AXES[axis] if isinstance(axis, str) else axis
        grid = self.state.grid
        turn = grid.axis_turn(a, turns)
        if turn is None:
            return False
        mapping = _turned(self.figure_cells(shape), grid, turn)
        return self._map_shape(shape, mapping, f"turn {self.shape_name(shape)} about {'xyz'[a]}")

    def flip(self, axis: str | int, shape: int | None = None) -> bool:
        """Mirror the whole shape along an axis (in place)."""
        shape = self.current if shape is None else shape
        a = _AXES[axis] if isinstance(axis, str) else axis
        grid = self.state.grid
        mirror = grid.axis_mirror(a)
        if mirror is None:
            return False
        mapping = _turned(self.figure_cells(shape), grid, mirror)
        return self._map_shape(shape, mapping, f"flip {self.shape_name(shape)} along {'xyz'[a]}")

    def nudge(self, axis: str | int, delta: int = 1, shape: int | None = None) -> bool:
        """Move the whole shape by `delta` lattice steps along an axis (one cell on cubes)."""
        shape = self.current if shape is None else shape
        a = _AXES[axis] if isinstance(axis, str) else axis
        step = [v * delta for v in self.state.grid.axis_step(a)]
        mapping = {
            c: (c[0] + step[0], c[1] + step[1], c[2] + step[2]) for c in self.figure_cells(shape)
        }
        sign = "+" if delta > 0 else "-"
        return self._map_shape(shape, mapping, f"move {self.shape_name(shape)} {sign}{'xyz'[a]}")

    # -- the piece list ------------------------------------------------------------------------
    def _unique_name(self, base: str) -> str:
        names = {p.name for p in self.pieces}
        if base not in names:
            return base
        for k in itertools.count(2):
            if f"{base}{k}" not in names:
                return f"{base}{k}"
        raise AssertionError("unreachable")

    def _free_colour(self) -> str:
        used = {p.color.lower() for p in self.pieces}
        return next((c for c in PALETTE if c not in used), PALETTE[len(self.pieces) % 20])

    def _next_name(self) -> str:
        names = {p.name for p in self.pieces}
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            if letter not in names:
                return letter
        return self._unique_name("P")

    def add_piece(
        self, name: str | None = None, cells: Iterable[Sequence[int]] = (), color: str | None = None
    ) -> int:
        """A new piece (empty unless `cells` are given), selected for editing; its index."""
        name = self._unique_name(name) if name else self._next_name()
        piece = DesignPiece(name, _cells(cells), color or self._free_colour())
        state = replace(self.state, pieces=self.pieces + (piece,))
        self._commit(state, f"add piece {name}", current=len(self.pieces))
        return len(self.pieces) - 1

    def duplicate_piece(self, index: int | None = None) -> int:
        index = self.current if index is None else index
        if index == TARGET:
            raise DesignError("the target cannot be duplicated; select a piece")
        original = self.pieces[index]
        copy = replace(original, name=self._unique_name(original.name), color=self._free_colour())
        pieces = self.pieces[: index + 1] + (copy,) + self.pieces[index + 1 :]
        self._commit(
            replace(self.state, pieces=pieces), f"duplicate piece {original.name}", index + 1
        )
        return index + 1

    def delete_piece(self, index: int | None = None) -> bool:
        index = self.current if index is None else index
        if index == TARGET:
            raise DesignError("the target cannot be deleted; clear it instead")
        name = self.pieces[index].name
        pieces = self.pieces[:index] + self.pieces[index + 1 :]
        current = TARGET if not pieces else min(index, len(pieces) - 1)
        return self._commit(replace(self.state, pieces=pieces), f"delete piece {name}", current)

    def _set_piece(self, index: int, label: str, **changes) -> bool:
        pieces = list(self.pieces)
        pieces[index] = replace(pieces[index], **changes)
        return self._commit(replace(self.state, pieces=tuple(pieces)), label)

    def rename_piece(self, index: int, name: str) -> bool:
        name = name.strip()
        if not name:
            raise DesignError("a piece needs a name")
        if any(p.name == name for i, p in enumerate(self.pieces) if i != index):
            raise DesignError(f"there is already a piece called {name!r}")
        old = self.pieces[index].name
        return self._set_piece(index, f"rename {old} to {name}", name=name)

    def set_color(self, index: int, color: str) -> bool:
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", color):
            raise DesignError(f"a colour looks like '#rrggbb', not {color!r}")
        return self._set_piece(index, f"colour of {self.pieces[index].name}", color=color.lower())

    def set_copies(self, index: int, minimum: int, maximum: int | None = None) -> bool:
        """A fixed count (`maximum` None or equal) or a range `minimum..maximum`."""
        maximum = minimum if maximum is None else maximum
        if minimum < 0 or maximum < 1 or maximum < minimum:
            raise DesignError(f"copies must be 0 ≤ min ≤ max, max ≥ 1 (not {minimum}..{maximum})")
        piece = self.pieces[index]
        text = f"{minimum}..{maximum}" if maximum != minimum else str(minimum)
        return self._set_piece(
            index, f"{piece.name}: {text} copies", min_copies=minimum, max_copies=maximum
        )

    def rename(self, name: str) -> bool:
        """The puzzle's own name (what the file's `name` says)."""
        return self._commit(replace(self.state, name=name.strip() or "Untitled"), "rename puzzle")

    def release_placed(self) -> bool:
        """The pre-placed pieces become ordinary pieces again (one copy each, at the end of the
        list) and their cells required target cells: the puzzle a format without pre-placed
        pieces can hold. One undoable edit."""
        if not self.placed:
            return False
        pieces = list(self.pieces)
        for p in self.placed:
            names = {q.name for q in pieces}
            name = p.name
            k = 2
            while name in names:
                name, k = f"{p.name}{k}", k + 1
            pieces.append(DesignPiece(name, p.cells, p.color))
        cells = self.state.placed_cells
        target = DesignTarget(self.target.required | cells, self.target.optional - cells)
        state = replace(self.state, pieces=tuple(pieces), target=target, placed=())
        return self._commit(state, "release the pre-placed pieces")

    # -- new documents ---------------------------------------------------------------------
    def new(self, name: str = "Untitled") -> None:
        self.replace_all(DesignState(name=name))

    def new_soma_figure(self) -> None:
        """The seven Soma pieces, an empty target: the user draws only the figure."""
        pieces = tuple(
            DesignPiece(p.name, _cells(p.cells.tolist()), p.color or PALETTE[k])
            for k, p in enumerate(soma_pieces())
        )
        self.replace_all(DesignState(name="Soma figure", pieces=pieces))

    def open_puzzle(self, puzzle: PolycubePuzzle, path: str | Path | None = None) -> None:
        """Any loaded polycube puzzle (TOML, JSON, .xmpuzzle, .soma) as the document."""
        self.replace_all(state_from_puzzle(puzzle), path)

    # -- files ---------------------------------------------------------------------------------
    def to_puzzle(self) -> PolycubePuzzle:
        return to_puzzle(self.state)

    def save(self, path: str | Path | None = None) -> Path:
        """Write format 1 TOML atomically (Save, or Save As with a path), or a yass figure when
        the path ends in `.soma`; the document is clean afterwards and belongs to that file."""
        path = Path(path) if path is not None else self.path
        if path is None:
            raise DesignError("no file to save to: use Save As")
        text = to_soma(self.state) if path.suffix.lower() == ".soma" else to_toml(self.state)
        with atomic_path(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
        was_dirty = self.dirty
        self._saved = self.state
        if path != self.path:
            self.path = path
            self.events.path.emit(str(path))
        if was_dirty:
            self.events.dirty.emit(False)
        return path

    def export_xmpuzzle(self, path: str | Path) -> Path:
        """BurrTools XML, gzip-compressed, written atomically (the document stays as it is)."""
        data = gzip.compress(to_xmpuzzle(self.state), mtime=0)
        with atomic_path(path) as tmp:
            tmp.write_bytes(data)
        return Path(path)


# -- conversions --------------------------------------------------------------------------------


def state_from_puzzle(puzzle: PolycubePuzzle) -> DesignState:
    """A document snapshot of a loaded puzzle: its shapes as the file placed them, colours
    filled in from the palette, counts as fixed ranges, and the pieces a figure file
    pre-places (`SomaFigure.preplaced`) where it placed them."""
    colours = puzzle.colors()
    pieces = tuple(
        DesignPiece(p.name, _cells(p.cells.tolist()), colours[k], p.fewest, p.copies)
        for k, p in enumerate(puzzle.pieces)
    )
    target = DesignTarget(
        _cells(puzzle.target.required.tolist()), _cells(puzzle.target.optional.tolist())
    )
    preplaced = list(getattr(puzzle, "preplaced", ()) or ())
    free = iter([c for c in PALETTE if c not in {x.lower() for x in colours}] + list(PALETTE))
    placed = tuple(
        DesignPlaced(p.piece.name, _cells(np.asarray(p.cells).tolist()), p.piece.color or "")
        for p in preplaced
    )
    placed = tuple(replace(p, color=p.color or next(free)) for p in placed)
    return DesignState(puzzle.name, pieces, target, placed, puzzle.grid)


def check_state(state: DesignState) -> None:
    """Refuse what no file and no solver can hold: no target, no pieces, an empty piece."""
    if not state.target.required:
        raise DesignError("the target has no required cells: draw it first")
    if not state.pieces:
        raise DesignError("no pieces: add one")
    for p in state.pieces:
        if not p.cells:
            raise DesignError(f"piece {p.name!r} has no cells")


def volume_fits(state: DesignState) -> bool:
    """Whether some choice of copies within every piece's range has a volume between the
    target's required cells and all its cells: the volumes reachable piece by piece, each
    bounded by the target (so 25 sticks of 0..6 copies are a few hundred steps, not 7^25)."""
    need, room = len(state.target.required), len(state.target.cells)
    reachable = {0}
    for p in state.pieces:
        size = len(p.cells)
        reachable = {
            v + k * size
            for v in reachable
            for k in range(p.min_copies, p.max_copies + 1)
            if v + k * size <= room
        }
    return any(need <= v <= room for v in reachable if v > 0)


def to_puzzle(state: DesignState, copies: Sequence[int] | None = None) -> PolycubePuzzle:
    """The solver's puzzle: shapes normalised, pieces with zero copies left out. `copies`
    picks one combination of a document with ranges; without it a range stays a range (the
    engine's `min_copies`..`copies`), as a BurrTools file with ranges loads. Pre-placed pieces
    make a `SomaFigure` (their cells are not the target's; `preplaced` keeps them for the
    symmetry count and for display)."""
    check_state(state)
    grid = state.grid
    if copies is None:
        pieces = [
            Piece(
                p.name, grid.normalise(_array(p.cells)), p.max_copies, p.color,
                min_copies=p.min_copies if p.is_range else None, grid=grid,
            )
            for p in state.pieces
            if p.max_copies > 0
        ]  # fmt: skip
    else:
        pieces = [
            Piece(p.name, grid.normalise(_array(p.cells)), n, p.color, grid=grid)
            for p, n in zip(state.pieces, copies, strict=True)
            if n > 0
        ]
    if not pieces:
        raise DesignError("every piece has 0 copies")
    warnings = [
        f"piece '{p.name}' is not connected" for p in pieces if not grid.is_connected(p.cells)
    ]
    target = Target(_array(state.target.required), _array(state.target.optional))
    if not state.placed:
        return PolycubePuzzle(state.name, pieces, target, warnings=warnings, grid=grid)
    letters = {name: letter for letter, name in LETTERS.items()}
    preplaced = [
        Preplaced(
            letters.get(p.name, ""),
            Piece(p.name, geometry.normalise(_array(p.cells)), 1, p.color),
            _array(p.cells),
            0,
        )
        for p in state.placed
    ]
    return SomaFigure(state.name, pieces, target, warnings=warnings, preplaced=preplaced)


def to_toml(state: DesignState) -> str:
    """Format 1 TOML (docs/file-formats.md), through the one writer every puzzle uses
    (`models.puzzle_writers`). Format 1 has no pre-placed pieces: a document with some is
    refused with the two ways out, never saved without them."""
    check_state(state)
    if state.placed:
        names = ", ".join(p.name for p in state.placed)
        raise DesignError(
            f"format 1 has no pre-placed pieces ({names}): save as a yass .soma figure, or "
            "release them first (Design ▸ Release pre-placed pieces)"
        )
    if any(p.max_copies == 0 for p in state.pieces):
        zero = next(p.name for p in state.pieces if p.max_copies == 0)
        raise DesignError(f"piece {zero!r} has 0 copies: delete it or give it 1")
    return to_format1(to_puzzle(state), comment="Drawn in Tessera's Design mode.")


SOMA_CUBE = "x"  # a cube of the figure that no piece pre-places


def to_soma(state: DesignState) -> str:
    """The document as a yass `.soma` figure (layers top first, rows back to front, as
    `models.soma_figure` reads them): a letter for each pre-placed piece's cells, `x` for the
    rest of the figure. Only a Soma figure fits the format: the seven Soma pieces once each
    (loose or pre-placed), 27 cubes, no optional cells; anything else is refused with why."""
    if state.target.optional:
        raise DesignError("a .soma figure has no optional cells: make them required first")
    letters = {name: letter for letter, name in LETTERS.items()}
    odd = [p.name for p in state.placed if p.name not in letters]
    if odd:
        raise DesignError(f"pre-placed piece {odd[0]!r} is not a Soma piece (A B L P T V Z)")
    loose = sorted(geometry.canonical_key(_array(p.cells)) for p in state.pieces
                   for _ in range(p.max_copies) if p.cells)  # fmt: skip
    placed_names = {p.name for p in state.placed}
    want = sorted(p.shape_key for p in soma_pieces() if p.name not in placed_names)
    if loose != want or any(p.is_range for p in state.pieces):
        raise DesignError("a .soma figure is for the seven Soma pieces, one of each")
    figure = state.figure_cells
    if len(figure) != FIGURE_CELLS:
        raise DesignError(f"a .soma figure has {FIGURE_CELLS} cubes, not {len(figure)}")
    marks = {c: SOMA_CUBE for c in state.target.required}
    for p in state.placed:
        marks.update(dict.fromkeys(p.cells, letters[p.name]))
    arr = _array(figure)
    lo, hi = arr.min(axis=0), arr.max(axis=0)
    layers = []
    for z in range(int(hi[2]), int(lo[2]) - 1, -1):  # top first
        rows = []
        for y in range(int(hi[1]), int(lo[1]) - 1, -1):  # the back row first
            row = "".join(marks.get((x, y, z), ".") for x in range(int(lo[0]), int(hi[0]) + 1))
            rows.append(row)
        layers.append("\n".join(rows))
    head = f"# {state.name}: drawn in Tessera's Design mode (yass .soma figure)\n"
    return head + "\n\n".join(layers) + "\n"


def to_xmpuzzle(state: DesignState) -> bytes:
    """The document as BurrTools XML (uncompressed), through the one writer every puzzle uses
    (`models.puzzle_writers`): counts or `min`/`max` ranges, variable cells; pre-placed pieces
    are not BurrTools pieces, so their cells stay out of the target."""
    return puzzle_to_xmpuzzle(to_puzzle(state), compress=False)
