"""Tessera beside BurrTools' burrTxt on the same files, in the same run: whole processes.

    .venv/bin/python benchmarks/bench_burrtools.py

1. Each of BurrTools' example files on its own: `tessera solve F --disassemble --count --json`
   against `burrTxt -d F`, best of three, and the ratio (the goal for the small ones, Pelikan,
   Cube in Cage and Dracula: at most 4; for Solid six-piece burrs: below 1).
2. The generated cases in tests/fixtures/burrtools/ plus the small conformance files (60), then
   those and every other grid's generated cases, tests/fixtures/burrtools_grids/ (100): one
   `tessera solve FILES --disassemble --count --json` batch each, against burrTxt run once per
   file (issue 23's goal: faster than burrTxt on 80+ small files).

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
    small = [CONFORMANCE / n for n in SMALL if (CONFORMANCE / n).exists()]
    cubes = sorted((fixtures / "burrtools").glob("*.xmpuzzle")) + small
    grids = sorted((fixtures / "burrtools_grids").glob("*.xmpuzzle"))
    for label, files in (("cube-grid files", cubes), ("files on every grid", cubes + grids)):
        rows.append(batch_row(f"batch of {len(files)} {label}", files, have, absent))
    return rows


def batch_row(label: str, files: list[Path], have: bool, absent: str) -> dict:
    """One `tessera solve FILES...` process against burrTxt once per file, same files."""
    from record import row

    batch = [*TESSERA, "solve", *map(str, files), "--disassemble", "--count", "--json"]
    ours = wall(batch, repeat=1)
    print(f"{label}: tessera (one process) {ours:.3f} s", end="")
    if not have:
        print()
        return row(label, ours, "burrTxt -d", None, absent)
    start = time.perf_counter()
    for path in files:
        subprocess.run([str(BURRTXT), "-d", str(path)], capture_output=True, check=False)
    theirs = time.perf_counter() - start
    print(f", burrTxt once per file {theirs:.3f} s, {ours / theirs:.2f}×")
    note = "Tessera in one process, burrTxt once per file; goal < 1×"
    return row(label, ours, "burrTxt -d", theirs, note)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
