"""Tessera beside BurrTools' burrTxt on the same files, in the same run: whole processes.

    .venv/bin/python benchmarks/bench_burrtools.py

1. Each of BurrTools' example files on its own: `tessera solve F --disassemble --count --json`
   against `burrTxt -d F`, best of three, and the ratio (the goal for the small ones, Pelikan,
   Cube in Cage and Dracula: at most 4; for Solid six-piece burrs: below 1).
2. Every generated case in tests/fixtures/burrtools/ and burrtools_grids/ (every grid) plus the
   small conformance files, 100 files: one `tessera solve ALL --disassemble --count --json`
   batch against burrTxt run once per file (issue 23's goal: faster than burrTxt).

burrTxt comes from ../shared/reference/burrtools/; when it is absent the script says so and
prints Tessera's times alone, never a typed-in reference.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
BURRTXT = SHARED / "reference" / "burrtools" / "burrTxt"
CONFORMANCE = SHARED / "conformance" / "burrtools"
TESSERA = [sys.executable, "-m", "tessera"]
SMALL = ["PelikanBurr.xmpuzzle", "CubeInCage.xmpuzzle", "DraculasDentalDesaster.xmpuzzle"]
EXAMPLES = [*SMALL, "AlPackino.xmpuzzle", "SolidSixPieceBurrs.xmpuzzle"]


def wall(command: list[str], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, cwd=ROOT.parent, check=False)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> list[dict]:
    from record import row

    rows = []
    have = BURRTXT.exists()
    absent = "" if have else f"burrTxt is absent ({BURRTXT}): no ratio"
    if not have:
        print(f"burrTxt is absent ({BURRTXT}): Tessera's times only, no ratios")
    print("single files, whole process (best of 3):")
    for name in EXAMPLES:
        path = CONFORMANCE / name
        if not path.exists():
            print(f"  {name}: not here")
            continue
        ours = wall([*TESSERA, "solve", str(path), "--disassemble", "--count", "--json"])
        goal = "goal ≤ 4×" if name in SMALL else "goal < 1×" if "Solid" in name else ""
        if have:
            theirs = wall([str(BURRTXT), "-d", str(path)])
            print(f"  {name}: tessera {ours:.3f} s, burrTxt {theirs:.3f} s, {ours / theirs:.1f}×")
            rows.append(row(name, ours, "burrTxt -d", theirs, f"whole process; {goal}"))
        else:
            print(f"  {name}: tessera {ours:.3f} s")
            rows.append(row(name, ours, "burrTxt -d", None, absent))
    fixtures = ROOT / "tests" / "fixtures"
    files = sorted((fixtures / "burrtools").glob("*.xmpuzzle"))
    files += sorted((fixtures / "burrtools_grids").glob("*.xmpuzzle"))  # issue 23: 80+ files
    files += [CONFORMANCE / n for n in SMALL if (CONFORMANCE / n).exists()]
    batch = [*TESSERA, "solve", *map(str, files), "--disassemble", "--count", "--json"]
    ours = wall(batch, repeat=1)
    print(f"batch of {len(files)} files: tessera (one process) {ours:.3f} s", end="")
    if have:
        start = time.perf_counter()
        for path in files:
            subprocess.run([str(BURRTXT), "-d", str(path)], capture_output=True, check=False)
        theirs = time.perf_counter() - start
        print(f", burrTxt once per file {theirs:.3f} s, {ours / theirs:.2f}×")
        note = "Tessera in one process, burrTxt once per file; goal < 1×"
        rows.append(row(f"batch of {len(files)} files", ours, "burrTxt -d", theirs, note))
    else:
        print()
        rows.append(row(f"batch of {len(files)} files", ours, "burrTxt -d", None, absent))
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
