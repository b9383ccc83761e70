"""`tessera design`: the main window opened straight in Design mode, and the screenshot hook.

Design is a mode of the one window (viewer/_qt/design/mode.py), so the command opens that window:
on the puzzle given (loaded as `tessera view` loads it, then opened into the editor), on a new
Soma figure (`soma`) or on an empty drawing. `--screenshot` waits until the first analysis has
answered (so the badge shows the count, not "counting…"), saves a grab of the whole window and
quits, the way `tessera view --screenshot` does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer

from tessera.models.errors import PuzzleError

#: The longest a screenshot waits for the count before grabbing what there is.
SCREENSHOT_WAIT_MS = 60_000


def run(
    puzzle: str | None = None,
    screenshot: str | None = None,
    soma: bool = False,
    argv: list[str] | None = None,
) -> int:
    """Open the window in Design mode on `puzzle` (a file or built-in name), a new Soma
    figure (`soma`) or an empty document; with `screenshot`, grab it and quit."""
    from tessera.solvers.registry import load
    from tessera.viewer._qt.app import application
    from tessera.viewer._qt.window import MainWindow

    loaded = load(puzzle, family="polycube") if puzzle else None  # bad input: exit 2 first
    if screenshot and not Path(screenshot).parent.exists():
        raise PuzzleError("no such directory", str(Path(screenshot).parent))
    app = application(argv or sys.argv[:1])
    window = MainWindow()
    window.show()
    window.set_mode("design")
    design = window.design
    if loaded is not None:
        window.open_puzzle(puzzle)  # into the editor; solved once Design is left
    elif soma:
        design.new_soma_figure()
    result = {"code": 0, "done": False}
    if screenshot:

        def grab(*_args) -> None:
            if result["done"]:
                return
            result["done"] = True
            # the badge's new text is laid out on the next pass of the event loop
            QTimer.singleShot(100, finish)

        def finish() -> None:
            if not window.save_screenshot(screenshot):
                result["code"] = 2
            design.doc._saved = design.doc.state  # nothing to ask about: this run edits nothing
            window.close()

        design.runner.finished.connect(grab)
        QTimer.singleShot(SCREENSHOT_WAIT_MS, grab)
    app.exec()
    if screenshot and result["code"] == 0:
        print(f"{screenshot}: window grab")
    return result["code"]
