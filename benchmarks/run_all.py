"""Run every benchmark in this folder (`make bench`), one after another, in this process's
interpreter. Each benchmark prints its own table of times and ratios."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    names = sys.argv[1:]
    for path in sorted(HERE.glob("bench_*.py")):
        if names and not any(n in path.stem for n in names):
            continue
        print(f"\n=== {path.stem} ===", flush=True)
        runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
