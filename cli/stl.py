"""`tessera stl`: every piece of a polycube puzzle as an STL file, ready to print.

One file per piece (copies numbered), each a closed surface of the grid's real solids (cubes,
triangular prisms, balls joined by short necks where they touch, the rhombic and tetra-octa
grids' tetrahedra); `--gap-mm` shrinks every piece by half the gap on each outer face so
printed pieces slide together (on the grids that can: cubes and balls). With `--solution K` the
pieces keep their places in distinct solution K (number as `tessera solve` lists them), so a
slicer that loads all files at once shows the assembly; `--assembly` also writes that whole
solution as one file.

The folder is written as a unit (`models/stl_export.write_parts`): it appears complete or not
at all, and an earlier export in it is replaced whole.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tessera.cli.output import check_writable, writing
from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.registry import load_puzzle

if TYPE_CHECKING:  # numpy loads with the command, not for --help
    from tessera.models.polycube import PolycubePuzzle
    from tessera.models.stl_export import Part
    from tessera.solvers.polycube.packing import PolycubeSolution


#: A printable cell is at most a metre: past that the numbers are a typo, and at 1e308 mm the
#: facets overflow to infinity.
MAX_CELL_MM = 1000.0
#: One file a piece copy: a puzzle with more is no set to print, and the folder would fill up.
MAX_FILES = 1000


def register(sub: argparse._SubParsersAction) -> None:
    stl = sub.add_parser(
        "stl",
        help="export a polycube puzzle's pieces as STL files",
        description="Write one binary STL file per piece (copies numbered) into DIR, sized "
        "for printing: --cell-mm per grid unit (a cube's edge; a prism's side and height; a "
        "ball's diameter; the cube the rhombic and tetra-octa grids cut up), --gap-mm between "
        "pieces for a real fit.",
    )
    stl.add_argument("puzzle", help="file or built-in name")
    stl.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
    stl.add_argument(
        "--cell-mm",
        type=float,
        default=20.0,
        metavar="MM",
        help="grid unit, e.g. a cube's edge (default 20)",
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


def parts(
    puzzle: PolycubePuzzle, solution: PolycubeSolution | None, number: int | None, assembly: bool
) -> list[Part]:
    """What to write: each piece instance (at its place in `solution`, if given), then the
    assembly (models/stl_export.py, shared with the window's File ▸ Export STL)."""
    from tessera.models.stl_export import piece_parts

    instances = None if solution is None else [(p.piece, p.cells) for p in solution.pieces]
    whole = None
    if assembly and solution is not None:
        whole = (f"assembly-{number}", f"solution {number}")
    return piece_parts(puzzle, instances, whole)


def prepare_folder(folder: Path) -> None:
    """Everything that can be wrong with the output folder, found before any solving. Its
    parent must exist, as for every export (`cli.output.check_parent`): the folder itself is
    made (or replaced whole), missing folders above it are not."""
    from tessera.models.stl_export import check_replaceable

    if folder.exists() and not folder.is_dir():
        raise PuzzleError("exists and is not a folder", folder)
    with writing(folder):
        check_replaceable(folder)
    check_writable(folder, folder=True)


def run_stl(args: argparse.Namespace) -> int:
    if not args.cell_mm > 0:
        raise PuzzleError(f"--cell-mm must be positive, not {args.cell_mm:g}")
    if not args.cell_mm <= MAX_CELL_MM:  # (also refuses inf and nan)
        raise PuzzleError(f"--cell-mm must be at most {MAX_CELL_MM:g}, not {args.cell_mm:g}")
    if not 0 <= args.gap_mm < args.cell_mm:
        raise PuzzleError(
            f"--gap-mm must be at least 0 and less than --cell-mm ({args.cell_mm:g}), "
            f"not {args.gap_mm:g}"
        )
    if args.solution is not None and args.solution < 1:
        raise PuzzleError(f"--solution counts from 1, not {args.solution}")
    folder = Path(args.out)
    puzzle = load_puzzle(args.puzzle, "polycube", problem=args.problem)
    if args.gap_mm > 0:
        from tessera.models.grids.surface import can_shrink

        if not can_shrink(puzzle.grid):
            raise PuzzleError(
                f"--gap-mm is not available on the {puzzle.grid.title} grid yet; leave it at 0"
            )
    files = sum(piece.copies for piece in puzzle.pieces) + bool(args.assembly)
    if files > MAX_FILES:
        raise PuzzleError(
            f"would write {files:,} STL files, one a piece copy; the limit is {MAX_FILES:,}"
        )
    prepare_folder(folder)
    solution, number = None, None
    if args.solution is not None or args.assembly:
        number = args.solution or 1
        reason = puzzle.volume_problem()
        if reason:
            raise NoSolution(reason)
        from tessera.solvers.polycube.identify import SolutionIndex

        index = SolutionIndex(puzzle)
        solution = index.solution(number)
        if solution is None:
            if not index.solutions:
                raise NoSolution("no solution")
            raise PuzzleError(
                f"--solution {number}: the puzzle has only {len(index.solutions)} distinct "
                "solutions"
            )
    from tessera.models.stl_export import write_parts

    with writing(folder):
        written = write_parts(
            parts(puzzle, solution, number, args.assembly), folder, args.cell_mm, args.gap_mm
        )
    for part, n, vol in written:
        cells = sum(len(c) for c in part.cells)
        print(
            f"{folder / part.filename}: {part.label}, {cells} cells, {n} triangles, "
            f"{vol / 1000:.1f} cm³"
        )
    return 0
