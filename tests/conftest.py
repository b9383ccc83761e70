"""Shared test fixtures: the viewer's window under Xvfb (pytest-xvfb), torn down strictly.

Every window a test opens is closed, its plotter closed, PyVista's plotters released and
deferred deletions processed; a top-level widget still visible after a test fails it, because
an unclosed render window is what crashes at exit on real GPUs even when Xvfb never shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._paths import CONFORMANCE, ROOT, case_file

BUILTINS = ROOT / "assets" / "puzzles"


def puzzle_file(name: str) -> Path:
    """A built-in puzzle by stem, else a conformance file (read in place) when that folder is
    there. A missing built-in fails the test: it is a packaging bug, not a reason to skip."""
    for path in BUILTINS.glob(f"{name}.*"):
        return path
    for path in CONFORMANCE.glob(f"*/{name}.*"):
        return path
    if CONFORMANCE.exists():
        pytest.fail(f"no built-in or conformance puzzle named {name}")
    pytest.skip(f"{name} is only in ../shared/conformance, which is not beside this clone")


@pytest.fixture(scope="session")
def qt_settings_dir(tmp_path_factory):
    """Recent files etc. go to a temporary folder, never the user's ~/.config."""
    from PySide6.QtCore import QSettings

    folder = tmp_path_factory.mktemp("qsettings")
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(folder))
    return folder


def _visible_top_levels() -> list:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        return []
    return [w for w in app.topLevelWidgets() if w.isVisible()]


def _process_deletions() -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    app = QCoreApplication.instance()
    if app is None:
        return
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        app.processEvents()


@pytest.fixture
def window(qtbot, qt_settings_dir):
    """A shown MainWindow; closed, released and checked for leaks afterwards."""
    import pyvista

    from tessera.viewer.window import MainWindow

    before = set(map(id, _visible_top_levels()))
    win = MainWindow()
    win.resize(900, 600)
    win.show()
    qtbot.waitExposed(win)
    try:
        yield win
    finally:
        win.close()
        win.deleteLater()
        pyvista.close_all()
        _process_deletions()
        leaked = [w for w in _visible_top_levels() if id(w) not in before]
        for w in leaked:
            w.close()
        assert not leaked, f"windows left open: {[type(w).__name__ for w in leaked]}"


@pytest.fixture(scope="module")
def soma():
    """The Soma cube: the conformance file when ../shared is there, else the built-in."""
    from tessera.models.polycube import load_polycube

    return load_polycube(case_file("polycube/soma.toml"))


@pytest.fixture(scope="module")
def index(soma):
    """Which distinct Soma solution an assembly is."""
    from tessera.solvers.polycube_identify import SolutionIndex

    return SolutionIndex(soma)
