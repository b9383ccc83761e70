"""Structured results for `make bench`: benchmarks/results.json, which docs/benchmarks.md is
generated from.

The contract with the scripts is explicit: every bench_*.py's `main()` prints its own table and
returns its measurements as a list of `row(...)`s. A row is `name`, `ours_s` (Tessera's
seconds), `reference` (the program or method compared with), `reference_s` (its seconds *in the
same run*, or null when it could not be run, the note saying why), `ratio` (ours / reference,
null without a reference time; below 1 Tessera is faster) and `note`. `run_benchmark` adds
`benchmark`, `machine` and `date`; run_all.py writes the file.

A script whose `main()` returns None (not converted yet) records nothing; its earlier rows in
results.json are kept.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import inspect
import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
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


def row(
    name: str,
    ours_s: float | None,
    reference: str | None = None,
    reference_s: float | None = None,
    note: str = "",
) -> dict:
    """One measurement. `reference` names what Tessera is compared with even when it could
    not be run (then `reference_s` is None and the note should say why): a missing reference
    is reported, never filled in from elsewhere."""
    ratio = ours_s / reference_s if ours_s is not None and reference_s else None
    return {
        "name": name,
        "ours_s": ours_s,
        "reference": reference,
        "reference_s": reference_s,
        "ratio": ratio,
        "note": note,
    }


def normalise(raw: dict) -> dict:
    """A row as results.json stores it; rows with the older key names are taken too."""
    ours = raw.get("ours_s", raw.get("ours_seconds"))
    reference_s = raw.get("reference_s", raw.get("reference_seconds"))
    out = row(str(raw["name"]), ours, raw.get("reference"), reference_s, raw.get("note") or "")
    if raw.get("ratio") is not None and out["ratio"] is None:
        out["ratio"] = raw["ratio"]
    return out


def quick() -> bool:
    """Whether this run leaves out the cases that take minutes (run_all.py --quick)."""
    return os.environ.get("TESSERA_BENCH_QUICK") == "1"


def tessera_command() -> list[str]:
    """The `tessera` command of this interpreter's environment, as a user types it."""
    script = Path(sys.executable).parent / "tessera"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tessera"]


@dataclass
class Child:
    """A finished child process: wall seconds, CPU seconds (user + system, its own children
    included), and what it printed."""

    wall: float
    cpu: float
    returncode: int
    stdout: str
    stderr: str


def run_child(command: list[str], **kwargs) -> Child:
    """Run `command` to the end, timing it. CPU time comes from getrusage of the children, so
    it counts a pool's workers too, and it is the fairer figure on a shared machine, where
    waiting for a core inflates the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Child(wall, cpu, done.returncode, done.stdout, done.stderr)


def print_rows(rows: list[dict]) -> None:
    """The rows as a plain table: ours, the reference's time from this run, ours ÷ reference."""
    width = max([len(r["name"]) for r in rows] + [4])
    head = f"{'what':<{width}} {'ours':>10} {'reference':>10} {'ratio':>7}  reference / note"
    print(head)
    print("-" * len(head))
    for r in rows:
        ours = "-" if r["ours_s"] is None else _short(r["ours_s"])
        ref = "-" if r["reference_s"] is None else _short(r["reference_s"])
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3g}"
        tail = "; ".join(x for x in (r["reference"] or "", r["note"]) if x)
        print(f"{r['name']:<{width}} {ours:>10} {ref:>10} {ratio:>7}  {tail}", flush=True)
    print("ratio = ours / reference, both measured in this run (below 1: Tessera is faster)")


def _short(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds >= 1 else f"{seconds * 1e3:.2f} ms"


def run_benchmark(path: Path) -> list[dict] | None:
    """Run one bench_*.py's main(); its rows, stamped with the benchmark, machine and date, or
    None when main() returned none."""
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    argv = sys.argv
    sys.argv = [str(path)]
    try:
        main = module.main
        rows = main([]) if inspect.signature(main).parameters else main()
    finally:
        sys.argv = argv
    if not isinstance(rows, list):
        print(f"({path.stem}: main() returned no rows; its earlier results are kept)", flush=True)
        return None
    stamp = {
        "benchmark": path.stem,
        "machine": machine(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    return [{"benchmark": path.stem, **normalise(r), **stamp} for r in rows]


def save(rows: list[dict], ran: list[str], path: Path = RESULTS) -> None:
    """Write `rows`, keeping the earlier rows of benchmarks that were not run this time."""
    try:
        kept = [
            r for r in json.loads(path.read_text(encoding="utf-8")) if r["benchmark"] not in ran
        ]
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        kept = []
    merged = sorted(kept + rows, key=lambda r: r["benchmark"])  # stable: rows keep their order
    from tessera.models.atomic import atomic_path  # the project's one atomic writer

    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
