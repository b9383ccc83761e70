"""Design mode without a window: the document's edits, undo/redo, files, and the analysis."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tessera.models import geometry
from tessera.models.design import (
    TARGET,
    DesignDocument,
    DesignError,
    mirrored,
    to_toml,
)
from tessera.models.soma_figure import soma_pieces
from tessera.solvers.polycube.design_analysis import DesignAnalysis, analyse
from tessera.solvers.registry import load
from tests._paths import CONFORMANCE, needs_conformance

CUBE = [(x, y, z) for x in range(3) for y in range(3) for z in range(3)]


def soma_cube() -> DesignDocument:
    doc = DesignDocument()
    doc.new_soma_figure()
    doc.set_cells(CUBE, shape=TARGET)
    return doc


def test_edits_undo_redo_and_the_dirty_flag():
    doc = DesignDocument()
    seen: list[str] = []
    dirty: list[bool] = []
    doc.events.changed.connect(seen.append)
    doc.events.dirty.connect(dirty.append)
    assert not doc.dirty and not doc.can_undo
    doc.add_cells([(0, 0, 0), (1, 0, 0)])
    doc.add_cells([(1, 0, 0)], optional=True)  # a required cube becomes optional
    assert doc.target.required == {(0, 0, 0)} and doc.target.optional == {(1, 0, 0)}
    k = doc.add_piece("V", [(0, 0, 0), (1, 0, 0), (0, 1, 0)])
    assert doc.current == k and doc.pieces[k].name == "V"
    doc.duplicate_piece()
    assert [p.name for p in doc.pieces] == ["V", "V2"]
    doc.rename_piece(1, "W")
    with pytest.raises(DesignError):
        doc.rename_piece(1, "V")
    doc.set_copies(1, 0, 2)
    assert doc.pieces[1].count_text == "0..2"
    doc.set_color(1, "#00FF00")
    assert doc.pieces[1].color == "#00ff00"
    assert doc.dirty and dirty == [True]
    n = len(seen)
    while doc.undo():
        pass
    assert doc.state.pieces == () and not doc.target.cells and not doc.dirty
    assert dirty == [True, False]
    while doc.redo():
        pass
    assert [p.name for p in doc.pieces] == ["V", "W"] and doc.dirty
    assert len(seen) == 3 * n  # every undo and redo was announced


def test_rotate_flip_nudge_and_mirror_drawing():
    doc = DesignDocument()
    doc.add_cells([(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)])  # an L
    key = geometry.canonical_key(list(doc.target.required))
    doc.rotate("z")
    assert geometry.canonical_key(list(doc.target.required)) == key
    assert min(c[0] for c in doc.target.required) == 0  # stays where it was drawn
    doc.flip("x")
    assert geometry.canonical_key(list(doc.target.required), mirrors=True) == (
        geometry.canonical_key([(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)], mirrors=True)
    )
    before = set(doc.target.required)
    doc.nudge("y", -1)
    assert doc.target.required == {(x, y - 1, z) for x, y, z in before}
    # mirrors: across the shape's middle plane, every combination of the axes
    assert mirrored([(3, 0, 0)], "x", [(0, 0, 0), (1, 0, 0)]) == {(3, 0, 0), (-2, 0, 0)}
    assert len(mirrored([(0, 0, 0)], "xy", [(0, 0, 0), (2, 2, 0)])) == 4
    assert mirrored([(5, 5, 5)], "xyz", []) == {(5, 5, 5)}  # a first cube is its own mirror


def test_toml_saves_atomically_and_loads_back_through_the_registry(tmp_path):
    doc = soma_cube()
    doc.add_cells([(0, 0, 0)], optional=True)
    doc.add_piece("odd name", [(0, 0, 0), (0, 0, 1)])
    doc.set_copies(doc.current, 2)
    path = doc.save(tmp_path / "fig.toml")
    assert not doc.dirty and doc.path == path
    assert [p.name for p in tmp_path.iterdir()] == ["fig.toml"]  # no temporary left behind
    puzzle = load(path).puzzle
    assert [p.name for p in puzzle.pieces] == ["V", "L", "T", "Z", "A", "B", "P", "odd name"]
    assert puzzle.pieces[-1].copies == 2
    assert len(puzzle.target.required) == 26 and len(puzzle.target.optional) == 1
    assert [p.color for p in puzzle.pieces[:7]] == [p.color for p in soma_pieces()]
    again = DesignDocument()
    again.open_puzzle(puzzle, path)
    assert to_toml(again.state) == to_toml(doc.state)


def test_ranges_round_trip_through_toml_and_burrtools(tmp_path):
    doc = soma_cube()
    doc.set_copies(0, 1, 2)
    saved = doc.save(tmp_path / "x.toml")
    again = load(saved).puzzle.pieces[0]
    assert (again.fewest, again.copies) == (1, 2)
    doc.export_xmpuzzle(tmp_path / "r.xmpuzzle")
    xml = gzip.decompress((tmp_path / "r.xmpuzzle").read_bytes()).decode()
    assert 'min="1" max="2"' in xml
    back = load(tmp_path / "r.xmpuzzle").puzzle.pieces[0]
    assert (back.fewest, back.copies) == (1, 2)


def test_xmpuzzle_export_reads_back_with_optional_cells_and_counts(tmp_path):
    doc = soma_cube()
    doc.add_cells([(2, 2, 2)], optional=True)
    doc.set_copies(0, 1)
    path = doc.export_xmpuzzle(tmp_path / "soma.xmpuzzle")
    assert Path(path).read_bytes()[:2] == b"\x1f\x8b"
    puzzle = load(path).puzzle
    assert puzzle.name == "Soma figure"
    assert [(p.name, p.copies) for p in puzzle.pieces] == [(p.name, 1) for p in soma_pieces()]
    assert len(puzzle.target.required) == 26 and len(puzzle.target.optional) == 1
    for mine, theirs in zip(doc.to_puzzle().pieces, puzzle.pieces, strict=True):
        assert mine.shape_key == theirs.shape_key


def test_analysis_reasons_and_counts():
    doc = DesignDocument()
    assert analyse(doc.state).badge == "draw the target"
    doc.new_soma_figure()
    doc.set_cells(CUBE[:26], shape=TARGET)
    result = analyse(doc.state)
    assert result.status == "impossible"
    assert result.badge == "no solution: pieces 27 cells, target 26"
    assert "the pieces have 27 cells" in result.detail  # volume_problem()'s own words
    doc.add_cells([CUBE[26]])
    result = analyse(doc.state)
    assert result.badge == "240 solutions"
    assert (result.counts.fixed, result.counts.up_to_rotation) == (11520, 480)


def test_analysis_adds_up_piece_ranges():
    """Two copies allowed of V: 27 cells need exactly one, so the range counts as Soma."""
    doc = soma_cube()
    doc.set_copies(0, 0, 2)
    result = analyse(doc.state)
    assert result.badge == "240 solutions"


def test_analysis_cancels_with_a_partial_count():
    job = DesignAnalysis(_pentominoes_state())
    job.cancel()
    result = job.run()
    assert result.status == "stopped" and result.counts.partial


def _pentominoes_state():
    doc = DesignDocument()
    doc.open_puzzle(load("pentominoes-6x10").puzzle)
    return doc.state


#: The Soma cube with the V pre-placed flat at a corner of the top layer: 207 (yass's count
#: for the same placement mirrored, cube_pre_good_3; the V is its own mirror image).
V_ON_TOP = "x33\nx3x\nxxx\n\n" + "xxx\nxxx\nxxx\n\n" * 2


def test_pre_placed_pieces_open_edit_count_and_save_as_soma(tmp_path):
    """A .soma figure's pre-placed V: in the document beside the target (not a piece), moved
    with the target, never drawn over, counted as yass counts it, kept by a .soma save,
    refused by format 1 with the way out, and released into an ordinary piece."""
    from tessera.models.soma_figure import soma_from_text

    figure = soma_from_text(V_ON_TOP, "v.soma")
    doc = DesignDocument()
    doc.open_puzzle(figure)
    v = {(1, 2, 2), (2, 2, 2), (1, 1, 2)}
    assert [(p.name, p.cells) for p in doc.placed] == [("V", v)]
    assert doc.placed[0].color == next(p.color for p in soma_pieces() if p.name == "V")
    assert len(doc.target.required) == 24 and "V" not in [p.name for p in doc.pieces]
    assert doc.figure_cells() == set(CUBE) and doc.placed_at((2, 2, 2)) == 0
    assert analyse(doc.state).badge == "207 solutions"
    # a pre-placed cell is not the target's: adding it changes nothing, removing neither
    assert not doc.add_cells([(1, 1, 2)]) and not doc.remove_cells([(1, 1, 2)])
    # the whole target turns with its pre-placed piece (the count is the same figure's)
    doc.rotate("z")
    assert doc.figure_cells() == set(CUBE) and doc.placed[0].cells != v
    assert not doc.placed[0].cells & doc.target.cells
    assert analyse(doc.state).badge == "207 solutions"
    doc.undo()
    # format 1 has no pre-placed pieces; a yass figure keeps them
    with pytest.raises(DesignError, match="pre-placed"):
        doc.save(tmp_path / "v.toml")
    path = doc.save(tmp_path / "v.soma")
    again = load(path).puzzle
    assert [(p.piece.name, {tuple(c) for c in p.cells.tolist()}) for p in again.preplaced] == [
        ("V", v)
    ]
    reopened = DesignDocument()
    reopened.open_puzzle(again)
    assert reopened.state.placed == doc.state.placed
    assert reopened.target == doc.target
    # released: an ordinary piece and a whole cube again, one undoable edit
    assert doc.release_placed()
    assert not doc.placed and doc.pieces[-1].name == "V" and doc.pieces[-1].cells == v
    assert doc.target.required == set(CUBE)
    assert analyse(doc.state).badge == "240 solutions"
    doc.undo()
    assert [p.name for p in doc.placed] == ["V"]


def test_a_soma_save_is_refused_for_what_the_format_cannot_hold(tmp_path):
    doc = soma_cube()
    doc.add_piece("W", [(0, 0, 0), (1, 0, 0)])
    with pytest.raises(DesignError, match="seven Soma pieces"):
        doc.save(tmp_path / "x.soma")
    doc.delete_piece()
    doc.add_cells([(0, 0, 0)], shape=TARGET, optional=True)
    with pytest.raises(DesignError, match="optional"):
        doc.save(tmp_path / "x.soma")
    assert not list(tmp_path.iterdir())
    doc.undo()
    assert doc.save(tmp_path / "x.soma").exists()  # the plain cube: a figure like any other


def test_a_document_with_ranges_becomes_a_puzzle_with_ranges():
    """What leaving Design hands the window: a range stays a range (the engine's own)."""
    doc = soma_cube()
    doc.set_copies(0, 0, 2)
    piece = doc.to_puzzle().pieces[0]
    assert (piece.fewest, piece.copies) == (0, 2)
    assert [(p.fewest, p.copies) for p in doc.to_puzzle().pieces[1:]] == [(1, 1)] * 6


def test_analysis_counts_a_range_as_one_problem(tmp_path):
    """Dominoes 0..2 and monominoes 0..4 in a strip of four: every number of copies in one
    search, F(5) = 5 fixed tilings (no enumeration of count combinations)."""
    from tests.test_piece_ranges import RANGED

    path = tmp_path / "strip.toml"
    path.write_text(RANGED)
    doc = DesignDocument()
    doc.open_puzzle(load(str(path)).puzzle)
    result = analyse(doc.state)
    assert result.status == "counted" and result.counts.fixed == 5


@needs_conformance
def test_analysis_of_solid_six_piece_burrs_counts_burrtools_assemblies():
    """25 sticks of 0..6 copies each (7^25 combinations): 588 assemblies, as BurrTools."""
    doc = DesignDocument()
    doc.open_puzzle(load(str(CONFORMANCE / "burrtools" / "SolidSixPieceBurrs.xmpuzzle")).puzzle)
    result = analyse(doc.state)
    assert result.badge == "588 solutions"
