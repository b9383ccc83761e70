"""Colour constraints (BurrTools' way) and the trip between format 1 and `.xmpuzzle`.

The coloured Soma fixture asks that V's corner (red) sit on one of the cube's 12 edge middles
(red) with its arms on black cells. The oracle is independent of the colour code: list every
fixed Soma solution without colours and keep those where V's corner cell is an edge middle.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tessera.cli.main import main
from tessera.models.burrtools import load_xmpuzzle
from tessera.models.errors import PuzzleError
from tessera.models.polycube import load_polycube
from tessera.models.puzzle_writers import to_format1, to_xmpuzzle
from tessera.solvers.polycube.packing import solutions
from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load_puzzle
from tests._paths import CONFORMANCE, FIXTURES, needs_conformance

COLOURED_SOMA = FIXTURES / "coloured-soma.toml"

# A strip of four from dominoes (0..2 copies, group 1) and a red-ended L, with a black cell.
RANGES_GROUPS_COLOURS = """
kind = "polycube"
name = "strip"
[colours]
allow = [[1, 1], [2, 2]]
palette = ["#ff0000", "#000000"]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
min = 0
max = 2
group = 1
[pieces.M]
cells = [[0,0,0]]
min = 0
max = 4
[pieces.L]
cells = [[0,0,0],[1,0,0],[0,1,0]]
min = 0
max = 1
voxel_colours = [[0,0,0,1]]
[target]
layers = [["####", "+..."]]
voxel_colours = [[0,0,0,1], [3,0,0,2]]
"""


def _corner(cells: list[list[int]]) -> tuple[int, ...]:
    """The cell of a V tromino that touches both others."""
    return next(
        tuple(c)
        for c in cells
        if sum(sum(abs(a - b) for a, b in zip(c, o, strict=True)) == 1 for o in cells) == 2
    )


def test_coloured_placements_agree_with_filtering_every_plain_solution() -> None:
    plain = load_puzzle("soma", "polycube")
    v = [p.name for p in plain.pieces].index("V")
    where = Counter()
    for solution in solutions(plain):
        cells = next(p.cells for p in solution.pieces if p.piece == v).tolist()
        where[sum(x in (0, 2) for x in _corner(cells))] += 1
    coloured = load_polycube(COLOURED_SOMA)
    counts = ClassSearch(coloured).tally()
    assert counts.fixed == where[2] == 10608
    # the colouring is symmetric under the whole cube group, which acts freely on solutions
    assert (counts.up_to_rotation, counts.up_to_symmetry) == (10608 // 24, 10608 // 48)
    for solution in solutions(coloured):
        cells = next(p.cells for p in solution.pieces if p.piece == v).tolist()
        assert sum(x in (0, 2) for x in _corner(cells)) == 2


def test_colours_narrow_the_symmetry_group() -> None:
    puzzle = load_polycube(COLOURED_SOMA)
    plain = load_puzzle("soma", "polycube")
    from tessera.solvers.polycube.symmetry import TargetGroup

    assert TargetGroup(plain).order == 48
    assert TargetGroup(puzzle).order == 48  # edge middles: a symmetric colouring
    target = puzzle.target
    lop = np.zeros(len(target.cells), np.int64)
    lop[0] = 1  # one red cell: only the symmetries fixing it are left
    one_red = type(puzzle)(
        puzzle.name,
        puzzle.pieces,
        type(target)(target.required, target.optional, lop),
        colour_rules=puzzle.colour_rules,
    )
    assert TargetGroup(one_red).order < 48


def _summary(puzzle) -> tuple:
    rules = puzzle.colour_rules
    pieces = tuple(
        (
            p.name,
            p.cells.tolist(),
            p.copies,
            p.fewest,
            p.group,
            None if p.voxel_colours is None else p.voxel_colours.tolist(),
        )
        for p in puzzle.pieces
    )
    target = puzzle.target
    pairs = zip(target.cells.tolist(), target.colours.tolist(), strict=True)
    cells = {tuple(c): int(k) for c, k in pairs}
    lo = target.cells.min(axis=0)
    return (
        pieces,
        sorted((tuple(np.subtract(c, lo)), k) for c, k in cells.items()),
        len(target.optional),
        sorted(rules.allow),
        rules.palette,
    )


@pytest.mark.parametrize("text", [RANGES_GROUPS_COLOURS, None])
def test_format1_round_trips_through_xmpuzzle(tmp_path, text) -> None:
    source = tmp_path / "a.toml"
    source.write_text(text if text else COLOURED_SOMA.read_text())
    first = load_polycube(source)
    xml = tmp_path / "b.xmpuzzle"
    xml.write_bytes(to_xmpuzzle(first))
    second = load_xmpuzzle(xml)
    again = tmp_path / "c.toml"
    again.write_text(to_format1(second))
    third = load_polycube(again)
    assert _summary(first) == _summary(second) == _summary(third)
    counts = {ClassSearch(p).tally() for p in (first, second, third)}
    assert len(counts) == 1


def test_ranges_groups_and_colours_count_as_by_hand(tmp_path) -> None:
    path = tmp_path / "a.toml"
    path.write_text(RANGES_GROUPS_COLOURS)
    puzzle = load_polycube(path)
    # Cells a b c d in a row (a red, d black) and o, optional, beside a. The L's red corner
    # needs two neighbours at right angles: only a has them, so the L is {a, b, o}, and c d
    # take a domino or two monominoes: 2. Without the L, the strip a b c d from dominoes and
    # monominoes (5 ways) with o empty; with o a monomino, those using at most 3 more
    # monominoes (4); with o and a one domino, b c d in 3 ways: 5 + 4 + 3. Uncoloured pieces
    # fit anywhere.
    assert ClassSearch(puzzle).tally().fixed == 2 + 5 + 4 + 3


def test_tessera_convert_goes_both_ways(tmp_path, capsys) -> None:
    toml = tmp_path / "soma.toml"
    xml = tmp_path / "soma.xmpuzzle"
    assert main(["convert", str(COLOURED_SOMA), str(xml)]) == 0
    assert main(["convert", str(xml), str(toml)]) == 0
    assert main(["solve", str(toml), "--count", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"fixed": 10608' in out


def test_convert_refuses_other_extensions(tmp_path, capsys) -> None:
    assert main(["convert", "soma", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "x.txt" in err and ".xmpuzzle or .toml" in err


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        ("voxel_colours = [[5,5,5,1]]", "not one of its cells"),
        ("voxel_colours = [[0,0,0]]", "[x, y, z, colour]"),
        ("voxel_colours = [[0,0,0,1000]]", "colour 1000"),
    ],
)
def test_bad_voxel_colours_name_the_line(tmp_path, snippet, message) -> None:
    text = RANGES_GROUPS_COLOURS.replace("voxel_colours = [[0,0,0,1]]", snippet)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PuzzleError) as info:
        load_polycube(path)
    line = text.splitlines().index(snippet) + 1
    assert message in str(info.value) and f"bad.toml:{line}:" in str(info.value)


def test_a_symmetric_shape_coloured_asymmetrically_counts_each_colouring(tmp_path) -> None:
    text = RANGES_GROUPS_COLOURS.replace(
        "cells = [[0,0,0],[1,0,0]]\nmin = 0",
        "cells = [[0,0,0],[1,0,0]]\nvoxel_colours = [[0,0,0,1]]\nmin = 0",
    )
    path = tmp_path / "chiral.toml"
    path.write_text(text)
    puzzle = load_polycube(path)
    assert puzzle.pieces[0].colour_turns
    # As in the count above, with the domino red at one end: two ways round wherever its red
    # end may go (a, b, c, o), one on c d (red never on black d). With the L: c d 1 + 1.
    # Without: the strip MMMM 1, ab 2, bc 2, cd 1, ab cd 2 (8) with o empty; 7 of those with
    # o a monomino; with o a (2 ways) one domino, b c d as MMM, bc M (2), M cd: 2 * 4.
    # burrTxt says 25 assemblies of the same problem written as .xmpuzzle.
    assert ClassSearch(puzzle).tally().fixed == 2 + 8 + 7 + 8


@needs_conformance
def test_draculas_colour_constraints_give_burrtools_assemblies() -> None:
    puzzle = load_xmpuzzle(CONFORMANCE / "burrtools" / "DraculasDentalDesaster.xmpuzzle")
    assert puzzle.coloured and puzzle.colour_rules.allow == {(1, 1), (2, 2)}
    assert ClassSearch(puzzle).tally().up_to_symmetry == 84


def _dark_pixels(path) -> int:
    import imageio.v3 as iio

    image = iio.imread(path)[..., :3].astype(int)
    return int((image.max(axis=2) < 60).sum())


def test_voxel_colours_are_drawn_in_renders(tmp_path) -> None:
    """The coloured Soma's black arms and cells show as black faces (BurrTools' colour view):
    far more near-black pixels than the plain Soma's edge lines give."""
    plain, coloured = tmp_path / "plain.png", tmp_path / "coloured.png"
    for name, out in ((str(FIXTURES.parent.parent / "assets/puzzles/soma.toml"), plain),
                      (str(COLOURED_SOMA), coloured)):  # fmt: skip
        assert main(["render", name, "--size", "320x240", "--out", str(out)]) == 0
    assert _dark_pixels(coloured) > 10 * max(_dark_pixels(plain), 100)
