"""The window refuses what it cannot draw, in a dialog, before building anything: a puzzle of
100,000 piece copies (one actor each) used to hold the GUI thread for minutes."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(300)


def test_a_puzzle_of_too_many_pieces_is_a_dialog_not_a_frozen_window(qtbot, window, tmp_path):
    from tessera.viewer.scenes.polycube import MAX_PIECE_ACTORS

    copies = 100_000
    many = tmp_path / "many.toml"
    many.write_text(
        'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0]]\n'
        f'copies = {copies}\n[target]\nlayers = [["{"#" * copies}"]]\n'
    )
    scene_before = window.state.scene
    assert not window.open_puzzle(str(many))
    assert f"{copies:,} pieces are too many to draw" in window.last_error
    assert f"at most {MAX_PIECE_ACTORS:,}" in window.last_error
    box = window.error_dialog
    qtbot.waitUntil(box.isVisible)
    assert "many.toml" in box.text()
    box.close()
    assert window.state.scene is scene_before  # nothing of it was built
