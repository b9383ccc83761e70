"""Polycube counting: Tessera against the `xcover` package, side by side in one process.

Two ratios per puzzle (ours ÷ xcover, below 1 means Tessera is faster):

* **task**: what a user asks for, "count this puzzle". Tessera runs its whole pipeline
  (symmetry-reduced searches on both cores); xcover, which has no symmetry handling, lists every
  fixed solution of the full matrix. Skipped where that would take many minutes (Bedlam).
* **engine**: the two exact-cover engines on identical matrices (the symmetry-reduced ones),
  single-threaded: a pure algorithm-and-implementation comparison.

Numba compile times are measured separately, before anything is timed.

Run: `make bench` (all benchmarks) or `python benchmarks/bench_polycube.py [names...]`.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")  # xcover's numba type-safety chatter

from tessera.models.assets import resolve_puzzle  # noqa: E402
from tessera.models.polycube import load_polycube  # noqa: E402
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch  # noqa: E402
from tessera.solvers.polycube.packing import PackingProblem  # noqa: E402
from tessera.solvers.polycube.symmetry import ClassSearch  # noqa: E402

CASES = [
    # (built-in, count to report, run xcover on the full matrix too)
    ("soma", "fixed", True),
    ("soma", "up_to_symmetry", True),
    ("pentominoes-6x10", "up_to_symmetry", True),
    ("pentominoes-3x4x5", "up_to_symmetry", True),
    ("bedlam", "up_to_rotation", False),
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


def run_case(name: str, what: str, full_xcover: bool) -> dict:
    puzzle = load_polycube(resolve_puzzle(name))
    row: dict = {"puzzle": name, "count": what}
    job = ClassSearch(puzzle)
    counts, row["task_ours"] = timed(job.count)
    row["value"] = getattr(counts, what)
    published = _published().get(f"polycube/{name}.toml", {})
    for key in ("fixed", "up_to_rotation", "up_to_symmetry"):  # the suite's Bedlam check
        if key in published:
            assert getattr(counts, key) == published[key], (name, key, published[key])
    if full_xcover:
        full = PackingProblem(puzzle).exact_cover
        n, row["task_xcover"] = timed(xcover_count, full)
        assert n == counts.fixed, (n, counts.fixed)
    # "fixed" compares the engines on the whole matrix, the others on the reduced ones
    if what == "fixed":
        matrices = [PackingProblem(puzzle).exact_cover]
    else:
        matrices = restricted_matrices(ClassSearch(puzzle))
    ours = theirs = 0.0
    for m in matrices:  # interleaved, so machine noise hits both alike
        a, t_ours = timed(ours_count, m)
        b, t_theirs = timed(xcover_count, m)
        assert a == b, (a, b)
        ours += t_ours
        theirs += t_theirs
    row["engine_ours"], row["engine_xcover"] = ours, theirs
    return row


def main(names: list[str]) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cold = cold_compile_seconds()
    compile_ours, compile_theirs = warm_up()
    print(f"tessera kernel compiled from scratch (fresh process, empty cache): {cold:.1f} s")
    print(f"cores: {cores}; compile/cache load: tessera {compile_ours:.2f} s, "
          f"xcover {compile_theirs:.2f} s")  # fmt: skip
    header = (
        f"{'puzzle':20} {'count':15} {'value':>7} | {'task: ours':>10} {'xcover':>8} {'ratio':>6}"
        f" | {'engine: ours':>12} {'xcover':>8} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, what, full in CASES:
        if names and name not in names:
            continue
        r = run_case(name, what, full)
        if "task_xcover" in r:
            ratio = r["task_ours"] / r["task_xcover"]
            task = f"{r['task_ours']:10.2f} {r['task_xcover']:8.2f} {ratio:6.2f}"
        else:
            task = f"{r['task_ours']:10.2f} {'-':>8} {'-':>6}"
        engine = (
            f"{r['engine_ours']:12.2f} {r['engine_xcover']:8.2f} "
            f"{r['engine_ours'] / r['engine_xcover']:6.2f}"
        )
        print(f"{name:20} {what:15} {r['value']:7} | {task} | {engine}", flush=True)
    goal_puzzle = load_polycube(resolve_puzzle("pentominoes-6x10"))
    (counts, seconds) = timed(ClassSearch(goal_puzzle).tally)
    verdict = "met" if seconds <= 1.0 else "NOT met"
    n = counts.up_to_symmetry
    print(f"goal: pentominoes 6x10, all {n} in <= 1 s: {seconds:.2f} s ({verdict})")


if __name__ == "__main__":
    main(sys.argv[1:])
