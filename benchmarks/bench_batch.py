"""Batch counting: a library of Soma figures in one process, against yass one process per file;
and a single `tessera solve soma --count` against xcover listing Soma's fixed solutions.

* **batch, cold**: a fresh interpreter imports Tessera, loads the kernel from numba's cache and
  counts every file (`solvers.batch.count_files`, a forked pool over the cores), start-up
  included, the way a user runs `tessera solve FOLDER --count`. yass's times are the issue's,
  measured on this machine kind: 1.6 s for its 218 example figures, about 2.7 s for 300.
* **batch, warm**: the same in this process, kernel already loaded; and the three pool modes
  side by side (forked processes, threads, this thread alone), which is how the default was
  chosen.
* **soma --count**: the seconds `tessera solve soma --count --json` reports (a fresh process,
  kernel loaded from the cache inside the timed part), the same count in this process with the
  kernel loaded, and xcover listing the 11520 fixed solutions of the full matrix in this process
  (after its own warm-up, as bench_polycube.py does).

The figures are read in place from ../shared/conformance/soma-figures (yass's examples, GPL:
never copied here); without that folder the batch rows are skipped.

Run: `make bench` or `python benchmarks/bench_batch.py`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")  # xcover's numba type-safety chatter

from tessera.models.assets import resolve_puzzle  # noqa: E402
from tessera.models.polycube import load_polycube  # noqa: E402
from tessera.solvers.polycube.batch import count_files, warm_kernel  # noqa: E402
from tessera.solvers.polycube.packing import PackingProblem  # noqa: E402
from tessera.solvers.polycube.symmetry import ClassSearch  # noqa: E402

FIGURES = ROOT.parent / "shared" / "conformance" / "soma-figures"
YASS_218 = 1.6  # seconds, one yass process per file, the measurement
YASS_300 = 2.7


def figure_files() -> tuple[list[Path], list[Path]]:
    """(all 218 files, 300 countable figures: the ones yass counts, repeated)."""
    import tomllib

    files = sorted(FIGURES.glob("*.soma"))
    counts = tomllib.loads((FIGURES / "yass-counts.toml").read_text(encoding="utf-8"))["counts"]
    countable = [FIGURES / f"{name}.soma" for name in sorted(counts)]
    return files, (countable * 2)[:300]


def cold_batch_seconds(files: list[Path]) -> float:
    """Wall time of a fresh interpreter that imports Tessera and counts the files (its CPU
    time, pool processes included, goes to `CPU_SECONDS`: on a busy machine the wall time
    says little, the CPU time what an idle one would need at least, divided by the cores)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = (
        "import sys; from tessera.solvers.polycube.batch import count_files;"
        "files = sys.stdin.read().split('\\n');"
        "results = list(count_files(files));"
        "assert len(results) == len(files)"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT.parent))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code],
        input="\n".join(str(f) for f in files),
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_SECONDS[len(files)] = min(
        CPU_SECONDS.get(len(files), float("inf")),
        after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
    )
    return seconds


CPU_SECONDS: dict[int, float] = {}


def warm_batch_seconds(files: list[Path], mode: str) -> float:
    start = time.perf_counter()
    results = list(count_files(files, mode=mode))  # type: ignore[arg-type]
    assert len(results) == len(files)
    return time.perf_counter() - start


def cli_reported_seconds() -> float:
    """What `tessera solve soma --count --json` reports, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT.parent))
    out = subprocess.run(
        [sys.executable, "-m", "tessera", "solve", "soma", "--count", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1])["seconds"])


def xcover_fixed_seconds() -> tuple[int, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_polycube import xcover_count

    from tessera.solvers.exact_cover import ExactCoverProblem

    xcover_count(ExactCoverProblem([[0, 1], [0], [1]], 2, 2))  # xcover's own warm-up
    full = PackingProblem(load_polycube(resolve_puzzle("soma"))).exact_cover
    start = time.perf_counter()
    n = xcover_count(full)
    return n, time.perf_counter() - start


def soma_count_seconds() -> float:
    """`tessera solve soma --count`'s work in this process (puzzle loaded, kernel loaded)."""
    puzzle = load_polycube(resolve_puzzle("soma"))
    start = time.perf_counter()
    counts = ClassSearch(puzzle).tally()
    seconds = time.perf_counter() - start
    assert counts.fixed == 11520 and counts.up_to_symmetry == 240
    return seconds


def best(fn, *args, repeat: int = 3) -> float:
    return min(fn(*args) for _ in range(repeat))


def main() -> None:
    warm_kernel()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {cores}; load average {load:.1f}; times are the best of 3 runs")
    header = f"{'what':44} {'tessera':>8} {'reference':>10} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    if (FIGURES / "yass-counts.toml").exists():
        files, three_hundred = figure_files()
        rows = [
            (f"batch, cold: {len(files)} yass figures", best(cold_batch_seconds, files), YASS_218),
            (f"batch, cold: {len(three_hundred)} figures", best(cold_batch_seconds, three_hundred),
             YASS_300),
        ]  # fmt: skip
        for label, ours, theirs in rows:
            verdict = "met" if ours < theirs else "NOT met"
            print(f"{label:44} {ours:8.2f} {theirs:10.2f} {ours / theirs:6.2f}  ({verdict}; yass)")
        for n, cpu in sorted(CPU_SECONDS.items()):
            print(f"{f'batch, cold: {n} figures, CPU seconds (all cores)':44} {cpu:8.2f}")
        for mode in ("process", "thread", "inline"):
            seconds = best(warm_batch_seconds, files, mode)
            print(f"{f'batch, warm, {mode}: {len(files)} figures':44} {seconds:8.2f}")
    else:
        print(f"(no {FIGURES}: batch rows skipped)")
    n, xcover = xcover_fixed_seconds()
    assert n == 11520
    reported = best(cli_reported_seconds)
    warm = best(soma_count_seconds)
    for label, ours in (
        ("soma --count, reported (fresh process)", reported),
        ("soma --count, kernel loaded", warm),
    ):
        verdict = "met" if ours < xcover else "NOT met"
        print(f"{label:44} {ours:8.3f} {xcover:10.3f} {ours / xcover:6.2f}  ({verdict}; xcover)")


if __name__ == "__main__":
    main()
