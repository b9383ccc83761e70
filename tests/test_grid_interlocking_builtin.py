"""Tessera's own interlocking puzzle on the triangular prism grid (issue 24): `prisms-hexagon-lock`,
a hexagonal frame with a chamber in its middle layer holding a rod and a triangle that must
pass each other, each leaving by a way out (turning 60 degrees off the corridor) that only it
fits.

The figures are the project's own, measured when the file was written: one assembly (1 fixed,
1 up to rotation, 1 up to symmetry), level 4.2, with `tessera solve prisms-hexagon-lock
--disassemble` and with burrTxt 0.7.1 -d on the converted file. A change in them means the
file, the prism grid or the disassembler changed."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from tessera.models.assets import builtin_puzzles
from tessera.models.grids import PRISMS
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.models.puzzle_writers import to_xmpuzzle
from tessera.solvers.polycube import interlocking
from tessera.solvers.polycube.disassemble import disassemble
from tessera.solvers.polycube.symmetry import ClassSearch, count_solutions
from tests._paths import ROOT, run_cli
from tests.test_grid_disassembly import replay

pytestmark = pytest.mark.timeout(300)

NAME = "prisms-hexagon-lock"
BURRTXT = ROOT.parent / "shared" / "reference" / "burrtools" / "burrTxt"
needs_burrtxt = pytest.mark.skipif(
    not BURRTXT.exists(), reason="../shared/reference/burrtools/burrTxt is not beside this clone"
)

#: the one solution's level, and its moves as (direction, distance, piece names moved)
LEVEL = "4.2"
MOVES = [
    ("+x", 1, ("rod",)),  # under the bay
    ("+x+y", 2, ("rod",)),  # up into it, clear of the corridor
    ("+x", 1, ("rod",)),  # over the triangle, into the way out up and right
    ("+x+y", 4, ("rod",)),  # out
    ("-x", 2, ("triangle",)),  # to the corridor's left end
    ("-x+y", 7, ("triangle",)),  # out up and left
]


def _load() -> PolycubePuzzle:
    return load_polycube(builtin_puzzles()[NAME])


def _assembly(puzzle: PolycubePuzzle) -> dict[str, np.ndarray]:
    """The one assembly, as each piece's placed cells by name."""
    (assembly,) = list(ClassSearch(puzzle).representatives())
    return {puzzle.pieces[p.piece].name: p.cells for p in assembly.pieces}


def test_loads_as_a_frame_round_two_inner_pieces_on_the_prism_grid() -> None:
    puzzle = _load()
    assert puzzle.warnings == []  # the frame is one connected piece
    assert puzzle.grid is PRISMS
    assert [p.name for p in puzzle.pieces] == ["frame", "rod", "triangle"]
    assert [p.size for p in puzzle.pieces] == [250, 4, 4]
    assert puzzle.target.n_required == puzzle.piece_volume == 258
    for piece in puzzle.pieces:
        assert PRISMS.is_connected(piece.cells), piece.name
    # three layers of a hexagon of side 4 (96 triangles), the middle one holding the chamber
    layers, per_layer = np.unique(puzzle.target.cells[:, 2], return_counts=True)
    assert layers.tolist() == [0, 1, 2] and per_layer[[0, 2]].tolist() == [96, 96]
    assert per_layer[1] < 96
    # the inner pieces lie flat in the chamber's layer, so the floor and lid keep them in it
    placed = _assembly(puzzle)
    for name in ("rod", "triangle"):
        assert set(placed[name][:, 2].tolist()) == {int(layers[1])}, name


def test_counts_one_assembly() -> None:
    counts = count_solutions(_load())
    assert not counts.partial
    assert (counts.fixed, counts.up_to_rotation, counts.up_to_symmetry) == (1, 1, 1)


def test_comes_apart_at_the_recorded_level_beyond_1() -> None:
    puzzle = _load()
    assemblies = list(ClassSearch(puzzle).representatives())
    solutions = list(interlocking.solutions(puzzle, assemblies))
    assert [interlocking.level_of(s) for s in solutions] == [LEVEL]
    result = solutions[0].disassembly
    assert result is not None and result.complete and not result.gave_up
    assert result.first_separation == 4 > 1
    names = [p.name for p in puzzle.pieces]
    moved = [(m.name, m.distance, tuple(names[i] for i in m.pieces)) for m in result.moves]
    assert moved == MOVES
    replay(PRISMS, [p.cells for p in solutions[0].pieces], result)


@pytest.mark.parametrize(("alone", "way_out"), [("rod", "+x+y"), ("triangle", "-x+y")])
def test_each_way_out_takes_one_piece_only(alone: str, way_out: str) -> None:
    # each piece starts at the mouth of the other's way out: alone in the frame, it still
    # needs two moves and leaves by its own way, so the other way does not take it
    placed = _assembly(_load())
    result = disassemble([placed["frame"], placed[alone]], grid=PRISMS)
    assert result.level == "2"
    assert result.moves[-1].removes and result.moves[-1].name == way_out


def test_cli_disassembles_and_lists_it(capsys) -> None:
    code, out, _ = run_cli(["list"], capsys)
    assert code == 0
    listed = {line.split()[1]: line.split() for line in out.splitlines() if line.strip()}
    assert listed[NAME][0] == "polycube" and listed[NAME][2] == f"{NAME}.toml"
    code, out, _ = run_cli(["solve", NAME, "--disassemble"], capsys)
    assert code == 0
    assert re.findall(r"level (\S+),", out) == [LEVEL]
    assert "1 assemblies, 1 come apart" in out


@needs_burrtxt
def test_burrtxt_finds_the_same_assembly_and_level(tmp_path) -> None:
    path = tmp_path / f"{NAME}.xmpuzzle"
    path.write_bytes(to_xmpuzzle(_load()))
    out = subprocess.run(
        [str(BURRTXT), "-d", str(path)], capture_output=True, text=True, timeout=240, check=False
    ).stdout
    assert re.findall(r"^level: (\S+)$", out, re.M) == [LEVEL], out
    assert "1 assemblies and 1 solutions found" in out, out
