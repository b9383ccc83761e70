"""`tessera design`: the QApplication, the design window, and the scripted screenshot hook.

`--screenshot` opens the real window, waits until the first analysis has answered (so the
badge shows the count, not "counting…"), saves a grab of the whole window and quits, the way
`tessera view --screenshot` does.
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
    """Open the design window on `puzzle` (a file or built-in name), a new Soma figure
    (`soma`) or an empty document; with `screenshot`, grab it and quit."""
    from tessera.solvers.registry import load
    from tessera.viewer.app import application
    from tessera.viewer.design.window import DesignWindow

    loaded = load(puzzle, family="polycube") if puzzle else None  # bad input: exit 2 first
    if screenshot and not Path(screenshot).parent.exists():
        raise PuzzleError("no such directory", str(Path(screenshot).parent))
    app = application(argv or sys.argv[:1])
    window = DesignWindow()
    if loaded is not None:
        window.open_file(puzzle, ask=False)
    elif soma:
        window.doc.new_soma_figure()
    window.show()
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
            window.doc._saved = window.doc.state  # nothing to ask about: this run edits nothing
            window.close()

        window.runner.finished.connect(grab)
        QTimer.singleShot(SCREENSHOT_WAIT_MS, grab)
    app.exec()
    if screenshot and result["code"] == 0:
        print(f"{screenshot}: window grab")
    return result["code"]
