"""Tessera beside BurrTools' burrTxt on harder problems on the four non-cube grids (issue 24).

    .venv/bin/python benchmarks/bench_grids.py [NAME...]

Issue 24's goal: where burrTxt takes over a second on a problem, Tessera takes no longer,
measured side by side in one run. The problems are benchmarks/cases/grids/*.xmpuzzle (three a
grid: triangular prisms, spheres, rhombic dodecahedra, tetrahedra-octahedra; made by the
generate.py there), each taking burrTxt roughly 1-10 s. For each, one after the other, as whole
processes: `burrTxt -q FILE` and `tessera solve FILE --count --json`, best of `REPEAT` runs each,
interleaved so machine noise hits both alike. Wall seconds give the ratio (tessera / burrTxt);
CPU seconds (user + system, Tessera's workers included) are printed too, the fairer figure on a
busy machine. The counts must agree: burrTxt's assemblies, Tessera's `up_to_symmetry` and the
number recorded in the case's .toml; a disagreement fails the benchmark.

burrTxt comes from ../shared/reference/burrtools/; when it is absent the script says so, times
Tessera alone, and prints the figures recorded in the .toml files beside them (from the machine
named there, not this run: the rows keep `reference_s` empty and the note gives them).
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = HERE / "cases" / "grids"
BURRTXT = ROOT.parent / "shared" / "reference" / "burrtools" / "burrTxt"
GRIDS = {1: "prisms", 2: "spheres", 3: "rhombic", 4: "tetra-octa"}
#: Runs of each program per problem (one with `run_all.py --quick`); the best counts.
REPEAT = 2
_ASSEMBLIES = re.compile(r"(\d+) assemblies")

sys.path.insert(0, str(HERE))
from record import Child, print_rows, quick, row, run_child, tessera_command  # noqa: E402


def best(runs: list[Child]) -> tuple[float, float]:
    """The best wall and the best CPU seconds of some runs of one command."""
    return min(r.wall for r in runs), min(r.cpu for r in runs)


def tessera(path: Path) -> tuple[int, Child]:
    done = run_child([*tessera_command(), "solve", str(path), "--count", "--json"])
    if done.returncode != 0:
        raise RuntimeError(f"tessera solve {path.name} --count failed: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])["up_to_symmetry"], done


def burrtxt(path: Path) -> tuple[int, Child]:
    done = run_child([str(BURRTXT), "-q", str(path)])
    found = _ASSEMBLIES.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"burrTxt -q {path.name} failed: {done.stdout[-300:]!r}")
    return int(found[1]), done


def case(path: Path, have: bool, repeat: int) -> dict:
    """One problem: both programs, `repeat` rounds; its row."""
    meta = tomllib.loads(path.with_suffix(".toml").read_text(encoding="utf-8"))
    expected = meta["assemblies"]
    ours: list[Child] = []
    theirs: list[Child] = []
    for _ in range(repeat):
        if have:
            count, done = burrtxt(path)
            if count != expected:
                raise AssertionError(f"{path.name}: burrTxt {count}, recorded {expected}")
            theirs.append(done)
        count, done = tessera(path)
        if count != expected:
            raise AssertionError(f"{path.name}: tessera {count}, burrTxt {expected}")
        ours.append(done)
    wall, cpu = best(ours)
    agree = "both" if have else "as recorded"
    what = f"{GRIDS[meta['grid']]}, {meta['pieces']} pieces, {expected} assemblies {agree}"
    if have:
        their_wall, their_cpu = best(theirs)
        note = f"{what}; CPU: tessera {cpu:.2f} s, burrTxt {their_cpu:.2f} s"
        return row(path.stem, wall, "burrTxt -q", their_wall, note)
    recorded = f"recorded burrTxt {meta['burrtxt_s']:.2f} s ({meta['burrtxt_cpu_s']:.2f} s CPU)"
    note = f"{what}; tessera CPU {cpu:.2f} s; burrTxt absent: {recorded}, not this run"
    return row(path.stem, wall, "burrTxt -q", None, note)


def main(argv: list[str] | None = None) -> list[dict]:
    names = list(argv or [])
    have = BURRTXT.exists()
    if not have:
        print(f"burrTxt is absent ({BURRTXT}): Tessera's times beside the recorded ones")
    files = [
        p for p in sorted(CASES.glob("*.xmpuzzle")) if not names or any(n in p.stem for n in names)
    ]
    repeat = 1 if quick() else REPEAT
    print(f"{len(files)} problems, best of {repeat} whole-process runs each", flush=True)
    rows = [case(path, have, repeat) for path in files]
    print_rows(rows)
    timed = [r for r in rows if r["ratio"] is not None]
    if timed:
        slower = [r["name"] for r in timed if r["ratio"] > 1]
        print(
            f"tessera / burrTxt (wall): best {min(r['ratio'] for r in timed):.2f}, "
            f"worst {max(r['ratio'] for r in timed):.2f}; "
            f"goal ≤ 1 (issue 24): {'met' if not slower else 'NOT met on ' + ', '.join(slower)}"
        )
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
