"""Which STL files a set of pieces becomes, and writing them: one mechanism for everyone.

`tessera stl` and the window's File ▸ Export STL both go through `piece_parts` and
`write_part`, so a file saved from the window is byte for byte the file the command writes for
the same pieces, sizes and gap (names, headers, copies numbered the same way).

Every file is written atomically (`models/atomic.py`); `write_parts` writes a whole folder that
appears complete or not at all, so a print job never picks up half a set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tessera.models.atomic import atomic_dir, atomic_path
from tessera.models.errors import PuzzleError
from tessera.models.grids import CUBES, Grid
from tessera.models.mesh import piece_surface, volume, write_stl
from tessera.models.polycube import PolycubePuzzle


@dataclass(frozen=True)
class Part:
    """One file's worth: a piece instance (or the whole assembly) and where it goes."""

    filename: str
    label: str
    cells: list[np.ndarray]  # one cell array per closed shell
    name: str
    grid: Grid = CUBES  # what the cells are: each grid's solids (`models.grids.surface`)


def safe_stem(name: str) -> str:
    """A file name from a piece name: letters, digits, '.', '_' and '-' only."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return stem or "piece"


def unique_filename(stem: str, taken: set[str]) -> str:
    """`stem.stl`, or `stem-2.stl`, ...: never two files differing only in case."""
    candidate, n = f"{stem}.stl", 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{stem}-{n}.stl"
    taken.add(candidate.lower())
    return candidate


def piece_parts(
    puzzle: PolycubePuzzle,
    instances: Sequence[tuple[int, np.ndarray]] | None = None,
    assembly: tuple[str, str] | None = None,
) -> list[Part]:
    """One part per piece instance, then (with `assembly = (file stem, label)`) all of them
    together as one file.

    `instances` are (piece type, cells) where each piece sits (a solution, or Play mode's
    table); None means every piece at its own cells, copies repeated."""
    if instances is None:
        instances = [(t, p.cells) for t, p in enumerate(puzzle.pieces) for _ in range(p.copies)]
    taken: set[str] = set()
    out: list[Part] = []
    seen: dict[int, int] = {}
    for t, cells in instances:
        piece = puzzle.pieces[t]
        seen[t] = seen.get(t, 0) + 1
        stem, label = safe_stem(piece.name), piece.name
        if piece.copies > 1:
            stem, label = f"{stem}-{seen[t]}", f"{piece.name} {seen[t]}"
        out.append(
            Part(
                unique_filename(stem, taken), label, [cells], f"{puzzle.name} {label}", puzzle.grid
            )
        )
    if assembly is not None:
        stem, label = assembly
        out.append(
            Part(
                unique_filename(stem, taken),
                label,
                [np.asarray(cells) for _, cells in instances],
                f"{puzzle.name} {label}",
                puzzle.grid,
            )
        )
    return out


def _write_stl(part: Part, path: Path, cell_mm: float, gap_mm: float) -> tuple[int, float]:
    vertices, triangles = [], []
    base = 0
    for cells in part.cells:
        v, t = piece_surface(cells, gap=gap_mm, cell_size=cell_mm, grid=part.grid)
        vertices.append(v)
        triangles.append(t + base)
        base += len(v)
    v, t = np.vstack(vertices), np.vstack(triangles)
    write_stl(path, v, t, part.name)
    return len(t), volume(v, t)


def write_part(part: Part, folder: Path, cell_mm: float, gap_mm: float) -> tuple[int, float]:
    """Write one STL atomically; returns (triangles, volume in mm³). Each shell is closed on
    its own."""
    with atomic_path(Path(folder) / part.filename) as tmp:
        return _write_stl(part, tmp, cell_mm, gap_mm)


def check_replaceable(folder: Path) -> None:
    """Refuse to replace a folder that holds anything but STL files: `write_parts` swaps the
    whole folder, and a user's other files must never go with it."""
    if not folder.is_dir():
        return
    try:
        here = Path.cwd().resolve()
    except OSError:  # the current folder was deleted: it cannot be this one
        here = None
    if here is not None and here.is_relative_to(folder.resolve()):
        raise PuzzleError("is the current folder (or holds it); choose a new folder", folder)
    others = sorted(
        p.name for p in folder.iterdir() if p.suffix.lower() != ".stl" or not p.is_file()
    )
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise PuzzleError(
            f"holds files that are not STL ({shown}); choose a new or empty folder", folder
        )


def write_parts(
    parts: Sequence[Part], folder: str | Path, cell_mm: float, gap_mm: float
) -> list[tuple[Part, int, float]]:
    """Write every part into `folder` as one unit: a temporary sibling folder is filled, then
    renamed over `folder` (an old export there is replaced whole, never mixed with the new).
    Returns (part, triangles, volume in mm³) for each."""
    folder = Path(folder)
    check_replaceable(folder)
    written = []
    with atomic_dir(folder) as tmp:
        for part in parts:
            n, vol = _write_stl(part, tmp / part.filename, cell_mm, gap_mm)
            written.append((part, n, vol))
    return written
