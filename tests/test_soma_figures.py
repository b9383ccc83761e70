"""Soma figures in yass's `.soma` format load, are refused and count the way yass counts them.

yass (`soma -c FILE`) prints the number of solutions up to rotation *and reflection* of the
figure: Tessera's `up_to_symmetry` (the piece set is closed under mirroring, the two screws
swap). With pre-placed pieces, only the symmetries that map every pre-placed piece onto
itself (or onto its mirror partner's pre-placed copy) count.

The one known difference: yass drops rotated and reflected duplicates *per separate part* of a
figure, Tessera for the whole figure. A figure of several parts therefore has a larger count
in Tessera (each part's own symmetries are not applied separately); those figures are checked
only for the loader's warning, not for yass's number.

The inline figures below are drawn for this test (not copied from yass), each equal up to a
symmetry of the cube to a figure whose count yass or the literature publishes, so the test
means something without ../shared.
"""

from __future__ import annotations

import tomllib

import pytest

from tessera.models.errors import PuzzleError
from tessera.models.soma_figure import LETTERS, load_soma, soma_from_text
from tessera.solvers.polycube.symmetry import ClassSearch
from tests._paths import CONFORMANCE

FIGURES = CONFORMANCE / "soma-figures"

CUBE = "xxx\nxxx\nxxx\n\n" * 3

INLINE = {
    # The 3x3x3 cube: 240 (Conway and Guy; Berlekamp, Conway & Guy, "Winning Ways", 1982).
    "cube": (CUBE, 240),
    # The cube with the V pre-placed around a corner of the bottom layer; yass gives 207 for
    # the same figure with the V at a corner of the top layer, mirrored (cube_pre_good_3).
    "cube, V at a corner": ("xxx\nxxx\nxxx\n\n" * 2 + "x33\nx3x\nxxx\n", 207),
    # The cube with the V upright in the middle slice, at the centre of a bottom edge; yass
    # gives 14 for its mirror image (cube_pre_3_edge).
    "cube, V on an edge": ("xxx\nx3x\nx3x\n\nxxx\nxxx\nx3x\n\nxxx\nxxx\nxxx\n", 14),
    # Every piece pre-placed as one of the cube's solutions: exactly that one.
    "cube, all pre-placed": ("33l\nptl\nttt\n\nc3l\npnn\nppn\n\nccl\nczz\nzzn\n", 1),
    # Comments, a blank line run between layers, spaces as empty cells, indentation.
    "cube, commented": (
        "# the cube, written loosely\n  xxx # top\n  xxx\n  xxx\n\n\n  xxx\n  xxx\n  xxx\n\n"
        "  xxx\n  xxx\n  xxx   # bottom\n",
        240,
    ),
}


@pytest.mark.parametrize("name", sorted(INLINE))
def test_inline_figures_count_as_published(name):
    text, want = INLINE[name]
    figure = soma_from_text(text, f"{name}.soma")
    counts = ClassSearch(figure).tally()
    assert counts.up_to_symmetry == want
    assert not counts.partial


def test_layers_are_top_first_rows_back_to_front():
    """First layer on top (highest z), first row at the back (highest y): looking down on the
    figure, a right-handed frame, which is what makes yass's `p` Tessera's P."""
    text = "x..\n...\n...\n\n" + "xxx\nxxx\nxxx\n\n" + "xxx\nxxx\nxxx\n\n" + "xxx\nxxx\nxx.\n"
    figure = soma_from_text(text, "t.soma")
    cells = {tuple(c) for c in figure.target.required.tolist()}
    assert (0, 2, 3) in cells  # the lone top cube: first layer, first row, first column
    assert (2, 0, 0) not in cells  # the hole: last layer, last row, last column


def test_letters_pre_place_their_piece():
    figure = soma_from_text(INLINE["cube, all pre-placed"][0], "all.soma")
    assert figure.pieces == [] and len(figure.target.required) == 0
    assert {p.letter: p.piece.name for p in figure.preplaced} == LETTERS
    figure = soma_from_text(INLINE["cube, V at a corner"][0], "v.soma")
    assert [p.name for p in figure.pieces] == ["L", "T", "Z", "A", "B", "P"]
    assert len(figure.target.required) == 24


def test_pre_placed_pieces_break_symmetry():
    """L and T to place in the top layer minus an edge's centre, which a mirror maps onto
    itself; but the mirror would turn the pre-placed screws into each other's shape, so it is
    no symmetry of the figure, and the two mirror-image solutions are both counted. yass
    counts 2 for such a figure (preplaced_cube_lt)."""
    text = "xzx\nxxx\nxxx\n\nzzc\n3nn\n3pn\n\nzcc\nppc\n3pn\n"
    figure = soma_from_text(text, "lt.soma")
    assert [p.name for p in figure.pieces] == ["L", "T"]
    counts = ClassSearch(figure).tally()
    assert (counts.fixed, counts.up_to_symmetry) == (2, 2)


def test_several_parts_load_with_a_warning():
    # a 2x2x3 block (12 cubes) beside a flat 5x3 slab (15 cubes)
    text = "xx\nxx\n\n" * 2 + "xx.xxxxx\nxx.xxxxx\n...xxxxx\n"
    figure = soma_from_text(text, "two-parts.soma")
    assert figure.parts == 2
    assert any("separate parts" in w and "yass" in w for w in figure.warnings)


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (CUBE.replace("xxx\n", "\txxx\n", 1), 1, "Illegal tab character in file"),
        (CUBE.replace("xxx\n", "xx.\n", 1), 11, "Bad number of cubicles: 26 instead of 27"),
        (CUBE.replace("xxx\n", "xxxx\n", 1), 11, "Bad number of cubicles: 28 instead of 27"),
        (
            CUBE.replace("xxx\nxxx\nxxx\n", "333\nx3x\nxxx\n", 1),
            1,
            "Pre-placed piece '3' has 4 cubes instead of correct 3",
        ),
        ("x" * 27 + "\n", 1, "Unsolvable one- or zero-dimensional shape or part of shape"),
        (
            CUBE.replace("xxx\nxxx\nxxx\n", "xxx\nxxx\nxx.\n", 1) + "\n\n\n....x\n",
            1,
            "Has child shape with unsolvable number of cubicles",
        ),
    ],
)
def test_what_yass_refuses_is_one_line_with_file_and_line(text, line, reason):
    with pytest.raises(PuzzleError) as info:
        soma_from_text(text, "f.soma")
    message = str(info.value)
    assert message == f"f.soma:{line}: {reason}"
    assert "\n" not in message


def test_a_tab_inside_a_comment_is_fine():
    figure = soma_from_text(CUBE.replace("xxx\n", "xxx  #\ta comment\n", 1), "t.soma")
    assert len(figure.target.required) == 27


def test_misshapen_pre_placed_piece_is_a_warning():
    """yass counts such a figure (its cells leave the figure with the piece); so do we."""
    text = "xxx\nxxx\nxxx\n\nxxx\nxcx\nxxx\n\nxxx\ncxx\nccx\n"
    figure = soma_from_text(text, "m.soma")
    assert figure.preplaced[0].piece.name == "A"
    assert any("not shaped like" in w for w in figure.warnings)


# -- yass's own figures and counts, read in place from ../shared ---------------------------------


def _yass() -> dict:
    return tomllib.loads((FIGURES / "yass-counts.toml").read_text(encoding="utf-8"))


needs_shared = pytest.mark.skipif(
    not (FIGURES / "yass-counts.toml").exists(),
    reason="../shared/conformance/soma-figures is not beside this clone",
)


@needs_shared
def test_every_single_part_figure_counts_as_yass_in_one_batch():
    """The batch (one process, all cores) gives yass's count for every single-part figure."""
    from tessera.solvers.polycube.batch import count_files

    counts = _yass()["counts"]
    single = []
    for name in sorted(counts):
        figure = load_soma(FIGURES / f"{name}.soma")
        if figure.parts == 1:
            single.append(FIGURES / f"{name}.soma")
    assert len(single) >= 130
    results = {r.file: r for r in count_files(single)}
    wrong = {
        path.stem: (results[str(path)].up_to_symmetry, counts[path.stem])
        for path in single
        if results[str(path)].up_to_symmetry != counts[path.stem]
    }
    assert not wrong, f"Tessera vs yass: {wrong}"
    assert all(r.ok for r in results.values())


@needs_shared
def test_files_yass_refuses_are_refused_with_its_reason():
    refused = _yass()["refused"]
    assert len(refused) >= 10
    for name, reason in refused.items():
        with pytest.raises(PuzzleError) as info:
            load_soma(FIGURES / f"{name}.soma")
        error = info.value
        assert error.message == reason, name
        assert error.path and error.path.endswith(f"{name}.soma") and error.line, name


@needs_shared
def test_multi_part_figures_are_the_documented_difference():
    """Every figure whose count differs from yass's has several parts (yass culls symmetry
    per part), and says so in a warning."""
    counts = _yass()["counts"]
    multi = [n for n in counts if load_soma(FIGURES / f"{n}.soma").parts > 1]
    assert multi, "expected some multi-part figures in yass's examples"
    for name in multi:
        figure = load_soma(FIGURES / f"{name}.soma")
        assert any("separate parts" in w for w in figure.warnings), name


@pytest.mark.parametrize("name", ["soma", "soma-bathtub", "soma-tower", "six-piece-cube"])
def test_symmetric_orbits_counted_by_burnside_equal_listing(name):
    """Orbits whose placement is symmetric are counted by Burnside's lemma when every piece is
    unique; listing and comparing canonical forms must give the same three counts."""
    from tessera.solvers.registry import load_puzzle

    puzzle = load_puzzle(name, "polycube")
    counted = ClassSearch(puzzle)
    assert counted._burnside_applies
    listed = ClassSearch(puzzle)
    listed.__dict__["_burnside_applies"] = False
    assert counted.tally(workers=1) == listed.tally(workers=1)
