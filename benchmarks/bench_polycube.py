"""Polycube counting: Tessera against the `xcover` package, side by side in one process.

Every ratio (ours ÷ xcover, below 1 means Tessera is faster) compares the same work:

* **engines, full matrix**: both exact-cover engines list every fixed solution of the puzzle's
  whole matrix, single-threaded.
* **engines, reduced matrices**: both run on the symmetry-reduced matrices Tessera's count uses
  (one anchor piece pinned to one orientation per orbit), single-threaded.

* **whole process against one piece held**: `tessera solve NAME --count` as a fresh process
  (wall and CPU seconds: interpreter, imports, the symmetry-reduced searches on every core, the
  three counts), against xcover counting the whole matrix with one asymmetric piece held in one
  orientation, single-threaded: the usual way to count each rotation class once without a
  symmetry engine (xcover's count must equal Tessera's "up to rotation"). Only for targets with
  all 24 rotations (Soma, Bedlam), where such a piece exists. Issue 25's goal for Bedlam: ≤ 0.15.

Tessera's whole count in this process is timed too; xcover has no symmetry handling, so that row
has no like-for-like reference and no ratio. Numba compile times are measured separately, before
anything is timed. Bedlam takes many minutes: `run_all.py --quick` leaves it out and its rows say
so.

Run: `make bench` (all benchmarks) or `python benchmarks/bench_polycube.py [names...]`.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore")  # xcover's numba type-safety chatter

from bytecode import compile_package  # noqa: E402
from record import print_rows, quick, row, run_child, tessera_command  # noqa: E402

from tessera.models.assets import resolve_puzzle  # noqa: E402
from tessera.models.polycube import load_polycube  # noqa: E402
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch  # noqa: E402
from tessera.solvers.polycube.packing import PackingProblem, placement_table  # noqa: E402
from tessera.solvers.polycube.symmetry import ClassSearch  # noqa: E402

CASES = [
    # (built-in, engines on the full matrix too, takes many minutes: left out by --quick)
    ("soma", True, False),
    ("pentominoes-6x10", True, False),
    ("pentominoes-3x4x5", True, False),  # about 2 minutes for the full matrix
    ("bedlam", False, True),  # 460464 fixed solutions: the full matrix is out of reach
]

#: Issue 25: Bedlam's whole process at most this share of xcover's held-piece count.
BEDLAM_GOAL = 0.15
#: Rotations of a cube: a piece with this many orientations, held in one, meets each rotation
#: class of solutions exactly once.
ROTATIONS = 24


def _published() -> dict[str, dict]:
    import tomllib

    fixtures = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "published.toml"
    return tomllib.loads(fixtures.read_text(encoding="utf-8"))


def xcover_count(problem: ExactCoverProblem) -> int:
    from xcover import covers

    if problem.multiplicity is not None and max(problem.multiplicity) > 1:
        raise ValueError("xcover has no multiplicities")
    rows = [list(r) for r in problem.rows]
    primary = list(range(problem.n_primary))
    secondary = list(range(problem.n_primary, problem.n_columns))
    return sum(1 for _ in covers(rows, primary=primary, secondary=secondary))


def ours_count(problem: ExactCoverProblem) -> int:
    search = ExactCoverSearch(problem, slice_nodes=1 << 40)
    return search.count()


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def warm_up() -> tuple[float, float]:
    """Compile (or load from numba's cache) both engines on a tiny problem."""
    tiny = ExactCoverProblem([[0, 1], [0], [1]], 2, 2)
    _, ours = timed(ours_count, tiny)
    _, theirs = timed(xcover_count, tiny)
    return ours, theirs


def cold_compile_seconds() -> float:
    """Compile Tessera's kernel from scratch in a fresh interpreter with an empty cache."""
    import subprocess
    import tempfile

    code = (
        "from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch;"
        "ExactCoverSearch(ExactCoverProblem([[0]], 1, 1)).count()"
    )
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(root))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=root)
        return time.perf_counter() - start


def held_piece_matrix(puzzle) -> tuple[str, ExactCoverProblem] | None:
    """The whole matrix with the first piece that has all 24 orientations held in its first
    one (every position kept), or None when no piece has them."""
    from tessera.solvers.polycube.packing import piece_orientations

    table = placement_table(puzzle)
    for t, piece in enumerate(puzzle.pieces):
        if piece.copies == 1 and len(piece_orientations(piece)) == ROTATIONS:
            rows = table.placements(t)
            first = int(table.orientation[t][0])
            held = [p for p in rows if p.orientation == first]
            return piece.name, PackingProblem(puzzle, only={t: held}).exact_cover
    return None


def whole_process(name: str) -> tuple[dict, float, float]:
    """`tessera solve NAME --count --json` in a fresh process: (its counts, wall, CPU), its
    modules byte-compiled first as an installed Tessera's are (`bytecode.py`)."""
    import json

    compile_package()
    done = run_child([*tessera_command(), "solve", name, "--count", "--json"])
    if done.returncode != 0:
        raise RuntimeError(f"tessera solve {name} --count failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1]), done.wall, done.cpu


def held_rows(name: str, puzzle, counts) -> list[dict]:
    """Tessera's whole process beside xcover with one asymmetric piece held (module doc)."""
    from tessera.solvers.polycube.symmetry import TargetGroup

    # holding a piece in one orientation counts each rotation class once only when every one
    # of the 24 rotations maps the target to itself (the Soma cube, Bedlam; not a flat 6x10)
    if TargetGroup(puzzle, mirrors=False).order != ROTATIONS:
        return []
    held = held_piece_matrix(puzzle)
    if held is None or puzzle.target.cells.shape[0] == 0:
        return []
    piece, matrix = held
    cpu_start = time.process_time()
    n, theirs = timed(xcover_count, matrix)
    theirs_cpu = time.process_time() - cpu_start
    assert n == counts.up_to_rotation and n * ROTATIONS == counts.fixed, (n, counts)
    ours, wall, cpu = whole_process(name)
    assert ours["up_to_symmetry"] == counts.up_to_symmetry, (ours, counts)
    reference = f"xcover, {piece} held in one orientation, one thread"
    goal = ""
    if name == "bedlam":
        verdict = "met" if wall <= BEDLAM_GOAL * theirs else "NOT met"
        goal = f"; goal ≤ {BEDLAM_GOAL}× xcover: {verdict}"
    return [
        row(f"{name}: tessera solve --count, whole process, wall", wall, reference, theirs,
            f"{n} rotation classes both{goal}"),
        row(f"{name}: tessera solve --count, whole process, CPU", cpu, reference, theirs_cpu,
            "CPU seconds: user + system over every core (Tessera), xcover's own thread"),
    ]  # fmt: skip


def restricted_matrices(job: ClassSearch) -> list[ExactCoverProblem]:
    if job.anchor_piece is None:
        return [PackingProblem(job.puzzle).exact_cover]
    return [
        PackingProblem(job.puzzle, only={job.anchor_piece: [o.representative]}).exact_cover
        for o in job.orbits
    ]


def engines(matrices: list[ExactCoverProblem]) -> tuple[int, float, float]:
    """(solutions, our seconds, xcover's seconds) over the same matrices, single-threaded."""
    ours = theirs = 0.0
    total = 0
    for m in matrices:  # interleaved, so machine noise hits both alike
        a, t_ours = timed(ours_count, m)
        b, t_theirs = timed(xcover_count, m)
        assert a == b, (a, b)
        total += a
        ours += t_ours
        theirs += t_theirs
    return total, ours, theirs


def run_case(name: str, full_matrix: bool, slow_case: bool) -> list[dict]:
    if slow_case and quick():
        why = "skipped in this run (--quick): it takes many minutes"
        return [row(f"{name}: whole count, every core", None, note=why),
                row(f"{name}: tessera solve --count, whole process, wall", None,
                    "xcover, one piece held in one orientation, one thread", note=why),
                row(f"{name}: engines, reduced matrices", None, "xcover, same matrices",
                    note=why)]  # fmt: skip
    puzzle = load_polycube(resolve_puzzle(name))
    job = ClassSearch(puzzle)
    counts, task = timed(job.tally)
    published = _published().get(f"polycube/{name}.toml", {})
    for key in ("fixed", "up_to_rotation", "up_to_symmetry"):  # the suite's Bedlam check
        if key in published:
            assert getattr(counts, key) == published[key], (name, key, published[key])
    three = (
        f"fixed {counts.fixed}, up to rotation {counts.up_to_rotation}, "
        f"up to symmetry {counts.up_to_symmetry}"
    )
    rows = [
        row(f"{name}: whole count, every core", task,
            note=f"{three}; xcover cannot reduce by symmetry: no like-for-like reference"),
        *held_rows(name, puzzle, counts),
    ]  # fmt: skip
    label = f"{name}: engines, full matrix, every fixed solution"
    if not full_matrix:
        rows.append(row(label, None, "xcover, same matrix",
                        note="not run: far too long for either engine"))  # fmt: skip
    else:
        n, ours, theirs = engines([PackingProblem(puzzle).exact_cover])
        assert n == counts.fixed, (n, counts.fixed)
        rows.append(row(label, ours, "xcover, same matrix", theirs,
                        f"{n} solutions, one thread each"))  # fmt: skip
    matrices = restricted_matrices(ClassSearch(puzzle))
    n, ours, theirs = engines(matrices)
    rows.append(
        row(f"{name}: engines, reduced matrices", ours, "xcover, same matrices", theirs,
            f"{len(matrices)} matrices, {n} solutions, one thread each")
    )  # fmt: skip
    return rows


def main(names: list[str]) -> list[dict]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cold = cold_compile_seconds()
    compile_ours, compile_theirs = warm_up()
    print(f"cores: {cores}; compile/cache load: tessera {compile_ours:.2f} s, "
          f"xcover {compile_theirs:.2f} s")  # fmt: skip
    rows = [
        row("search kernel compiled from scratch", cold,
            note="fresh process, empty numba cache; once per install; no reference"),
    ]  # fmt: skip
    for name, full_matrix, slow_case in CASES:
        if names and name not in names:
            continue
        rows.extend(run_case(name, full_matrix, slow_case))
    goal_puzzle = load_polycube(resolve_puzzle("pentominoes-6x10"))
    (counts, seconds) = timed(ClassSearch(goal_puzzle).tally)
    verdict = "met" if seconds <= 1.0 else "NOT met"
    n = counts.up_to_symmetry
    rows.append(row(f"pentominoes 6x10, all {n} up to symmetry", seconds,
                    note=f"goal ≤ 1 s: {verdict}; no reference"))  # fmt: skip
    print_rows(rows)
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
