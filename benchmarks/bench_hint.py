"""Issue 7's speed goals, each beside a reference in the same process:

* hints on the Soma cube must answer within a second: `hint()` (matrix build + our engine,
  first completion) against xcover's Algorithm C on the very same reduced matrix, over the
  empty cube, partial assemblies taken from solutions (completable) and every single placement
  of every piece (many of them impossible: those need the whole subtree searched);
* piece surfaces for the viewer (a Soma piece under 1 ms, 1000 cells under 50 ms):
  `models.mesh.piece_surface` against PyVista's voxel route (cells as an image, threshold,
  extract_surface, clean), which gives a surface with the same faces.
"""

from __future__ import annotations

import sys
import time
import warnings
from itertools import islice
from pathlib import Path

import numpy as np
import xcover

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import print_rows, row  # noqa: E402

from tessera.models.mesh import piece_surface
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube.hint import hint
from tessera.solvers.polycube.identify import SolutionIndex, placement_of
from tessera.solvers.polycube.packing import PackingProblem

SOMA = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "polycube" / "soma.toml"


def xcover_hint(puzzle, placed) -> bool:
    """The reference: the same reduced matrix, first cover by xcover."""
    problem = PackingProblem(puzzle, fixed=placed).exact_cover
    options = [list(row) for row in problem.rows]
    primary = list(range(problem.n_primary))
    secondary = list(range(problem.n_primary, problem.n_columns))
    if not options:
        return not primary
    return bool(list(islice(xcover.covers(options, primary=primary, secondary=secondary), 1)))


def timed(fn, cases) -> tuple[float, float, list]:
    """(mean, worst) seconds per case and the answers."""
    times, answers = [], []
    for case in cases:
        start = time.perf_counter()
        answers.append(fn(case))
        times.append(time.perf_counter() - start)
    return float(np.mean(times)), float(np.max(times)), answers


def hint_rows() -> list[tuple]:
    puzzle = load_polycube(SOMA)
    hint(puzzle, [])  # compile the engine's kernel before timing
    index = SolutionIndex(puzzle)
    rng = np.random.default_rng(7)
    partial = []
    for number in rng.choice(240, 40, replace=False):
        solution = index.solution(int(number) + 1)
        keep = rng.random(len(solution.pieces)) < 0.5
        partial.append([p.placement for p, k in zip(solution.pieces, keep, strict=True) if k])
    singles = [[p] for t in range(len(puzzle.pieces)) for p in puzzle.placements(t)]
    # a corner walled in: impossible, and every alternative has to be tried to say so
    trapped = [
        [
            placement_of(puzzle, 0, [(1, 0, 0), (1, 1, 0), (0, 1, 0)]),
            placement_of(puzzle, 1, [(0, 0, 1), (1, 0, 1), (2, 0, 1), (0, 1, 1)]),
        ]
    ]
    rows = []
    for label, cases in (
        ("empty cube", [[]] * 20),
        ("partial from solutions", partial),
        ("every single placement", singles),
        ("trapped corner", trapped * 20),
    ):
        mean, worst, ours = timed(lambda c: hint(puzzle, c).completable, cases)
        ref_mean, ref_worst, ref = timed(lambda c: xcover_hint(puzzle, c), cases)
        assert ours == ref, f"{label}: hint and xcover disagree"
        name = f"{label} ({len(cases)}, {sum(ours)} ok)"
        rows.append((name, "hint()", mean, worst, "xcover", ref_mean, ref_worst))
    return rows


def pyvista_surface(cells):
    import pyvista as pv

    cells = np.asarray(cells)
    lo = cells.min(axis=0)
    dims = cells.max(axis=0) - lo + 1
    grid = pv.ImageData(dimensions=tuple(dims + 1), origin=tuple(lo.astype(float)))
    occupied = np.zeros(tuple(dims), np.uint8)
    occupied[tuple((cells - lo).T)] = 1
    grid.cell_data["occupied"] = occupied.ravel(order="F")
    solid = grid.threshold(0.5, scalars="occupied")
    with warnings.catch_warnings():  # PyVista's notice of a future default
        warnings.simplefilter("ignore")
        return solid.extract_surface().triangulate().clean()


def mesh_rows() -> list[tuple]:
    puzzle = load_polycube(SOMA)
    rng = np.random.default_rng(3)
    block = np.argwhere(np.ones((10, 10, 10), bool))
    sponge = np.argwhere(rng.random((13, 13, 13)) < 0.46)[:1000]
    cases = [("Soma pieces (7)", [p.cells for p in puzzle.pieces])]
    cases += [("1000-cell block", [block]), (f"{len(sponge)}-cell random sponge", [sponge])]
    rows = []
    for label, shapes in cases:
        repeat = 200 if len(shapes) > 1 else 20
        ours = _per_shape(piece_surface, shapes, repeat)
        ref = _per_shape(pyvista_surface, shapes, max(repeat // 10, 3))
        rows.append((label, "piece_surface", ours, ours, "pyvista voxels", ref, ref))
        ours = _per_shape(lambda s: piece_surface(s, gap=0.1), shapes, repeat)
        rows.append((f"{label}, gap 0.1", "piece_surface", ours, ours, "", None, None))
    return rows


def _per_shape(fn, shapes, repeat: int) -> float:
    fn(shapes[0])
    start = time.perf_counter()
    for _ in range(repeat):
        for shape in shapes:
            fn(shape)
    return (time.perf_counter() - start) / (repeat * len(shapes))


def main() -> list[dict]:
    rows = []
    for case, what, mean, worst, ref_name, ref_mean, ref_worst in hint_rows() + mesh_rows():
        if worst == mean:  # a surface row: one average per shape
            note = f"{what}, mean per shape"
        else:
            note = f"{what}, mean per case; worst {worst * 1e3:.2f} ms"
            if ref_worst is not None:
                note += f" (reference {ref_worst * 1e3:.2f} ms)"
        if ref_mean is None:
            note += "; no reference"
        rows.append(row(case, mean, ref_name or None, ref_mean, note))
    print_rows(rows)
    print("goals: every hint < 1 s, a Soma piece's surface < 1 ms, 1000 cells < 50 ms")
    return rows


if __name__ == "__main__":
    main()
