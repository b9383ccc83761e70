"""Play is a mode of the viewer state: the window, the hands-on controller, the actions and the
status bar all follow `ViewerState.events`, and no status outlives what it was about.

The window tests wait on real Qt signals (`mode_changed`, `puzzle_loaded`, `selection_changed`);
the first test drives the state alone, without Qt."""

from __future__ import annotations

import pytest

from tessera.viewer.families import load
from tessera.viewer.state import ViewerState
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

STEP_ACTIONS = ("first", "back", "play", "forward", "last", "previous_solution", "next_solution")


def test_the_state_owns_the_mode_the_table_and_the_message():
    state = ViewerState()
    seen: list[tuple[str, object]] = []
    for name, signal in state.events.signals.items():
        signal.connect(lambda *args, name=name: seen.append((name, args[:1])))
    state.set_family(load(str(puzzle_file("soma"))))
    assert state.mode == "solution" and state.play is None
    assert state.set_mode("play") and state.mode == "play"
    table = state.play
    assert table is not None and table.puzzle is state.family.puzzle
    state.say("0 of 7 pieces in the target")
    seen.clear()
    assert state.set_mode("solution")
    # the message is cleared before the mode is announced, and the replay comes back after
    assert [name for name, _ in seen] == ["message", "mode", "scene", "step"]
    assert state.message == ""
    assert state.set_mode("play") and state.play is table  # the table was left as it was
    state.set_family(load(str(puzzle_file("instant-insanity"))))  # dice cannot be played
    assert state.mode == "solution" and state.play is None
    assert not state.set_mode("play") and state.mode == "solution"
    assert state.message == "Play mode is for polycube puzzles"


def open_and_wait(qtbot, window, name: str) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file(name)))
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=20_000)


def switch(qtbot, window, mode: str) -> None:
    with qtbot.waitSignal(window.mode_changed, timeout=5000, check_params_cb=lambda m: m == mode):
        window.actions[f"mode_{mode}"].trigger()


def select(qtbot, window, key: str) -> str:
    with qtbot.waitSignal(window.handson.selection_changed, timeout=2000) as blocker:
        window.handson.select(key)
    name = blocker.args[0]
    assert name and window.status_selected.text() == name
    assert window.handson_bar.selected_label.text() == f"  selected: {name}"
    return name


def assert_nothing_selected(window) -> None:
    assert window.status_selected.text() == ""
    assert window.handson_bar.selected_label.text() == ""
    assert "selected" not in window.statusBar().currentMessage()
    assert window.handson.state.selected is None


def test_a_selection_does_not_survive_loading_another_puzzle(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    key = window.handson.inspector.piece_keys()[0]
    select(qtbot, window, key)
    with qtbot.waitSignals(
        [window.puzzle_loaded, window.handson.selection_changed], timeout=10_000
    ):
        window.open_puzzle(str(puzzle_file("six-piece-cube")))
    assert_nothing_selected(window)
    assert window.inspect_panel.pieces.currentRow() == -1


def test_play_follows_the_state_and_its_status_goes_when_play_is_left(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    a = window.actions
    switch(qtbot, window, "play")
    assert window.state.mode == "play" and a["mode_play"].isChecked()
    assert window.inspect_panel.message.text() == "0 of 7 pieces in the target"
    assert window.statusBar().currentMessage() == "0 of 7 pieces in the target"
    assert window.status_solution.text() == "Play mode"
    assert not any(a[name].isEnabled() for name in STEP_ACTIONS)
    assert not window.step_bar.slider.isEnabled()
    assert a["hint"].isEnabled() and a["reset_play"].isEnabled()
    assert not a["turn_x_pos"].isEnabled()  # nothing selected yet
    select(qtbot, window, "play-0")
    assert a["turn_x_pos"].isEnabled()

    switch(qtbot, window, "search")
    assert window.inspect_panel.message.text() == ""
    assert "pieces in the target" not in window.statusBar().currentMessage()
    assert_nothing_selected(window)
    assert window.status_solution.text().startswith("search trace")
    assert all(a[name].isEnabled() for name in STEP_ACTIONS)
    assert not a["hint"].isEnabled() and not a["turn_x_pos"].isEnabled()
    assert window.renderer.scene is window.state.scene

    # a new polycube puzzle while playing: still Play, a new table, no old status
    switch(qtbot, window, "play")  # the table as it was left, selection included
    assert window.state.play.selected == 0
    assert window.status_selected.text() == window.state.play.pieces[0].name
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        window.open_puzzle(str(puzzle_file("six-piece-cube")))
    assert window.state.mode == "play" and a["mode_play"].isChecked()
    assert window.handson.model is window.state.play
    assert window.handson.model.puzzle is window.state.family.puzzle
    assert_nothing_selected(window)
    n = len(window.state.play.pieces)
    assert window.inspect_panel.message.text() == f"0 of {n} pieces in the target"

    # a puzzle that cannot be played: back to Solution mode, announced like any mode change
    with qtbot.waitSignals([window.puzzle_loaded, window.mode_changed], timeout=10_000):
        window.open_puzzle(str(puzzle_file("instant-insanity")))
    assert window.state.mode == "solution" and a["mode_solution"].isChecked()
    assert not a["mode_play"].isEnabled()
    assert window.inspect_panel.message.text() == ""
    assert "pieces in the target" not in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=20_000)
    assert all(a[name].isEnabled() for name in STEP_ACTIONS)
