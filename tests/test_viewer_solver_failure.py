"""The window when the solver fails, or when an assembly is past the movement analysis
(issue 21 F4): it says what failed, never "no solution", and lists what it found."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def row_of_monocubes(tmp_path, n: int):
    lines = ['kind = "polycube"']
    for i in range(n):
        lines += [f"[pieces.P{i}]", "cells = [[0, 0, 0]]"]
    cells = ", ".join(f"[{i}, 0, 0]" for i in range(n))
    lines += ["[target]", f"cells = [{cells}]"]
    path = tmp_path / f"row{n}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_failing_solver_is_not_no_solution(qtbot, window, tmp_path, monkeypatch) -> None:
    from tessera.solvers.polycube import symmetry

    def broken(self, on_progress=None):
        raise RuntimeError("kaputt")

    monkeypatch.setattr(symmetry.ClassSearch, "solutions", broken)
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(row_of_monocubes(tmp_path, 3)))
    panel = window.solution_panel
    qtbot.waitUntil(lambda: bool(panel.reason.text()), timeout=20_000)
    assert "solver failed" in panel.reason.text() and "kaputt" in panel.reason.text()
    assert "no solution" not in panel.reason.text()
    assert window.status_solution.text() == "solver failed"


def test_more_pieces_than_the_movement_analysis_still_lists_the_assembly(
    qtbot, window, tmp_path
) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(row_of_monocubes(tmp_path, 70)))
    qtbot.waitUntil(lambda: len(window.state.solutions) == 1, timeout=30_000)
    assert len(window.state.solutions) == 1
    assert "no solution" not in window.solution_panel.reason.text()


def test_any_exception_while_opening_is_a_dialog(qtbot, window, monkeypatch) -> None:
    from tessera.viewer._qt import files

    def broken(name):
        raise ValueError("invalid literal for int() with base 10: '1111'")

    monkeypatch.setattr(files, "load", broken)
    assert not window.open_puzzle("whatever.toml")
    assert window.error_dialog is not None and window.error_dialog.isVisible()
    assert "invalid literal" in window.error_dialog.text()
