"""`tessera stl`: every piece of a polycube puzzle as an STL file, ready to print.

One file per piece (copies numbered), each a closed surface; `--gap-mm` shrinks every piece
by half the gap on each outer face so printed pieces slide together. With `--solution K` the
pieces keep their places in distinct solution K (number as `tessera solve` lists them), so a
slicer that loads all files at once shows the assembly; `--assembly` also writes that whole
solution as one file.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cli.polycube import load_any_polycube
from models.errors import NoSolution, PuzzleError
from models.mesh import piece_surface, volume, write_stl
from models.polycube import PolycubePuzzle
from solvers.polycube import PolycubeSolution
from solvers.polycube_identify import SolutionIndex


def register(sub: argparse._SubParsersAction) -> None:
    stl = sub.add_parser(
        "stl",
        help="export a polycube puzzle's pieces as STL files",
        description="Write one binary STL file per piece (copies numbered) into DIR, sized "
        "for printing: --cell-mm per unit cube, --gap-mm between pieces for a real fit.",
    )
    stl.add_argument("puzzle", help="file or built-in name")
    stl.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
    stl.add_argument(
        "--cell-mm", type=float, default=20.0, metavar="MM", help="cube edge (default 20)"
    )
    stl.add_argument(
        "--gap-mm",
        type=float,
        default=0.0,
        metavar="MM",
        help="clearance between neighbouring pieces: each shrinks by half of it (default 0)",
    )
    stl.add_argument(
        "--solution",
        type=int,
        metavar="K",
        help="place the pieces as in distinct solution K (1 = the first 'tessera solve' lists)",
    )
    stl.add_argument(
        "--assembly",
        action="store_true",
        help="also write the assembled solution (K, default 1) as one file",
    )
    stl.add_argument("--problem", type=int, default=1, metavar="K", help=".xmpuzzle problem")
    stl.set_defaults(func=run_stl)


@dataclass(frozen=True)
class Part:
    """One file's worth: a piece instance (or the whole assembly) and where it goes."""

    filename: str
    label: str
    cells: list[np.ndarray]  # one cell array per closed shell
    name: str


def safe_stem(name: str) -> str:
    """A file name from a piece name: letters, digits, '.', '_' and '-' only."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    return stem or "piece"


def _unique(stem: str, taken: set[str]) -> str:
    """`stem.stl`, or `stem-2.stl`, ...: never two files differing only in case."""
    candidate, n = f"{stem}.stl", 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{stem}-{n}.stl"
    taken.add(candidate.lower())
    return candidate


def parts(
    puzzle: PolycubePuzzle, solution: PolycubeSolution | None, number: int | None, assembly: bool
) -> list[Part]:
    """What to write: each piece instance (at its place in `solution`, if given), then the
    assembly."""
    taken: set[str] = set()
    out: list[Part] = []
    if solution is not None:
        instances = [(placed.piece, placed.cells) for placed in solution.pieces]
    else:
        instances = [(t, p.cells) for t, p in enumerate(puzzle.pieces) for _ in range(p.copies)]
    seen: dict[int, int] = {}
    for t, cells in instances:
        piece = puzzle.pieces[t]
        seen[t] = seen.get(t, 0) + 1
        stem, label = safe_stem(piece.name), piece.name
        if piece.copies > 1:
            stem, label = f"{stem}-{seen[t]}", f"{piece.name} {seen[t]}"
        out.append(Part(_unique(stem, taken), label, [cells], f"{puzzle.name} {label}"))
    if assembly and solution is not None:
        out.append(
            Part(
                _unique(f"assembly-{number}", taken),
                f"solution {number}",
                [placed.cells for placed in solution.pieces],
                f"{puzzle.name} solution {number}",
            )
        )
    return out


def write_part(part: Part, folder: Path, cell_mm: float, gap_mm: float) -> tuple[int, float]:
    """Write one STL; returns (triangles, volume in mm³)."""
    vertices, triangles = [], []
    base = 0
    for cells in part.cells:
        v, t = piece_surface(cells, gap=gap_mm, cell_size=cell_mm)
        vertices.append(v)
        triangles.append(t + base)
        base += len(v)
    v, t = np.vstack(vertices), np.vstack(triangles)
    write_stl(folder / part.filename, v, t, part.name)
    return len(t), volume(v, t)


def run_stl(args: argparse.Namespace) -> int:
    if not args.cell_mm > 0:
        raise PuzzleError(f"--cell-mm must be positive, not {args.cell_mm:g}")
    if not 0 <= args.gap_mm < args.cell_mm:
        raise PuzzleError(
            f"--gap-mm must be at least 0 and less than --cell-mm ({args.cell_mm:g}), "
            f"not {args.gap_mm:g}"
        )
    if args.solution is not None and args.solution < 1:
        raise PuzzleError(f"--solution counts from 1, not {args.solution}")
    puzzle = load_any_polycube(args.puzzle, args.problem)
    solution, number = None, None
    if args.solution is not None or args.assembly:
        number = args.solution or 1
        reason = puzzle.volume_problem()
        if reason:
            raise NoSolution(reason)
        index = SolutionIndex(puzzle)
        solution = index.solution(number)
        if solution is None:
            if not index.solutions:
                raise NoSolution("no solution")
            raise PuzzleError(
                f"--solution {number}: the puzzle has only {len(index.solutions)} distinct "
                "solutions"
            )
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PuzzleError("exists and is not a folder", folder) from None
    except OSError as exc:
        raise PuzzleError(exc.strerror or str(exc), folder) from None
    for part in parts(puzzle, solution, number, args.assembly):
        try:
            n, vol = write_part(part, folder, args.cell_mm, args.gap_mm)
        except OSError as exc:
            raise PuzzleError(exc.strerror or str(exc), folder / part.filename) from None
        cells = sum(len(c) for c in part.cells)
        print(
            f"{folder / part.filename}: {part.label}, {cells} cells, {n} triangles, "
            f"{vol / 1000:.1f} cm³"
        )
    return 0
