"""Write the harder BurrTools problems on the four non-cube grids that bench_grids.py times.

    .venv/bin/python benchmarks/cases/grids/generate.py [NAME...]

Issue 24 asks that where burrTxt takes over a second, Tessera takes no longer. The test
fixtures (tests/fixtures/burrtools_grids/) are all small (burrTxt answers each in milliseconds),
so they cannot show that; these twelve can: three a grid, each taking burrTxt roughly 1-10 s.

Each case is NAME.xmpuzzle (plain XML, one problem) and NAME.toml: the grid, the target, the
number of pieces, the seed, burrTxt's number of assemblies (`burrTxt -q`, which is Tessera's
`up_to_symmetry`), and burrTxt's best-of-three wall and CPU seconds on the machine that wrote
it (named in the file), which bench_grids.py prints when burrTxt is absent. The target shapes
and the cut are the fixtures' own (tests/fixtures/burrtools_grids/generate.py, imported, not
copied): a target built of units (prisms, spheres, whole rhombic dodecahedra or cubes of the
rhombic grid, tetrahedra and octahedra) cut at random into N connected pieces, with
random.Random(seed). Only the sizes differ: more pieces, bigger targets, so many assemblies
(thousands to millions).

The seeds were chosen by drawing a few and keeping those burrTxt took 1-10 s on; the plan below
fixes them, so re-running rewrites the same .xmpuzzle bytes (the times in the .toml change with
the machine). Without burrTxt the script says so and writes nothing: an answer is never made up.
"""

from __future__ import annotations

import importlib.util
import itertools
import platform
import random
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "burrtools_grids" / "generate.py"


def _fixture_generator():
    """The fixtures' generator as a module (it is a script in a folder without __init__)."""
    spec = importlib.util.spec_from_file_location("burrtools_grids_generate", FIXTURES)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


gen = _fixture_generator()
BURRTXT = gen.BURRTXT


def _even(cells) -> list:
    """Sphere cells moved by (1,0,0) when their coordinate sum is odd: spheres sit on even
    sums only, and fcc_pyramid(n) of even n starts on an odd one."""
    cells = list(cells)
    shift = sum(cells[0]) % 2
    return [(x + shift, y, z) for x, y, z in cells]


def _box(nx: int, ny: int, nz: int):
    return itertools.product(range(nx), range(ny), range(nz))


#: target name -> (its units, their family). Sizes beyond the fixtures': every one is bigger.
TARGETS: dict[str, Callable[[], tuple[set, object]]] = {
    "prism-box6x3x2": lambda: (gen.as_units("c", _box(6, 3, 2)), gen.PRISM_CELLS),
    "prism-box6x4x2": lambda: (gen.as_units("c", _box(6, 4, 2)), gen.PRISM_CELLS),
    "prism-box4x4x3": lambda: (gen.as_units("c", _box(4, 4, 3)), gen.PRISM_CELLS),
    "sphere-tetrahedron5": lambda: (
        gen.as_units("c", gen.fcc_tetrahedron(5)),
        gen.SPHERE_CELLS,
    ),
    "sphere-board6x6x2": lambda: (gen.as_units("c", gen.fcc_box(6, 6, 2)), gen.SPHERE_CELLS),
    "sphere-pyramid4": lambda: (
        gen.as_units("c", _even(gen.fcc_pyramid(4))),
        gen.SPHERE_CELLS,
    ),
    "rhombic-rd-pyramid3": lambda: (gen.as_units("rd", gen.fcc_pyramid(3)), gen.RHOMBIC_UNITS),
    "rhombic-rd-tetrahedron4": lambda: (
        gen.as_units("rd", gen.fcc_tetrahedron(4)),
        gen.RHOMBIC_UNITS,
    ),
    "rhombic-cubes3x2x2": lambda: (gen.as_units("block", _box(3, 2, 2)), gen.RHOMBIC_BLOCKS),
    "tetra-tetrahedron4": lambda: (gen.tetra_solid(4), gen.TETRA_UNITS),
    "tetra-octahedron3": lambda: (gen.tetra_octahedron(3), gen.TETRA_UNITS),
    "tetra-blocks3x3x2": lambda: (gen.as_units("block", _box(3, 3, 2)), gen.TETRA_UNITS),
}

#: (case name, target, pieces, seed). burrTxt's CPU seconds when chosen (2 cores, AMD EPYC) in
#: the comment; the .toml has the wall and CPU seconds of the last run of this script.
PLAN: list[tuple[str, str, int, int]] = [
    ("prism-6x3x2-11", "prism-box6x3x2", 11, 5),  # 298212 assemblies, 1.4 s
    ("prism-6x4x2-11", "prism-box6x4x2", 11, 4),  # 6888, 1.0 s
    ("prism-4x4x3-12", "prism-box4x4x3", 12, 2),  # 30788, 3.8 s
    ("sphere-tetrahedron5-10", "sphere-tetrahedron5", 10, 5),  # 480380, 6.7 s
    ("sphere-board6x6x2-12", "sphere-board6x6x2", 12, 2),  # 1812000, 3.4 s
    ("sphere-pyramid4-10", "sphere-pyramid4", 10, 8),  # 220848, 1.9 s
    ("rhombic-rd-pyramid3-8", "rhombic-rd-pyramid3", 8, 4),  # 196056, 3.2 s
    ("rhombic-rd-tetrahedron4-9", "rhombic-rd-tetrahedron4", 9, 2),  # 345936, 2.1 s
    ("rhombic-cubes3x2x2-9", "rhombic-cubes3x2x2", 9, 1),  # 161280, 2.5 s
    ("tetra-tetrahedron4-10", "tetra-tetrahedron4", 10, 4),  # 136688, 2.9 s
    ("tetra-octahedron3-12", "tetra-octahedron3", 12, 1),  # 15978, 2.5 s
    ("tetra-blocks3x3x2-8", "tetra-blocks3x3x2", 8, 2),  # 193920, 1.3 s
]

_ASSEMBLIES = re.compile(r"(\d+) assemblies")


def puzzle(target: str, pieces: int, seed: int) -> tuple[str, int]:
    """The XML of one problem (the target cut into `pieces` connected pieces) and its grid."""
    units, family = TARGETS[target]()
    grid = family.grid
    cut = gen.cut(units, pieces, family, random.Random(seed))
    shapes = [gen.voxel(grid, {c: "#" for c in gen.cells_of(units, family)}, "Result")]
    shapes += [gen.voxel(grid, {c: "#" for c in gen.cells_of(p, family)}) for p in cut]
    entries = [{"id": i + 1, "count": 1} for i in range(len(cut))]
    return gen.document(grid, shapes, entries, f"{target}, {pieces} pieces"), grid.type


def burrtxt(path: Path, repeat: int = 3) -> tuple[int, float, float]:
    """burrTxt -q's number of assemblies and its best wall and CPU seconds of `repeat` runs.
    CPU (user + system) is the steadier figure on a shared machine, where waiting for a core
    inflates the wall time."""
    wall = cpu = float("inf")
    count = None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = subprocess.run(
            [str(BURRTXT), "-q", str(path)], capture_output=True, text=True, timeout=120
        )
        wall = min(wall, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu = min(cpu, used)
        found = _ASSEMBLIES.search(run.stdout)
        if run.returncode != 0 or found is None:
            raise RuntimeError(f"{path.name}: burrTxt said {run.stdout[-300:]!r}")
        count = int(found[1])
    return count, wall, cpu


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def write_case(name: str, target: str, pieces: int, seed: int) -> str:
    path = HERE / f"{name}.xmpuzzle"
    xml, grid = puzzle(target, pieces, seed)
    path.write_text(xml)
    assemblies, wall, cpu = burrtxt(path)
    path.with_suffix(".toml").write_text(
        f"# burrTxt -q {path.name} (BurrTools 0.7.1), written by generate.py\n"
        f'grid = {grid}\ntarget = "{target}"\npieces = {pieces}\nseed = {seed}\n'
        f"assemblies = {assemblies}\n"
        f"# burrTxt's best of 3 runs, one process each, on {cpu_name()}: wall and CPU seconds\n"
        f"burrtxt_s = {wall:.2f}\nburrtxt_cpu_s = {cpu:.2f}\n"
    )
    return f"{name}: {assemblies} assemblies, burrTxt {wall:.2f} s wall, {cpu:.2f} s CPU"


def main(argv: list[str]) -> int:
    if not BURRTXT.exists():
        print(f"burrTxt is absent ({BURRTXT}): no answers, nothing written", file=sys.stderr)
        return 1
    for name, target, pieces, seed in PLAN:
        if not argv or name in argv:
            print(write_case(name, target, pieces, seed), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
