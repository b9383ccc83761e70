"""Design mode of the main window under Xvfb, driven by real mouse clicks on rendered pixels.

The window is entered in Design mode by a real click on the step bar's Design button. A click
helper projects the centre of a cube's face (or of a ground square) to display coordinates with
the renderer, checks that a pick there really hits that face (so a test never passes by clicking
something else), and sends a real press and release to the window's one render widget.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer

from tessera.models import geometry
from tessera.models.design import TARGET
from tessera.models.soma_figure import soma_pieces
from tests.conftest import _process_deletions, _visible_top_levels

PX, NX, PY, NY, PZ, NZ = range(6)  # indices into NORMALS
CUBE = [(x, y, z) for z in range(3) for y in range(3) for x in range(3)]


def click_mode(qtbot, win, mode: str) -> None:
    """A real click on the step bar's button of a mode; waits until the window follows."""
    button = win.step_bar.button(win.actions[f"mode_{mode}"])
    assert button is not None and button.isVisible() and button.isEnabled()
    with qtbot.waitSignal(win.mode_changed, timeout=10_000, check_params_cb=lambda m: m == mode):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


@pytest.fixture
def design(qtbot, qt_settings_dir):
    """A shown main window switched to Design mode by its button; closed (discarding
    changes), released and checked for leaks."""
    import pyvista

    from tessera.viewer._qt.window import MainWindow

    before = set(map(id, _visible_top_levels()))
    win = MainWindow()
    win.resize(1100, 700)
    win.show()
    qtbot.waitExposed(win)
    try:
        click_mode(qtbot, win, "design")
        yield win
    finally:
        win.design.ask_unsaved = lambda: "discard"
        win.close()
        win.deleteLater()
        pyvista.close_all()
        _process_deletions()
        leaked = [w for w in _visible_top_levels() if id(w) not in before]
        for w in leaked:
            w.close()
        assert not leaked, f"windows left open: {[type(w).__name__ for w in leaked]}"


def _screen_pos(win, point) -> QPoint:
    win.design.editor.render_now()  # project against the picture as it is now
    row, col = win.renderer.project(np.asarray(point, float))[0]
    ratio = win.plotter.interactor.devicePixelRatioF()
    return QPoint(round(col / ratio), round(row / ratio))


def click_face(qtbot, win, cell, normal: int, remove: str | None = None) -> None:
    """A real click on face `normal` of the cube at `cell` (remove: 'shift' or 'right')."""
    editor = win.design.editor
    k = editor.design.cube_index(cell)
    assert k >= 0, f"no cube at {cell}"
    pos = _screen_pos(win, editor.design.face_centre(k, normal))
    assert editor.pick(pos.x(), pos.y()) == ("cube", k, normal), "face hidden from view"
    button = Qt.MouseButton.RightButton if remove == "right" else Qt.MouseButton.LeftButton
    mods = Qt.KeyboardModifier.ShiftModifier if remove == "shift" else Qt.KeyboardModifier(0)
    qtbot.mouseClick(win.plotter.interactor, button, mods, pos)


def click_ground(qtbot, win, x: int, y: int) -> None:
    editor = win.design.editor
    pos = _screen_pos(win, editor.design.ground_centre(x, y))
    assert editor.pick(pos.x(), pos.y()) == ("ground", (x, y, editor.design.floor))
    qtbot.mouseClick(win.plotter.interactor, Qt.MouseButton.LeftButton, pos=pos)


def click_layer(qtbot, win, x: int, y: int, z: int) -> None:
    grid = win.design.layers.grids[z]
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=grid.square_rect(x, y).center())


def wait_badge(qtbot, win, text: str, timeout: int = 30_000) -> None:
    qtbot.waitUntil(lambda: win.design.badge.text == text, timeout=timeout)


def test_build_soma_v_from_nothing_by_clicking_faces(qtbot, design):
    win = design
    doc = win.design.doc
    assert win.state.mode == "design" and "Design" in win.windowTitle()
    assert win.docks["shapes"].isVisible() and win.docks["layers"].isVisible()
    assert not win.docks["solutions"].isVisible() and not win.handson_bar.isVisible()
    qtbot.mouseClick(win.design.panel.add_button, Qt.MouseButton.LeftButton)
    assert doc.current == 0 and not doc.cells()
    click_ground(qtbot, win, 1, 1)
    assert doc.cells() == {(1, 1, 0)}
    click_face(qtbot, win, (1, 1, 0), PX)
    click_face(qtbot, win, (1, 1, 0), NY)
    cells = doc.cells()
    assert cells == {(1, 1, 0), (2, 1, 0), (1, 0, 0)}
    v = next(p for p in soma_pieces() if p.name == "V")
    assert geometry.canonical_key(list(cells)) == v.shape_key
    # hovering marks the cube and the face that will grow; Shift turns it into a removal
    editor = win.design.editor
    pos = _screen_pos(win, editor.design.face_centre(editor.design.cube_index((2, 1, 0)), PZ))
    qtbot.mouseMove(win.plotter.interactor, pos)
    qtbot.waitUntil(lambda: editor.hover == ((2, 1, 0), PZ, "add"))
    assert win.renderer.actors["hover-face"].visibility
    # Shift-click and right click remove; undo brings them back
    click_face(qtbot, win, (2, 1, 0), PZ, remove="shift")
    click_face(qtbot, win, (1, 0, 0), PZ, remove="right")
    assert doc.cells() == {(1, 1, 0)}
    win.design.actions["undo"].trigger()
    win.design.actions["undo"].trigger()
    assert doc.cells() == cells


def test_draw_a_2x2x2_target_with_one_optional_cell(qtbot, design):
    win = design
    doc = win.design.doc
    assert doc.current == TARGET
    click_ground(qtbot, win, 0, 1)  # the back row first: the front row would hide it
    click_face(qtbot, win, (0, 1, 0), PX)  # (1, 1, 0) against a face
    click_ground(qtbot, win, 0, 0)
    click_ground(qtbot, win, 1, 0)
    # the back row's top layer first: the front row's would hide those faces
    click_face(qtbot, win, (0, 1, 0), PZ)
    win.design.actions["optional_brush"].trigger()
    click_face(qtbot, win, (1, 1, 0), PZ)
    win.design.actions["optional_brush"].trigger()
    click_face(qtbot, win, (0, 0, 0), PZ)
    click_face(qtbot, win, (1, 0, 0), PZ)
    cube = {(x, y, z) for x in range(2) for y in range(2) for z in range(2)}
    assert doc.target.optional == {(1, 1, 1)}
    assert doc.target.required == cube - {(1, 1, 1)}
    # the layer view shows the same shape, the optional cell marked
    assert win.design.layers.grids[1].optional == {(1, 1)}
    assert win.design.layers.grids[0].required == {(x, y) for x in range(2) for y in range(2)}
    wait_badge(qtbot, win, "add a piece")


def test_save_reopen_and_solve(qtbot, design, tmp_path):
    """The 2×2×2 target (one optional cell) drawn through the layer view, two pieces by the
    model API; saved, reopened in the window and solved through the registry."""
    from tessera.solvers.registry import load

    win = design
    doc = win.design.doc
    for x, y, z in [(x, y, z) for z in range(2) for y in range(2) for x in range(2)][:7]:
        click_layer(qtbot, win, x, y, z)
    win.design.actions["optional_brush"].trigger()
    click_layer(qtbot, win, 1, 1, 1)
    assert len(doc.target.required) == 7 and doc.target.optional == {(1, 1, 1)}
    doc.add_piece("V", [(0, 0, 0), (1, 0, 0), (0, 1, 0)])
    doc.add_piece("O", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])
    badge = win.design.badge
    qtbot.waitUntil(lambda: bool(re.fullmatch(r"\d+ solutions?", badge.text)), timeout=30_000)
    shown = int(badge.text.split()[0])
    assert win.isWindowModified()
    path = tmp_path / "box.toml"
    assert win.design.save_to(path)
    assert not win.isWindowModified() and "box.toml" in win.windowTitle()
    before = doc.state
    doc.new()
    assert win.open_puzzle(str(path)) and win.state.mode == "design"
    assert doc.target == before.target
    assert [(p.name, p.cells) for p in doc.pieces] == [
        ("V", frozenset({(0, 0, 0), (1, 0, 0), (0, 1, 0)})),
        ("O", frozenset({(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)})),
    ]
    loaded = load(path)
    assert loaded.solve().count() == shown > 0
    # an unsaved change asks before another puzzle replaces it; Cancel keeps it
    doc.add_cells([(5, 5, 5)])
    asked = []
    win.design.ask_unsaved = lambda: asked.append(1) or "cancel"
    assert not win.open_puzzle("soma") and asked and (5, 5, 5) in doc.target.cells
    assert win.state.family.source == str(path)
    # and closing asks too: Cancel keeps the window open
    win.close()
    assert len(asked) == 2 and win.isVisible()
    win.design.ask_unsaved = lambda: "discard"
    assert win.open_puzzle("soma") and doc.name == "Soma cube" and not doc.dirty


def test_new_soma_figure_counts_240_after_the_27th_cube_then_undo_and_redo(qtbot, design):
    """24 cubes through the model API (one edit each), 2 by clicks in the layer view, the 27th
    by a real click on a face in the 3D view; the badge's click shows the 240 solutions in
    Solution mode; back in Design, undo to empty and redo back to 240."""
    win = design
    doc = win.design.doc
    win.design.actions["new_soma"].trigger()
    assert [p.name for p in doc.pieces] == [p.name for p in soma_pieces()]
    assert doc.current == TARGET
    last = (2, 0, 2)
    by_api = [c for c in CUBE if c not in ((1, 2, 2), (2, 2, 2), last)]
    for cell in by_api:
        doc.add_cells([cell])
    click_layer(qtbot, win, 1, 2, 2)
    click_layer(qtbot, win, 2, 2, 2)
    wait_badge(qtbot, win, "no solution: pieces 27 cells, target 26")
    click_face(qtbot, win, (2, 0, 1), PZ)
    wait_badge(qtbot, win, "240 solutions")
    assert doc.target.required == set(CUBE)
    # one click on the badge: Solution mode, in this window, on the drawn puzzle
    with qtbot.waitSignal(win.mode_changed, timeout=10_000):
        qtbot.mouseClick(win.design.badge.button, Qt.MouseButton.LeftButton)
    assert win.state.mode == "solution" and win.actions["mode_solution"].isChecked()
    assert win.state.family.puzzle.name == "Soma figure"
    qtbot.waitUntil(lambda: not win.solving and len(win.state.solutions) == 240, timeout=30_000)
    assert win.renderer.scene is win.state.scene  # the replay is on screen, not the editor
    assert "Solution mode" in win.windowTitle()
    # back to Design: the same drawing, its history kept; undo back to empty, redo to 240
    click_mode(qtbot, win, "design")
    assert win.renderer.scene is win.design.editor.design.scene
    steps = 0
    while doc.can_undo:
        win.design.actions["undo"].trigger()
        steps += 1
    assert steps == 27 and not doc.target.cells
    wait_badge(qtbot, win, "draw the target")
    while doc.can_redo:
        win.design.actions["redo"].trigger()
    wait_badge(qtbot, win, "240 solutions")


def test_an_edit_during_a_count_restarts_it_and_the_window_keeps_answering(qtbot, design):
    """Bedlam (nearly a minute to count) keeps the worker busy however fast the machine; a
    50 ms QTimer on the GUI thread must keep ticking, and an edit must cancel the count and
    start a new analysis. The waits are ceilings for a busy machine, not speeds."""
    win = design
    doc, runner, badge = win.design.doc, win.design.runner, win.design.badge
    assert win.open_puzzle("bedlam") and win.state.mode == "design"
    assert not win.solving  # the window's own solver waits until Design is left
    qtbot.waitUntil(lambda: runner.worker is not None, timeout=30_000)
    counting = runner.worker
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(len(ticks)))
    timer.start(50)
    try:
        qtbot.waitUntil(lambda: len(ticks) >= 20, timeout=60_000)  # a second of counting
        assert counting.isRunning() and badge.text.startswith("counting…")
        assert badge.stop_button.isVisible()
        restarts = runner.restarts
        doc.remove_cells([(0, 0, 0)])  # an edit mid-count
        qtbot.waitUntil(lambda: counting.isFinished(), timeout=30_000)  # cancelled, promptly
        wait_badge(qtbot, win, "no solution: pieces 64 cells, target 63", timeout=30_000)
        assert runner.restarts == restarts + 1
        # and back: the count restarts; Stop ends it with a partial answer
        win.design.actions["undo"].trigger()
        qtbot.waitUntil(lambda: badge.text.startswith("counting…"), timeout=30_000)
        qtbot.waitUntil(lambda: runner.worker is not None, timeout=30_000)
        qtbot.mouseClick(badge.stop_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: badge.text.startswith("stopped:"), timeout=30_000)
    finally:
        timer.stop()
    # the GUI kept ticking through the count and both edits (its longest stall is a
    # benchmark, benchmarks/bench_viewer.py, not a test)
    assert len(ticks) >= 20
