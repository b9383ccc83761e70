"""Play mode on a coloured puzzle in the real window under Xvfb, driven by its actions: the
buttons a hint's words name put a red-ended domino in the turn the hint found, and a piece
lying on a cell whose colour it may not fill is drawn in the flag colour like an overlapping
one, with the status line saying why."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tessera.viewer._qt.handson import HINT_WORDS
from tessera.viewer._qt.play_view import key_of
from tests.test_play_colour import LEFT, RED_END, hinted, painted
from tests.test_viewer_handson import action_for, colour_mask, picture, press, settle

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

COLOUR_REASON = "outlined (its colour is not allowed on that target cell)"


def open_red_end(qtbot, window, folder):
    path = folder / "red-end.toml"
    path.write_text(RED_END)
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(path))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=20_000)
    window.actions["mode_play"].trigger()
    assert window.mode == "play"
    window.handson.view.duration_ms = 0
    settle(qtbot, window)
    return window.handson.model


def ask_hint(qtbot, window):
    with qtbot.waitSignal(window.handson.hint_ready, timeout=10_000) as blocker:
        window.actions["hint"].trigger()
    return blocker.args[0]


def press_words(window, words: str, name: str) -> int:
    """Press the buttons a hint's words name ("turn D left twice, then slide D right"), as a
    player reading the status line would: each phrase is a button's `HINT_WORDS`, pressed
    once, twice, or n times. Returns how many presses."""
    presses = 0
    for phrase in words.split(", then "):
        action, rest = next(
            (a, phrase[len(w.format(name)) :])
            for a, w in HINT_WORDS.items()
            if phrase.startswith(w.format(name))
            and re.fullmatch(r"( twice| \d+ times| \d+ cells)?", phrase[len(w.format(name)) :])
        )
        count = 2 if rest == " twice" else int(rest.split()[0]) if rest else 1
        for _ in range(count):
            assert window.actions[action].isEnabled(), action
            window.actions[action].trigger()
            presses += 1
    return presses


def test_the_hints_words_and_place_hint_keep_the_red_end_where_the_hint_has_it(
    qtbot, window, tmp_path
):
    model = open_red_end(qtbot, window, tmp_path)
    puzzle = model.puzzle
    answer = ask_hint(qtbot, window)
    assert answer.completable and puzzle.pieces[answer.next.piece].name == "D"
    status = window.statusBar().currentMessage()
    said = re.fullmatch(r"hint: D goes next: (.*) \(Place hint does it\)", status)
    assert said, status
    window.handson.select(key_of(0))
    # the words turn D end for end: the cells alone would have needed no turn at all
    assert re.search(r"\b(turn|tip)\b", said.group(1)), status
    assert press_words(window, said.group(1), "D") >= 3
    assert painted(model, 0) == hinted(puzzle, answer)
    assert model.fit().bad_pieces == ()
    # back to the table, and Place hint does the same in one step
    window.actions["reset_play"].trigger()
    answer = ask_hint(qtbot, window)
    window.actions["apply_hint"].trigger()
    assert painted(model, 0) == hinted(puzzle, answer) == {(0, 0, 0): 0, (1, 0, 0): 1}
    assert model.fit().bad_pieces == ()
    after = ask_hint(qtbot, window)  # the red end on the red cell: E still fits beside it
    assert after.completable is True and puzzle.pieces[after.next.piece].name == "E"
    assert window.statusBar().currentMessage().startswith("hint: E goes next: ")
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000) as solved:
        window.actions["apply_hint"].trigger()
    assert model.solved and solved.args == [1]


def test_a_piece_on_a_forbidden_colour_is_flagged_and_named(qtbot, window, tmp_path):
    model = open_red_end(qtbot, window, tmp_path)
    view = window.handson.view
    settle(qtbot, window)
    clean = colour_mask(picture(window), view.flag).sum()
    assert view.flagged_cells() == {}
    # D walked onto the left two cells in its own turn: its red end on the black cell
    window.handson.select(key_of(0))
    press(window, model.path_to(0, model.pose_for(0, LEFT), single_steps=True))
    settle(qtbot, window)
    assert painted(model, 0)[(0, 0, 0)] == 1
    assert model.fit().colour_pieces == model.fit().bad_pieces == (0,)
    assert view.flagged_cells() == {"D": view.flagged_cells()["D"]} and view.flagged_cells()["D"]
    status = window.statusBar().currentMessage()
    assert f"{COLOUR_REASON}: D" in status and "outside or overlapping" not in status, status
    shot = picture(window)
    _save_png(tmp_path / "flagged.png", shot)
    flagged = colour_mask(shot, view.flag).sum()
    assert flagged > clean + 150, (flagged, clean)
    # a hint says what is wrong too, without coordinates
    ask_hint(qtbot, window)
    assert window.statusBar().currentMessage() == ("hint: piece D has a colour the target forbids")
    # one cell right: the red end on the red cell, the plain end on black is fine
    window.actions[action_for(window, "move", 0, 1)].trigger()
    settle(qtbot, window)
    assert model.fit().bad_pieces == () and view.flagged_cells() == {}
    assert "outlined" not in window.statusBar().currentMessage()
    assert colour_mask(picture(window), view.flag).sum() <= clean + 20
    window.actions["undo"].trigger()  # and back onto the black cell: flagged again
    settle(qtbot, window)
    assert view.flagged_cells().get("D", 0) > 0
    assert f"{COLOUR_REASON}: D" in window.statusBar().currentMessage()


def _save_png(path, image: np.ndarray) -> None:
    """The screenshot, for a person to look at (pytest keeps its last tmp folders)."""
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image, np.uint8)).save(path)
