"""Shared test fixtures: the viewer's window under Xvfb (pytest-xvfb), torn down strictly.

Every window a test opens is closed, its plotter closed, PyVista's plotters released and
deferred deletions processed; a top-level widget still visible after a test fails it, because
an unclosed render window is what crashes at exit on real GPUs even when Xvfb never shows it.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests._paths import CONFORMANCE, HAVE_CONFORMANCE, ROOT, case_file

BUILTINS = ROOT / "assets" / "puzzles"


# -- no silent skips in CI ----------------------------------------------------------------------
# A person who clones the project has no ../shared, and may lack the Debian packages that only
# root can install: those tests skip, saying why. CI has everything, so there a skip means a
# broken install or a missing folder that a green run would hide: strict mode (on when CI is
# set, or with TESSERA_STRICT_SKIPS=1) refuses to start without ../shared and fails the run
# on any skip, listing them.


def strict_skips() -> bool:
    flag = os.environ.get("TESSERA_STRICT_SKIPS")
    if flag is not None:
        return flag not in ("", "0")
    return bool(os.environ.get("CI"))


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        # compile the kernels once for the run, before xdist's workers start: each would
        # otherwise compile them itself on a fresh clone
        from tessera.solvers.warmup import warm_up

        warm_up()
    if strict_skips() and not HAVE_CONFORMANCE:
        raise pytest.UsageError(
            f"{CONFORMANCE} is missing: CI reads the published ground truth there "
            "(set TESSERA_STRICT_SKIPS=0 to run without it)"
        )


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skips.append(f"{report.nodeid}: {reason}")


_skips: list[str] = []


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller decides
        return
    if strict_skips() and _skips and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    if strict_skips() and _skips:
        terminalreporter.section("skips are failures here (TESSERA_STRICT_SKIPS / CI)")
        for line in _skips:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _ctrl_c_handler_restored():
    """A command run in-process that was interrupted leaves Ctrl-C ignored on its way out
    (`cli.interrupt`); every process a later test starts would inherit that and ignore the
    Ctrl-C it is sent. Each test gets back the handler it started with."""
    previous = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, previous)


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

    from tessera.viewer._qt.window import MainWindow

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
    from tessera.solvers.polycube.identify import SolutionIndex

    return SolutionIndex(soma)
