"""Structured results for `make bench`: benchmarks/results.json, which docs/benchmarks.md is
generated from.

Each bench_*.py prints its own table. To get the same numbers as data without changing the
scripts, `run_benchmark` loads a script as a module, wraps the functions that return its
measurements (a *recorder* per script, below) and calls its `main()`. Every row is one
measurement: `name`, `ours_seconds`, `reference` (the program or method compared with) and
`reference_seconds` (null when there is none), `ratio` (ours / reference, null without a
reference; below 1 Tessera is faster), `note`, plus `benchmark`, `machine` and `date`.

When a script's functions change shape, its recorder records nothing and says so; the script's
printed table is unaffected.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import inspect
import json
import os
import platform
import statistics
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"


def machine() -> dict:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    info = {
        "cores": cores,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
    }
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    if hasattr(os, "getloadavg"):
        info["load"] = round(os.getloadavg()[0], 1)
    return info


class Recorder:
    """The rows of one benchmark script."""

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        self.rows: list[dict] = []
        self.machine = machine()

    def add(
        self,
        name: str,
        ours: float | None,
        reference: str | None = None,
        reference_seconds: float | None = None,
        note: str = "",
    ) -> None:
        ratio = None
        if ours is not None and reference_seconds:
            ratio = ours / reference_seconds
        self.rows.append(
            {
                "benchmark": self.benchmark,
                "name": name,
                "ours_seconds": ours,
                "reference": reference if reference_seconds is not None else None,
                "reference_seconds": reference_seconds,
                "ratio": ratio,
                "note": note,
                "machine": self.machine,
                "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            }
        )


def wrap(module, name: str, on_result: Callable) -> bool:
    """Replace module.NAME by a wrapper that passes (args, result) to on_result."""
    original = getattr(module, name, None)
    if not callable(original):
        return False

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        try:
            on_result(args, result)
        except Exception:  # a recorder must never break the benchmark itself
            traceback.print_exc()
        return result

    setattr(module, name, wrapper)
    return True


# --- one recorder per script: install(module, rec) wraps; finish(rec) builds the rows ------


def _polycube(module, rec: Recorder) -> Callable[[], None]:
    def case(args, row):
        label = f"{row['puzzle']}, {row['count'].replace('_', ' ')} ({row['value']})"
        rec.add(
            f"{label}: whole count",
            row["task_ours"],
            "xcover, every fixed solution",
            row.get("task_xcover"),
        )
        rec.add(f"{label}: engine alone", row["engine_ours"], "xcover engine", row["engine_xcover"])

    def compile_time(args, seconds):
        rec.add("search kernel compiled from scratch", seconds, note="once per install")

    wrap(module, "run_case", case)
    wrap(module, "cold_compile_seconds", compile_time)
    return lambda: None


def _batch(module, rec: Recorder) -> Callable[[], None]:
    calls: list[tuple[str, tuple, float]] = []
    xcover: list[float] = []

    def best(args, seconds):
        fn, rest = args[0], args[1:]
        calls.append((getattr(fn, "__name__", "?"), rest, seconds))

    def fixed(args, result):
        xcover.append(result[1])

    def finish():
        ref = xcover[0] if xcover else None
        for fn, rest, seconds in calls:
            if fn == "cold_batch_seconds":
                n = len(rest[0])
                yass = module.YASS_300 if n == 300 else module.YASS_218
                rec.add(f"batch, cold: {n} figures", seconds, "yass, one process per file", yass)
            elif fn == "warm_batch_seconds":
                rec.add(f"batch, warm, {rest[1]} pool: {len(rest[0])} figures", seconds)
            elif fn == "cli_reported_seconds":
                rec.add("soma --count, as reported", seconds, "xcover, 11520 fixed", ref)
            elif fn == "soma_count_seconds":
                rec.add("soma --count, kernel loaded", seconds, "xcover, 11520 fixed", ref)

    wrap(module, "best", best)
    wrap(module, "xcover_fixed_seconds", fixed)
    return finish


def _disassembly(module, rec: Recorder) -> Callable[[], None]:
    found: dict[str, tuple] = {}

    def analyse(args, result):
        found[Path(args[0]).name] = result

    def process(args, result):
        name = args[0]
        wall, cpu = result
        note = f"whole process, CPU time; wall {wall:.2f} s"
        if name in found:
            a, s = found[name][0], found[name][1]
            note += f"; {a} assemblies, {s} come apart"
        reference = module.BURRTOOLS.get(name)
        rec.add(name.removesuffix(".xmpuzzle"), cpu, "BurrTools 0.7.1", reference, note)

    wrap(module, "analyse", analyse)
    wrap(module, "whole_process", process)
    return lambda: None


def _dice(module, rec: Recorder) -> Callable[[], None]:
    times: dict[tuple[int, str], list[float]] = {}

    def timed(args, result):
        puzzle, method = args
        times.setdefault((len(puzzle.dice), method), []).append(result[0])

    def finish():
        for n in sorted({n for n, _ in times}):
            graph = times.get((n, "graph"), [])
            search = times.get((n, "search"), [])
            if not graph:
                continue
            rec.add(
                f"{n} dice: graph method, median of {len(graph)} sets",
                statistics.median(graph),
                "depth-first search",
                statistics.median(search) if search else None,
                f"slowest {max(graph) * 1e3:.1f} ms",
            )

    wrap(module, "timed", timed)
    return finish


def _domino(module, rec: Recorder) -> Callable[[], None]:
    def timings(args, rows):
        for case, what, ours, ref_name, ref in rows:
            rec.add(case, ours, ref_name or None, ref, what)

    wrap(module, "timings", timings)
    return lambda: None


def _hint(module, rec: Recorder) -> Callable[[], None]:
    def rows(args, result):
        for case, what, mean, worst, ref_name, ref_mean, ref_worst in result:
            note = f"{what}, mean; worst {worst * 1e3:.2f} ms"
            if ref_worst is not None:
                note += f" (reference {ref_worst * 1e3:.2f} ms)"
            rec.add(case, mean, ref_name or None, ref_mean, note)

    wrap(module, "hint_rows", rows)
    wrap(module, "mesh_rows", rows)
    return lambda: None


def _kenken(module, rec: Recorder) -> Callable[[], None]:
    times: dict[tuple[str, int], list[float]] = {}

    def best_time(args, seconds):
        solver, puzzle = args
        times.setdefault((solver.__name__, puzzle.size), []).append(seconds)

    def finish():
        n9 = getattr(module, "CORPUS_9", 0)
        ours9 = times.get(("ours", 9), [])
        exact9 = times.get(("exact_cover", 9), [])
        if ours9 and exact9:
            corpus, ref = ours9[:n9], exact9[:n9]
            rec.add(
                f"9x9, median of {len(corpus)}",
                statistics.median(corpus),
                "exact cover",
                statistics.median(ref),
            )
            rec.add(f"9x9, hardest of {len(corpus)}", max(corpus), "exact cover", max(ref))
            if len(ours9) > n9 and len(exact9) > n9:
                rec.add("9x9 stress puzzle", ours9[n9], "exact cover", exact9[n9])
        ours6 = times.get(("ours", 6), [])
        for solver, label in (("exact_cover", "exact cover"), ("backtracking", "backtracking")):
            ref = times.get((solver, 6), [])
            if ours6 and ref:
                rec.add(
                    f"6x6, median of {len(ours6)}",
                    statistics.median(ours6),
                    label,
                    statistics.median(ref),
                )

    wrap(module, "best_time", best_time)
    return finish


def _viewer(module, rec: Recorder) -> Callable[[], None]:
    def run(args, rows):
        for name, value, unit, goal, better in rows:
            name = name.strip()
            if unit == "s":
                ours, shown = value, f"{value:.3g} s"
            elif unit == "ms":
                ours, shown = value / 1e3, f"{value:.3g} ms"
            elif unit == "/s" and value:
                ours, shown = 1 / value, f"{value:.3g} frames/s"
            else:
                rec.add(name, None, note=f"{value:.3g}")
                continue
            if better == "ref":
                rec.add(name, ours, "off-screen pv.Plotter", goal / 1e3 if unit == "ms" else goal)
            elif goal is not None:
                sign = "≤" if better == "lower" else "≥"
                rec.add(name, ours, note=f"{shown}; goal {sign} {goal:g} {unit}")
            else:
                rec.add(name, ours, note=shown if unit == "/s" else "")

    wrap(module, "run", run)
    return lambda: None


RECORDERS = {
    "bench_polycube": _polycube,
    "bench_batch": _batch,
    "bench_disassembly": _disassembly,
    "bench_dice": _dice,
    "bench_domino": _domino,
    "bench_hint": _hint,
    "bench_kenken": _kenken,
    "bench_viewer": _viewer,
}


def run_benchmark(path: Path) -> list[dict]:
    """Run one bench_*.py's main() with its recorder installed; its rows."""
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    rec = Recorder(path.stem)
    install = RECORDERS.get(path.stem)
    finish = install(module, rec) if install else (lambda: None)
    argv = sys.argv
    sys.argv = [str(path)]
    try:
        main = module.main
        main([]) if inspect.signature(main).parameters else main()
    finally:
        sys.argv = argv
    finish()
    if not rec.rows:
        print(f"({path.stem}: no rows recorded for results.json)", flush=True)
    return rec.rows


def save(rows: list[dict], ran: list[str], path: Path = RESULTS) -> None:
    """Write `rows`, keeping the earlier rows of benchmarks that were not run this time."""
    try:
        kept = [
            r for r in json.loads(path.read_text(encoding="utf-8")) if r["benchmark"] not in ran
        ]
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        kept = []
    order = {name: i for i, name in enumerate(RECORDERS)}
    merged = sorted(kept + rows, key=lambda r: order.get(r["benchmark"], len(order)))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
