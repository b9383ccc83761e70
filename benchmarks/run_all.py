"""Run every benchmark in this folder (`make bench`), one after another, in this process's
interpreter. Each benchmark prints its own table of times and ratios; every measurement is also
recorded in benchmarks/results.json (see record.py), from which the docs' benchmarks page is
generated.

`python benchmarks/run_all.py [NAME...]` runs only the benchmarks whose file name contains a
NAME (e.g. `dice kenken`); the rows of the others in results.json are kept.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import RESULTS, run_benchmark, save  # noqa: E402


def main() -> int:
    names = sys.argv[1:]
    rows: list[dict] = []
    ran: list[str] = []
    failed: list[str] = []
    for path in sorted(HERE.glob("bench_*.py")):
        if names and not any(n in path.stem for n in names):
            continue
        print(f"\n=== {path.stem} ===", flush=True)
        try:
            rows.extend(run_benchmark(path))
            ran.append(path.stem)
        except Exception:
            traceback.print_exc()
            failed.append(path.stem)
    if ran:
        save(rows, ran)
        print(f"\n{len(rows)} results recorded in {RESULTS}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
