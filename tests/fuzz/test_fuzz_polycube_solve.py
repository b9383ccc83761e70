"""Small polycube puzzles with hostile geometry, through the loader and the solver (issue 21
F1, F2): cells far apart, pieces of one shape under several names, mirror images. Each must
count consistently (fixed ≥ up to rotation ≥ up to symmetry), the same as the puzzle with its
equal pieces written as copies, and find the same placements with or without a grid."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tessera.models.errors import NoSolution, PuzzleError
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube import packing
from tessera.solvers.polycube.symmetry import ClassSearch

#: a coordinate near the others, or far from them (within the loader's bound)
coord = st.one_of(st.integers(0, 2), st.sampled_from([1000, -1000, 10_000, -10_000]))
cell = st.tuples(coord, coord, coord)
SHAPES = {
    "mono": [[0, 0, 0]],
    "domino": [[0, 0, 0], [1, 0, 0]],
    "vee": [[0, 0, 0], [1, 0, 0], [0, 1, 0]],
    "screw": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
    "screw'": [[0, 0, 0], [-1, 0, 0], [-1, 1, 0], [-1, 1, 1]],
}


@st.composite
def puzzle(draw) -> tuple[dict, list]:
    """(pieces by name as (cells, copies), target cells)"""
    pieces = {}
    for k in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            cells = SHAPES[draw(st.sampled_from(sorted(SHAPES)))]
        else:  # a sparse piece of its own
            cells = [list(c) for c in draw(st.lists(cell, min_size=1, max_size=3, unique=True))]
        pieces[f"P{k}"] = (cells, draw(st.integers(1, 2)))
    names = sorted(pieces)
    # the target: a few pieces' cells, moved apart, so that it is often solvable
    target: set[tuple[int, int, int]] = set()
    for name in names:
        cells, copies = pieces[name]
        for _ in range(copies):
            shift = np.array(draw(cell)) * 3
            target |= {tuple((np.array(c) + shift).tolist()) for c in cells}
    target |= set(draw(st.lists(cell, max_size=2)))
    return pieces, sorted(target)


def write(pieces: dict, target: list, folder: Path, name: str) -> Path:
    lines = ['kind = "polycube"']
    for pname, (cells, copies) in pieces.items():
        lines += [f"[pieces.{pname}]", f"cells = {json.dumps(cells)}", f"copies = {copies}"]
    lines += ["[target]", f"cells = {json.dumps([list(c) for c in target])}"]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def joined(pieces: dict, puzzle) -> dict:
    """The same pieces with every shape named once, its copies added up."""
    keys = [packing.piece_keys(p)[0] for p in puzzle.pieces]
    out: dict = {}
    first: dict = {}
    for (name, (cells, copies)), key in zip(pieces.items(), keys, strict=True):
        if key in first:
            kept = first[key]
            out[kept] = (out[kept][0], out[kept][1] + copies)
        else:
            first[key] = name
            out[name] = (cells, copies)
    return out


@given(puzzle())
def test_hostile_geometry_counts_consistently(drawn) -> None:
    pieces, target = drawn
    if len(target) > 14:
        return
    with tempfile.TemporaryDirectory() as folder:
        try:
            puzzle = load_polycube(write(pieces, target, Path(folder), "split"))
        except PuzzleError:
            return
        if puzzle.volume_problem():
            return
        dense = packing.PlacementTable(puzzle)
        old = packing.DENSE_CELLS, packing.DENSE_PER_CELL
        packing.DENSE_CELLS = packing.DENSE_PER_CELL = 0
        try:
            sparse = packing.PlacementTable(puzzle)
        finally:
            packing.DENSE_CELLS, packing.DENSE_PER_CELL = old
        for t in range(len(puzzle.pieces)):
            assert np.array_equal(dense.cells[t], sparse.cells[t])
            assert np.array_equal(dense.offset[t], sparse.offset[t])
        try:
            counts = ClassSearch(puzzle).tally(workers=1)
        except NoSolution:
            return
        assert counts.fixed >= counts.up_to_rotation >= counts.up_to_symmetry >= 0
        merged = load_polycube(write(joined(pieces, puzzle), target, Path(folder), "joined"))
        assert ClassSearch(merged).tally(workers=1) == counts
