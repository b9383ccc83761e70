"""Polycube packing as exact cover, on the shared engine.

Columns: the required target cells and one column per piece type (primary; a type with k
copies must be hit k times), then the optional cells (secondary). A row is one placement.

Counting a figure up to symmetry builds one matrix per orbit of the anchor piece, and a batch
counts hundreds of small figures, so the matrix is built in numpy from a per-puzzle table of
placements (`placement_table`) rather than row by row in Python: the `Placement` objects the
rest of Tessera uses are made only for the rows somebody looks at.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tessera.models.colours import voxel_colours_fit
from tessera.models.errors import PuzzleError
from tessera.models.polycube import Piece, Placement, PolycubePuzzle
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.search_control import Progress


@dataclass(frozen=True)
class PlacedPiece:
    """One piece instance of a solution: its type and the target coordinates it fills."""

    piece: int
    cells: np.ndarray  # (n, 3) target coordinates
    placement: Placement


@dataclass(frozen=True)
class PolycubeSolution:
    pieces: tuple[PlacedPiece, ...]


# -- placements as arrays ---------------------------------------------------------------------


#: Shapes larger than this are fitted a few cells at a time (`_fits_probed`).
PROBE_CELLS = 8


def _fits_probed(
    flat: np.ndarray, base: np.ndarray, steps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where big shapes fit, found by testing PROBE_CELLS cells at a time and keeping only the
    offsets still in the running: a 152-cube burr piece over 2744 offsets is out of the target
    after a cell or two almost everywhere, so most of the (orientations × offsets × cells)
    look-ups are never made. Returns the rows that fit: their cell ids (placements, size),
    orientation index and offset index, orientation-major."""
    ids_parts, o_parts, k_parts = [], [], []
    for o, shape_steps in enumerate(steps):
        alive = np.arange(len(base))
        for c0 in range(0, len(shape_steps), PROBE_CELLS):
            probe = flat[base[alive][:, None] + shape_steps[None, c0 : c0 + PROBE_CELLS]]
            alive = alive[(probe >= 0).all(axis=1)]
            if not len(alive):
                break
        ids_parts.append(flat[base[alive][:, None] + shape_steps[None, :]])
        o_parts.append(np.full(len(alive), o, np.int64))
        k_parts.append(alive)
    ids = np.concatenate(ids_parts).reshape(-1, steps.shape[1])
    return ids, np.concatenate(o_parts), np.concatenate(k_parts)


#: A padded grid larger than this many cells, and than DENSE_PER_CELL per target cell, is
#: not built: placements are then found by looking cells up in the target's sorted keys.
DENSE_CELLS = 1 << 20
DENSE_PER_CELL = 96


class _DenseFits:
    """Placements found in the target's grid, padded by the largest piece, so every offset
    of every orientation is looked up at once (cells outside the target read -1): the fast
    way while the target fills a fair share of its bounding box."""

    def __init__(self, cells: np.ndarray, lo: np.ndarray, shape: np.ndarray, pad: int) -> None:
        occupied = np.full(tuple((shape + pad).tolist()), -1, np.int64)
        rel = cells - lo
        occupied[rel[:, 0], rel[:, 1], rel[:, 2]] = np.arange(len(cells))
        self.offsets = np.indices(tuple(shape.tolist())).reshape(3, -1).T  # x, then y, then z
        self.strides = np.array([occupied.shape[1] * occupied.shape[2], occupied.shape[2], 1])
        self.flat = occupied.ravel()
        self.base = self.offsets @ self.strides  # where each offset starts in the flat grid
        self.lo = lo

    def fits(self, shapes: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """(first orientation, cell ids, orientation index from it, offset) per chunk of
        orientations, orientation-major and offsets in x, y, z order."""
        n_orient, size = shapes.shape[:2]
        steps = shapes @ self.strides  # (orientations, size): each cell's step from its offset
        base, flat = self.base, self.flat
        # orientation by orientation when the whole block would be large
        chunk = max(1, (1 << 22) // max(len(base) * size, 1))
        for o0 in range(0, n_orient, chunk):
            if size > PROBE_CELLS:
                fit, o_idx, k_idx = _fits_probed(flat, base, steps[o0 : o0 + chunk])
            else:
                ids = flat[base[None, :, None] + steps[o0 : o0 + chunk, None, :]]
                o_idx, k_idx = np.nonzero((ids >= 0).all(axis=2))  # orientation-major
                fit = ids[o_idx, k_idx]
            yield o0, fit, o_idx, self.offsets[k_idx] + self.lo


class _SparseFits:
    """Placements found without a grid: each orientation's first cell is anchored on every
    target cell and the other cells are looked up, PROBE_CELLS at a time, in the target's
    sorted cell keys. Memory and time grow with (target cells × orientations × piece size),
    whatever the bounding box."""

    def __init__(self, cells: np.ndarray, lo: np.ndarray, shape: np.ndarray, pad: int) -> None:
        self.cells = cells
        # coordinates shifted so that every looked-up cell is ≥ 0: a key is then unique, and
        # ordered as (x, y, z)
        self.shift = pad - lo
        self.dims = shape + 2 * pad
        keys = self._key(cells)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    def _key(self, points: np.ndarray) -> np.ndarray:
        p = points + self.shift
        return (p[..., 0] * self.dims[1] + p[..., 1]) * self.dims[2] + p[..., 2]

    def fits(self, shapes: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """As `_DenseFits.fits`, one orientation at a time."""
        keys, last = self.keys, len(self.keys) - 1
        for o, cells in enumerate(shapes):
            offs = self.cells - cells[0]  # one offset per target cell holding the first cell
            alive = np.arange(len(offs))
            found = np.empty((len(offs), len(cells)), np.int64)
            for c0 in range(0, len(cells), PROBE_CELLS):
                part = cells[c0 : c0 + PROBE_CELLS]
                probe = self._key(offs[alive][:, None, :] + part[None, :, :])
                pos = np.minimum(np.searchsorted(keys, probe), last)
                ok = (keys[pos] == probe).all(axis=1)
                alive = alive[ok]
                found[alive, c0 : c0 + len(part)] = self.order[pos[ok]]
                if not len(alive):
                    break
            alive = alive[np.argsort(self._key(offs[alive]), kind="stable")]  # x, y, z order
            yield o, found[alive], np.zeros(len(alive), np.int64), offs[alive]


class PlacementTable:
    """Every placement of every piece of a puzzle as arrays, in the order of
    `PolycubePuzzle.placements` (orientation, then offset x, y, z), so row i of piece t *is*
    `puzzle.placements(t)[i]`.

    `cells[t]` is an (n, size) array of sorted target-cell indices; `orientation[t]` and
    `offset[t]` say how each one was made. `colours[t]`, for a piece whose colours tell
    turns apart (`Piece.colour_turns`), is the piece's colour on each of those cells: two
    rows may then fill the same cells, coloured differently. It is None for other pieces.
    """

    def __init__(self, puzzle: PolycubePuzzle) -> None:
        target = puzzle.target
        self.n_cells = len(target.cells)
        self.cells: list[np.ndarray] = []
        self.orientation: list[np.ndarray] = []
        self.offset: list[np.ndarray] = []
        self.colours: list[np.ndarray | None] = []
        self._objects: dict[int, list[Placement]] = {}
        self._rows_by_cells: dict[int, dict[tuple, int]] = {}
        self._lock = threading.Lock()
        #: per piece type, the first type of the same shape (see `equal_types`)
        self.same = equal_types(puzzle)
        if self.n_cells == 0:
            for piece in puzzle.pieces:
                self._add(np.zeros((0, piece.size), np.int64), np.zeros(0, np.int64), None)
            return
        coloured = puzzle.coloured
        grid = puzzle.grid
        turned: list = []
        for t, piece in enumerate(puzzle.pieces):
            colours = puzzle.colour_fit(t) if coloured else None
            if colours is None:
                turned.append((piece_orientations(piece), None, None))  # (orientations, size, 3)
            else:
                pairs = grid.coloured_orientations(piece.cells, colours[1])
                turned.append(
                    (np.stack([c for c, _ in pairs]), np.stack([v for _, v in pairs]), colours)
                )
        lo, hi = target.bounds
        shape = (hi - lo + 1).astype(np.int64)
        # the padding holds every orientation (a turned prism piece is wider than the piece)
        pad = max((int(shapes.max(initial=0)) for shapes, _, _ in turned), default=0) + 1
        dense = int(np.prod((shape + pad).astype(object)))  # Python ints: never overflows
        if dense > max(DENSE_CELLS, DENSE_PER_CELL * self.n_cells):
            # cells far apart: a padded grid would be mostly empty (a two-cell piece a
            # thousand cells long made 8 GB of it), so look each cell up among the target's
            fits = _SparseFits(target.cells, lo, shape, pad).fits
        else:
            fits = _DenseFits(target.cells, lo, shape, pad).fits
        done: dict[bytes, int] = {}  # pieces with the very same cells share their rows
        for t, piece in enumerate(puzzle.pieces):
            shapes, shape_colours, colours = turned[t]
            same_cells = np.asarray(piece.cells, np.int64).tobytes()
            twin = None if coloured else done.setdefault(same_cells, t)
            if twin is not None and twin != t:
                self._add(self.cells[twin], self.orientation[twin], self.offset[twin])
                continue
            if piece.colour_turns:
                self._add_painted(fits, shapes, shape_colours, colours, puzzle)
                continue
            ids_parts, orient_parts, off_parts = [], [], []
            # the fitting starts each shape at its lowest corner; a grid's normalised shape
            # may sit a little above it (its lattice anchor), which the offsets put back
            corner = shapes.min(axis=1)
            for o0, fit, o_idx, offs in fits(shapes - corner[:, None, :]):
                offs = offs - corner[o0 + o_idx]
                # a translation must keep each cell's kind (an upward prism stays upward)
                keep = grid.is_translation(offs)
                if colours is not None:  # every voxel's colour may go where it lands
                    keep &= voxel_colours_fit(
                        puzzle.colour_rules, shape_colours[o0 + o_idx], colours[0][fit]
                    )
                fit, o_idx, offs = fit[keep], o_idx[keep], offs[keep]
                ids_parts.append(fit)
                orient_parts.append(o_idx + o0)
                off_parts.append(offs)
            # Distinct orientations never fill the same cells (the cells are the shape, up to
            # translation), so unlike the model's loop nothing needs deduplicating here.
            ids = np.sort(np.concatenate(ids_parts), axis=1)
            orient = np.concatenate(orient_parts).astype(np.int64)
            self._add(ids, orient, np.concatenate(off_parts))

    def _add(
        self,
        ids: np.ndarray,
        orient: np.ndarray,
        offs: np.ndarray | None,
        painted: np.ndarray | None = None,
    ) -> None:
        self.cells.append(np.ascontiguousarray(ids, np.int64))
        self.orientation.append(orient)
        self.offset.append(offs if offs is not None else np.zeros((len(ids), 3), np.int64))
        self.colours.append(painted)

    def _add_painted(self, fits, shapes, shape_colours, colours, puzzle) -> None:
        """The rows of a piece whose colours tell turns apart: its coloured orientations fill
        the same cells in twos or more, so each row keeps the colour on each cell it fills,
        sorted with the cells (`colours`)."""
        ids_parts, orient_parts, off_parts = [], [], []
        corner = shapes.min(axis=1)
        for o0, fit, o_idx, offs in fits(shapes - corner[:, None, :]):
            offs = offs - corner[o0 + o_idx]
            keep = puzzle.grid.is_translation(offs) & voxel_colours_fit(
                puzzle.colour_rules, shape_colours[o0 + o_idx], colours[0][fit]
            )
            ids_parts.append(fit[keep])
            orient_parts.append(o_idx[keep] + o0)
            off_parts.append(offs[keep])
        ids = np.concatenate(ids_parts)
        orient = np.concatenate(orient_parts).astype(np.int64)
        order = np.argsort(ids, axis=1, kind="stable")
        painted = np.take_along_axis(shape_colours[orient], order, axis=1)
        ids = np.take_along_axis(ids, order, axis=1)
        self._add(ids, orient, np.concatenate(off_parts), np.ascontiguousarray(painted, np.int64))

    def count(self, piece: int) -> int:
        return len(self.cells[piece])

    def placement(self, piece: int, i: int) -> Placement:
        """Row i of piece `piece` as the model's `Placement`."""
        painted = self.colours[piece]
        return Placement(
            piece,
            int(self.orientation[piece][i]),
            tuple(int(v) for v in self.offset[piece][i]),  # type: ignore[arg-type]
            tuple(int(c) for c in self.cells[piece][i]),
            None if painted is None else tuple(int(c) for c in painted[i]),
        )

    def find(
        self, piece: int, cells: Sequence[int], colours: Sequence[int] | None = None
    ) -> Placement:
        """The piece's placement that fills exactly these target cells (sorted), with these
        colours on them when its colours tell turns apart: how a placement found for one of
        several equal pieces is told as another's."""
        with self._lock:
            rows = self._rows_by_cells.get(piece)
            if rows is None:
                keys = [tuple(r) for r in self.cells[piece].tolist()]
                painted = self.colours[piece]
                if painted is not None:
                    keys = [(k, tuple(c)) for k, c in zip(keys, painted.tolist(), strict=True)]
                rows = {k: i for i, k in enumerate(keys)}
                self._rows_by_cells[piece] = rows
        key = tuple(cells) if colours is None else (tuple(cells), tuple(colours))
        return self.placement(piece, rows[key])

    def placements(self, piece: int) -> list[Placement]:
        """Every row of a piece as `Placement`s (made once, on first use)."""
        with self._lock:
            found = self._objects.get(piece)
            if found is None:
                found = [self.placement(piece, i) for i in range(self.count(piece))]
                self._objects[piece] = found
            return found


_shapes: dict[tuple, tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]] = {}
#: the same facts by piece object (weakly held): the shape's key alone costs a normalisation,
#: and counting one figure asks about each of its pieces about four times (issue 25: 0.2 ms
#: of a random Soma figure's 1.9)
_by_piece: dict[int, tuple[weakref.ref, tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]]] = {}


def _shape_facts(piece: Piece) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]:
    """(orientations stacked, shape key, mirror key) of a piece's shape, equal to
    `Piece.orientations`, `shape_key` and `mirror_key` but from one numpy pass over the grid's
    rotations, and kept by shape: a program loading the Soma pieces, or a figure library
    reusing them hundreds of times, computes them once."""
    entry = _by_piece.get(id(piece))
    if entry is not None and entry[0]() is piece:
        return entry[1]
    grid = piece.grid
    cells = grid.normalise(piece.cells)
    key = (grid.name, *cells.ravel().tolist())
    found = _shapes.get(key)
    if found is None:
        if len(_shapes) > 4096:
            _shapes.clear()
        stacked, shape_key = grid.orientation_stack(cells)
        _, mirror_key = grid.orientation_stack(grid.mirror(cells))
        found = _shapes[key] = (stacked, shape_key, mirror_key)
    ident = id(piece)
    _by_piece[ident] = (weakref.ref(piece, lambda _ref: _by_piece.pop(ident, None)), found)
    return found


def piece_orientations(piece: Piece) -> np.ndarray:
    """A piece's orientations as one (orientations, size, 3) array (see `_shape_facts`)."""
    return _shape_facts(piece)[0]


def piece_keys(piece: Piece) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape key, mirror key) of a piece, equal to `Piece.shape_key` and `Piece.mirror_key`;
    for a piece with coloured voxels, keys of the shape with its colours (a red-tipped stick
    and a black-tipped one are different pieces)."""
    if piece.coloured:
        grid = piece.grid
        images, ok = grid.transform_all(piece.cells, mirrors=True)
        mirrored = images[grid.n_rotations + np.flatnonzero(ok[grid.n_rotations :])[0]]
        return _coloured_key(grid, piece.cells, piece.voxel_colours), _coloured_key(
            grid, mirrored, piece.voxel_colours
        )
    _, shape_key, mirror_key = _shape_facts(piece)
    return shape_key, mirror_key


def _coloured_key(grid, cells: np.ndarray, colours) -> tuple[int, ...]:
    """The smallest (cells, colours) key among a coloured shape's orientations."""
    return min(
        tuple(shape.ravel().tolist()) + tuple(values.tolist())
        for shape, values in grid.coloured_orientations(cells, colours)
    )


def equal_types(puzzle: PolycubePuzzle) -> tuple[int, ...]:
    """For each piece type, the first type with the same shape (colours included).

    Two pieces of one shape under different names are one piece with two copies: swapping
    them is no new solution. The matrix therefore has one column for all of them, hit as
    often as their copies add up to; the names stay for display, and a solution hands its
    placements of the shape out to them in order (`PackingProblem`). A puzzle read from
    BurrTools tells its shapes apart (`PolycubePuzzle.equal_pieces_alike` false), as
    BurrTools counts them: every type is then its own."""
    if not puzzle.equal_pieces_alike:
        return tuple(range(len(puzzle.pieces)))
    first: dict[tuple[int, ...], int] = {}
    return tuple(first.setdefault(piece_keys(p)[0], t) for t, p in enumerate(puzzle.pieces))


def row_keys(ids: np.ndarray, wide: bool = False) -> np.ndarray:
    """One sortable, hashable key per row of an integer array (rows of cell indices), so
    numpy's unique and searchsorted can match placements by the cells they fill. `wide`:
    some value may not fit in 31 bits."""
    size = 8 if wide else 4
    ids = np.ascontiguousarray(ids, dtype=f">i{size}")  # big-endian: bytes sort like numbers
    width = ids.shape[-1] * size if ids.ndim else size
    return ids.view(f"V{max(width, 1)}").reshape(ids.shape[:-1]) if width else ids


_tables: dict[int, tuple[weakref.ref, PlacementTable]] = {}
_tables_lock = threading.Lock()


#: The most search state (bytes) a puzzle may need; `ExactCoverSearch` refuses the same.
MAX_SEARCH_BYTES = 1 << 30


def placement_table(puzzle: PolycubePuzzle) -> PlacementTable:
    """The puzzle's placement table, made once per puzzle object (a weak cache: it goes when
    the puzzle goes). Like the model's own placement cache it assumes the puzzle is not
    changed after it was first searched."""
    key = id(puzzle)
    with _tables_lock:
        entry = _tables.get(key)
        if entry is not None and entry[0]() is puzzle:
            return entry[1]
    table = PlacementTable(puzzle)
    with _tables_lock:
        entry = _tables.get(key)
        if entry is not None and entry[0]() is puzzle:
            return entry[1]
        _tables[key] = (weakref.ref(puzzle, lambda _ref, key=key: _tables.pop(key, None)), table)
    return table


def check_size(puzzle: PolycubePuzzle) -> None:
    """Refuse, before anything big is built, a puzzle whose search state cannot fit.

    The engine keeps one array of item sizes per search depth, so its memory grows with
    (pieces placed) × (cells + piece types): 100,000 copies of a piece in a 100,000-cell target
    would need about 40 GiB for that alone. This is a lower bound of what `ExactCoverSearch`
    allocates, which checks the exact figure again."""
    depth = puzzle.n_instances
    items = len(puzzle.target.cells) + len(puzzle.pieces)
    need = depth * items * 4
    if need > MAX_SEARCH_BYTES:
        raise PuzzleError(
            f"too big to search: {depth:,} pieces to place in {len(puzzle.target.cells):,} "
            f"cells would need at least {_gib(need)} of search state (the limit is "
            f"{_gib(MAX_SEARCH_BYTES)})",
            puzzle.source,
        )


def _check_matrix(
    puzzle: PolycubePuzzle,
    table: PlacementTable,
    columns: _Columns,
    only: dict[int, Sequence[Placement]] | None,
) -> None:
    """`check_size` again with the columns and rows known, before the matrix is built: the
    engine's figure (a depth × items block, 8 bytes a row, 16 an entry). 5,000 monocubes
    told apart (a BurrTools file) make 25 million rows: refused here, not after 2.5 GB."""
    rows = entries = 0
    for t in columns.types:
        n = len(only[t]) if only and t in only else table.count(t)
        rows += n
        entries += n * (puzzle.pieces[t].size + 1)
    per_level = columns.n_columns * (4 + (8 if (columns.multiplicity > 1).any() else 0))
    need = (puzzle.n_instances + 2) * per_level + rows * 8 + entries * 16
    if need > MAX_SEARCH_BYTES:
        raise PuzzleError(
            f"too big to search: {rows:,} placements of {puzzle.n_instances:,} pieces in "
            f"{len(puzzle.target.cells):,} cells would need at least {_gib(need)} (the limit "
            f"is {_gib(MAX_SEARCH_BYTES)})",
            puzzle.source,
        )


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


# -- the exact-cover matrix -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CsrRows(Sequence[tuple[int, ...]]):
    """The rows of a matrix held as CSR arrays; reads like a list of column tuples."""

    row_ptr: np.ndarray
    cols: np.ndarray

    def __len__(self) -> int:
        return len(self.row_ptr) - 1

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return tuple(self.cols[self.row_ptr[i] : self.row_ptr[i + 1]].tolist())

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        cols = self.cols.tolist()
        ptr = self.row_ptr.tolist()
        for a, b in zip(ptr[:-1], ptr[1:], strict=True):
            yield tuple(cols[a:b])


@dataclass(frozen=True)
class CsrProblem(ExactCoverProblem):
    """An `ExactCoverProblem` built as CSR arrays: checked and handed to the engine without a
    Python loop over the rows."""

    def __post_init__(self) -> None:
        if not 0 <= self.n_primary <= self.n_columns:
            raise ValueError("n_primary must lie between 0 and n_columns")
        cols = self.rows.cols  # type: ignore[attr-defined]
        if len(cols) and (cols.min() < 0 or cols.max() >= self.n_columns):
            raise ValueError("column out of range")

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        return self.rows.row_ptr, self.rows.cols  # type: ignore[attr-defined]


class _LazyNames(Sequence[str]):
    """Column names, written only when asked for (traces, debugging): a batch never does."""

    def __init__(
        self, puzzle: PolycubePuzzle, cell_cols: np.ndarray, types: dict[int, int], n_columns: int
    ) -> None:
        self._puzzle, self._cells, self._types = puzzle, cell_cols, types
        self._n = n_columns

    @cached_property
    def _names(self) -> list[str]:
        target = self._puzzle.target
        n_req = target.n_required
        names: list[str] = [""] * self._n
        for i, col in enumerate(self._cells.tolist()):
            if col >= 0:
                kind = "cell" if i < n_req else "optional"
                names[col] = f"{kind} {tuple(target.cells[i].tolist())}"
        for t, col in self._types.items():  # pieces of one shape share a column
            name = self._puzzle.pieces[t].name
            names[col] = f"{names[col]}/{name}" if names[col] else f"piece {name}"
        return names

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[override]
        return self._names[i]


class _RowPlacements(Sequence[Placement]):
    """`PackingProblem.placements`: row r's Placement, made on demand from the table."""

    def __init__(self, table: PlacementTable, blocks: list[tuple[int, object]]) -> None:
        # blocks: (piece type, table row indices as an array, or a list of given Placements)
        self._table = table
        self._blocks = blocks
        self._ends = np.cumsum([len(rows) for _, rows in blocks]).tolist()  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, r):  # type: ignore[override]
        if isinstance(r, slice):
            return [self[k] for k in range(*r.indices(len(self)))]
        if r < 0:
            r += len(self)
        if not 0 <= r < len(self):
            raise IndexError(r)
        k = int(np.searchsorted(self._ends, r, side="right"))
        t, rows = self._blocks[k]
        i = r - (self._ends[k - 1] if k else 0)
        if isinstance(rows, np.ndarray):
            return self._table.placements(t)[int(rows[i])]
        return rows[i]  # type: ignore[index]


@dataclass
class _Columns:
    """Where each open target cell and each piece type still to place sits in the matrix."""

    col_of_cell: np.ndarray  # per target cell (-1: filled by a fixed piece), plus a pad slot
    type_col: dict[int, int]
    types: list[int]  # the types still to place: exactly-counted first, then ranged
    n_primary: int
    n_columns: int
    multiplicity: np.ndarray
    lower: np.ndarray
    #: with explicit optional cells: their columns, each covered by its own "left empty" row
    empty_rows: np.ndarray | None


def _columns(
    puzzle: PolycubePuzzle, table: PlacementTable, used: np.ndarray, remaining: list[int]
) -> _Columns:
    """Columns: open required cells, piece types still to place, then open optional cells."""
    n_req = puzzle.target.n_required
    col_of_cell = np.full(len(used) + 1, -1, np.int64)  # the extra slot pads short rows
    open_req = np.flatnonzero(~used[:n_req])
    col_of_cell[open_req] = np.arange(len(open_req))
    # A piece type with a range (min..max copies) is a secondary column with a capacity:
    # hit at most `remaining` times and at least what its minimum still needs. The cells
    # alone decide the search; other types are primary, hit exactly `remaining` times.
    # Pieces of one shape are one type (`equal_types`): its first piece stands for all of
    # them, with their copies, minimums and ranges added up.
    pieces, same = puzzle.pieces, table.same
    left = [0] * len(pieces)
    least = [0] * len(pieces)
    ranged = [False] * len(pieces)
    for t, piece in enumerate(pieces):
        left[same[t]] += remaining[t]
        least[same[t]] += max(0, piece.fewest - (piece.copies - remaining[t]))
        ranged[same[t]] |= piece.ranged
    live = [t for t in range(len(pieces)) if same[t] == t and left[t] > 0]
    exact = [t for t in live if not ranged[t]]
    capped = [t for t in live if ranged[t]]
    open_opt = n_req + np.flatnonzero(~used[n_req:])
    # A capped type that fits inside the optional cells alone could be placed after every
    # required cell is covered, which Algorithm X never does (it stops there). Then each
    # optional cell becomes primary, covered by a piece or by its own "left empty" row.
    explicit = any(
        len(table.cells[t]) and bool((table.cells[t] >= n_req).all(axis=1).any()) for t in capped
    )
    type_col = {t: len(open_req) + k for k, t in enumerate(exact)}
    first_opt = len(open_req) + len(exact)
    n_primary = first_opt + (len(open_opt) if explicit else 0)
    type_col.update({t: n_primary + k for k, t in enumerate(capped)})
    if not explicit:
        first_opt = n_primary + len(capped)
    col_of_cell[open_opt] = first_opt + np.arange(len(open_opt))
    n_columns = n_primary + len(capped) + (0 if explicit else len(open_opt))
    multiplicity = np.ones(n_columns, np.int64)
    lower = np.zeros(n_columns, np.int64)
    for t in exact + capped:
        multiplicity[type_col[t]] = left[t]
    for t in capped:
        lower[type_col[t]] = least[t]
    # every piece of a shape names its type's column, so a symmetry's map of piece types
    # lands on a column whichever of them it names
    type_col.update({t: type_col[same[t]] for t in range(len(pieces)) if same[t] in type_col})
    empty_rows = col_of_cell[open_opt] if explicit else None
    return _Columns(
        col_of_cell, type_col, exact + capped, n_primary, n_columns, multiplicity, lower, empty_rows
    )


def _row_paint(table: PlacementTable, t: int, rows: object, shape: tuple[int, ...]) -> np.ndarray:
    """The colours of type t's rows as a block beside their columns: 0 for the piece's column,
    then the colour on each cell (0 throughout for a piece whose colours tell no turns apart)."""
    block = np.zeros((shape[0], shape[1] + 1), np.int64)
    painted = table.colours[t]
    if painted is None:
        return block
    if isinstance(rows, np.ndarray):
        block[:, 1:] = painted[rows]
    else:
        block[:, 1:] = [p.colours or (0,) * shape[1] for p in rows]  # type: ignore[attr-defined]
    return block


def _candidates(
    table: PlacementTable,
    t: int,
    only: dict[int, Sequence[Placement]] | None,
    used: np.ndarray,
) -> tuple[np.ndarray, object]:
    """Type t's placements that avoid the fixed pieces' cells: their cell indices, and what
    the rows stand for (table row indices as an array, or the given Placements)."""
    any_used = bool(used.any())
    if only and t in only:
        given = list(only[t])
        if any_used:
            given = [p for p in given if not used[list(p.cells)].any()]
        if not given:
            return np.zeros((0, 0), np.int64), given
        return np.array([p.cells for p in given], np.int64), given
    ids = table.cells[t]
    index = np.arange(len(ids))
    if any_used and len(ids):
        index = np.flatnonzero(~used[ids].any(axis=1))
        ids = ids[index]
    return ids, index


class PackingProblem:
    """The exact-cover matrix of a puzzle, remembering what each row means.

    `only` restricts some piece types to a subset of their placements (symmetry breaking,
    hints); `fixed` places pieces before the search starts (a partial assembly).
    """

    def __init__(
        self,
        puzzle: PolycubePuzzle,
        only: dict[int, Sequence[Placement]] | None = None,
        fixed: Sequence[Placement] = (),
    ) -> None:
        check_size(puzzle)
        self.puzzle = puzzle
        table = placement_table(puzzle)
        n_cells = len(puzzle.target.cells)
        used = np.zeros(n_cells, bool)
        remaining = [p.copies for p in puzzle.pieces]
        for placement in fixed:
            used[list(placement.cells)] = True
            remaining[placement.piece] -= 1
        columns = _columns(puzzle, table, used, remaining)
        _check_matrix(puzzle, table, columns, only)
        col_of_cell, type_col = columns.col_of_cell, columns.type_col
        blocks: list[tuple[int, object]] = []
        ptr_parts: list[np.ndarray] = []
        col_parts: list[np.ndarray] = []
        n_rows = 0
        # a piece whose colours tell turns apart has rows with the very same columns: what
        # colour each cell gets tells them apart, for the symmetries (`row_colours`)
        painted = any(table.colours[t] is not None for t in columns.types)
        paint_parts: list[np.ndarray] = []
        for t in columns.types:
            ids, rows = _candidates(table, t, only, used)
            if not len(ids):
                continue
            block = np.empty((len(ids), ids.shape[1] + 1), np.int64)
            block[:, 0] = type_col[t]
            block[:, 1:] = col_of_cell[ids]
            col_parts.append(block.ravel())
            ptr_parts.append(np.full(len(ids), block.shape[1], np.int64))
            blocks.append((t, rows))
            n_rows += len(ids)
            if painted:
                paint_parts.append(_row_paint(table, t, rows, ids.shape).ravel())
        self.n_placement_rows = n_rows
        if columns.empty_rows is not None:  # rows past n_placement_rows leave one cell empty
            col_parts.append(columns.empty_rows)
            ptr_parts.append(np.ones(len(columns.empty_rows), np.int64))
            n_rows += len(columns.empty_rows)
            if painted:
                paint_parts.append(np.zeros(len(columns.empty_rows), np.int64))
        #: Beside each entry of the matrix's CSR columns, the colour the row's piece puts on
        #: that cell (0 on a piece's own column), or None when no piece's colours tell turns
        #: apart (rows are then told apart by their columns alone).
        self.row_colours: np.ndarray | None = (
            (np.concatenate(paint_parts) if paint_parts else np.zeros(0, np.int64))
            if painted
            else None
        )
        lengths = np.concatenate(ptr_parts) if ptr_parts else np.zeros(0, np.int64)
        row_ptr = np.zeros(n_rows + 1, np.int64)
        np.cumsum(lengths, out=row_ptr[1:])
        cols = np.concatenate(col_parts) if col_parts else np.zeros(0, np.int64)
        self._table = table
        self.placements: Sequence[Placement] = _RowPlacements(table, blocks)
        self.fixed = tuple(fixed)
        #: The column of each target cell (-1 when a fixed piece fills it) and of each piece
        #: type still to place: what a symmetry of the puzzle does to the matrix's columns.
        self.cell_columns = col_of_cell[:n_cells]
        self.type_columns = type_col
        self.exact_cover = CsrProblem(
            CsrRows(row_ptr, cols),
            columns.n_primary,
            columns.n_columns,
            columns.multiplicity,
            columns.lower,
            _LazyNames(puzzle, col_of_cell[:n_cells], type_col, columns.n_columns),
        )

    def search(self, trace: bool = False) -> ExactCoverSearch:
        try:
            return ExactCoverSearch(self.exact_cover, trace=trace)
        except PuzzleError as exc:
            raise exc.located(self.puzzle.source) from None

    def solution(self, rows: Sequence[int]) -> PolycubeSolution:
        cells = self.puzzle.target.cells
        real = [r for r in rows if r < self.n_placement_rows]  # not the "left empty" rows
        found = [self.placements[r] for r in real]
        chosen = list(self.fixed) + _hand_out(self.puzzle, self._table, self.fixed, found)
        chosen.sort(key=lambda p: (p.piece, p.cells))
        return PolycubeSolution(
            tuple(PlacedPiece(p.piece, cells[list(p.cells)], p) for p in chosen)
        )

    def describe(self, row: int) -> str:
        """Human words for a trace event's choice."""
        if row >= self.n_placement_rows:
            return "nothing: an optional cell stays empty"
        p = self.placements[row]
        name = self.puzzle.pieces[p.piece].name
        return f"{name} at {p.offset} (orientation {p.orientation})"

    @cached_property
    def row_cells(self) -> list[np.ndarray]:
        cells = self.puzzle.target.cells
        return [cells[list(p.cells)] for p in self.placements]


def _hand_out(
    puzzle: PolycubePuzzle,
    table: PlacementTable,
    fixed: Sequence[Placement],
    found: list[Placement],
) -> list[Placement]:
    """A solution's placements of a shape several pieces share (all found as its first
    piece's, `equal_types`) handed out to those pieces: each first gets the copies its
    minimum still needs, then the rest go in order up to each one's most copies."""
    same = table.same
    if all(same[t] == t for t in range(len(same))):
        return found
    room = [p.copies for p in puzzle.pieces]
    for p in fixed:
        room[p.piece] -= 1
    need = [max(0, p.fewest - (p.copies - room[t])) for t, p in enumerate(puzzle.pieces)]
    members: dict[int, list[int]] = {}
    for t, r in enumerate(same):
        members.setdefault(r, []).append(t)
    out: list[Placement] = []
    by_type: dict[int, list[Placement]] = {}
    for p in sorted(found, key=lambda p: p.cells):
        by_type.setdefault(p.piece, []).append(p)
    for r, placed in by_type.items():
        owners = members.get(r, [r])
        if len(owners) == 1:
            out.extend(placed)
            continue
        order = [t for t in owners for _ in range(need[t])]
        order += [t for t in owners for _ in range(room[t] - need[t])]
        for t, p in zip(order, placed, strict=False):
            out.append(p if t == p.piece else table.find(t, p.cells, p.colours))
    return out


def solutions(
    puzzle: PolycubePuzzle, on_progress: Progress | None = None
) -> Iterator[PolycubeSolution]:
    """Every fixed solution, lazily."""
    problem = PackingProblem(puzzle)
    for rows in problem.search().solutions(on_progress):
        yield problem.solution(rows)
