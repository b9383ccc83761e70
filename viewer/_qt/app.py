"""`tessera view`: the QApplication, the window, and the scripted screenshot hook.

`--screenshot` opens the real window, waits for the solver to reach the asked solution, goes
to the step, saves a grab of the whole window and quits: the way a script (or a test) sees
exactly what a person would.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from tessera.models.errors import NoSolution, PuzzleError
from tessera.viewer.families import load


def application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv or ["tessera"])
        app.setApplicationName("Tessera")
        app.setOrganizationName("tessera")
    return app  # type: ignore[return-value]


def go_to(window, solution: int, step: float | None, mode: str, done) -> None:
    """When solution `solution` exists (or solving ended), show it at `step`, then `done()`."""
    state = window.state
    finished = {"flag": False}

    def try_now(*_args) -> None:
        if finished["flag"]:
            return
        have = len(state.solutions) > solution
        if not have and window.solving:
            return
        finished["flag"] = True
        if mode == "search":
            window.set_mode("search")
        elif have:
            state.set_solution(solution)
        else:
            window.show_error(f"tessera: no solution {solution + 1}")
        if step is not None:
            state.set_step(step)
        QTimer.singleShot(50, done)

    state.events.solutions.connect(try_now)
    window.solving_finished.connect(try_now)
    QTimer.singleShot(0, try_now)


def run(
    puzzle: str = "soma",
    solution: int = 0,
    step: float | None = None,
    mode: str = "solution",
    screenshot: str | None = None,
    argv: list[str] | None = None,
) -> int:
    from tessera.viewer._qt.window import MainWindow
    from tessera.viewer._qt.worker import load_cached_kernels

    family = load(puzzle)  # bad input: a one-line error and exit 2, before any window
    if screenshot and not Path(screenshot).parent.exists():
        raise PuzzleError("no such directory", str(Path(screenshot).parent))
    app = application(argv or sys.argv[:1])
    load_cached_kernels()  # now, not in the worker once the window is up
    window = MainWindow()
    window.show()
    window.set_family(family, puzzle)
    result = {"code": 0}
    if screenshot:

        def grab() -> None:
            if not window.save_screenshot(screenshot):
                result["code"] = 2
            window.close()

        go_to(window, solution, step, mode, grab)
    else:
        go_to(window, solution, step, mode, lambda: None)
    app.exec()
    if screenshot and result["code"] == 0:
        print(f"{screenshot}: window grab")
    if screenshot and window.state.solution is None and mode == "solution":
        raise NoSolution(f"{puzzle}: no solution")
    return result["code"]
