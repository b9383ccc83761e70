"""Where each symmetry sends each placement (`symmetry._translated_images`, which matches one
placement per orientation by its cells and moves the rest with it) against the plain answer:
every placement's cells (and colours) mapped cell by cell and looked up, on every grid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube import symmetry
from tessera.solvers.polycube.packing import placement_table

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    "assets/puzzles/soma.toml",
    "assets/puzzles/tetracubes-2x4x4.toml",
    "assets/puzzles/polysphere-pyramid.toml",
    "assets/puzzles/prisms-hexagon-block.toml",
    "assets/puzzles/rhombic-pyramid.toml",
    "assets/puzzles/tetra-octa-tetrahedron.toml",
    "tests/fixtures/burrtools/box02.xmpuzzle",  # a target of more than 62 cells: salted sums
    "tests/fixtures/burrtools/colour02.xmpuzzle",
    "tests/fixtures/burrtools/turn07.xmpuzzle",  # coloured turns
    "tests/fixtures/burrtools/hand07.xmpuzzle",  # pieces made chiral by their colours, mirrors
]


def plainly(group, pieces) -> np.ndarray:
    table = placement_table(group.puzzle)
    index, rows = {}, []
    for t in pieces:
        painted = table.colours[t]
        for i, cells in enumerate(table.cells[t].tolist()):
            colours = None if painted is None else painted[i].tolist()
            key = (t, tuple(sorted(zip(cells, colours, strict=True))) if colours else tuple(cells))
            index[key] = len(rows)
            rows.append((t, cells, colours))
    out = np.empty((group.order, len(rows)), np.int64)
    for g in range(group.order):
        moved = group.cell_maps[g].tolist()
        for r, (t, cells, colours) in enumerate(rows):
            image = [moved[c] for c in cells]
            key = (
                (t, tuple(sorted(zip(image, colours, strict=True))))
                if colours
                else (t, tuple(sorted(image)))
            )
            out[g, r] = index[key]
    return out


@pytest.mark.parametrize("name", CASES)
def test_images_of_placements_are_the_plain_ones(name, monkeypatch):
    path = ROOT / name
    puzzle = load_xmpuzzle(path) if path.suffix == ".xmpuzzle" else load_polycube(path)
    seen = []
    real = symmetry._translated_images

    def spy(group, table, pieces, matched):
        found = real(group, table, pieces, matched)
        seen.append((group, [t for t in pieces if table.count(t)], found))
        return found

    monkeypatch.setattr(symmetry, "_translated_images", spy)
    symmetry.ClassSearch(puzzle)
    assert seen, "no piece was held at one placement per orbit: nothing was checked"
    for group, pieces, found in seen:
        assert group.order > 1
        np.testing.assert_array_equal(found, plainly(group, pieces))
