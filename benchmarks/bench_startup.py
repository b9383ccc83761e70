"""Start-up costs (issue 19): what a user waits for before Tessera does anything, whole
processes as they are typed in a shell.

* **`tessera --help`** against `python -c "import numpy"` in the same interpreter, interleaved,
  median of `HELP_RUNS` wall times each. numpy is the least any numeric Python program loads, so
  the ratio says how much the command line adds on top. Goal: at most 3 times numpy's.
* **first solve after install**: `tessera solve soma --count` with an empty NUMBA_CACHE_DIR,
  so every kernel it needs is compiled, as on a fresh install; and the same for the first
  disassembly (`tessera solve box-sliding-lid --disassemble`). CPU seconds of the child (user +
  system), the fairer figure on a shared machine; best of `COLD_RUNS`, each with a new empty
  cache. Goal: 3 s each. Nothing else does this work, so there is no reference.
* **warm `tessera solve soma --count`**: the whole process with the kernels cached, against
  yass counting the same 240 solutions of the Soma cube (`soma -c -q cube.soma`, from
  ../shared/conformance/soma-figures); without yass, Tessera is timed alone and the row says so.

Run: `make bench` or `python benchmarks/bench_startup.py`.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import print_rows, row, run_child, tessera_command  # noqa: E402

YASS = ROOT.parent / "shared" / "reference" / "yass" / "soma"
CUBE = ROOT.parent / "shared" / "conformance" / "soma-figures" / "cube.soma"
HELP_RUNS = 15
COLD_RUNS = 2
WARM_RUNS = 7
HELP_GOAL, COLD_GOAL = 3.0, 3.0


def checked(command: list[str], expect: str, **kwargs):
    done = run_child(command, **kwargs)
    if done.returncode != 0 or expect not in done.stdout:
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done


def help_rows(cwd: str) -> list[dict]:
    tessera, numpy = [], []
    checked([*tessera_command(), "--help"], "usage", cwd=cwd)  # file caches, like a 2nd run
    for _ in range(HELP_RUNS):  # interleaved, so machine load hits both alike
        tessera.append(checked([*tessera_command(), "--help"], "usage", cwd=cwd).wall)
        numpy.append(checked([sys.executable, "-c", "import numpy"], "", cwd=cwd).wall)
    ours, ref = statistics.median(tessera), statistics.median(numpy)
    verdict = "met" if ours <= HELP_GOAL * ref else "NOT met"
    return [
        row("tessera --help, whole process", ours, 'python -c "import numpy"', ref,
            f"median of {HELP_RUNS} wall times each; goal ≤ {HELP_GOAL:g}× numpy: {verdict}"),
    ]  # fmt: skip


def cold_rows(cwd: str) -> list[dict]:
    rows = []
    for label, args, expect in (
        ("first solve after install: solve soma --count", ["soma", "--count"], "240"),
        (
            "first disassembly: solve box-sliding-lid --disassemble",
            ["box-sliding-lid", "--disassemble"],
            "come apart",
        ),
    ):
        cpu, wall = [], []
        for _ in range(COLD_RUNS):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, NUMBA_CACHE_DIR=cache)
                done = checked([*tessera_command(), "solve", *args], expect, env=env, cwd=cwd)
            cpu.append(done.cpu)
            wall.append(done.wall)
        verdict = "met" if min(cpu) <= COLD_GOAL else "NOT met"
        rows.append(
            row(f"{label}, CPU", min(cpu),
                note=f"empty NUMBA_CACHE_DIR, best of {COLD_RUNS}; wall {min(wall):.2f} s; "
                     f"goal ≤ {COLD_GOAL:g} s: {verdict}; no reference")
        )  # fmt: skip
    return rows


def warm_rows(cwd: str) -> list[dict]:
    command = [*tessera_command(), "solve", "soma", "--count"]
    checked(command, "240", cwd=cwd)  # the kernels into numba's cache, if not there yet
    has_yass = YASS.exists() and CUBE.exists()
    ours, theirs = [], []
    for _ in range(WARM_RUNS):
        ours.append(checked(command, "up to symmetry: 240", cwd=cwd))
        if has_yass:
            theirs.append(checked([str(YASS), "-c", "-q", CUBE.name], ": 240 solutions",
                                  cwd=CUBE.parent))  # fmt: skip
    name = "warm solve soma --count, whole process"
    reference = "yass -c cube.soma, whole process"
    runs = f"median of {WARM_RUNS}"
    if not has_yass:
        absent = f"{runs}; yass or its cube.soma not found: no reference"
        return [
            row(f"{name}, wall", statistics.median(d.wall for d in ours), reference, None, absent),
            row(f"{name}, CPU", statistics.median(d.cpu for d in ours), reference, None, absent),
        ]
    return [
        row(f"{name}, wall", statistics.median(d.wall for d in ours), reference,
            statistics.median(d.wall for d in theirs), f"{runs}; both count 240"),
        row(f"{name}, CPU", statistics.median(d.cpu for d in ours), reference,
            statistics.median(d.cpu for d in theirs), runs),
    ]  # fmt: skip


def main() -> list[dict]:
    with tempfile.TemporaryDirectory() as cwd:  # no file of the checkout can shadow a name
        rows = help_rows(cwd) + cold_rows(cwd) + warm_rows(cwd)
    print_rows(rows)
    return rows


if __name__ == "__main__":
    main()
