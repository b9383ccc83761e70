"""No stale state (issue 22): every view of the real window, under Xvfb, reflects the puzzle,
mode and step shown now. Modes change by real clicks on their buttons, keys are real key
events, and what is checked is what a person sees: which widgets are visible, the slider's
range, the title, the About text, the gizmo's label colours against the background."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox, QToolButton

from tessera import __version__
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

LEFT = Qt.MouseButton.LeftButton
STEP_ONLY = ("first", "back", "play", "forward", "last")


def open_and_wait(qtbot, window, name: str) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file(name)))
    if window.mode in ("solution", "search"):
        qtbot.waitUntil(lambda: window.state.solution is not None, timeout=30_000)


def click_mode(qtbot, window, mode: str) -> None:
    """A real click on the step bar's button of a mode; waits until the window follows."""
    button = window.step_bar.button(window.actions[f"mode_{mode}"])
    assert button is not None and button.isVisible() and button.isEnabled(), mode
    with qtbot.waitSignal(window.mode_changed, timeout=10_000, check_params_cb=lambda m: m == mode):
        qtbot.mouseClick(button, LEFT)


def step_controls_visible(window) -> dict[str, bool]:
    """Whether the slider, the speed box and each step button show (a person can see it)."""
    bar = window.step_bar
    shown = {name: bar.button(window.actions[name]).isVisible() for name in STEP_ONLY}
    shown["slider"] = bar.slider.isVisible()
    shown["speed"] = bar.speed.isVisible()
    return shown


def steps_shown(qtbot, window, shown: bool) -> None:
    """Wait for the toolbar's layout pass (a re-shown action's button appears there)."""
    qtbot.waitUntil(
        lambda: all(v == shown for v in step_controls_visible(window).values()), timeout=3000
    )


def play_bar_shown(window) -> bool:
    """The Play toolbar, and the Piece menu with the same actions."""
    bar = window.handson_bar.isVisible()
    menu = next(a for a in window.menuBar().actions() if a.objectName() == "piece_menu")
    assert menu.isVisible() == bar
    return bar


def slider_matches(window) -> None:
    state, bar = window.state, window.step_bar
    assert bar.slider.maximum() == state.n_steps
    assert bar.slider.value() == round(state.step)
    assert bar.step_label.text() == f"{int(state.step)} / {state.n_steps}"


# -- 1. controls that do not apply are hidden ---------------------------------------------------
def test_each_mode_shows_only_its_controls(qtbot, window):
    window.resize(1400, 800)
    open_and_wait(qtbot, window, "soma")
    steps_shown(qtbot, window, True)
    assert not play_bar_shown(window)  # the Play toolbar is for Play mode
    click_mode(qtbot, window, "play")
    steps_shown(qtbot, window, False)
    assert play_bar_shown(window)
    for mode in ("solution", "search"):  # the mode buttons stay: a way back
        assert window.step_bar.button(window.actions[f"mode_{mode}"]).isVisible()
    for name in (*STEP_ONLY, "next_solution", "previous_solution"):  # the Step menu's too
        assert not window.actions[name].isVisible()
    click_mode(qtbot, window, "search")
    steps_shown(qtbot, window, True)
    assert not play_bar_shown(window)
    click_mode(qtbot, window, "design")
    window.design.ask_unsaved = lambda: "discard"
    steps_shown(qtbot, window, False)
    assert not play_bar_shown(window)
    click_mode(qtbot, window, "solution")
    steps_shown(qtbot, window, True)
    assert not play_bar_shown(window)


def test_the_status_bar_says_nothing_of_steps_outside_the_replay(qtbot, window):
    window.resize(1400, 800)
    open_and_wait(qtbot, window, "soma")
    window.actions["first"].trigger()
    window.actions["forward"].trigger()
    told = window.statusBar().currentMessage()
    assert told == window.state.scene.describe(1.0) and told  # the step, told
    click_mode(qtbot, window, "play")
    assert window.statusBar().currentMessage() != told
    assert "step" not in window.status_step.text()
    click_mode(qtbot, window, "design")
    window.design.ask_unsaved = lambda: "discard"
    assert window.statusBar().currentMessage() != told
    assert not window.status_step.isVisible()
    click_mode(qtbot, window, "solution")
    assert window.status_step.text() == f"step {int(window.state.step)} of 7"


# -- 2. the slider takes the new puzzle's range --------------------------------------------------
def test_slider_takes_the_new_puzzles_range(qtbot, window):
    open_and_wait(qtbot, window, "pentominoes-3x4x5")
    assert window.state.n_steps == 12
    slider_matches(window)
    open_and_wait(qtbot, window, "soma")
    assert window.state.n_steps == 7
    slider_matches(window)
    # opened while playing: the replay waits; back in Solution mode it is the new puzzle's
    open_and_wait(qtbot, window, "pentominoes-3x4x5")
    click_mode(qtbot, window, "play")
    open_and_wait(qtbot, window, "soma")
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=30_000)
    click_mode(qtbot, window, "solution")
    slider_matches(window)
    assert window.state.n_steps == 7


def test_layer_slider_takes_the_new_puzzles_layers(qtbot, window):
    """Inside's layer cut: its range is the puzzle shown's layers, and a cut made on one
    puzzle does not hide the next one's top."""
    panel = window.inspect_panel
    open_and_wait(qtbot, window, "pentominoes-3x4x5")
    ranges = [window.handson.inspector.layer_range(axis) for axis in range(3)]
    axis = max(range(3), key=lambda a: ranges[a][1] - ranges[a][0])
    panel.axis.setCurrentIndex(axis)
    assert (panel.layer.minimum(), panel.layer.maximum()) == (ranges[axis][0], ranges[axis][1] + 1)
    panel.layer.setValue(panel.layer.minimum() + 1)  # cut down to the lowest layers
    assert window.handson.state.layer is not None
    open_and_wait(qtbot, window, "soma")
    lo, hi = window.handson.inspector.layer_range(axis)
    assert hi - lo == 2  # a 3x3x3 cube, where the box was 5 long
    assert (panel.layer.minimum(), panel.layer.maximum()) == (lo, hi + 1)
    assert panel.layer.value() == panel.layer.maximum()  # everything shown
    assert window.handson.state.layer is None


def test_slider_is_empty_before_the_first_solution(qtbot, window):
    open_and_wait(qtbot, window, "pentominoes-3x4x5")
    window.step_bar.slider.setValue(12)
    window.state.set_family(window.state.family)  # the same puzzle again, no solution yet
    assert window.step_bar.slider.maximum() == window.state.n_steps
    assert window.step_bar.step_label.text() == f"0 / {window.state.n_steps}"


# -- 3. hidden pieces stay hidden --------------------------------------------------------------
def test_pieces_hidden_in_the_list_stay_hidden_on_the_next_steps(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    a = window.actions
    a["first"].trigger()
    a["forward"].trigger()
    a["forward"].trigger()
    panel = window.inspect_panel
    items = [panel.pieces.item(i) for i in range(panel.pieces.count())]
    item = next(i for i in items if i.isHidden() is False)
    key = item.data(Qt.ItemDataRole.UserRole)
    panel.pieces.scrollToItem(item)
    rect = panel.pieces.visualItemRect(item)
    box = QPoint(rect.left() + rect.height() // 2, rect.center().y())  # the tick box
    qtbot.mouseClick(panel.pieces.viewport(), LEFT, pos=box)
    assert item.checkState() == Qt.CheckState.Unchecked
    assert key in window.handson.state.hidden
    actor = window.renderer.actors[key]
    for _ in range(window.state.n_steps):
        a["forward"].trigger()
        assert not actor.visibility, f"{key} came back at step {window.state.step}"
    a["first"].trigger()
    a["last"].trigger()
    assert not actor.visibility
    assert item.checkState() == Qt.CheckState.Unchecked


def test_hidden_pieces_stay_hidden_through_solutions_and_modes(qtbot, window):
    """The same puzzle's pieces, another solution or the search replaying them: what the user
    hid stays hidden (a new puzzle starts with everything shown)."""
    window.resize(1400, 800)  # the mode buttons on the bar, not in its overflow
    open_and_wait(qtbot, window, "soma")
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 2, timeout=30_000)
    panel = window.inspect_panel
    item = panel.pieces.item(0)
    key = item.data(Qt.ItemDataRole.UserRole)
    item.setCheckState(Qt.CheckState.Unchecked)  # what a click on its box does
    assert key in window.handson.state.hidden

    def still_hidden() -> None:
        actor = window.renderer.actors.get(key)
        assert actor is not None and not actor.visibility
        row = next(panel.pieces.item(r) for r in range(panel.pieces.count())
                   if panel.pieces.item(r).data(Qt.ItemDataRole.UserRole) == key)  # fmt: skip
        assert row.checkState() == Qt.CheckState.Unchecked

    window.actions["next_solution"].trigger()
    still_hidden()
    click_mode(qtbot, window, "search")
    for _ in range(30):
        window.actions["forward"].trigger()
        actor = window.renderer.actors.get(key)
        assert actor is None or not actor.visibility, window.state.step
    click_mode(qtbot, window, "solution")
    still_hidden()
    window.set_playing(True)
    qtbot.waitUntil(lambda: not window.playing, timeout=30_000)
    still_hidden()
    open_and_wait(qtbot, window, "six-piece-cube")  # another puzzle: all shown
    assert window.handson.state.hidden == frozenset()


# -- 4. the gizmo's labels contrast -----------------------------------------------------------
def luminance(rgb) -> float:
    r, g, b = (float(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def gizmo_label_colours(window) -> list:
    axes = window.plotter.renderer.axes_actor
    out = []
    for caption in (
        axes.GetXAxisCaptionActor2D(),
        axes.GetYAxisCaptionActor2D(),
        axes.GetZAxisCaptionActor2D(),
    ):
        out.append(caption.GetCaptionTextProperty().GetColor())
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_gizmo_labels_contrast_with_the_background(qtbot, window, theme):
    open_and_wait(qtbot, window, "soma")
    window.apply_theme(theme)
    background = window.plotter.renderer.GetBackground()
    for colour in gizmo_label_colours(window):
        assert abs(luminance(colour) - luminance(background)) > 0.45, (theme, colour, background)
    other = "dark" if theme == "light" else "light"
    window.apply_theme(other)  # and back: the labels follow each change
    background = window.plotter.renderer.GetBackground()
    for colour in gizmo_label_colours(window):
        assert abs(luminance(colour) - luminance(background)) > 0.45, (other, colour, background)


# -- 5. the title is the puzzle's name ------------------------------------------------------------
def test_title_is_the_puzzles_name_and_keys_typed_in_design_stay_out(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    name = window.state.family.name
    assert window.windowTitle() == f"Tessera — {name} — Solution mode"
    click_mode(qtbot, window, "design")
    window.design.ask_unsaved = lambda: "discard"
    design_title = window.windowTitle()
    assert design_title.startswith(f"Tessera — Design — {name} ("), design_title
    # keys typed at the view, at the Shapes list and at whatever has the focus
    for widget in (window.plotter.interactor, window.design.panel.list, window):
        widget.setFocus()
        for key in "gabcxyz":
            qtbot.keyClick(widget, key)
        qtbot.keyClick(widget, Qt.Key.Key_Escape)
        title = window.windowTitle()
        assert title.replace("[*]", "") == design_title.replace("[*]", ""), title
        assert not window.handson.state.ghost  # G is the replay's and Play's, not Design's
    click_mode(qtbot, window, "solution")
    assert window.windowTitle() == f"Tessera — {window.state.family.name} — Solution mode"


# -- 6. About shows the version ----------------------------------------------------------------
def test_about_shows_the_version(qtbot, window):
    window.actions["about"].trigger()
    box = window.about_dialog
    assert isinstance(box, QMessageBox)
    assert __version__ in box.text()
    box.close()


# -- 7. the toolbar fits at 1280 px, with the overflow in a menu -------------------------------
def on_bar(bar, action) -> bool:
    """Shown whole on the bar, where a person can click it."""
    widget = _widget_for(bar, action)
    return widget is not None and widget.isVisible() and bar.rect().contains(widget.geometry())


def _widget_for(bar, action):
    """The bar's widget for the action. PySide can hand back a stale wrapper of another type
    for a reused address (seen once: a QSurface); then the button is found by its action."""
    from PySide6.QtWidgets import QWidget

    widget = bar.widgetForAction(action)
    if widget is None or isinstance(widget, QWidget):
        return widget
    return next((b for b in bar.findChildren(QToolButton) if b.defaultAction() is action), None)


def unreachable(qtbot, bar) -> list[str]:
    """The bar's visible actions that neither show on it nor appear once its overflow button
    (Qt's extension, the » at the end) is clicked."""
    wanted = [a for a in bar.actions() if not a.isSeparator() and a.isVisible()]
    missing = [a for a in wanted if not on_bar(bar, a)]
    if not missing:
        return []
    extension = bar.findChild(QToolButton, "qt_toolbar_ext_button")
    if extension is None or not extension.isVisible():
        return [a.text() for a in missing]
    qtbot.mouseClick(extension, LEFT)  # the bar expands over the view with the rest
    qtbot.waitUntil(lambda: all(_widget_for(bar, a).isVisible() for a in missing), timeout=3000)
    left = [a.text() for a in missing if not _widget_for(bar, a).isVisible()]
    qtbot.mouseClick(extension, LEFT)
    return left


@pytest.mark.parametrize("mode", ["solution", "search", "play", "design"])
def test_every_toolbar_action_is_reachable_at_1280(qtbot, window, mode):
    window.resize(1280, 800)
    open_and_wait(qtbot, window, "soma")
    if mode != "solution":
        click_mode(qtbot, window, mode)
    qtbot.waitUntil(lambda: window.width() <= 1280, timeout=5000)
    assert window.width() <= 1280
    from PySide6.QtWidgets import QToolBar

    for bar in window.findChildren(QToolBar):
        if not bar.isVisible():
            continue
        assert bar.width() <= window.width()
        assert unreachable(qtbot, bar) == [], bar.objectName()


# -- 8. hints in the view's words ---------------------------------------------------------------
def test_hints_speak_the_views_words(qtbot, window):
    window.resize(1400, 800)
    open_and_wait(qtbot, window, "soma")
    click_mode(qtbot, window, "play")
    window.handson.view.duration_ms = 0
    with qtbot.waitSignal(window.handson.hint_ready, timeout=10_000) as blocker:
        window.actions["hint"].trigger()
    answer = blocker.args[0]
    assert answer.completable is True and answer.next is not None
    text = window.statusBar().currentMessage()
    assert text.startswith("hint: "), text
    assert not re.search(r"\(\s*-?\d+,\s*-?\d+,\s*-?\d+\)", text), text
    words = r"(slide \w+ (right|left|up|down|toward you|away)|(turn|tip) \w+ \w+)"
    assert re.search(words, text), text
    name = window.state.family.puzzle.pieces[answer.next.piece].name
    assert f"{name} goes next: " in text
    # the words are the buttons' words: pressing the buttons the hint names brings it home
    from tessera.viewer._qt.handson import HINT_WORDS

    model = window.handson.model
    piece = next(p.index for p in model.pieces if p.piece == answer.next.piece)
    model.select(piece)
    phrases = {words.format(name): action for action, words in HINT_WORDS.items()}
    said = text.split(": ", 2)[2].removesuffix(" (Place hint does it)")
    presses = 0
    for phrase in said.split(", then "):
        count = re.search(r" (\d+) cells$| (twice)$| (\d+) times$", phrase)
        times = 1
        if count:
            times = 2 if count.group(2) else int(count.group(1) or count.group(3))
            phrase = phrase[: count.start()]
        for _ in range(times):
            window.actions[phrases[phrase]].trigger()
            presses += 1
    assert presses >= 1
    target = window.state.family.puzzle.target.cells[list(answer.next.cells)]
    placed = {tuple(c) for c in np.asarray(model.cells(piece)).tolist()}
    assert placed == {tuple(c) for c in np.asarray(target).tolist()}


def test_hint_words_follow_the_camera():
    """The same world move is said as the screen shows it: with z toward the viewer, a move
    along +z is "toward you"; from a camera looking along -x (x toward the viewer) it is
    whatever screen direction +z has there."""
    from tessera.viewer._qt.handson import _WHERE, action_meanings, spoken_path

    front = action_meanings({"toward": (2, 1), "right": (0, 1), "up": (1, 1)})
    ops = [("rotate", 1, -1), ("move", 2, 2), ("move", 0, -1)]
    assert spoken_path(ops, front, "V") == [
        "turn V left", "slide V toward you 2 cells", "slide V left"
    ]  # fmt: skip
    side = action_meanings({"toward": (0, 1), "right": (1, 1), "up": (2, 1)})
    assert spoken_path([("move", 2, 1), ("rotate", 2, 2)], side, "B") == [
        "slide B up", "turn B right twice"
    ]  # fmt: skip
    text = "pieces A and B overlap at (1, 2, 0)"
    assert _WHERE.sub("", text) == "pieces A and B overlap"
