"""Design mode on the prism and sphere grids, driven by real clicks under Xvfb: a new design on
a chosen grid (the grid box and Design ▸ New puzzle on), cells added on the ground and across
the face clicked (a prism's side or top; the ball touching where a ball is clicked), removed
by a right click, in the layer view too, with the counts in the shape list following.

The click helper projects a face's centre (a ball's touching point) to the widget with the
renderer and checks that a pick there hits that face of that cell, so a test never passes by
clicking something else; the helpers and the window fixture are tests/test_design_window.py's.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tessera.models.grids import CUBES, PRISMS, SPHERES
from tessera.viewer.scenes.cells import neighbour_table
from tests._paths import CONFORMANCE, needs_conformance
from tests.test_design_window import _screen_pos, click_mode, design  # noqa: F401 - a fixture

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def shape_label(win) -> str:
    """The shape list's line for the shape being edited."""
    panel = win.design.panel
    return panel.list.item(win.design.doc.current + 1).text()


def click_cell_face(qtbot, win, cell, step, button=Qt.MouseButton.LeftButton) -> None:
    """A real click on the face of `cell` shared with its neighbour at `step` (a ball: where
    it would touch that ball)."""
    editor = win.design.editor
    drawn = editor.design
    k = drawn.cube_index(cell)
    assert k >= 0, f"no cell at {cell}"
    normal = drawn.normal_of(step)
    assert normal >= 0, f"{step} is no neighbour step of the {drawn.grid.name} grid"
    pos = _screen_pos(win, drawn.face_centre(k, normal))
    assert editor.pick(pos.x(), pos.y()) == ("cube", k, normal), "face hidden from view"
    qtbot.mouseClick(win.plotter.interactor, button, Qt.KeyboardModifier(0), pos)


def click_ground_cell(qtbot, win, x: int, y: int) -> None:
    editor = win.design.editor
    pos = _screen_pos(win, editor.design.ground_centre(x, y))
    assert editor.pick(pos.x(), pos.y()) == ("ground", (x, y, editor.design.floor))
    qtbot.mouseClick(win.plotter.interactor, Qt.MouseButton.LeftButton, pos=pos)


def new_piece(qtbot, win) -> None:
    qtbot.mouseClick(win.design.panel.add_button, Qt.MouseButton.LeftButton)
    assert win.design.doc.current == 0 and not win.design.doc.cells()


def test_new_design_on_prisms_grows_across_the_faces_clicked(qtbot, design):  # noqa: F811
    win = design
    doc = win.design.doc
    assert doc.state.grid is CUBES and win.design.grid_box.currentText() == "cubes"
    win.design.actions["new_prisms"].trigger()  # Design ▸ New puzzle on ▸ Triangular prisms
    assert doc.state.grid is PRISMS
    assert win.design.grid_box.currentText() == "triangular prisms"
    assert "on triangular prisms" in win.windowTitle()
    new_piece(qtbot, win)
    click_ground_cell(qtbot, win, 0, 0)
    assert doc.cells() == {(0, 0, 0)}
    # the editor's faces are the prism's: two triangles and three sides, five neighbours
    design_scene = win.design.editor.design
    assert len(design_scene.face_cube) == 5 and set(design_scene.face_normal) == set(
        design_scene.normal_of(s) for s in PRISMS.neighbour_offsets((0, 0, 0))
    )
    click_cell_face(qtbot, win, (0, 0, 0), (1, 0, 0))  # its right side: the downward one
    assert doc.cells() == {(0, 0, 0), (1, 0, 0)}
    click_cell_face(qtbot, win, (1, 0, 0), (1, 0, 0))  # that one's right side: upward again
    click_cell_face(qtbot, win, (1, 0, 0), (0, 0, 1))  # its top: the prism above
    assert doc.cells() == {(0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 0, 1)}
    assert PRISMS.is_connected(list(doc.cells()))
    assert shape_label(win).endswith("— 4 cells")
    # hovering marks the cell and the face; a right click removes the cell under the mouse
    editor = win.design.editor
    k = editor.design.cube_index((2, 0, 0))
    up = editor.design.normal_of((0, 0, 1))
    pos = _screen_pos(win, editor.design.face_centre(k, up))
    qtbot.mouseMove(win.plotter.interactor, pos)
    qtbot.waitUntil(lambda: editor.hover == ((2, 0, 0), up, "add"))
    assert win.renderer.actors["hover-face"].visibility
    patch = np.asarray(win.renderer.actors["hover-face"].mapper.dataset.points)
    assert len(patch) == 3  # the mark is the prism's triangular top
    qtbot.mouseClick(win.plotter.interactor, Qt.MouseButton.RightButton, pos=pos)
    assert doc.cells() == {(0, 0, 0), (1, 0, 0), (1, 0, 1)}
    assert shape_label(win).endswith("— 3 cells")
    # the layer view draws triangles: a click there adds one too
    layer = win.design.layers.grids[0]
    assert (2, 0) in layer.shapes and layer.shapes[(2, 0)].size() == 3
    qtbot.mouseClick(layer, Qt.MouseButton.LeftButton, pos=layer.square_rect(2, 0).center())
    assert (2, 0, 0) in doc.cells() and shape_label(win).endswith("— 4 cells")
    win.design.editor.render_now()
    win.design.ask_unsaved = lambda: "discard"


def test_new_design_on_spheres_adds_the_touching_ball_and_the_grid_box_chooses(
    qtbot,
    design,  # noqa: F811
):
    win = design
    doc = win.design.doc
    box = win.design.grid_box
    box.setFocus()
    while box.currentText() != "spheres":  # the arrow keys, as a person would
        qtbot.keyClick(box, Qt.Key.Key_Down)
    assert doc.state.grid is SPHERES and "on spheres" in win.windowTitle()
    new_piece(qtbot, win)
    click_ground_cell(qtbot, win, 0, 0)
    assert doc.cells() == {(0, 0, 0)}
    assert len(neighbour_table(SPHERES)) == 12  # a ball touches twelve
    click_cell_face(qtbot, win, (0, 0, 0), (1, -1, 0))  # the ball beside it, towards you
    click_cell_face(qtbot, win, (0, 0, 0), (0, -1, 1))  # one sitting in the hollow above
    assert doc.cells() == {(0, 0, 0), (1, -1, 0), (0, -1, 1)}
    assert shape_label(win).endswith("— 3 cells")
    centres = SPHERES.centres(list(doc.cells()))
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    assert np.allclose(gaps[np.triu_indices(3, 1)], 1.0)  # three balls, each touching each
    click_cell_face(qtbot, win, (1, -1, 0), (1, -1, 0), button=Qt.MouseButton.RightButton)
    assert doc.cells() == {(0, 0, 0), (0, -1, 1)}  # the right click removed the ball clicked
    assert shape_label(win).endswith("— 2 cells")
    # only cells of the grid can be added: the ground offers balls at even sums only
    ground = win.design.editor.design.ground_cells
    assert len(ground) and SPHERES.valid(ground).all()
    # Cancel keeps the design: the box goes back to its grid
    win.design.ask_unsaved = lambda: "cancel"
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Up)
    assert doc.state.grid is SPHERES and box.currentText() == "spheres"
    win.design.ask_unsaved = lambda: "discard"


@needs_conformance
def test_bermuda_target_in_design_grows_by_a_click_on_a_top_face(qtbot, design):  # noqa: F811
    win = design
    path = CONFORMANCE / "burrtools-grids" / "Bermuda.xmpuzzle"
    click_mode(qtbot, win, "solution")
    with qtbot.waitSignal(win.puzzle_loaded, timeout=20_000):
        assert win.open_puzzle(str(path))
    click_mode(qtbot, win, "design")
    doc = win.design.doc
    assert doc.state.grid is PRISMS and win.design.grid_box.currentText() == "triangular prisms"
    assert shape_label(win).startswith("Target — 72 cells")
    top = max(doc.cells(), key=lambda c: (c[2], -c[1], c[0]))
    click_cell_face(qtbot, win, top, (0, 0, 1))
    assert (top[0], top[1], top[2] + 1) in doc.cells()
    assert shape_label(win).startswith("Target — 73 cells")
    win.design.ask_unsaved = lambda: "discard"
