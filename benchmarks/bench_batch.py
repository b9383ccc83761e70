"""Batch counting: Soma figures counted by Tessera and by yass, each as one process over all
the files, side by side in the same run. Two sets: yass's example figures, and 300 random ones
(`random_figures.py`, issue 25's goal: Tessera ≤ 0.5× yass), those both as `.soma` files and as
TOML puzzles.

* **batch, cold**: `tessera solve FILES --count --json` in a fresh process (interpreter,
  imports, the kernel loaded from numba's cache, a forked pool over the cores) against
  `soma -c -q FILES` (yass, one process, one core) on the same files. Interleaved round by
  round, best of `ROUNDS`: wall seconds, and CPU seconds (user + system, Tessera's pool workers
  included), the fairer figure on a shared machine and across core counts.
* **counts checked**: yass's count is Tessera's "up to symmetry" for a figure in one part (for a
  figure in several parts yass culls symmetry per part; see models/soma_figure.py), and both
  must refuse the same files. A disagreement fails the benchmark.
* **batch, warm**: the pool modes side by side in this process, kernel loaded (how the default
  was chosen); yass has nothing to compare these with.

The figures are read in place from ../shared/conformance/soma-figures (yass's examples, GPL:
never copied here) and yass from ../shared/reference/yass/soma; without the figures the
benchmark is skipped, without yass Tessera is timed alone and the rows say so.

The random figures are written to a temporary folder each run (the same files every time).
Tessera's modules are byte-compiled first, as an installed Tessera's are (`bytecode.py`).

Run: `make bench` or `python benchmarks/bench_batch.py`.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore")

from bytecode import compile_package  # noqa: E402
from random_figures import write_figures  # noqa: E402
from record import print_rows, row, run_child, tessera_command  # noqa: E402

FIGURES = ROOT.parent / "shared" / "conformance" / "soma-figures"
YASS = ROOT.parent / "shared" / "reference" / "yass" / "soma"
ROUNDS = 3
YASS_LINE = re.compile(r"^(.+): (\d+) solutions?$")
#: Issue 25: the random batch in at most this share of yass's time.
RANDOM_GOAL = 0.5


def tessera_batch(
    names: list[str], folder: Path = FIGURES
) -> tuple[float, float, dict[str, int | None]]:
    """(wall, CPU, {file: up to symmetry, None when refused}) of one `tessera solve` batch."""
    done = run_child([*tessera_command(), "solve", *names, "--count", "--json"], cwd=folder)
    counts: dict[str, int | None] = dict.fromkeys(names)
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            counts[result["file"]] = result.get("up_to_symmetry")
    refused = [n for n, c in counts.items() if c is None]
    errors = [line for line in done.stderr.splitlines() if line.startswith("tessera: error:")]
    if len(errors) != len(refused):  # a file neither counted nor refused: the run broke
        raise RuntimeError(f"tessera: {len(refused)} files not counted, {len(errors)} errors")
    return done.wall, done.cpu, counts


def yass_batch(
    names: list[str], folder: Path = FIGURES
) -> tuple[float, float, dict[str, int | None]]:
    """The same for `soma -c -q FILES`: a file yass refuses has no count line."""
    done = run_child([str(YASS), "-c", "-q", *names], cwd=folder)
    counts: dict[str, int | None] = dict.fromkeys(names)
    for line in (done.stdout + done.stderr).splitlines():
        found = YASS_LINE.match(line.strip())
        if found and found[1] in counts:
            counts[found[1]] = int(found[2])
    return done.wall, done.cpu, counts


def check_counts(names: list[str], ours: dict, theirs: dict) -> str:
    """Fail on any disagreement; the note that says what was compared."""
    from tessera.models.errors import PuzzleError
    from tessera.models.soma_figure import load_soma

    multi, wrong = 0, []
    for name in names:
        try:
            parts = load_soma(FIGURES / name).parts
        except PuzzleError:
            parts = 1
        if (ours[name] is None) != (theirs[name] is None):
            wrong.append(f"{name}: tessera {ours[name]}, yass {theirs[name]}")
        elif parts > 1:
            multi += 1
        elif ours[name] != theirs[name]:
            wrong.append(f"{name}: tessera {ours[name]}, yass {theirs[name]}")
    if wrong:
        raise AssertionError("tessera and yass disagree:\n" + "\n".join(wrong))
    refused = sum(ours[n] is None for n in names)
    return (
        f"counts agree: {len(names) - refused - multi} one-part figures, {refused} refused by "
        f"both; {multi} in several parts not compared"
    )


def warm_batch_seconds(files: list[Path], mode: str) -> float:
    import time

    from tessera.solvers.polycube.batch import count_files

    start = time.perf_counter()
    results = list(count_files(files, mode=mode))  # type: ignore[arg-type]
    assert len(results) == len(files)
    return time.perf_counter() - start


def random_rows() -> list[dict]:
    """The 300 random figures: `.soma` and TOML batches beside yass on the `.soma` files,
    interleaved round by round, best of `ROUNDS`; every count checked against yass's."""
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        soma, toml = write_figures(folder)
        times: dict[str, list[tuple[float, float]]] = {"soma": [], "toml": [], "yass": []}
        for _ in range(ROUNDS):
            wall, cpu, ours = tessera_batch(soma, folder)
            times["soma"].append((wall, cpu))
            wall, cpu, ours_toml = tessera_batch(toml, folder)
            times["toml"].append((wall, cpu))
            if YASS.exists():
                wall, cpu, theirs = yass_batch(soma, folder)
                times["yass"].append((wall, cpu))
    as_soma = {t: ours_toml[t] for t in toml}
    same = all(as_soma[t] == ours[s] for s, t in zip(soma, toml, strict=True))
    if not same:
        raise AssertionError("tessera counts the random figures differently as .soma and TOML")
    label = f"random figures: {len(soma)}"
    if not times["yass"]:
        absent = f"yass not found at {YASS}: no reference, no ratio, counts not checked"
        return [row(f"{label} {kind}, one process, wall", min(times[kind])[0],
                    "yass -c, one process", None, absent) for kind in ("soma", "toml")]  # fmt: skip
    wrong = [f"{n}: tessera {ours[n]}, yass {theirs[n]}" for n in soma if ours[n] != theirs[n]]
    if wrong:
        raise AssertionError("tessera and yass disagree:\n" + "\n".join(wrong))
    yass_wall = min(w for w, _ in times["yass"])
    yass_cpu = min(c for _, c in times["yass"])
    rows = []
    for kind in ("soma", "toml"):
        wall = min(w for w, _ in times[kind])
        cpu = min(c for _, c in times[kind])
        verdict = "met" if wall <= RANDOM_GOAL * yass_wall else "NOT met"
        rows += [
            row(f"{label} .{kind} files, one process, wall", wall, "yass -c on the .soma files",
                yass_wall, f"best of {ROUNDS}; goal ≤ {RANDOM_GOAL}× yass: {verdict}; "
                f"Tessera on every core, yass on one; all {len(soma)} counts agree"),
            row(f"{label} .{kind} files, one process, CPU", cpu, "yass -c on the .soma files",
                yass_cpu, "user + system, Tessera's pool workers included"),
        ]  # fmt: skip
    return rows


def main() -> list[dict]:
    if not FIGURES.exists():
        print(f"skipped: {FIGURES} is not here")
        return []
    names = sorted(p.name for p in FIGURES.glob("*.soma"))
    has_yass = YASS.exists()
    compile_package()  # as installed: no module compiled from source in a timed process
    ours_wall, ours_cpu, theirs_wall, theirs_cpu = [], [], [], []
    for _ in range(ROUNDS):  # interleaved, so machine load hits both alike
        wall, cpu, ours = tessera_batch(names)
        ours_wall.append(wall)
        ours_cpu.append(cpu)
        if has_yass:
            wall, cpu, theirs = yass_batch(names)
            theirs_wall.append(wall)
            theirs_cpu.append(cpu)
    label = f"batch, cold: {len(names)} yass figures, one process"
    if has_yass:
        note = check_counts(names, ours, theirs)
        rows = [
            row(f"{label}, wall", min(ours_wall), "yass -c, one process", min(theirs_wall),
                f"best of {ROUNDS}; Tessera on every core, yass on one"),
            row(f"{label}, CPU", min(ours_cpu), "yass -c, one process", min(theirs_cpu), note),
        ]  # fmt: skip
    else:
        absent = f"yass not found at {YASS}: no reference, no ratio, counts not checked"
        rows = [
            row(f"{label}, wall", min(ours_wall), "yass -c, one process", None, absent),
            row(f"{label}, CPU", min(ours_cpu), "yass -c, one process", None, absent),
        ]
    rows += random_rows()
    from tessera.solvers.polycube.batch import warm_kernel

    warm_kernel()
    files = [FIGURES / n for n in names]
    for mode in ("process", "thread", "inline"):
        seconds = min(warm_batch_seconds(files, mode) for _ in range(ROUNDS))
        rows.append(
            row(f"batch, warm, {mode} pool: {len(files)} figures", seconds,
                note="in this process, kernel loaded; no reference (pool modes compared)")
        )  # fmt: skip
    print_rows(rows)
    return rows


if __name__ == "__main__":
    main()
