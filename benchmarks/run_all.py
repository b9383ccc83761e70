"""Run every benchmark in this folder (`make bench`), one after another, in this process's
interpreter. Each benchmark prints its own table of times and ratios and returns them as rows
(see record.py), which are written to benchmarks/results.json, from which the docs' benchmarks
page is generated.

`python benchmarks/run_all.py [--quick] [NAME...]` runs only the benchmarks whose file name
contains a NAME (e.g. `dice kenken`); the rows of the others in results.json are kept.
`--quick` (environment TESSERA_BENCH_QUICK=1) leaves out the cases that take many minutes
(Bedlam's count); their rows say they were skipped.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import RESULTS, run_benchmark, save  # noqa: E402


def main() -> int:
    names = [a for a in sys.argv[1:] if a != "--quick"]
    if "--quick" in sys.argv[1:]:
        os.environ["TESSERA_BENCH_QUICK"] = "1"
    rows: list[dict] = []
    ran: list[str] = []
    failed: list[str] = []
    for path in sorted(HERE.glob("bench_*.py")):
        if names and not any(n in path.stem for n in names):
            continue
        print(f"\n=== {path.stem} ===", flush=True)
        try:
            found = run_benchmark(path)
        except Exception:
            traceback.print_exc()
            failed.append(path.stem)
            continue
        if found is not None:
            rows.extend(found)
            ran.append(path.stem)
    if ran:
        save(rows, ran)
        print(f"\n{len(rows)} results recorded in {RESULTS}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
