"""Design is a mode of the main window: entered by its step-bar button on the puzzle shown, left
for Solution mode on the edited puzzle, with the window's one render widget; and a yass figure's
pre-placed pieces are shown in the editor and kept by a `.soma` save.

Real clicks throughout: on the mode buttons, and on rendered face pixels (the helpers of
tests/test_design_window.py check that a pick at the click's position hits the intended face).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tessera.models.design import TARGET
from tessera.models.soma_figure import load_soma
from tessera.solvers.polycube.symmetry import ClassSearch
from tests.conftest import puzzle_file
from tests.test_design_window import (
    PX,
    PZ,
    _screen_pos,
    click_face,
    click_mode,
    design,  # noqa: F401 - the fixture
    wait_badge,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: The Soma cube with the V pre-placed flat at a corner of the top layer (first layer on top,
#: first row at the back). yass counts 207 for this figure up to a symmetry of the cube
#: (its cube_pre_good_3 is the same placement, mirrored; the V is its own mirror image).
V_ON_TOP = "x33\nx3x\nxxx\n\n" + "xxx\nxxx\nxxx\n\n" * 2
V_CELLS = {(1, 2, 2), (2, 2, 2), (1, 1, 2)}


def wait_solved(qtbot, win, timeout: int = 60_000) -> None:
    qtbot.waitUntil(lambda: win.state.family is not None and not win.solving, timeout=timeout)
    qtbot.waitUntil(lambda: "(complete)" in win.solution_panel.count_label.text(), timeout=5_000)


def shown_colour(win, cell, normal: int) -> np.ndarray:
    """The RGB the render widget shows at the centre of one face (a real frame read back)."""
    editor = win.design.editor
    k = editor.design.cube_index(cell)
    pos = _screen_pos(win, editor.design.face_centre(k, normal))
    assert editor.pick(pos.x(), pos.y()) == ("cube", k, normal), "face hidden from view"
    image = win.plotter.screenshot(None, return_img=True)
    ratio = win.plotter.interactor.devicePixelRatioF()
    return image[round(pos.y() * ratio), round(pos.x() * ratio), :3].astype(int)


def test_design_mode_edits_the_puzzle_shown_and_leaving_solves_the_edit(qtbot, design):  # noqa: F811
    """Soma cube in Solution mode (240); the Design button opens it in the editor; one cube
    moved by two real clicks; the Solution button shows the edited puzzle, whose listed
    solutions are the badge's count."""
    win = design
    click_mode(qtbot, win, "solution")
    assert win.open_puzzle(str(puzzle_file("soma")))
    wait_solved(qtbot, win)
    assert len(win.state.solutions) == 240 and "Solution mode" in win.windowTitle()
    soma_family = win.state.family

    click_mode(qtbot, win, "design")
    doc = win.design.doc
    assert win.state.mode == "design" and "Design" in win.windowTitle()
    assert doc.name == soma_family.puzzle.name and len(doc.target.required) == 27
    assert win.renderer.scene is win.design.editor.design.scene  # one widget, the editor's
    wait_badge(qtbot, win, "240 solutions")
    # take the top front corner off and put a cube against the cube's right side instead
    click_face(qtbot, win, (2, 0, 2), PZ, remove="shift")
    click_face(qtbot, win, (2, 0, 0), PX)
    assert (2, 0, 2) not in doc.target.cells and (3, 0, 0) in doc.target.cells
    assert win.isWindowModified()
    qtbot.waitUntil(lambda: win.design.badge.text.endswith(" solutions"), timeout=30_000)
    counted = int(win.design.badge.text.split()[0])
    assert counted != 240

    click_mode(qtbot, win, "solution")
    assert win.state.family is not soma_family
    assert {tuple(c) for c in win.state.family.puzzle.target.required.tolist()} == set(
        doc.target.required
    )
    wait_solved(qtbot, win)
    assert len(win.state.solutions) == counted
    assert win.solution_panel.count_label.text() == f"{counted} solutions (complete)"
    assert win.renderer.scene is win.state.scene and win.docks["solutions"].isVisible()
    assert not win.docks["shapes"].isVisible() and not win.design.toolbar.isVisible()

    # the Design button is for polycube puzzles only, like Play
    win.design.ask_unsaved = lambda: "discard"
    button = win.step_bar.button(win.actions["mode_design"])
    assert win.open_puzzle(str(puzzle_file("kenken-4x4")))
    qtbot.waitUntil(lambda: not button.isVisible(), timeout=2_000)  # the bar lays out later
    assert not win.actions["design"].isEnabled()
    assert win.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(button.isVisible, timeout=2_000)


def test_a_soma_figures_pre_placed_piece_is_shown_and_kept_on_save(qtbot, design, tmp_path):  # noqa: F811
    win = design
    figure = tmp_path / "v-on-top.soma"
    figure.write_text(V_ON_TOP, encoding="utf-8")
    assert win.open_puzzle(str(figure)) and win.state.mode == "design"
    doc = win.design.doc
    assert [(p.name, p.cells) for p in doc.placed] == [("V", V_CELLS)]
    assert len(doc.target.required) == 24 and "V" not in [p.name for p in doc.pieces]
    wait_badge(qtbot, win, "207 solutions")
    # drawn in the V's red on the target's grey figure
    red = shown_colour(win, (1, 1, 2), PZ)
    grey = shown_colour(win, (0, 0, 2), PZ)
    assert red[0] > red[1] + 60 and red[0] > red[2] + 60, red
    assert abs(int(grey[0]) - int(grey[2])) < 60 and grey[2] >= grey[0], grey
    assert "V — pre-placed, 3 cubes" in [
        win.design.panel.list.item(k).text() for k in range(win.design.panel.list.count())
    ]
    assert set(win.design.layers.grids[2].placed) == {(1, 2), (2, 2), (1, 1)}
    # a pre-placed cube is not the target's to remove; a face of one grows the target
    click_face(qtbot, win, (1, 1, 2), PZ, remove="shift")
    assert doc.placed[0].cells == V_CELLS and "pre-placed" in win.design.message.text()
    click_face(qtbot, win, (1, 1, 2), PZ)
    assert (1, 1, 3) in doc.target.required
    wait_badge(qtbot, win, "no solution: pieces 24 cells, target 25")
    win.design.actions["undo"].trigger()
    wait_badge(qtbot, win, "207 solutions")

    # format 1 cannot hold it: refused with the way out; a .soma save keeps it
    assert not win.design.save_to(tmp_path / "v.toml")
    assert "pre-placed" in win.design.last_error and not (tmp_path / "v.toml").exists()
    saved = tmp_path / "v-saved.soma"
    assert win.design.save_to(saved) and not win.isWindowModified()
    again = load_soma(saved)
    assert [(p.piece.name, {tuple(c) for c in p.cells.tolist()}) for p in again.preplaced] == [
        ("V", V_CELLS)
    ]
    assert ClassSearch(again).tally().up_to_symmetry == 207

    # released, the V is a piece again and the figure is the whole cube: 240
    win.design.actions["release_placed"].trigger()
    assert not doc.placed and "V" in [p.name for p in doc.pieces]
    assert len(doc.target.required) == 27 and doc.current == TARGET
    wait_badge(qtbot, win, "240 solutions")
    qtbot.mouseClick(win.design.badge.button, Qt.MouseButton.LeftButton)
    assert win.state.mode == "solution"
    wait_solved(qtbot, win)
    assert len(win.state.solutions) == 240
