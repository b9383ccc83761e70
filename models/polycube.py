"""Polycube puzzles: named pieces of unit cubes and a target shape, and file format 1.

A target has *required* cells (must be filled) and *optional* cells (may stay empty, BurrTools'
"variable" voxels). Pieces carry a number of identical copies; copies are one piece type, never
told apart, which is what makes a strip of twelve dominoes have 233 solutions and not 233·12!.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from tessera.models import geometry
from tessera.models.colours import ColourRules, voxel_colours_fit
from tessera.models.errors import PuzzleError, printable
from tessera.models.fileformat import (
    check_keys,
    check_kind,
    key_line,
    key_lines,
    line_of,
    parse_document,
    read_text,
)
from tessera.models.grids import CUBES, GRIDS, Grid, grid_named

#: Piece colours used when a file gives none: distinct, readable on white and on dark grey.
PALETTE = (
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39",
    "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
)  # fmt: skip


@dataclass(frozen=True)
class Piece:
    """A piece type: its cells (normalised), how many identical copies, an optional colour.

    `copies` is the most copies a solution uses; `min_copies`, when set below it, the fewest
    (BurrTools' piece ranges: "0 to 6 of this stick"). `group` > 0 names pieces that may stay
    joined when the puzzle comes apart (BurrTools' groups: a cage of three pieces).
    `voxel_colours`, when given, is a custom colour per cell (0: the default colour), in the
    order of `cells`: the colour constraints of `models.colours` read it."""

    name: str
    cells: np.ndarray
    copies: int = 1
    color: str | None = None
    min_copies: int | None = None
    group: int = 0
    voxel_colours: np.ndarray | None = None
    #: the lattice the cells live on (BurrTools' five grids; cubes unless a file says)
    grid: Grid = CUBES

    @property
    def coloured(self) -> bool:
        return self.voxel_colours is not None and bool(np.any(self.voxel_colours))

    @cached_property
    def colour_turns(self) -> bool:
        """Whether the colours tell apart turns that fill the same cells (a symmetric shape
        coloured asymmetrically: a domino with one red end). BurrTools counts such turns as
        different placements, so a placement of this piece is its cells *and* the colour on
        each (`Placement.colours`)."""
        return self.coloured and len(
            self.grid.coloured_orientations(self.cells, self.voxel_colours)
        ) != len(self.orientations)

    @property
    def fewest(self) -> int:
        """The fewest copies a solution uses (`copies` unless a range says less)."""
        return self.copies if self.min_copies is None else self.min_copies

    @property
    def ranged(self) -> bool:
        return self.fewest < self.copies

    @property
    def size(self) -> int:
        return len(self.cells)

    @cached_property
    def orientations(self) -> list[np.ndarray]:
        return self.grid.orientations(self.cells)

    @cached_property
    def shape_key(self) -> tuple[int, ...]:
        """Equal for pieces that are the same up to rotation."""
        return self.grid.canonical_key(self.cells)

    @cached_property
    def mirror_key(self) -> tuple[int, ...]:
        return self.grid.canonical_key(self.grid.mirror(self.cells))


@dataclass(frozen=True)
class Target:
    """The shape to fill: required cells, plus optional ones that may stay empty."""

    required: np.ndarray
    optional: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    #: a custom colour per cell of `cells` (required, then optional), or None: all default
    colours: np.ndarray | None = None

    @property
    def coloured(self) -> bool:
        return self.colours is not None and bool(np.any(self.colours))

    @cached_property
    def cells(self) -> np.ndarray:
        """Every cell a piece may occupy: required first, then optional."""
        return np.vstack([self.required, self.optional]).astype(np.int64)

    @cached_property
    def index(self) -> dict[tuple[int, int, int], int]:
        return {tuple(c): i for i, c in enumerate(self.cells.tolist())}

    @property
    def n_required(self) -> int:
        return len(self.required)

    @cached_property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.cells.min(axis=0), self.cells.max(axis=0)


@dataclass(frozen=True)
class Placement:
    """A piece in one orientation at one offset: which target cells it fills.

    For a piece whose colours tell turns apart (`Piece.colour_turns`) two placements may fill
    the same cells with the colours the other way round; `colours` then holds the piece's
    colour on each of `cells` (in that order) and is part of the placement's identity. It is
    None for every other piece, whose cells alone say which placement it is."""

    piece: int
    orientation: int
    offset: tuple[int, int, int]
    cells: tuple[int, ...]  # indices into Target.cells, sorted
    colours: tuple[int, ...] | None = None

    @property
    def identity(self) -> tuple:
        """What tells this placement from the piece's others: its cells, and its colours
        when they matter."""
        return self.cells if self.colours is None else (self.cells, self.colours)


@dataclass
class PolycubePuzzle:
    name: str
    pieces: list[Piece]
    target: Target
    source: str | None = None
    warnings: list[str] = field(default_factory=list)
    kind: str = "polycube"
    colour_rules: ColourRules | None = None
    #: Whether pieces of one shape under different names are one piece with copies (swapping
    #: them is no new solution). BurrTools tells its shapes apart (three monocubes named
    #: apart fill a row of three in 3 ways up to symmetry, `burrTxt` says), so its files
    #: load with False and count as BurrTools does.
    equal_pieces_alike: bool = True
    #: the lattice of the target and every piece (`Piece.grid` says the same)
    grid: Grid = CUBES
    _placement_cache: dict[int, list[Placement]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def coloured(self) -> bool:
        """Whether colours constrain placements: some voxel of a piece or the target has a
        custom colour."""
        return self.target.coloured or any(p.coloured for p in self.pieces)

    def colour_fit(self, piece_index: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(colour per target cell, the piece's colour per cell) when colours constrain this
        puzzle, else None."""
        if not self.coloured:
            return None
        piece = self.pieces[piece_index]
        target = self.target.colours
        if target is None:
            target = np.zeros(len(self.target.cells), np.int64)
        own = piece.voxel_colours
        if own is None:
            own = np.zeros(piece.size, np.int64)
        return np.asarray(target, np.int64), np.asarray(own, np.int64)

    def colour_clashes(self, cells, painted) -> np.ndarray:
        """Per cell, whether the colour rules forbid the piece colour `painted[i]` on target
        cell `cells[i]` (an index into `Target.cells`): the one check of a piece put down by
        hand, shared by hints (`solvers.polycube.hint`) and Play's fit (`models.play`). The
        solver's own placements obey the rules already; a hand's need not."""
        ids = np.asarray(cells, np.int64).reshape(-1)
        if not self.coloured or not len(ids):
            return np.zeros(len(ids), bool)
        target = self.target.colours
        there = np.zeros(len(ids), np.int64) if target is None else np.asarray(target)[ids]
        own = np.asarray(painted, np.int64).reshape(-1)
        return ~voxel_colours_fit(self.colour_rules, own[:, None], there.astype(np.int64)[:, None])

    @property
    def piece_volume(self) -> int:
        return sum(p.size * p.copies for p in self.pieces)

    @property
    def n_instances(self) -> int:
        return sum(p.copies for p in self.pieces)

    def colors(self) -> list[str]:
        """A display colour per piece type: the file's, else the palette's next unused one."""
        used = {p.color.lower() for p in self.pieces if p.color}
        free = iter([c for c in PALETTE if c not in used] + list(PALETTE) * 4)
        return [p.color or next(free) for p in self.pieces]

    def volume_problem(self) -> str | None:
        """Why no solution can exist by counting cells alone, or None."""
        need, room = self.target.n_required, len(self.target.cells)
        most = self.piece_volume
        least = sum(p.size * p.fewest for p in self.pieces)
        if most < need or least > room:
            have = f"{most}" if least == most else f"{least} to {most}"
            return (
                f"no solution possible: the pieces have {have} cells, the target needs "
                f"{need} required + {room - need} optional"
            )
        return None

    def placements(self, piece_index: int) -> list[Placement]:
        """Every way the piece fits inside the target (required ∪ optional cells); computed
        once per piece, since symmetry counting builds one matrix per orbit."""
        cache = self._placement_cache
        if piece_index not in cache:
            cache[piece_index] = _placements(self, piece_index)
        return cache[piece_index]


def _placements(puzzle: PolycubePuzzle, piece_index: int) -> list[Placement]:
    """The plain loop the solver's placement table is checked against. Offsets are those
    that put the orientation's first cell on a target cell (no grid of the bounding box: a
    target of two cells far apart would make it huge), tried in x, y, z order."""
    target = puzzle.target
    index = target.index
    cells_list = target.cells.tolist()
    out: list[Placement] = []
    seen: set[tuple] = set()
    colours = puzzle.colour_fit(piece_index)
    piece = puzzle.pieces[piece_index]
    turns = piece.colour_turns
    if colours is None:
        shapes = [(shape, None) for shape in piece.orientations]
    else:
        shapes = piece.grid.coloured_orientations(piece.cells, colours[1])
    for o, (shape, shape_colours) in enumerate(shapes):
        rel = shape.tolist()
        first = rel[0]
        offsets = sorted({(x - first[0], y - first[1], z - first[2]) for x, y, z in cells_list})
        for dx, dy, dz in offsets:
            if not piece.grid.is_translation((dx, dy, dz)):
                continue
            found = [index.get((x + dx, y + dy, z + dz)) for x, y, z in rel]
            if None in found:
                continue
            ids = np.array(found, np.int64)
            if colours is not None and not voxel_colours_fit(
                puzzle.colour_rules, shape_colours, colours[0][ids]
            ):
                continue
            if turns:  # the same cells may be filled coloured another way round
                order = np.argsort(ids, kind="stable")
                cells = tuple(ids[order].tolist())
                painted = tuple(shape_colours[order].tolist())
                key: tuple = (cells, painted)
            else:
                key = cells = tuple(sorted(found))  # type: ignore[type-var]
                painted = None
            if key in seen:
                continue
            seen.add(key)
            offset = (dx, dy, dz)
            out.append(Placement(piece_index, o, offset, cells, painted))  # type: ignore[arg-type]
    return out


# -- file format 1 ---------------------------------------------------------------------------

TOP_KEYS = {
    "kind", "name", "format", "grid", "pieces", "target", "description", "author", "colours",
}  # fmt: skip
COLOUR_KEYS = {"allow", "palette"}
#: Custom colour numbers go up to this (BurrTools files use a handful).
MAX_COLOUR = 999
#: Coordinates beyond this are refused: no real puzzle is that large, and the solver sizes its
#: grids by the bounding box (numpy's int64 would overflow long before memory ran out).
MAX_COORDINATE = 10_000
#: The most cells a shape, or all the pieces with their copies, may have: past this nothing
#: can be searched, and refusing costs less than reading on.
MAX_CELLS = 1_000_000
PIECE_KEYS = {
    "cells", "layers", "copies", "min", "max", "group", "color", "colour", "voxel_colours",
}  # fmt: skip
TARGET_KEYS = {"cells", "optional", "layers", "voxel_colours"}


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1_000_000


def _read_copies(
    table: dict, pname: str, text: str, path: str | Path, pline: int | None
) -> tuple[int, int | None]:
    """(most copies, fewest or None) from `copies = k`, or `min = a` and `max = b`."""
    where = (pline or 1) - 1
    if "copies" in table and ("min" in table or "max" in table):
        raise PuzzleError(
            f"piece '{pname}': give copies, or min and max, not both",
            path,
            line_of(text, "copies", after=where),
        )
    if "min" in table or "max" in table:
        low, high = table.get("min", 0), table.get("max")
        for key, value in (("min", low), ("max", high)):
            if not _is_count(value):
                raise PuzzleError(
                    f"piece '{pname}': {key} must be a whole number ≥ 0, not {printable(value)}",
                    path,
                    line_of(text, key, after=where),
                )
        if high < 1 or low > high:
            raise PuzzleError(
                f"piece '{pname}': need 0 ≤ min ≤ max and max ≥ 1 (min {low}, max {high})",
                path,
                line_of(text, "max", after=where),
            )
        return high, (low if low < high else None)
    copies = table.get("copies", 1)
    if not _is_count(copies) or copies < 1:
        raise PuzzleError(
            f"piece '{pname}': copies must be a whole number ≥ 1, not {printable(copies)}",
            path,
            line_of(text, "copies", after=where),
        )
    return copies, None


def load_polycube(path: str | Path) -> PolycubePuzzle:
    """Read a format-1 puzzle (TOML or JSON). Raises PuzzleError with file and line."""
    text = read_text(path)
    data = parse_document(text, path)
    return polycube_from_dict(data, text, path)


def polycube_from_dict(data: dict[str, Any], text: str, path: str | Path) -> PolycubePuzzle:
    check_keys(data, TOP_KEYS, "the puzzle", text, path)
    check_kind(data, "polycube", text, path)
    fmt = data.get("format", 1)
    if fmt != 1:
        raise PuzzleError(
            f"unsupported format {printable(fmt)} (this is format 1)", path, line_of(text, "format")
        )
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str):
        raise PuzzleError("name must be a string", path, line_of(text, "name"))
    raw_pieces = data.get("pieces")
    if not isinstance(raw_pieces, dict) or not raw_pieces:
        raise PuzzleError(
            "no pieces: add a [pieces.NAME] table", path, line_of(text, "pieces") or 1
        )
    grid = _read_grid(data, text, path)
    warnings: list[str] = []
    pieces = []
    lines = key_lines(text)  # one pass: thousands of pieces must not reread the file each
    total = 0
    for pname, table in raw_pieces.items():
        pline = lines.get(f"pieces.{pname}") or lines.get(str(pname))
        if not isinstance(table, dict):
            raise PuzzleError(f"piece '{pname}' must be a table", path, pline)
        check_keys(table, PIECE_KEYS, f"piece '{pname}'", text, path)
        cells = _read_shape(
            table, f"piece '{pname}'", text, path, pline, allow_optional=False, grid=grid
        )[0]
        if len(cells) == 0:
            raise PuzzleError(f"piece '{pname}' has no cells", path, pline)
        copies, fewest = _read_copies(table, str(pname), text, path, pline)
        total += len(cells) * copies
        if total > MAX_CELLS:
            raise PuzzleError(
                f"the pieces have more than {MAX_CELLS:,} cells in all (copies counted)",
                path,
                pline,
            )
        group = table.get("group", 0)
        if not _is_count(group):
            raise PuzzleError(
                f"piece '{pname}': group must be a whole number ≥ 0, not {printable(group)}",
                path,
                line_of(text, "group", after=(pline or 1) - 1),
            )
        color = table.get("color", table.get("colour"))
        if color is not None and not _is_hex_colour(color):
            raise PuzzleError(
                f"piece '{pname}': color must look like '#rrggbb', not {printable(color)}",
                path,
                line_of(text, "color", after=(pline or 1) - 1),
            )
        if not grid.is_connected(cells):
            warnings.append(f"{path}:{pline}: piece '{pname}' is not connected")
        voxels = _read_voxel_colours(table, cells, f"piece '{pname}'", text, path, pline)
        cells, voxels = grid.normalise_with(cells, voxels)
        piece = Piece(
            str(pname), cells, copies, color, fewest, group, voxels if voxels.any() else None, grid
        )
        pieces.append(piece)
    raw_target = data.get("target")
    tline = line_of(text, "target")
    if not isinstance(raw_target, dict):
        raise PuzzleError("no target: add a [target] table", path, tline or 1)
    check_keys(raw_target, TARGET_KEYS, "the target", text, path)
    required, optional = _read_shape(raw_target, "the target", text, path, tline, True, grid)
    if len(required) == 0:
        raise PuzzleError("the target has no required cells", path, tline)
    both = np.vstack([required, optional]).astype(np.int64)
    target_colours = _read_voxel_colours(raw_target, both, "the target", text, path, tline)
    return PolycubePuzzle(
        name,
        pieces,
        Target(required, optional, target_colours if target_colours.any() else None),
        source=str(path),
        warnings=warnings,
        colour_rules=_read_colour_rules(data, text, path),
        grid=grid,
    )


def _read_grid(data: dict, text: str, path) -> Grid:
    """`grid = "spheres"`: the lattice the cells are on (cubes when the key is absent)."""
    name = data.get("grid", CUBES.name)
    try:
        if not isinstance(name, str):
            raise KeyError(name)
        return grid_named(name)
    except KeyError:
        names = ", ".join(g.name for g in GRIDS)
        raise PuzzleError(
            f"unknown grid {printable(name)} (known: {names})", path, key_line(text, "grid")
        ) from None


def _read_voxel_colours(table, cells: np.ndarray, what, text, path, line) -> np.ndarray:
    """A custom colour per cell from `voxel_colours = [[x, y, z, colour], ...]` (cells not
    listed keep the default colour 0), in the order of `cells`."""
    out = np.zeros(len(cells), np.int64)
    raw = table.get("voxel_colours")
    if raw is None:
        return out
    where = line_of(text, "voxel_colours", after=(line or 1) - 1) or line
    if not isinstance(raw, list):
        raise PuzzleError(f"{what}: voxel_colours must be a list of [x, y, z, colour]", path, where)
    index = {tuple(c): i for i, c in enumerate(np.asarray(cells).tolist())}
    for entry in raw:
        if not (
            isinstance(entry, list)
            and len(entry) == 4
            and all(isinstance(v, int) and not isinstance(v, bool) for v in entry)
        ):
            raise PuzzleError(
                f"{what}: each voxel colour is [x, y, z, colour], not {printable(entry)}",
                path,
                where,
            )
        cell, colour = tuple(entry[:3]), entry[3]
        if cell not in index:
            raise PuzzleError(
                f"{what}: voxel colour for {list(cell)}, not one of its cells", path, where
            )
        if not 0 <= colour <= MAX_COLOUR:
            raise PuzzleError(f"{what}: colour {colour} is not in 0..{MAX_COLOUR}", path, where)
        out[index[cell]] = colour
    return out


def _read_colour_rules(data: dict, text: str, path) -> ColourRules | None:
    """`[colours]`: `allow = [[piece colour, target colour], ...]` and an optional display
    `palette = ["#rrggbb", ...]` (colour k is palette[k - 1])."""
    raw = data.get("colours")
    if raw is None:
        return None
    where = line_of(text, "colours")
    if not isinstance(raw, dict):
        raise PuzzleError("colours must be a table with allow and palette", path, where)
    check_keys(raw, COLOUR_KEYS, "colours", text, path)
    allow = raw.get("allow", [])
    aline = line_of(text, "allow", after=(where or 1) - 1) or where
    if not isinstance(allow, list):
        raise PuzzleError(
            "colours.allow must be a list of [piece colour, target colour]", path, aline
        )
    pairs = set()
    for pair in allow:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and all(_is_count(v) and 1 <= v <= MAX_COLOUR for v in pair)
        ):
            raise PuzzleError(
                f"colours.allow: each entry is [piece colour, target colour] with colours "
                f"1..{MAX_COLOUR}, not {printable(pair)}",
                path,
                aline,
            )
        pairs.add((pair[0], pair[1]))
    palette = raw.get("palette", [])
    pline = line_of(text, "palette", after=(where or 1) - 1) or where
    if not isinstance(palette, list) or not all(_is_hex_colour(c) for c in palette):
        raise PuzzleError("colours.palette must be a list of '#rrggbb' strings", path, pline)
    return ColourRules(frozenset(pairs), tuple(palette))


def _is_hex_colour(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 7 or value[0] != "#":
        return False
    try:
        int(value[1:], 16)
    except ValueError:
        return False
    return True


def _read_shape(table, what, text, path, line, allow_optional, grid: Grid = CUBES):
    """Cells from `cells = [[x,y,z], ...]` (+ `optional`) or from `layers` (cubes only: a
    drawing of rows and columns is a drawing of cubes), each a cell of `grid`."""
    if "layers" in table and "cells" in table:
        raise PuzzleError(f"{what}: give either cells or layers, not both", path, line)
    if "layers" in table:
        if not grid.is_cubic:
            raise PuzzleError(
                f"{what}: layers draw cubes; on the {grid.name} grid give cells = [[x, y, z], ...]",
                path,
                line_of(text, "layers", after=(line or 1) - 1) or line,
            )
        return _read_layers(table["layers"], what, text, path, line, allow_optional)
    if "cells" not in table:
        raise PuzzleError(f"{what} has no cells (give cells = [...] or layers = [...])", path, line)
    required = _read_cell_list(table["cells"], what, text, path, line, grid)
    optional = np.zeros((0, 3), np.int64)
    if "optional" in table:
        optional = _read_cell_list(table["optional"], what + " (optional)", text, path, line, grid)
        overlap = {tuple(c) for c in required.tolist()} & {tuple(c) for c in optional.tolist()}
        if overlap:
            raise PuzzleError(
                f"{what}: cell {list(min(overlap))} is both required and optional", path, line
            )
    return required, optional


def _read_cell_list(value, what, text, path, line, grid: Grid = CUBES) -> np.ndarray:
    if not isinstance(value, list):
        raise PuzzleError(f"{what}: cells must be a list of [x, y, z]", path, line)
    if len(value) > MAX_CELLS:
        raise PuzzleError(f"{what}: more than {MAX_CELLS:,} cells", path, line)
    seen: set[tuple[int, ...]] = set()
    out = []
    for cell in value:
        if (
            not isinstance(cell, list)
            or len(cell) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
        ):
            raise PuzzleError(
                f"{what}: cell {printable(cell)} is not three integer coordinates",
                path,
                _cell_line(text, cell, line),
            )
        if any(abs(v) > MAX_COORDINATE for v in cell):
            raise PuzzleError(
                f"{what}: cell {printable(cell)} lies beyond ±{MAX_COORDINATE}",
                path,
                _cell_line(text, cell, line),
            )
        t = tuple(cell)
        if t in seen:
            raise PuzzleError(
                f"{what}: duplicate cell {list(t)}", path, _cell_line(text, cell, line)
            )
        seen.add(t)
        out.append(t)
    cells = np.array(out, np.int64).reshape(-1, 3)
    off = np.flatnonzero(~grid.valid(cells))
    if len(off):
        cell = cells[off[0]].tolist()
        raise PuzzleError(
            f"{what}: {cell} is not a cell of the {grid.name} grid",
            path,
            _cell_line(text, cell, line),
        )
    return cells


def _cell_line(text: str, cell: Any, fallback: int | None) -> int | None:
    """The line where a cell literal like [1, 2.5, 0] is written, for error messages."""
    if isinstance(cell, list) and len(cell) <= 8:
        parts = [re.escape(str(v)) for v in cell]
        pattern = re.compile(r"\[\s*" + r"\s*,\s*".join(parts) + r"\s*\]")
        for number, row in enumerate(text.splitlines(), start=1):
            if fallback and number < fallback:
                continue
            if pattern.search(row):
                return number
    return fallback


def _read_layers(layers, what, text, path, line, allow_optional):
    """layers[z][y][x]: '#' a cell, '+' an optional cell (targets only), '.' or ' ' none."""
    if not isinstance(layers, list) or not all(isinstance(layer, list) for layer in layers):
        raise PuzzleError(
            f"{what}: layers must be a list of layers, each a list of rows", path, line
        )
    if sum(len(row) for layer in layers for row in layer if isinstance(row, str)) > MAX_CELLS:
        raise PuzzleError(f"{what}: layers of more than {MAX_CELLS:,} places", path, line)
    required, optional = [], []
    for z, layer in enumerate(layers):
        for y, row in enumerate(layer):
            if not isinstance(row, str):
                raise PuzzleError(f"{what}: layer rows must be strings like '##.'", path, line)
            for x, ch in enumerate(row):
                if ch == "#":
                    required.append((x, y, z))
                elif ch == "+" and allow_optional:
                    optional.append((x, y, z))
                elif ch not in ". ":
                    allowed = "'#', '+' or '.'" if allow_optional else "'#' or '.'"
                    raise PuzzleError(
                        f"{what}: unexpected character {ch!r} in layer row"
                        f" {printable(row)} (use {allowed})",
                        path,
                        line_of(text, f'"{row}"') or line,
                    )
    return np.array(required, np.int64).reshape(-1, 3), np.array(optional, np.int64).reshape(-1, 3)


def layers_text(cells: np.ndarray, mark: str = "#") -> list[list[str]]:
    """The inverse of layers: a shape as layers[z][y][x] strings (for writing files)."""
    cells = geometry.normalise(cells)
    hi = cells.max(axis=0)
    grid = [[["."] * (hi[0] + 1) for _ in range(hi[1] + 1)] for _ in range(hi[2] + 1)]
    for x, y, z in cells.tolist():
        grid[z][y][x] = mark
    return [["".join(row) for row in layer] for layer in grid]
