"""The hands-on viewer in the real window under Xvfb: a real click selects a piece, QActions
turn and move it with a glide, Play mode flags bad cells (in a colour no piece has) and knows
which solution a finished cube is, hints run in a thread, explode/layers/ghosting change the
picture, and File ▸ Export STL writes the same files as `tessera stl`."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialog

from tessera.cli.main import main
from tessera.models.mesh import read_stl
from tessera.solvers.polycube.identify import SolutionIndex
from tessera.viewer._qt.inspect_view import HIGHLIGHT
from tessera.viewer._qt.play_view import FLAG, HINT_COLOR, key_of, pose_matrix
from tessera.viewer.scenes.base import hex_rgb
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def action_for(window, op: str, axis: int, amount: int) -> str:
    """The QAction a player presses for an op of `PlayModel.path_to` (a world axis): the
    buttons are named in the view's terms (→, ↺), so which one it is depends on the camera."""
    meanings = window.handson.action_meanings()
    return next(name for name, meant in meanings.items() if meant == (op, axis, amount))


def open_soma(qtbot, window, solutions: int = 1) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= solutions, timeout=20_000)


def enter_play(qtbot, window):
    open_soma(qtbot, window)
    window.actions["mode_play"].trigger()
    assert window.mode == "play" and window.actions["mode_play"].isChecked()
    settle(qtbot, window)
    return window.handson.model


def settle(qtbot, window) -> None:
    """Wait for glides to end and the coalesced render to happen."""
    view = window.handson.view
    if view is not None:
        qtbot.waitUntil(lambda: not view.animating, timeout=5000)
    qtbot.waitUntil(lambda: not window.render_pending, timeout=5000)
    window.render_now()


def picture(window) -> np.ndarray:
    window.render_now()
    return np.asarray(window.plotter.screenshot(return_img=True))[..., :3]


def colour_mask(image: np.ndarray, color: str, tol: float = 0.06) -> np.ndarray:
    """Pixels whose chromaticity matches `color` (shading changes brightness, not hue)."""
    rgb = image.astype(float) + 1
    want = np.array(hex_rgb(color), float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    return np.abs(chroma - want / want.sum()).max(axis=-1) < tol


def press(window, ops) -> None:
    """Play `PlayModel.path_to(..., single_steps=True)` through the QActions, key by key."""
    for op, axis, amount in ops:
        name = action_for(window, op, axis, amount)
        assert window.actions[name].isEnabled(), name
        window.actions[name].trigger()


def bring(window, piece: int, cells) -> None:
    """Select a piece and walk it onto `cells` with single key presses."""
    model = window.handson.model
    window.handson.select(key_of(piece))
    assert model.selected == piece
    press(window, model.path_to(piece, model.pose_for(piece, cells), single_steps=True))


def click_piece(qtbot, window, piece: int) -> None:
    """A real left click on the top face of the piece's highest cell, as drawn now."""
    cells = window.handson.model.cells(piece)
    top = cells[np.argmax(cells[:, 2] * 100 + cells[:, 1] * 10 + cells[:, 0])]  # highest, nearest
    row, col = window.renderer.project(top + np.array([0.0, 0.0, 0.5]))[0]
    widget = window.plotter.interactor
    ratio = widget.devicePixelRatioF()
    qtbot.mouseClick(
        widget, Qt.MouseButton.LeftButton, pos=QPoint(round(col / ratio), round(row / ratio))
    )


def test_click_selects_then_actions_turn_and_move_with_a_glide(qtbot, window):
    model = enter_play(qtbot, window)
    a = window.actions
    assert not a["turn_x_pos"].isEnabled()  # nothing selected yet
    # two pieces of the front row (the camera looks from +y): nothing stands before them
    k, other = sorted(range(len(model.pieces)), key=lambda i: -model.pose(i).offset[1])[:2]
    name = model.pieces[k].name
    click_piece(qtbot, window, k)
    assert model.selected == k
    assert window.status_selected.text() == name
    assert f"{name} selected" in window.statusBar().currentMessage()
    actor = window.renderer.actors[key_of(k)]
    assert actor.prop.edge_color.float_rgb == pytest.approx(
        np.array(hex_rgb(HIGHLIGHT)) / 255, abs=0.01
    )
    assert a["turn_x_pos"].isEnabled() and a["move_z_pos"].isEnabled()
    # clicking another piece moves the selection
    click_piece(qtbot, window, other)
    assert model.selected == other and window.status_selected.text() == model.pieces[other].name
    click_piece(qtbot, window, k)
    assert model.selected == k

    mesh = actor.mapper.dataset
    start = model.pose(k)
    seen: list[np.ndarray] = []
    window.rendered.connect(lambda: seen.append(np.array(actor.user_matrix)))
    window.handson.view.duration_ms = 500  # long enough to catch frames half-way
    a["turn_z_pos"].trigger()
    assert model.pose(k).rotation != start.rotation and model.can_undo
    settle(qtbot, window)
    assert np.allclose(actor.user_matrix, pose_matrix(model.pose(k)))
    halfway = [m for m in seen if not np.allclose(m[:3, :3], np.rint(m[:3, :3]), atol=1e-3)]
    assert halfway, "the piece jumped instead of turning"
    pivot = model.pieces[k].anchor
    for m in halfway:  # it turns in place, about its anchor cell
        assert np.allclose(m[:3, :3] @ pivot + m[:3, 3], model.pivot(k) - 0.5, atol=1e-6)
    a["turn_z_neg"].trigger()
    assert model.pose(k) == start
    window.handson.view.duration_ms = 60
    for axis, delta in ((0, 1), (2, 1), (1, -1)):
        name = action_for(window, "move", axis, delta)
        before = model.pose(k).offset
        a[name].trigger()
        assert model.pose(k).offset[axis] == before[axis] + delta
    a["turn_y_neg"].trigger()
    settle(qtbot, window)
    assert np.allclose(actor.user_matrix, pose_matrix(model.pose(k)))
    assert actor.mapper.dataset is mesh  # moved by user_matrix, never a new mesh
    # leaving Play shows the solution again; coming back finds the table as it was
    a["mode_solution"].trigger()
    assert window.mode == "solution" and window.state.scene is window.renderer.scene
    assert sum(actor.visibility for actor in window.renderer.actors.values()) == 8  # + outline
    a["mode_play"].trigger()
    assert window.handson.model is model and model.selected == k


def test_soma_completed_key_by_key_is_solved_with_its_number(qtbot, window):
    model = enter_play(qtbot, window)
    window.handson.view.duration_ms = 0  # no glides: many key presses
    index = SolutionIndex(window.state.family.puzzle)
    number = 7
    solution = index.solution(number)
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000) as blocker:
        for placed in solution.pieces:
            piece = next(p.index for p in model.pieces if p.piece == placed.piece)
            bring(window, piece, placed.cells)
            assert not model.fit().bad[piece].any()
    assert model.solved
    assert blocker.args == [number]
    assert f"distinct solution {number}" in window.statusBar().currentMessage()
    assert window.inspect_panel.message.text() == f"solved! This is distinct solution {number}"
    settle(qtbot, window)
    assert window.handson.view.flagged_cells() == {}
    # undo takes the last key press back: no longer solved
    window.actions["undo"].trigger()
    assert not model.solved and model.can_redo
    window.actions["redo"].trigger()
    assert model.solved


def test_an_illegal_move_is_flagged_and_undo_clears_it(qtbot, window):
    model = enter_play(qtbot, window)
    assert window.handson.view.flag == FLAG  # no Soma piece is magenta
    window.handson.view.duration_ms = 0
    solution = SolutionIndex(window.state.family.puzzle).solution(1)
    placed = solution.pieces[0]
    piece = next(p.index for p in model.pieces if p.piece == placed.piece)
    bring(window, piece, placed.cells)
    settle(qtbot, window)
    assert window.handson.view.flagged_cells() == {}
    clean = colour_mask(picture(window), FLAG).sum()
    # slide it along an axis it spans two or more cells of until its far end sticks out of
    # the 3x3x3 target (part in, part out)
    cells = model.cells(piece)
    axis = next(a for a in range(3) if cells[:, a].max() > cells[:, a].min())
    direction, steps = 1, 3 - int(cells[:, axis].max())
    name = action_for(window, "move", axis, direction)
    for _ in range(steps):
        window.actions[name].trigger()
    fit = model.fit()
    assert fit.in_target[piece] and fit.outside[piece].any()
    settle(qtbot, window)
    label = model.pieces[piece].name
    assert window.handson.view.flagged_cells().get(label, 0) > 0
    assert f"outlined (outside or overlapping): {label}" in window.statusBar().currentMessage()
    flagged = colour_mask(picture(window), FLAG).sum()
    assert flagged > clean + 150, (flagged, clean)
    for _ in range(steps):
        window.actions["undo"].trigger()
    settle(qtbot, window)
    assert window.handson.view.flagged_cells() == {}
    assert colour_mask(picture(window), FLAG).sum() <= clean + 20
    # overlapping is flagged too: a second piece pushed onto the first
    second = solution.pieces[1]
    other = next(p.index for p in model.pieces if p.piece == second.piece)
    shared = {tuple(c) for c in model.cells(piece).tolist()}
    model.place(other, _overlapping_pose(model, other, shared))
    assert model.fit().overlap[piece].any()
    settle(qtbot, window)
    assert window.handson.view.flagged_cells().get(label, 0) > 0
    window.actions["undo"].trigger()  # the placing was one step
    assert not model.fit().overlap[piece].any() and model.fit().bad_pieces == ()


def _overlapping_pose(model, piece: int, occupied: set) -> object:
    """A pose of `piece` inside the target that shares a cell with `occupied`."""
    from tessera.models.play import Pose

    for r in range(24):
        for x in range(-2, 3):
            for y in range(-2, 3):
                for z in range(-2, 3):
                    pose = Pose(r, (x, y, z))
                    cells = {tuple(c) for c in model.cells_at(piece, pose).tolist()}
                    inside = all(0 <= v <= 2 for c in cells for v in c)
                    if inside and cells & occupied:
                        return pose
    raise AssertionError("no overlapping pose")


def test_hints_in_a_thread_for_completable_and_impossible_tables(qtbot, window):
    model = enter_play(qtbot, window)
    window.handson.view.duration_ms = 0
    puzzle = window.state.family.puzzle
    solution = SolutionIndex(puzzle).solution(10)
    for placed in solution.pieces[:3]:
        piece = next(p.index for p in model.pieces if p.piece == placed.piece)
        model.place(piece, model.pose_for(piece, placed.cells))
    before = colour_mask(picture(window), HINT_COLOR).sum()
    with qtbot.waitSignal(window.handson.hint_ready, timeout=10_000) as blocker:
        window.actions["hint"].trigger()
    answer = blocker.args[0]
    assert answer.completable is True and answer.next is not None
    name = puzzle.pieces[answer.next.piece].name
    assert f"hint: {name} goes next: " in window.statusBar().currentMessage()
    assert window.handson.hint_shown
    settle(qtbot, window)
    assert colour_mask(picture(window), HINT_COLOR).sum() > before + 100  # the ghost piece
    window.actions["apply_hint"].trigger()  # "show me": the hinted piece goes in
    assert sum(model.fit().in_target) == 4 and model.fit().bad_pieces == ()
    assert not window.handson.hint_shown  # a move makes the hint stale

    window.actions["reset_play"].trigger()
    assert sum(model.fit().in_target) == 0
    # V and L wall in the corner cell (0, 0, 0): nothing can fill it
    bring(window, model.find("V"), np.array([(1, 0, 0), (1, 1, 0), (0, 1, 0)]))
    bring(window, model.find("L"), np.array([(0, 0, 1), (1, 0, 1), (2, 0, 1), (0, 1, 1)]))
    assert model.fit().bad_pieces == ()  # legal, just hopeless
    with qtbot.waitSignal(window.handson.hint_ready, timeout=10_000) as blocker:
        window.actions["hint"].trigger()
    answer = blocker.args[0]
    assert answer.completable is False and answer.next is None
    assert window.statusBar().currentMessage() == (
        "hint: cannot be completed: take some pieces out"
    )
    assert not window.handson.hint_shown


def piece_pixels(window, image, background) -> np.ndarray:
    return np.abs(image.astype(int) - background.astype(int)).max(axis=-1) > 40


def test_explode_layers_visibility_and_ghosting_change_the_picture(qtbot, window):
    open_soma(qtbot, window)
    state = window.handson.state
    keys = window.handson.inspector.piece_keys()
    assert len(keys) == 7 and window.inspect_panel.pieces.count() == 7
    base = picture(window)
    for key in keys:
        state.set_hidden(key, True)
    empty = picture(window)
    for key in keys:
        state.set_hidden(key, False)
    assert np.array_equal(picture(window), base)
    solid = piece_pixels(window, base, empty)
    assert solid.sum() > 3000

    # explode: pieces move apart (more of the screen covered, gaps between them), and back
    window.inspect_panel.explode.setValue(100)
    settle(qtbot, window)
    exploded = piece_pixels(window, picture(window), empty)
    assert exploded.sum() > solid.sum() * 1.2
    assert (solid & ~exploded).sum() > 200  # gaps opened where the cube was solid
    matrix = window.renderer.actors[keys[0]].user_matrix
    window.inspect_panel.explode.setValue(0)
    settle(qtbot, window)
    assert not np.allclose(matrix, window.renderer.actors[keys[0]].user_matrix)
    assert np.array_equal(picture(window), base)

    # the layer slider hides everything above z = 0, then shows all again
    panel = window.inspect_panel
    assert panel.axis.currentText() == "z" and panel.layer_label.text() == "all"
    panel.layer.setValue(0)
    assert (state.layer_axis, state.layer) == (2, 0) and panel.layer_label.text() == "≤ 0"
    bottom = piece_pixels(window, picture(window), empty)
    assert bottom.sum() < solid.sum() * 0.8
    panel.layer.setValue(panel.layer.maximum())
    assert state.layer is None
    assert np.array_equal(picture(window), base)

    # unticking a piece hides it
    counts = {k: colour_mask(base, window.renderer.specs[k].color).sum() for k in keys}
    shown = max(keys, key=counts.get)
    row = next(
        i for i in range(panel.pieces.count())
        if panel.pieces.item(i).data(Qt.ItemDataRole.UserRole) == shown
    )  # fmt: skip
    panel.pieces.item(row).setCheckState(Qt.CheckState.Unchecked)
    assert shown in state.hidden and not window.renderer.actors[shown].visibility
    assert (
        colour_mask(picture(window), window.renderer.specs[shown].color).sum() < counts[shown] / 10
    )
    panel.pieces.item(row).setCheckState(Qt.CheckState.Checked)

    # ghosting: the piece least visible in the cube shows through the translucent others
    hidden_most = min(keys, key=counts.get)
    window.handson.select(hidden_most)
    assert window.status_selected.text() == window.renderer.specs[hidden_most].name
    window.actions["ghost"].trigger()
    assert state.ghost
    ghosted = picture(window)
    color = window.renderer.specs[hidden_most].color
    assert colour_mask(ghosted, color, tol=0.08).sum() > counts[hidden_most] + 300
    others = [k for k in keys if k != hidden_most]
    assert all(window.renderer.actors[k].prop.opacity < 0.5 for k in others)
    window.actions["ghost"].trigger()
    assert all(window.renderer.actors[k].prop.opacity == 1.0 for k in others)


def stl_files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def read_closed(path):
    import pyvista as pv

    mesh = pv.read(path)
    assert mesh.n_cells > 0 and mesh.n_open_edges == 0, f"{path.name} is not closed"
    return mesh


def test_export_stl_is_the_command_s_mechanism(qtbot, window, tmp_path, monkeypatch, capsys):
    open_soma(qtbot, window)
    assert window.state.solution_index == 0
    # File ▸ Export STL, dialog accepted with its defaults (20 mm, no gap, one file per piece)
    from tessera.viewer._qt import export_actions

    monkeypatch.setattr(export_actions.StlDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    monkeypatch.setattr(
        export_actions.QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path / "gui")
    )
    window.actions["export_stl"].trigger()
    assert (
        main(["stl", str(puzzle_file("soma")), "--out", str(tmp_path / "cli"), "--solution", "1"])
        == 0
    )
    capsys.readouterr()
    gui = stl_files(tmp_path / "gui")
    assert sorted(gui) == sorted(f"{n}.stl" for n in "VLTZABP")
    assert gui == stl_files(tmp_path / "cli")  # byte for byte what `tessera stl` writes
    puzzle = window.state.family.puzzle
    for piece in puzzle.pieces:
        mesh = read_closed(tmp_path / "gui" / f"{piece.name}.stl")
        assert mesh.volume == pytest.approx(piece.size * 20**3, rel=1e-6)

    # the whole assembly in one file, with a gap: closed shells, volume shrunk by the gap
    written = window.exporter.export_stl(tmp_path / "whole", cell_mm=10, gap_mm=0.4, whole=True)
    assert [p.name for p, _ in written] == ["assembly-1.stl"]
    corners, _, header = read_stl(written[0][0])
    assert header.startswith(b"Tessera Soma")
    mesh = read_closed(written[0][0])
    assert 0.85 * 27 * 1000 < mesh.volume < 27 * 1000
    assert written[0][1] == pytest.approx(mesh.volume, rel=1e-6)

    # Play mode exports the pieces where they lie on the table
    model = enter_play_again(qtbot, window)
    k = model.find("T")
    window.handson.select(key_of(k))
    window.actions["move_z_pos"].trigger()
    written = window.exporter.export_stl(tmp_path / "play", cell_mm=5)
    assert len(written) == 7
    mesh = read_closed(tmp_path / "play" / "T.stl")
    assert mesh.volume == pytest.approx(4 * 125, rel=1e-6)
    assert mesh.bounds[4] == pytest.approx(5 * (model.cells(k)[:, 2].min()), abs=1e-6)


def enter_play_again(qtbot, window):
    window.actions["mode_play"].trigger()
    settle(qtbot, window)
    return window.handson.model
