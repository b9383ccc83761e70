"""Polycube counting: Tessera against the `xcover` package, side by side in one process.

Every ratio (ours ÷ xcover, below 1 means Tessera is faster) compares the same work:

* **engines, full matrix**: both exact-cover engines list every fixed solution of the puzzle's
  whole matrix, single-threaded.
* **engines, reduced matrices**: both run on the symmetry-reduced matrices Tessera's count uses
  (one anchor piece pinned to one orientation per orbit), single-threaded.

Tessera's whole count ("count this puzzle": the symmetry-reduced searches on every core, the
three counts fixed / up to rotation / up to symmetry) is timed too, but xcover has no symmetry
handling, so it has no like-for-like reference and no ratio. Numba compile times are measured
separately, before anything is timed. Bedlam takes many minutes: `run_all.py --quick` leaves it
out and its rows say so.

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

from record import print_rows, quick, row  # noqa: E402

from tessera.models.assets import resolve_puzzle  # noqa: E402
from tessera.models.polycube import load_polycube  # noqa: E402
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch  # noqa: E402
from tessera.solvers.polycube.packing import PackingProblem  # noqa: E402
from tessera.solvers.polycube.symmetry import ClassSearch  # noqa: E402

CASES = [
    # (built-in, engines on the full matrix too, takes many minutes: left out by --quick)
    ("soma", True, False),
    ("pentominoes-6x10", True, False),
    ("pentominoes-3x4x5", True, False),  # about 2 minutes for the full matrix
    ("bedlam", False, True),  # 460464 fixed solutions: the full matrix is out of reach
]


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
