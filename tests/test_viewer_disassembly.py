"""Interlocking puzzles in the real window (Xvfb): the disassembly played backwards as an
assembly, the level in the status bar and the solution list, sorting by level, see-through
boxes, and no two pieces ever in one cell on screen.

The pieces checked are the window's own actors: each visible piece's cells go through its
actor's `user_matrix` as drawn. At a whole step every piece sits on whole cells; between steps
the pieces of the move under way are part-way along a straight slide, so they are counted at
both whole-cell positions they lie between (everything rounded down, then everything rounded
up: each is a state the pieces really pass through).
"""

from __future__ import annotations

import re

import imageio.v3 as iio
import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest

from tessera.solvers.polycube.disassemble import Disassembly
from tessera.solvers.polycube.interlocking import InterlockedSolution
from tessera.solvers.polycube.packing import PolycubeSolution
from tessera.viewer._qt.controls import SolutionPanel
from tessera.viewer.state import ViewerState
from tests._paths import FIXTURES, needs_conformance
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BOX = FIXTURES / "domino-box.toml"
DOMINO_RED = np.array((214, 39, 40))


def click(widget, pos: QPoint | None = None) -> None:
    QTest.mouseClick(
        widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos or QPoint()
    )


def choose(qtbot, combo, text: str) -> None:
    """Open a combo box with a click and pick `text` in its list with the keyboard (a click
    in a list that has just opened is taken for the end of the opening click)."""
    click(combo)
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    target = combo.findText(text)
    for _ in range(abs(target - view.currentIndex().row())):
        key = Qt.Key.Key_Down if target > view.currentIndex().row() else Qt.Key.Key_Up
        QTest.keyClick(view, key)
    QTest.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: combo.currentIndex() == target and not view.isVisible())


def click_action(qtbot, window, name: str) -> None:
    button = window.step_bar.button(window.actions[name])
    qtbot.waitUntil(button.isVisible)
    click(button)


def open_and_finish(qtbot, window, path, timeout: int = 60_000) -> None:
    """Open a puzzle and wait until its solver (and the disassembler behind it) is done."""
    with qtbot.waitSignal(window.solving_finished, timeout=timeout):
        assert window.open_puzzle(str(path))
    qtbot.waitUntil(lambda: window.state.scene is not None, timeout=5000)


def clashes_on_screen(window) -> list[tuple[str, str]]:
    """Pairs of visible piece actors that share a cell as drawn now (see the docstring)."""
    puzzle = window.state.family.puzzle
    found = []
    shown = []
    for key, actor in window.renderer.actors.items():
        if window.renderer.specs[key].role != "piece" or not actor.visibility:
            continue
        matrix = np.asarray(actor.user_matrix)
        cells = puzzle.pieces[int(key.split("-")[1])].cells
        shown.append((key, cells @ matrix[:3, :3].T + matrix[:3, 3]))
    for rounding in (lambda c: np.floor(c + 1e-6), lambda c: np.ceil(c - 1e-6)):
        owner: dict[tuple, str] = {}
        for key, placed in shown:
            for cell in map(tuple, rounding(placed).astype(int).tolist()):
                if cell in owner and owner[cell] != key:
                    found.append((owner[cell], key))
                owner[cell] = key
    return found


def sweep(qtbot, window, per_step: int = 4) -> int:
    """Every step and the fractions between, set as the step slider would, each drawn and
    checked; returns how many were checked."""
    state = window.state
    checked = 0
    for k in range(state.n_steps * per_step + 1):
        step = k / per_step
        state.set_step(step)
        assert state.step == step
        assert clashes_on_screen(window) == [], f"pieces overlap at step {step}"
        checked += 1
    return checked


def red_pixels(window) -> int:
    """Pixels of the 3D view in the dominoes' red (seen directly or through the box)."""
    window.render_now()
    image = np.asarray(window.plotter.screenshot(return_img=True))[..., :3].astype(int)
    red = (image[..., 0] - image[..., 1] > 80) & (image[..., 0] - image[..., 2] > 80)
    return int(red.sum())


# -- the project's own box: always runs ------------------------------------------------------


def test_box_plays_its_disassembly_in_the_window(qtbot, window):
    open_and_finish(qtbot, window, BOX)
    state, panel = window.state, window.solution_panel
    # 5 ways to lay the dominoes in, one comes apart: one solution, with its level
    assert panel.list.count() == 1
    assert re.fullmatch(
        # which of the 5 assemblies comes apart depends on the order the engine finds them
        # in; the label names the assembly when it is not the solution's own number
        r"Solution 1 · level 2\.2\.3\.3( \(assembly [2-5]\))?",
        panel.list.item(0).text(),
    )
    assert panel.count_label.text() == "1 solution (complete)"
    assert panel.order.isVisible()
    assert window.worker is None or window.worker.job.assemblies == 5
    assert isinstance(state.solution, InterlockedSolution)
    assert window.status_solution.text() == "solution 1 of 1 · level 2.2.3.3"
    assert state.n_steps == 10 and state.step == 10  # a solution opens assembled
    # the status bar says which move of how many, and the level
    with qtbot.waitSignal(window.step_shown, timeout=2000):
        click_action(qtbot, window, "first")
    assert window.statusBar().currentMessage() == (
        "move 0 of 10 · level 2.2.3.3 · the pieces are apart"
    )
    for expected in range(1, 5):
        with qtbot.waitSignal(window.step_shown, timeout=2000):
            click_action(qtbot, window, "forward")
        assert (
            window.statusBar()
            .currentMessage()
            .startswith(f"move {expected} of 10 · level 2.2.3.3 · ")
        )
        assert window.status_step.text() == f"step {expected} of 10"
        assert clashes_on_screen(window) == []
    assert sweep(qtbot, window) == 41


def test_box_plays_through_with_the_play_button(qtbot, window):
    """Play glides through fractional steps; every frame drawn is checked."""
    open_and_finish(qtbot, window, BOX)
    checked: list[float] = []

    def check(step: float) -> None:
        assert clashes_on_screen(window) == [], f"pieces overlap at step {step}"
        checked.append(step)

    window.step_shown.connect(check)
    window.step_bar.speed.setValue(8.0)
    click_action(qtbot, window, "play")  # at the end: starts again from step 0
    qtbot.waitUntil(lambda: not window.playback.playing, timeout=20_000)
    window.step_shown.disconnect(check)
    assert window.state.step == 10
    # however busy the machine, one tick advances at most speed × MAX_TICK_SECONDS steps:
    # at least that many frames were drawn, and some fell between the steps
    from tessera.viewer._qt.playback import MAX_TICK_SECONDS

    assert len(checked) >= 10 / (8.0 * MAX_TICK_SECONDS)
    assert any(s % 1 for s in checked)


def test_box_is_drawn_see_through(qtbot, window):
    """The dominoes sit in a closed box: only its see-through walls let them be seen."""
    open_and_finish(qtbot, window, BOX)
    assert window.state.step == window.state.n_steps  # assembled: all inside the box
    box = window.renderer.actors["piece-0-0"]
    assert box.prop.opacity < 0.5
    through = red_pixels(window)
    box.prop.opacity = 1.0
    solid = red_pixels(window)
    assert through > 400 and through > 3 * solid, (through, solid)


def test_box_exports_its_animation_from_the_file_menu(qtbot, window, tmp_path, monkeypatch):
    """File > Export animation: the dialog (filled in and confirmed with a click), then the
    GIF of what Solution mode plays."""
    from PySide6.QtWidgets import QApplication, QDialogButtonBox

    from tessera.viewer._qt.export_actions import ExportDialog

    open_and_finish(qtbot, window, BOX)
    out = tmp_path / "box.gif"
    monkeypatch.setattr(window.exporter, "ask_path", lambda *args: out)  # the native file box
    filled: list[bool] = []

    def fill_in() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ExportDialog):
            QTimer.singleShot(20, fill_in)
            return
        dialog.width_box.setValue(96)
        dialog.height_box.setValue(72)
        ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        filled.append(True)
        click(ok)

    QTimer.singleShot(0, fill_in)
    with qtbot.waitSignal(window.exporter.saved, timeout=60_000) as saved:
        window.actions["export_animation"].trigger()
    assert filled and saved.args == [str(out)]
    frames = iio.imread(out, index=None)
    assert frames.shape == (81, 72, 96, 3)  # 10 moves, 8 frames each, and the first
    differ = sum(not np.array_equal(frames[i], frames[i + 1]) for i in range(80))
    assert differ == 80


def test_first_interlocking_puzzle_says_the_disassembler_is_being_prepared(
    qtbot, window, monkeypatch
):
    """The disassembler compiles on its first use after an install (a few seconds): the window
    says so, and only for a puzzle that needs it."""
    from tessera.solvers import kernels, native

    monkeypatch.setenv("TESSERA_NATIVE", "0")  # no kernels built ahead of time, either
    monkeypatch.setattr(native, "_loaded", {})
    prepared: list[str] = []
    monkeypatch.setattr(kernels, "_listeners", [prepared.append])
    monkeypatch.setattr(kernels, "_announced", set())
    # as on a fresh install, for the disassembler only
    monkeypatch.setattr(kernels, "is_compiled", lambda d: d.__name__ != "_disassemble")
    messages: list[str] = []
    window.statusBar().messageChanged.connect(messages.append)
    open_and_finish(qtbot, window, puzzle_file("soma"))
    assert prepared == [] and "preparing the solver (once per install)…" not in messages
    open_and_finish(qtbot, window, BOX)
    assert prepared == ["disassembler"]  # once, at the first of the interlocking assemblies
    assert "preparing the solver (once per install)…" in messages
    assert window.solution_panel.count_label.text() == "1 solution (complete)"


def test_solution_panel_sorts_by_level_and_keeps_choices(qtbot):
    """The list's order is a view: a row still stands for its own solution."""
    state = ViewerState()  # no puzzle: adding solutions builds no scene
    panel = SolutionPanel(state)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.reset()

    def solution(level: str | None):
        if level is None:
            return PolycubeSolution(())  # one the straight plan builds: level 1
        return InterlockedSolution((), Disassembly(level, (), (), complete=True), 0)

    state.add_solutions([solution(None), solution(None)])
    panel.add(2)
    assert [panel.list.item(r).text() for r in range(2)] == ["Solution 1", "Solution 2"]
    assert not panel.order.isVisible()  # nothing interlocks yet: no levels, no order
    state.add_solutions([solution("4.2"), solution("12.1"), solution("4.10")])
    panel.add(5)
    assert panel.order.isVisible()
    texts = [panel.list.item(r).text() for r in range(5)]
    assert texts == [
        "Solution 1 · level 1",
        "Solution 2 · level 1",
        "Solution 3 · level 4.2",
        "Solution 4 · level 12.1",
        "Solution 5 · level 4.10",
    ]
    choose(qtbot, panel.order, "hardest level first")
    texts = [panel.list.item(r).text().split(" · ")[0] for r in range(5)]
    assert texts == ["Solution 4", "Solution 5", "Solution 3", "Solution 1", "Solution 2"]
    # a click on the first row picks solution 4 (index 3), wherever it is listed
    with qtbot.waitSignal(panel.chosen, timeout=2000) as picked:
        click(panel.list.viewport(), panel.list.visualItemRect(panel.list.item(0)).center())
    assert picked.args == [3]
    # more solutions arrive while sorted: each goes to its place
    state.add_solutions([solution("13")])
    panel.add(6)
    assert panel.list.item(0).text() == "Solution 6 · level 13"
    panel.highlight(3)
    assert panel.list.currentRow() == 1  # solution 4 is now second
    # back to the order found, the choice kept
    panel.order.setCurrentIndex(0)
    assert panel.list.currentRow() == 3
    assert panel.list.item(5).text() == "Solution 6 · level 13"


# -- BurrTools' examples, read in place when ../shared is there ---------------------------------


@needs_conformance
def test_pelikan_burr_plays_its_98_2_4_2_disassembly(qtbot, window):
    open_and_finish(qtbot, window, puzzle_file("PelikanBurr"))
    state, panel = window.state, window.solution_panel
    # 12 assemblies, 1 solution (BurrTools: 12 assemblies, 1 solution, level 98.2.4.2)
    assert panel.list.count() == 1
    assert re.fullmatch(
        r"Solution 1 · level 98\.2\.4\.2 \(assembly \d+\)", panel.list.item(0).text()
    )
    assert panel.count_label.text() == "1 solution (complete)"
    assert window.status_solution.text() == "solution 1 of 1 · level 98.2.4.2"
    assert state.n_steps == 108
    state.set_step(37)
    assert window.statusBar().currentMessage().startswith("move 37 of 108 · level 98.2.4.2 · ")
    assert window.renderer.specs["piece-0-0"].name == "Cage"
    assert window.renderer.actors["piece-0-0"].prop.opacity < 0.5  # the cage: see-through
    assert sweep(qtbot, window, per_step=2) == 217  # the scene test samples quarters


@needs_conformance
def test_solid_burrs_sort_by_level_in_the_window(qtbot, window):
    """179 of 588 assemblies come apart: 148 of level 1 and 31 of level 1.2."""
    open_and_finish(qtbot, window, puzzle_file("SolidSixPieceBurrs"), timeout=120_000)
    panel, state = window.solution_panel, window.state
    assert panel.list.count() == len(state.solutions) == 179
    levels = [panel.list.item(r).text().split(" · level ")[1].split(" ")[0] for r in range(179)]
    assert levels.count("1.2") == 31 and levels.count("1") == 148
    choose(qtbot, panel.order, "hardest level first")
    first = [panel.list.item(r).text() for r in range(31)]
    assert all(" · level 1.2" in text for text in first)
    # clicking the top row shows that very solution, at its own number
    number = int(first[0].split(" ")[1])
    with qtbot.waitSignal(window.step_shown, timeout=10_000):
        click(panel.list.viewport(), panel.list.visualItemRect(panel.list.item(0)).center())
    assert state.solution_index == number - 1
    assert window.status_solution.text() == f"solution {number} of 179 · level 1.2"
    assert panel.list.currentRow() == 0
    assert clashes_on_screen(window) == []
