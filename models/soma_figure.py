"""yass's `.soma` figure files: a Soma figure drawn as layers of characters.

The format is the plain one of the Soma community's figure collections, as yass (Yet Another
Soma Solver) reads it:

* z-layers, **top first**, separated by one or more blank lines; each layer is rows of characters;
* `.` or a space is an empty cell, any other character is a cube of the figure;
* the letters `c p n z t l 3` pre-place that Soma piece on the cells they mark;
* `#` starts a comment that runs to the end of its line; a tab before it is an error (yass:
  "Illegal tab character in file"), a tab inside a comment is not.

The seven Soma pieces are implied; they come from the built-in `soma.toml`, so names and colours
match the rest of Tessera. yass's letters name pieces by shape: `c` the branch (the "corner",
Tessera's A), `p` and `n` the two screws, `z`, `t`, `l` and `3` the flat pieces Z, T, L and V.
Which screw is `p` follows from reading the layers the way they are drawn, looking down on the
figure (first row at the back, first layer on top), which is a right-handed frame.

A pre-placed piece is taken out before the search: its cells leave the target and the piece
leaves the set, so the puzzle is an ordinary `PolycubePuzzle` and every solver and count works
on it unchanged. The loader keeps what was taken out (`SomaFigure.preplaced`) for display.

yass refuses some figures before solving; so does this loader, with yass's reason in one line
(`PuzzleError` with file and line): a tab, a cube count other than 27, a pre-placed piece of the
wrong size or shape, and a separate part that no set of Soma pieces can fill (a line of cubes,
a single cube, or a cube count no sum of piece sizes gives).

Figures of several separate parts are loaded and counted as one figure: Tessera drops rotated
and reflected duplicates of the *whole* figure, yass of each part on its own, so the two counts
differ for such figures. The loader says so in a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from tessera.models import geometry
from tessera.models.errors import PuzzleError
from tessera.models.fileformat import read_text
from tessera.models.polycube import Piece, PolycubePuzzle, Target

#: yass's piece letters and the Soma piece (by its name in soma.toml) each one pre-places.
#: Shapes as drawn in yass's `pieces_preplaced_all` figure, read in this module's frame.
LETTERS: dict[str, str] = {
    "c": "A",  # the branch: three arms from one corner
    "p": "P",  # the screw that yass calls positive
    "n": "B",  # its mirror image
    "z": "Z",
    "t": "T",
    "l": "L",
    "3": "V",
}

#: How many cubes a Soma figure has.
FIGURE_CELLS = 27
#: Refuse files larger than this before parsing them: a figure is 27 cubes, a few hundred bytes.
MAX_BYTES = 1 << 20

_NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@dataclass(frozen=True)
class Preplaced:
    """A Soma piece that the figure file puts in place: its letter, piece and cells."""

    letter: str
    piece: Piece
    cells: np.ndarray  # (n, 3) figure coordinates
    line: int


@dataclass
class SomaFigure(PolycubePuzzle):
    """A figure read from a `.soma` file: a polycube puzzle (what is left to fill, with the
    pieces left to place), plus the pieces the file pre-placed and the figure's separate parts."""

    preplaced: list[Preplaced] = field(default_factory=list)
    parts: int = 1

    @property
    def figure_cells(self) -> np.ndarray:
        """Every cube of the figure, pre-placed ones included."""
        extra = [p.cells for p in self.preplaced]
        return np.vstack([self.target.required, *extra]) if extra else self.target.required


@cache
def soma_pieces() -> tuple[Piece, ...]:
    """The seven Soma pieces of the built-in soma.toml (names, shapes and colours)."""
    from tessera.models.assets import resolve_puzzle
    from tessera.models.polycube import load_polycube

    return tuple(load_polycube(resolve_puzzle("soma")).pieces)


def load_soma(path: str | Path) -> SomaFigure:
    """Read a `.soma` figure. Raises PuzzleError with file and line for what yass refuses."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # read_text names the problem
    if size > MAX_BYTES:
        raise PuzzleError(f"file too large for a Soma figure ({size} bytes)", path)
    return soma_from_text(read_text(path), path)


def soma_from_text(text: str, path: str | Path = "<figure>") -> SomaFigure:
    """A figure from the text of a `.soma` file (see the module docstring for the format)."""
    layers = _layers(text, path)
    cells: dict[tuple[int, int, int], tuple[str, int]] = {}
    n_layers = len(layers)
    depth = max((len(layer) for layer in layers), default=0)
    for k, layer in enumerate(layers):
        for row, (number, line) in enumerate(layer):
            for x, ch in enumerate(line):
                if ch not in ". ":
                    # looking down: first row at the back (high y), first layer on top (high z)
                    cells[(x, depth - 1 - row, n_layers - 1 - k)] = (ch, number)
    if len(cells) != FIGURE_CELLS:
        last = layers[-1][-1][0] if layers else None
        raise PuzzleError(
            f"Bad number of cubicles: {len(cells)} instead of {FIGURE_CELLS}", path, last
        )
    warnings: list[str] = []
    preplaced = _preplaced(cells, path, warnings)
    taken = {tuple(c) for p in preplaced for c in p.cells.tolist()}
    parts = _parts(list(cells))
    for part in parts:  # yass looks at every part's size before any part's shape
        _check_part_size(part, cells, path)
    for part in parts:
        _check_part_shape(part, cells, path)
    required = np.array(sorted(c for c in cells if c not in taken), np.int64).reshape(-1, 3)
    used = {p.piece.name for p in preplaced}
    pieces = [p for p in soma_pieces() if p.name not in used]
    if len(parts) > 1:
        warnings.append(
            f"{path}: the figure has {len(parts)} separate parts; Tessera counts solutions up to "
            "the symmetries of the whole figure, yass up to those of each part"
        )
    return SomaFigure(
        Path(path).stem,
        pieces,
        Target(required),
        source=str(path),
        warnings=warnings,
        preplaced=preplaced,
        parts=len(parts),
    )


def _layers(text: str, path: str | Path) -> list[list[tuple[int, str]]]:
    """The layers, top first, each a list of (line number, row text) with comments removed."""
    layers: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body, hash_, _comment = raw.partition("#")
        if "\t" in body:
            raise PuzzleError("Illegal tab character in file", path, number)
        if hash_ and not body.strip():
            continue  # a comment line neither ends a layer nor adds a row
        row = body.rstrip("\r\n")
        if not row.strip():
            if current:
                layers.append(current)
                current = []
            continue
        current.append((number, row))
    if current:
        layers.append(current)
    return layers


def _preplaced(
    cells: dict[tuple[int, int, int], tuple[str, int]], path, warnings: list[str]
) -> list[Preplaced]:
    """The pieces the letters pre-place, checked against the Soma piece each letter names, in
    the order the letters first appear in the file (the piece yass complains about first)."""
    by_letter: dict[str, list[tuple[int, int, int]]] = {}
    first_line: dict[str, int] = {}
    first_col: dict[str, int] = {}
    for cell, (ch, number) in cells.items():  # in reading order
        if ch in LETTERS and ch not in by_letter:
            first_line[ch], first_col[ch] = number, cell[0]
        if ch in LETTERS:
            by_letter.setdefault(ch, []).append(cell)
    pieces = {p.name: p for p in soma_pieces()}
    out = []
    for letter in sorted(by_letter, key=lambda k: (first_line[k], first_col[k])):
        piece = pieces[LETTERS[letter]]
        found = np.array(sorted(by_letter[letter]), np.int64)
        line = first_line[letter]
        if len(found) != piece.size:
            raise PuzzleError(
                f"Pre-placed piece '{letter}' has {len(found)} cubes instead of correct "
                f"{piece.size}",
                path,
                line,
            )
        if geometry.key(found) not in _orientation_keys(piece.name):
            # yass takes such cells out of the figure with the piece all the same (its count
            # for misshapen_preplace is of that figure), so this is a warning, not an error
            warnings.append(
                f"{path}:{line}: pre-placed piece '{letter}' is not shaped like Soma piece "
                f"{piece.name}; its cells are left out of the figure, as yass does"
            )
        out.append(Preplaced(letter, piece, found, line))
    return out


def _parts(cells: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    """The face-connected parts of the figure."""
    todo = set(cells)
    parts = []
    while todo:
        seed = min(todo)
        todo.remove(seed)
        part, stack = [seed], [seed]
        while stack:
            x, y, z = stack.pop()
            for dx, dy, dz in _NEIGHBOURS:
                n = (x + dx, y + dy, z + dz)
                if n in todo:
                    todo.remove(n)
                    part.append(n)
                    stack.append(n)
        parts.append(part)
    return parts


@cache
def _orientation_keys(name: str) -> frozenset[tuple[int, ...]]:
    """The keys of a Soma piece's 24 orientations: a pre-placed piece has its piece's shape
    when its normalised cells are one of them."""
    piece = next(p for p in soma_pieces() if p.name == name)
    return frozenset(tuple(o.ravel().tolist()) for o in piece.orientations)


@cache
def _fillable_sizes() -> frozenset[int]:
    """Every cube count some subset of the Soma pieces adds up to."""
    sums = {0}
    for piece in soma_pieces():
        sums |= {s + piece.size for s in sums}
    return frozenset(sums - {0})


def _check_part_size(part, cells, path) -> None:
    """Refuse a part whose cube count no subset of the pieces adds up to (yass's reason)."""
    if len(part) not in _fillable_sizes():
        line = min(cells[c][1] for c in part)
        raise PuzzleError("Has child shape with unsolvable number of cubicles", path, line)


def _check_part_shape(part, cells, path) -> None:
    """Refuse a part that is a single cube or a straight line: every Soma piece is bent."""
    arr = np.array(part, np.int64)
    if int(((arr.max(axis=0) - arr.min(axis=0)) > 0).sum()) <= 1:
        line = min(cells[c][1] for c in part)
        raise PuzzleError("Unsolvable one- or zero-dimensional shape or part of shape", path, line)
