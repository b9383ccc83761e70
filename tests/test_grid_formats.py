"""Puzzles on BurrTools' five grids in both of Tessera's file formats: format 1's `grid = ...`
and the `.xmpuzzle` writer's `<gridType>`, each read back with the same cells and the same
counts (burrTxt's counts where it was asked), and bad grids refused in one line.

The small puzzles below are written inline so these round trips run on any clone; their
counts were checked with burrTxt 0.7.1 on the `.xmpuzzle` that `to_xmpuzzle` writes for each.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.grids import GRIDS, PRISMS, grid_named
from tessera.models.polycube import Piece, PolycubePuzzle, Target, load_polycube
from tessera.models.puzzle_writers import to_format1, to_xmpuzzle
from tessera.solvers.polycube.symmetry import count_solutions
from tests._paths import CONFORMANCE, FIXTURES, ROOT, needs_conformance, run_cli

pytestmark = pytest.mark.timeout(300)

BURRTXT = ROOT.parent / "shared" / "reference" / "burrtools" / "burrTxt"
needs_burrtxt = pytest.mark.skipif(
    not BURRTXT.exists(), reason="../shared/reference/burrtools/burrTxt is not beside this clone"
)

#: A cube of the rhombic grid: its 24 tetrahedra on the 5-raster.
RHOMBIC_CUBE = (
    "[[0, 1, 2], [0, 2, 1], [0, 2, 3], [0, 3, 2], [1, 0, 2], [1, 2, 0], [1, 2, 4], [1, 4, 2],\n"
    " [2, 0, 1], [2, 0, 3], [2, 1, 0], [2, 1, 4], [2, 3, 0], [2, 3, 4], [2, 4, 1], [2, 4, 3],\n"
    " [3, 0, 2], [3, 2, 0], [3, 2, 4], [3, 4, 2], [4, 1, 2], [4, 2, 1], [4, 2, 3], [4, 3, 2]]"
)

#: grid name -> (the puzzle's TOML after `kind`, assemblies up to symmetry, as burrTxt counts)
INLINE = {
    "cubes": (
        """
[pieces.L]
cells = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
copies = 4
[target]
layers = [["##", "##"], ["##", "##"], ["##", "##"]]
""",
        6,
    ),
    # a hexagonal prism two layers high from six rhombic prisms
    "prisms": (
        """
grid = "prisms"
[pieces.rhombus]
cells = [[0, 0, 0], [1, 0, 0]]
copies = 6
[target]
cells = [[1, 0, 0], [2, 0, 0], [3, 0, 0], [1, 1, 0], [2, 1, 0], [3, 1, 0],
         [1, 0, 1], [2, 0, 1], [3, 0, 1], [1, 1, 1], [2, 1, 1], [3, 1, 1]]
""",
        2,
    ),
    # a square of four balls and one on top, from two pairs and a ball
    "spheres": (
        """
grid = "spheres"
[pieces.pair]
cells = [[0, 0, 0], [1, 0, 1]]
copies = 2
[pieces.ball]
cells = [[0, 0, 0]]
[target]
cells = [[0, 0, 0], [1, 1, 0], [2, 0, 0], [1, -1, 0], [1, 0, 1]]
""",
        2,
    ),
    # a cube from three roofs (two square pyramids on adjacent faces)
    "rhombic": (
        f"""
grid = "rhombic"
[pieces.roof]
cells = [[1, 2, 0], [2, 1, 0], [2, 3, 0], [3, 2, 0], [0, 1, 2], [0, 2, 1], [0, 2, 3], [0, 3, 2]]
copies = 3
[target]
cells = {RHOMBIC_CUBE}
""",
        1,
    ),
    # an octahedron (eight small tetrahedra about a corner) from two square pyramids
    "tetra-octa": (
        """
grid = "tetra-octa"
[pieces.pyramid]
cells = [[2, 2, 2], [2, 3, 2], [3, 2, 2], [3, 3, 2]]
copies = 2
[target]
cells = [[2, 2, 2], [2, 2, 3], [2, 3, 2], [2, 3, 3], [3, 2, 2], [3, 2, 3], [3, 3, 2], [3, 3, 3]]
""",
        1,
    ),
}

#: BurrTools' example files on the other grids (../shared/conformance/burrtools-grids/README.md)
EXAMPLES = [
    ("Bermuda.xmpuzzle", 1, 1),
    ("BallRoom.xmpuzzle", 1, 2),
    ("BallRoom.xmpuzzle", 2, 1),
    ("BallRoom.xmpuzzle", 3, 3),
    ("12PieceSeparation.xmpuzzle", 1, 1),
    ("FourPieceTetrahedron.xmpuzzle", 1, 1),
]

GENERATED = sorted((FIXTURES / "burrtools_grids").glob("*.xmpuzzle"))


def _write_inline(tmp_path: Path, grid: str) -> Path:
    path = tmp_path / f"{grid}.toml"
    path.write_text('kind = "polycube"\n' + INLINE[grid][0], encoding="utf-8")
    return path


def _assemblies(puzzle: PolycubePuzzle) -> int:
    return count_solutions(puzzle).up_to_symmetry


def _burrtxt_assemblies(path: Path) -> int:
    """What burrTxt counts for the file's first problem."""
    out = subprocess.run(
        [str(BURRTXT), "-q", str(path)], capture_output=True, text=True, timeout=240, check=False
    ).stdout
    found = re.search(r"(\d+) assemblies", out)
    assert found, out
    return int(found.group(1))


def _at_origin(puzzle: PolycubePuzzle, cells: np.ndarray) -> list[list[int]]:
    """Target cells moved by the lattice translation that brings the target to the origin
    (the writers may move it by one; they may not move it by anything else)."""
    lo = puzzle.grid.anchor(puzzle.target.cells.min(axis=0))
    return sorted((np.asarray(cells) - lo).tolist())


def _same_shapes(before: PolycubePuzzle, after: PolycubePuzzle) -> None:
    assert after.grid is before.grid
    assert all(p.grid is before.grid for p in after.pieces)
    assert [p.name for p in after.pieces] == [p.name for p in before.pieces]
    for a, b in zip(before.pieces, after.pieces, strict=True):
        assert b.cells.tolist() == a.cells.tolist(), a.name
        assert (b.copies, b.fewest) == (a.copies, a.fewest)
    assert _at_origin(after, after.target.required) == _at_origin(before, before.target.required)
    assert _at_origin(after, after.target.optional) == _at_origin(before, before.target.optional)


def _round_trips(puzzle: PolycubePuzzle, tmp_path: Path) -> tuple[Path, PolycubePuzzle, Path]:
    """Write the puzzle both ways; read both back (the .xmpuzzle with no cell dropped)."""
    xml = tmp_path / "out.xmpuzzle"
    xml.write_bytes(to_xmpuzzle(puzzle))
    toml = tmp_path / "out.toml"
    toml.write_text(to_format1(puzzle), encoding="utf-8")
    from_xml = load_xmpuzzle(xml)
    assert from_xml.warnings == []  # a cell written off the grid would be dropped, and said
    return xml, from_xml, toml


# -- format 1 and the writers, on every grid ------------------------------------------------


@pytest.mark.parametrize("grid", [g.name for g in GRIDS])
def test_a_small_puzzle_on_every_grid_round_trips(grid, tmp_path):
    puzzle = load_polycube(_write_inline(tmp_path, grid))
    assert puzzle.grid is grid_named(grid) and puzzle.warnings == []
    expected = INLINE[grid][1]
    assert _assemblies(puzzle) == expected

    xml, from_xml, toml = _round_trips(puzzle, tmp_path)
    root = ET.fromstring(gzip.decompress(xml.read_bytes()))
    assert root.find("gridType").get("type") == str(puzzle.grid.burrtools_type)
    _same_shapes(puzzle, from_xml)
    assert _assemblies(from_xml) == expected

    text = toml.read_text(encoding="utf-8")
    assert tomllib.loads(text).get("grid", "cubes") == grid
    assert ("layers = " in text) == puzzle.grid.is_cubic  # cell lists off the cube grid
    from_toml = load_polycube(toml)
    _same_shapes(puzzle, from_toml)
    assert _assemblies(from_toml) == expected


@needs_burrtxt
@pytest.mark.parametrize("grid", [g.name for g in GRIDS])
def test_burrtools_reads_what_the_writer_writes_and_counts_the_same(grid, tmp_path):
    puzzle = load_polycube(_write_inline(tmp_path, grid))
    xml = tmp_path / "out.xmpuzzle"
    xml.write_bytes(to_xmpuzzle(puzzle))
    assert _burrtxt_assemblies(xml) == INLINE[grid][1]


def test_a_shape_box_starts_on_a_lattice_point_not_at_the_lowest_cell():
    """A downward then an upward triangle: moved to x = 0 they would be an upward then a
    downward one (another orientation), so each box keeps an empty first column."""
    cells = np.array([[1, 0, 0], [2, 0, 0]], np.int64)
    puzzle = PolycubePuzzle(
        "p", [Piece("A", PRISMS.normalise(cells), grid=PRISMS)], Target(cells), grid=PRISMS
    )
    root = ET.fromstring(to_xmpuzzle(puzzle, compress=False))
    voxels = [(v.get("x"), v.get("y"), v.get("z"), v.text) for v in root.iter("voxel")]
    assert voxels == [("3", "1", "1", "_##"), ("3", "1", "1", "_##")]
    assert to_format1(puzzle).count("cells = [[1, 0, 0], [2, 0, 0]]") == 2


def test_optional_cells_colours_and_ranges_survive_off_the_cube_grid(tmp_path):
    path = tmp_path / "coloured.toml"
    path.write_text(
        """kind = "polycube"
grid = "spheres"
[colours]
allow = [[1, 1]]
[pieces.pair]
cells = [[0, 1, 1], [1, 0, 1]]
voxel_colours = [[0, 1, 1, 1], [1, 0, 1, 1]]
min = 0
max = 2
[pieces.ball]
cells = [[3, 3, 0]]
group = 1
[target]
cells = [[1, 1, 0], [2, 2, 0], [3, 3, 0]]
optional = [[4, 4, 0], [5, 5, 0]]
voxel_colours = [[2, 2, 0, 1], [3, 3, 0, 1], [5, 5, 0, 1]]
""",
        encoding="utf-8",
    )
    puzzle = load_polycube(path)
    # the pair's lowest corner (0, 0, 1) is no ball: normalising moves it by a lattice step
    # to (1, 1, 0) and (2, 0, 0), not to (0, 1, 0) and (1, 0, 0), which are not balls
    assert puzzle.pieces[0].cells.tolist() == [[1, 1, 0], [2, 0, 0]]
    expected = _assemblies(puzzle)
    assert expected > 0
    _, from_xml, toml = _round_trips(puzzle, tmp_path)
    from_toml = load_polycube(toml)
    for back in (from_xml, from_toml):
        _same_shapes(puzzle, back)
        assert back.pieces[0].voxel_colours.tolist() == [1, 1]
        assert back.pieces[1].group == 1
        assert back.target.colours.tolist() == puzzle.target.colours.tolist()
        assert back.colour_rules.allow == puzzle.colour_rules.allow
        assert _assemblies(back) == expected


# -- BurrTools' own files on the other grids ----------------------------------------------


@needs_conformance
@pytest.mark.parametrize(("name", "problem", "assemblies"), EXAMPLES)
def test_burrtools_examples_round_trip_with_their_counts(name, problem, assemblies, tmp_path):
    puzzle = load_xmpuzzle(CONFORMANCE / "burrtools-grids" / name, problem)
    assert _assemblies(puzzle) == assemblies
    xml, from_xml, toml = _round_trips(puzzle, tmp_path)
    from_toml = load_polycube(toml)
    for back in (from_xml, from_toml):
        _same_shapes(puzzle, back)
        assert _assemblies(back) == assemblies
    if BURRTXT.exists():
        assert _burrtxt_assemblies(xml) == assemblies


@pytest.mark.parametrize("path", GENERATED, ids=[p.stem for p in GENERATED])
def test_generated_cases_round_trip(path, tmp_path):
    """The random problems of tests/fixtures/burrtools_grids, with burrTxt's counts beside
    them. Format 1 makes equal shapes under different names one piece (swapping them is no
    new solution), so the TOML's count is the puzzle's count under that rule."""
    recorded = tomllib.loads(path.with_suffix(".toml").read_text(encoding="utf-8"))
    puzzle = load_xmpuzzle(path)
    xml, from_xml, toml = _round_trips(puzzle, tmp_path)
    _same_shapes(puzzle, from_xml)
    assert _assemblies(from_xml) == recorded["assemblies"]
    from_toml = load_polycube(toml)
    _same_shapes(puzzle, from_toml)
    alike = dataclasses.replace(puzzle, equal_pieces_alike=True)
    assert _assemblies(from_toml) == _assemblies(alike)
    if BURRTXT.exists():
        assert _burrtxt_assemblies(xml) == recorded["assemblies"]


# -- the command line ------------------------------------------------------------------------


def test_convert_carries_the_grid_both_ways(tmp_path, capsys):
    source = _write_inline(tmp_path, "prisms")
    xml, toml = tmp_path / "hex.xmpuzzle", tmp_path / "hex.toml"
    code, out, _ = run_cli(["convert", str(source), str(xml)], capsys)
    assert code == 0 and out.strip().endswith("on the triangular prisms grid")
    assert run_cli(["convert", str(xml), str(toml)], capsys)[0] == 0
    assert 'grid = "prisms"' in toml.read_text(encoding="utf-8")
    code, out, _ = run_cli(["solve", str(toml), "--count"], capsys)
    assert code == 0 and "up to symmetry: 2" in out


@needs_conformance
def test_convert_a_burrtools_example_and_back(tmp_path, capsys):
    source = CONFORMANCE / "burrtools-grids" / "BallRoom.xmpuzzle"
    toml, xml = tmp_path / "ballroom.toml", tmp_path / "ballroom.xmpuzzle"
    assert run_cli(["convert", str(source), str(toml), "--problem", "3"], capsys)[0] == 0
    assert tomllib.loads(toml.read_text(encoding="utf-8"))["grid"] == "spheres"
    assert run_cli(["convert", str(toml), str(xml)], capsys)[0] == 0
    code, out, _ = run_cli(["solve", str(xml), "--count"], capsys)
    assert code == 0 and "up to symmetry: 3" in out
    if BURRTXT.exists():
        assert _burrtxt_assemblies(xml) == 3


#: (the file after `kind = "polycube"`, the line named, the message)
BAD = [
    ('grid = "hexagons"\n[pieces.A]\ncells = [[0, 0, 0]]\n[target]\ncells = [[0, 0, 0]]\n', 2,
     "unknown grid 'hexagons' (known: cubes, prisms, spheres, rhombic, tetra-octa)"),
    ("grid = 3\n[pieces.A]\ncells = [[0, 0, 0]]\n[target]\ncells = [[0, 0, 0]]\n", 2,
     "unknown grid 3 (known: cubes, prisms"),
    ('grid = "spheres"\n[pieces.A]\ncells = [[0, 0, 0],\n  [3, 0, 0]]\n[target]\n'
     "cells = [[0, 0, 0]]\n", 5, "piece 'A': [3, 0, 0] is not a cell of the spheres grid"),
    ('grid = "rhombic"\n[pieces.A]\ncells = [[0, 1, 2]]\n[target]\ncells = [[0, 1, 2]]\n'
     "optional = [[0, 0, 0]]\n", 7,
     "the target (optional): [0, 0, 0] is not a cell of the rhombic grid"),
    ('grid = "tetra-octa"\n[pieces.A]\ncells = [[1, 1, 1],\n  [1, 1, 2]]\n[target]\n'
     "cells = [[1, 1, 1]]\n", 5, "piece 'A': [1, 1, 2] is not a cell of the tetra-octa grid"),
    ('grid = "prisms"\n[pieces.A]\nlayers = [["##"]]\n[target]\ncells = [[0, 0, 0]]\n', 4,
     "piece 'A': layers draw cubes; on the prisms grid give cells = [[x, y, z], ...]"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "line", "message"), BAD)
def test_bad_grids_and_cells_are_one_line_with_file_and_line(body, line, message, tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('kind = "polycube"\n' + body, encoding="utf-8")
    code, out, err = run_cli(["solve", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"tessera: error: {path}:{line}: {message}"), err


def test_a_json_file_names_its_grid_too(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(
        '{"kind": "polycube", "grid": "tetra-octa", "pieces": {"A": {"cells": [[1, 1, 1]]}},'
        ' "target": {"cells": [[1, 1, 1]]}}',
        encoding="utf-8",
    )
    assert load_polycube(path).grid is grid_named("tetra-octa")
    path.write_text(path.read_text().replace("tetra-octa", "Spheres"), encoding="utf-8")
    code, _, err = run_cli(["solve", str(path)], capsys)
    assert code == 2 and "unknown grid 'Spheres'" in err


# -- encodings of BurrTools files (issue 24) ------------------------------------------------

_ONE_CUBE = (
    '<puzzle version="2"><gridType type="0"/><shapes>'
    '<voxel x="1" y="1" z="1" type="0" name="R">#</voxel>'
    '<voxel x="1" y="1" z="1" type="0" name="{name}">#</voxel></shapes>'
    '<problems><problem name="P"><shapes><shape id="1" count="1"/></shapes>'
    '<result id="0"/></problem></problems></puzzle>'
)


@pytest.mark.parametrize(
    ("declaration", "encoding", "name"),
    [
        ("", "latin-1", "Würfel"),  # undeclared and not UTF-8: read as Latin-1
        ('<?xml version="1.0" encoding="ISO-8859-1"?>\n', "latin-1", "Würfel"),
        ('<?xml version="1.0" encoding="windows-1252"?>\n', "cp1252", "Würfel €"),
        ('<?xml version="1.0" encoding="KOI8-R"?>\n', "koi8-r", "кубик"),
        ('<?xml version="1.0" encoding="UTF-8"?>\n', "latin-1", "Würfel"),  # declared wrong
        ("<?xml version='1.0' encoding='x-made-up'?>\n", "ascii", "cube"),  # BurrTools reads it
        ("<?xml version='1.0' encoding='x-made-up'?>\n", "latin-1", "Würfel"),
    ],
)
def test_burrtools_files_in_declared_or_undeclared_encodings_load(
    declaration, encoding, name, tmp_path
):
    path = tmp_path / "enc.xmpuzzle"
    path.write_bytes(gzip.compress((declaration + _ONE_CUBE.format(name=name)).encode(encoding)))
    assert [p.name for p in load_xmpuzzle(path).pieces] == [name]
