"""Random Soma figures for the batch benchmark: the same 300 files every run, in yass's `.soma`
format and as Tessera TOML puzzles.

A figure is 27 cubes grown from one (Eden growth: each new cube is a uniformly chosen empty face
neighbour of the figure) inside a 3×3×4 box, so it is connected and compact, as people's figures
are; a seeded generator makes the set the same on every machine. Most such figures have tens to
hundreds of solutions and a few have none, so the batch is mostly search, not start-up (in a
4×4×4 box two figures in five have no solution and yass needs a third of the time).
yass's example figures (bench_batch's other set) are hand-made and mostly easy; these are the
"300 random figures" of issue 25.
"""

from __future__ import annotations

import random
from pathlib import Path

#: The batch of issue 25: this many figures, from this seed.
COUNT = 300
SEED = 25
BOX = (3, 3, 4)
CELLS = 27
NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))

#: The seven Soma pieces as a TOML puzzle's pieces (the shapes of the built-in soma.toml).
SOMA_PIECES = """\
[pieces.V]
layers = [["##", "#."]]

[pieces.L]
layers = [["###", "#.."]]

[pieces.T]
layers = [["###", ".#."]]

[pieces.Z]
layers = [["##.", ".##"]]

[pieces.A]
layers = [["##", "#."], ["#.", ".."]]

[pieces.B]
layers = [["##", "#."], [".#", ".."]]

[pieces.P]
layers = [["##", "#."], ["..", "#."]]
"""


def figure(rng: random.Random) -> list[tuple[int, int, int]]:
    """27 connected cells in the box, grown from a random cell."""
    start = tuple(rng.randrange(side) for side in BOX)
    cells = {start}
    while len(cells) < CELLS:
        around = {
            tuple(c + d for c, d in zip(cell, step, strict=True))
            for cell in cells
            for step in NEIGHBOURS
        }
        inside = {c for c in around if all(0 <= v < side for v, side in zip(c, BOX, strict=True))}
        cells.add(rng.choice(sorted(inside - cells)))
    return sorted(cells)  # type: ignore[return-value]


def soma_text(cells: list[tuple[int, int, int]]) -> str:
    """yass's format: z-layers top first, blank line between, rows of `*` and `.`."""
    filled = set(cells)
    layers = []
    nx, ny, nz = BOX
    for z in reversed(range(nz)):
        rows = ["".join("*" if (x, y, z) in filled else "." for x in range(nx)) for y in range(ny)]
        layers.append("\n".join(rows))
    return "\n\n".join(layers) + "\n"


def toml_text(cells: list[tuple[int, int, int]], name: str) -> str:
    """Tessera's format 1, the target drawn as layers like the built-in figures'
    (`layers[z][y]` rows of `#` and `.`)."""
    filled = set(cells)
    nx, ny, nz = BOX
    layers = [
        "[" + ", ".join(
            '"' + "".join("#" if (x, y, z) in filled else "." for x in range(nx)) + '"'
            for y in range(ny)
        ) + "]"
        for z in range(nz)
    ]  # fmt: skip
    drawn = ",\n  ".join(layers)
    return (
        f'kind = "polycube"\nformat = 1\nname = "{name}"\n\n{SOMA_PIECES}\n'
        f"[target]\nlayers = [\n  {drawn},\n]\n"
    )


def write_figures(
    folder: Path, count: int = COUNT, seed: int = SEED
) -> tuple[list[str], list[str]]:
    """Write `count` figures into `folder` as `rNNN.soma` and `rNNN.toml`; their file names."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    soma, toml = [], []
    for k in range(count):
        cells = figure(rng)
        name = f"r{k:03d}"
        (folder / f"{name}.soma").write_text(soma_text(cells), encoding="utf-8")
        (folder / f"{name}.toml").write_text(toml_text(cells, name), encoding="utf-8")
        soma.append(f"{name}.soma")
        toml.append(f"{name}.toml")
    return soma, toml
