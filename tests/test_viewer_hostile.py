"""The window refuses what no solver could hold, in a dialog, before building anything: a
puzzle of 100,000 piece copies once held the GUI thread for minutes (one actor each). Any
number of copies the solver takes is drawn, in chunks (tests/test_viewer_many_copies.py); this
many would need 37 GiB of search state, so the dialog says what `tessera solve` says."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(300)


def test_a_puzzle_too_big_to_search_is_a_dialog_not_a_frozen_window(qtbot, window, tmp_path):
    copies = 100_000
    many = tmp_path / "many.toml"
    many.write_text(
        'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0]]\n'
        f'copies = {copies}\n[target]\nlayers = [["{"#" * copies}"]]\n'
    )
    scene_before = window.state.scene
    assert not window.open_puzzle(str(many))
    assert f"too big to search: {copies:,} pieces" in window.last_error
    assert "\n" not in window.last_error  # one line
    box = window.error_dialog
    qtbot.waitUntil(box.isVisible)
    assert "many.toml" in box.text()
    box.close()
    assert window.state.scene is scene_before  # nothing of it was built
