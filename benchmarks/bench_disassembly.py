"""Issue 13's speed goals: BurrTools' example files, every assembly found and disassembled.

For each file in ../shared/conformance/burrtools: the assemblies (`ClassSearch`, BurrTools' way
of counting: rotated and mirrored duplicates dropped), then `disassemble` on every one of them,
both timed in this process after a warm-up, and the whole thing once more as a fresh process
(`python bench_disassembly.py --one FILE`: imports, cached numba kernels, loading, solving,
disassembling), which is how BurrTools' times were taken (0.7.1, C++ -O2, one core, whole
process). Goals: every file
under 1.5 s whole process; Solid six-piece burrs no slower than BurrTools.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

BURR = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "burrtools"

# BurrTools 0.7.1 on this machine kind, whole process, seconds (analysis README, issue 13)
BURRTOOLS = {
    "SolidSixPieceBurrs.xmpuzzle": 5.0,
    "PelikanBurr.xmpuzzle": 0.11,
    "DraculasDentalDesaster.xmpuzzle": 0.08,
    "AlPackino.xmpuzzle": 0.02,
    "CubeInCage.xmpuzzle": 0.01,  # "< 0.01 s": the ratio is a lower bound
}


def analyse(path: Path) -> tuple[int, int, list[str], float, float]:
    """(assemblies, solutions, levels, seconds to assemble, seconds to disassemble)."""
    from tessera.models.burrtools import load_xmpuzzle
    from tessera.solvers.polycube.disassemble import disassemble, xmpuzzle_groups
    from tessera.solvers.polycube.symmetry import ClassSearch

    start = time.perf_counter()
    puzzle = load_xmpuzzle(path)
    groups = xmpuzzle_groups(path)
    assemblies = list(ClassSearch(puzzle).representatives())
    middle = time.perf_counter()
    levels = []
    for assembly in assemblies:
        result = disassemble(
            [p.cells for p in assembly.pieces], [groups[p.piece] for p in assembly.pieces]
        )
        if result.complete:
            levels.append(result.level)
    end = time.perf_counter()
    return len(assemblies), len(levels), levels, middle - start, end - middle


def one(name: str) -> None:
    """The fresh-process run: load, solve, disassemble, print the levels."""
    a, s, levels, _, _ = analyse(BURR / name)
    print(a, s, " ".join(levels))


def whole_process(name: str) -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh process; CPU (user + system) is the fairer number on a
    shared machine, where waiting for a core inflates the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, __file__, "--one", name], check=True, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    from tessera.models.errors import PuzzleError

    if not BURR.exists():
        print(f"skipped: {BURR} is not here")
        return
    head = (
        f"{'file':<32} {'asm':>4} {'sol':>4} {'level(s)':<26} {'assemble s':>10} "
        f"{'disasm s':>9} {'process s':>9} {'cpu s':>6} {'BurrTools s':>11} {'ratio':>6}"
    )
    print(head)
    for name, reference in BURRTOOLS.items():
        try:
            analyse(BURR / name)  # warm-up: numba's cached kernels, file caches
        except PuzzleError as exc:
            print(f"{name:<32} not loaded: {exc.message}")
            continue
        a, s, levels, t_asm, t_dis = analyse(BURR / name)
        process, cpu = whole_process(name)
        shown = " ".join(sorted(set(levels)))
        if len(shown) > 26:
            shown = shown[:23] + "..."
        print(
            f"{name:<32} {a:>4} {s:>4} {shown:<26} {t_asm:10.3f} {t_dis:9.3f} "
            f"{process:9.2f} {cpu:6.2f} {reference:11.2f} {cpu / reference:6.1f}"
        )
    print("ratio = Tessera whole-process CPU / BurrTools whole process (below 1: Tessera faster);")
    print("goal: every file under 1.5 s whole process")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2])
    else:
        main()
