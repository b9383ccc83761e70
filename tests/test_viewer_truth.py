"""Issue 12, items 2-6: exports show what the view shows, Search mode you can follow, 2D
puzzles shown as 2D, truthful status and errors, and the polish (Help, Preferences, keys).

Driven the way a person does it: mouse clicks on buttons, list items, sliders and dialog
buttons (QTest), waiting on signals and conditions, never on sleeps.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle, QStyleOptionSlider

from tessera.viewer import export
from tessera.viewer._qt.export_actions import ANIMATION_FILTERS, with_extension
from tessera.viewer.scenes.base import hex_rgb

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


# -- helpers -------------------------------------------------------------------------------------
def open_and_wait(qtbot, window, name: str, solutions: int = 1) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(name), window.last_error
    qtbot.waitUntil(lambda: len(window.state.solutions) >= solutions, timeout=30_000)


def click(qtbot, widget, pos: QPoint | None = None) -> None:
    """A real left click (press and release) on `widget`, at its centre by default."""
    qtbot.waitUntil(widget.isVisible)
    QTest.mouseClick(
        widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos or QPoint()
    )


def double_click(widget, pos: QPoint) -> None:
    """What a real double click sends: press, release, double-click, release."""
    button, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QTest.mousePress(widget, button, none, pos)
    QTest.mouseRelease(widget, button, none, pos)
    QTest.mouseDClick(widget, button, none, pos)


def click_action(qtbot, window, name: str) -> None:
    """Click the step bar's button of an action."""
    click(qtbot, window.step_bar.button(window.actions[name]))


def drag_slider_to_end(qtbot, slider) -> None:
    """Press on the handle, move to the right end, release: what a person does."""
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    handle = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    start, end = handle.center(), QPoint(slider.width() - 2, handle.center().y())
    QTest.mousePress(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for k in range(1, 11):
        QTest.mouseMove(slider, start + (end - start) * (k / 10))
    QTest.mouseRelease(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def untick(qtbot, list_widget, row: int) -> None:
    """Click an item's check box (left of its swatch and text)."""
    rect = list_widget.visualItemRect(list_widget.item(row))
    at = QPoint(rect.left() + rect.height() // 2 + 1, rect.center().y())
    click(qtbot, list_widget.viewport(), at)


def message_boxes() -> list[QMessageBox]:
    return [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ]


def chroma_near(image: np.ndarray, colour: str, tol: float = 0.06) -> np.ndarray:
    """Pixels of a piece's colour whatever the shading (same chromaticity, saturated)."""
    rgb = image[..., :3].astype(float)
    target = np.array(hex_rgb(colour), float)
    ratio = rgb / (rgb.sum(axis=-1, keepdims=True) + 1)
    near = np.abs(ratio - target / target.sum()).max(axis=-1) < tol
    return near & (rgb.max(axis=-1) - rgb.min(axis=-1) > 40)


def background(image: np.ndarray) -> np.ndarray:
    """The blue-grey gradient: unsaturated, blue at least as strong as red."""
    rgb = image[..., :3].astype(int)
    return (rgb.max(axis=-1) - rgb.min(axis=-1) < 45) & (rgb[..., 2] >= rgb[..., 0])


def gap_share(image: np.ndarray) -> float:
    """How much of the pieces' bounding box is background (gaps between exploded pieces)."""
    rows, cols = np.nonzero(~background(image))
    box = background(image)[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]
    return float(box.mean())


# -- 2. exports ------------------------------------------------------------------------------------
def test_png_export_has_the_explode_and_the_hidden_piece(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialog, QFileDialog

    from tessera.viewer._qt import export_actions

    open_and_wait(qtbot, window, "soma")
    exporter = window.exporter
    plain = exporter.export_image(tmp_path / "plain.png", (320, 240), supersample=1)
    panel = window.inspect_panel
    drag_slider_to_end(qtbot, panel.explode)
    assert window.handson.state.explode == 1.0
    keys = [panel.pieces.item(r).data(Qt.ItemDataRole.UserRole) for r in range(7)]
    row = keys.index("piece-0-0")  # V, red
    untick(qtbot, panel.pieces, row)
    assert window.handson.state.hidden == frozenset({"piece-0-0"})
    colour = window.renderer.specs["piece-0-0"].color

    # File ▸ Export image: its two dialogs answered, a name typed without extension
    monkeypatch.setattr(
        export_actions.ExportDialog, "exec", lambda self: QDialog.DialogCode.Accepted
    )
    monkeypatch.setattr(export_actions.ExportDialog, "size", lambda self: (320, 240), raising=False)
    monkeypatch.setattr(
        QFileDialog,
        "getSaveFileName",
        staticmethod(lambda *a, **k: (str(tmp_path / "shot"), "PNG image (*.png)")),
    )
    window.actions["export_image"].trigger()
    out = tmp_path / "shot.png"
    assert out.exists()
    import imageio.v3 as iio

    image = iio.imread(out)[..., :3]
    assert chroma_near(plain, colour).sum() > 300  # V is there when shown...
    assert chroma_near(image, colour).sum() < 10  # ...and absent when hidden
    assert gap_share(image) > gap_share(plain) + 0.08  # background between exploded pieces
    # "saved to …" and a button that opens the folder
    assert window.statusBar().currentMessage() == f"saved to {out}"
    opened = []
    monkeypatch.setattr(
        "tessera.viewer._qt.status.QDesktopServices.openUrl",
        staticmethod(lambda url: opened.append(url.toLocalFile()) or True),
    )
    click(qtbot, window.status.open_folder)
    assert opened == [str(tmp_path)]


def test_extension_follows_the_filter():
    assert with_extension("/t/clip", "MP4 video (*.mp4)", ANIMATION_FILTERS).name == "clip.mp4"
    assert with_extension("/t/clip", "GIF animation (*.gif)", ANIMATION_FILTERS).suffix == ".gif"
    assert with_extension("/t/clip.mp4", "GIF animation (*.gif)", ANIMATION_FILTERS).suffix == (
        ".mp4"
    )  # typed on purpose
    assert with_extension("/t/a.b", "MP4 video (*.mp4)", ANIMATION_FILTERS).name == "a.b.mp4"


def test_gif_holds_its_last_frame_and_keeps_pieces_in_frame(qtbot, window, tmp_path):
    from PIL import Image

    open_and_wait(qtbot, window, "soma")
    out = tmp_path / "a.gif"
    frames = window.exporter.export_animation(out, fps=10, size=(96, 72), frames_per_step=2)
    assert frames == 15
    with Image.open(out) as gif:
        durations = []
        for k in range(gif.n_frames):
            gif.seek(k)
            durations.append(gif.info["duration"])
            image = np.asarray(gif.convert("RGB"))
            edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
            saturated = (edge.max(axis=-1).astype(int) - edge.min(axis=-1)) > 60
            assert saturated.sum() == 0, f"a piece touches the border in frame {k}"
    assert durations[-1] >= 1000 + durations[0] and set(durations[:-1]) == {100}
    assert window.statusBar().currentMessage() == f"saved to {out}"


# -- 3. Search mode ------------------------------------------------------------------------------
def test_next_backtrack_button_lands_on_a_remove_and_fades(qtbot, window):
    open_and_wait(qtbot, window, "soma", solutions=3)
    click_action(qtbot, window, "mode_search")
    state = window.state
    assert state.mode == "search"
    assert window.step_bar.depth_map.isVisible()
    events = state.trace.events
    seen: list[float] = []
    state.events.step.connect(seen.append)
    with qtbot.waitSignal(window.step_shown, timeout=5000):
        click_action(qtbot, window, "next_backtrack")
    step = int(state.step)
    assert state.step == step and events[step - 1].kind.name == "REMOVE"
    first = step
    assert any(first - 1 < s < first for s in seen), "no fade between the steps"
    with qtbot.waitSignal(window.step_shown, timeout=5000):
        click_action(qtbot, window, "next_backtrack")
    assert state.step > first and events[int(state.step) - 1].kind.name == "REMOVE"
    with qtbot.waitSignal(window.step_shown, timeout=5000):
        click_action(qtbot, window, "previous_backtrack")
    assert state.step == first
    # the next solution in the trace, and the list highlights that very solution
    assert window.solution_panel.list.currentRow() == -1  # none shown yet
    click_action(qtbot, window, "next_found")
    assert events[int(state.step) - 1].kind.name == "SOLUTION"
    row = window.solution_panel.list.currentRow()
    assert row >= 0, "the list does not show the trace's solution"
    # the mini-map: a click half-way along goes half-way through the trace
    depth_map = window.step_bar.depth_map
    click(qtbot, depth_map, QPoint(depth_map.width() // 2, depth_map.height() // 2))
    assert abs(state.step - state.n_steps / 2) <= state.n_steps / depth_map.width() + 1


def test_trace_match_finds_the_listed_solution(qtbot, window):
    """The trace's solution is the listed one up to a symmetry of the target."""
    from tessera.solvers.trace import stack_at
    from tessera.viewer.trace_match import solution_row

    open_and_wait(qtbot, window, "soma", solutions=240)
    qtbot.waitUntil(lambda: not window.solving, timeout=30_000)
    trace = window.state.family.trace()
    at = next(i for i, e in enumerate(trace.events) if e.kind.name == "SOLUTION") + 1
    row = solution_row(
        window.state.family, trace, stack_at(trace.events, at), window.state.solutions
    )
    assert row is not None


# -- 4. 2D puzzles -------------------------------------------------------------------------------
def test_kenken_9x9_is_top_down_with_clues_at_least_14_px(qtbot, window):
    window.resize(1200, 760)
    qtbot.waitUntil(lambda: window.width() == 1200)
    item = window.browser.item_for("kenken-9x9")
    window.browser.scrollToItem(item)
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        rect = window.browser.visualItemRect(item)
        double_click(window.browser.viewport(), rect.center())
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=30_000)
    camera = window.plotter.camera
    assert camera.parallel_projection
    direction = np.subtract(camera.position, camera.focal_point)
    assert direction[2] > 0 and np.allclose(direction[:2], 0, atol=1e-6)  # looking straight down
    # only the controls that mean something: no explode or layers, no turn/move bar
    panel = window.inspect_panel
    assert not panel.explode.isVisible() and not panel.layer.isVisible()
    assert not window.handson_bar.isVisible()
    puzzle = window.state.family.puzzle
    assert panel.pieces.count() == len(puzzle.cages)
    assert panel.pieces.item(0).text().startswith(puzzle.cages[0].clue)
    # a window grab, and the top-left cage's clue measured in it
    window.plotter.render_still()
    grab = window.grab().toImage().convertToFormat(window.grab().toImage().Format.Format_RGB888)
    width, height = grab.width(), grab.height()
    pixels = np.frombuffer(grab.constBits(), np.uint8).reshape(height, grab.bytesPerLine())
    pixels = pixels[:, : width * 3].reshape(height, width, 3)
    ratio = width / window.width()
    # the clue's box in world coordinates (cell 0,0: x 0..1, y 0..-1), inside the cage borders
    corners = np.array([[0.07, -0.07, 0.0], [0.95, -0.55, 0.0]])
    (r0, c0), (r1, c1) = window.renderer.project(corners)
    origin = window.plotter.interactor.mapTo(window, QPoint(0, 0))
    dpr = window.plotter.interactor.devicePixelRatioF()
    top, bottom = origin.y() * ratio + r0 / dpr * ratio, origin.y() * ratio + r1 / dpr * ratio
    left, right = origin.x() * ratio + c0 / dpr * ratio, origin.x() * ratio + c1 / dpr * ratio
    region = pixels[int(top) : int(bottom), int(left) : int(right)]
    dark = region.max(axis=-1) < 100
    rows = np.nonzero(dark.any(axis=1))[0]
    assert len(rows), "no clue found in the top-left cage"
    clue_height = rows.max() - rows.min() + 1
    print(f"clue height {clue_height} px")
    assert clue_height >= 14


def test_domino_opens_top_down_without_explode(qtbot, window):
    open_and_wait(qtbot, window, "domino-small")
    assert window.plotter.camera.parallel_projection
    assert not window.inspect_panel.explode.isVisible()
    assert not window.handson_bar.isVisible()
    open_and_wait(qtbot, window, "soma")  # and back: a polycube puzzle offers them again
    assert not window.plotter.camera.parallel_projection
    assert window.inspect_panel.explode.isVisible() and window.actions["mode_play"].isEnabled()


# -- 5. status and errors --------------------------------------------------------------------------
def test_bad_file_opens_a_dialog_with_the_line(qtbot, window, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "polycube"\nname = "x"\n[pieces.A]\ncells = [[0, 0, 0]]\nwrong = 1\n')
    window.recent.remember(str(bad))
    item = window.browser.recent_root.child(0)
    rect = window.browser.visualItemRect(item)
    window.browser.scrollToItem(item)
    rect = window.browser.visualItemRect(item)
    double_click(window.browser.viewport(), rect.center())
    qtbot.waitUntil(lambda: len(message_boxes()) == 1)
    box = message_boxes()[0]
    text = box.text()
    assert "unknown key" in text and "wrong" in text
    assert str(bad) in text and "line 5" in text
    assert "wrong = 1" in text  # the offending line itself
    click(qtbot, box.button(QMessageBox.StandardButton.Ok))
    qtbot.waitUntil(lambda: not message_boxes())


def test_bad_game_id_dialog_speaks_to_a_window_user(qtbot, window):
    assert not window.open_puzzle("no-such-puzzle")
    qtbot.waitUntil(lambda: len(message_boxes()) == 1)
    box = message_boxes()[0]
    assert "tessera list" not in box.text() and "Puzzles list" in box.text()
    click(qtbot, box.button(QMessageBox.StandardButton.Ok))


def test_impossible_puzzle_says_why_in_the_solutions_panel(qtbot, window, tmp_path):
    bad = tmp_path / "short.toml"
    bad.write_text(
        'kind = "polycube"\n[pieces.A]\ncells = [[0,0,0],[1,0,0]]\n[target]\nlayers = [["###"]]\n'
    )
    with qtbot.waitSignal(window.solving_finished, timeout=20_000):
        assert window.open_puzzle(str(bad))
    reason = window.solution_panel.reason
    assert reason.isVisible() and "no solution possible" in reason.text()
    assert "2 cells" in reason.text() and "3 required" in reason.text()


def test_first_solve_says_the_solver_is_being_prepared(qtbot, window, monkeypatch):
    from tessera.solvers import kernels, native

    monkeypatch.setenv("TESSERA_NATIVE", "0")  # no kernels built ahead of time, either
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(kernels, "_listeners", [])
    monkeypatch.setattr(kernels, "_announced", set())
    monkeypatch.setattr(kernels, "is_compiled", lambda d: False)  # as on a fresh install
    messages: list[str] = []
    window.statusBar().messageChanged.connect(messages.append)
    open_and_wait(qtbot, window, "soma")
    assert "preparing the solver (once per install)…" in messages


def test_selection_and_play_counters_do_not_outlive_their_puzzle(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    window.handson.select("piece-0-0")
    assert window.status.selected.text()
    open_and_wait(qtbot, window, "pentominoes-6x10")
    assert window.status.selected.text() == ""


# -- 6. polish -----------------------------------------------------------------------------------
def test_vtk_keys_no_longer_act(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    widget = window.plotter.interactor
    for key in "w3sqe":
        QTest.keyClick(widget, key)
    pieces = [a for k, a in window.renderer.actors.items() if k.startswith("piece-")]
    assert all(a.prop.GetRepresentation() == 2 for a in pieces)  # VTK_SURFACE, not wireframe
    assert not window.plotter.render_window.GetStereoRender()


def test_help_menu_about_and_shortcuts(qtbot, window):
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert "Help" in menus
    window.actions["about"].trigger()
    qtbot.waitUntil(lambda: any(b.objectName() == "about_box" for b in message_boxes()))
    box = next(b for b in message_boxes() if b.objectName() == "about_box")
    click(qtbot, box.button(QMessageBox.StandardButton.Ok))
    window.actions["shortcuts"].trigger()
    dialog = window.shortcuts_dialog
    qtbot.waitUntil(dialog.isVisible)
    keys = {dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    assert {"Space", "Shift+Right", "Ctrl+E"} <= keys
    dialog.close()


def test_preferences_dark_theme_speed_and_geometry(qtbot, window):
    from PySide6.QtWidgets import QDialogButtonBox

    from tessera.viewer.render import BACKGROUNDS

    window.actions["preferences"].trigger()
    dialog = window.preferences_dialog
    qtbot.waitUntil(dialog.isVisible)
    dialog.theme.setCurrentText("dark")
    dialog.speeds["solution"].setValue(5.0)
    with qtbot.waitSignal(dialog.accepted):
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Ok))
    try:
        assert window.prefs.theme == "dark" and window.theme == "dark"
        bottom = np.array(window.plotter.renderer.GetBackground())
        assert np.allclose(bottom * 255, hex_rgb(BACKGROUNDS["dark"][0]), atol=1)
        qtbot.waitUntil(lambda: window.palette().window().color().lightness() < 100)
        assert window.step_bar.speed.value() == 5.0
        # the speed a user sets stays with its mode
        click_action(qtbot, window, "mode_search")
        window.step_bar.speed.setValue(40.0)
        click_action(qtbot, window, "mode_solution")
        assert window.step_bar.speed.value() == 5.0
        click_action(qtbot, window, "mode_search")
        assert window.step_bar.speed.value() == 40.0
    finally:
        window.prefs.theme = "light"
        window.prefs.set_speed("solution", 2.0)
        window.apply_theme("light")
    # the window's geometry is remembered on close
    window.resize(1010, 640)
    window.close()
    assert window.prefs.geometry() is not None


def test_piece_list_has_colour_swatches(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    pieces = window.inspect_panel.pieces
    assert pieces.count() == 7
    for row in range(7):
        icon = pieces.item(row).icon()
        assert not icon.isNull()
        key = pieces.item(row).data(Qt.ItemDataRole.UserRole)
        centre = icon.pixmap(14, 14).toImage().pixelColor(7, 7)
        expected = hex_rgb(window.renderer.specs[key].color)
        assert np.abs(np.subtract(centre.getRgb()[:3], expected)).max() <= 8  # 16-bit Xvfb


def test_export_view_carries_the_window_camera(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    window.isometric_view()
    view = window.export_view()
    assert view.camera == window.plotter.camera_position
    assert view.inspect is window.handson.state
    assert isinstance(view, export.View)


def test_play_mode_png_is_the_table_on_screen(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, "soma")
    click_action(qtbot, window, "mode_play")
    assert window.state.mode == "play"
    image = window.exporter.export_image(tmp_path / "table.png", (320, 240))
    assert (tmp_path / "table.png").exists()
    assert tuple(image.shape[:2]) == tuple(window.plotter.window_size[::-1])
    colours = window.state.family.puzzle.colors()
    assert sum(chroma_near(image, c).sum() > 50 for c in colours) >= 5  # the tray's pieces
