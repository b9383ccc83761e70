"""The status bar: puzzle, solution, step and selection labels, and the one transient line.

Everything here follows events: the viewer state's (puzzle, solutions, step, mode, message)
and the hands-on controller's `selection_changed`. A file written by an export is announced
as "saved to …" with an "Open folder" button beside it (`show_saved`), which stays until the
next puzzle. In Solution mode the transient line is the scene's own account of the step
(`Scene.describe`): for an interlocking puzzle "move 37 of 108 · level 98.2.4.2 · S8 slides
-x by 2", with the level beside the solution number too. Since the state clears its message
on every puzzle and mode change and the selection is reset with the scene, nothing shown here
outlives what it describes ("selected: A" after another puzzle, a Play fit report after Play).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QLabel, QMainWindow, QPushButton

from tessera.viewer.state import REPLAY_MODES, ViewerState

ERROR_MS = 15000  # how long an error stays in the status bar


class StatusLine(QObject):
    """The window's status bar; `solving()` says whether the solver still runs ("1 of 7+")."""

    def __init__(
        self, window: QMainWindow, state: ViewerState, solving: Callable[[], bool]
    ) -> None:
        super().__init__(window)
        self.window = window
        self.bar = window.statusBar()
        self.state = state
        self.solving = solving
        self.selected = QLabel("")
        self.selected.setObjectName("status_selected")
        self.puzzle = QLabel("no puzzle")
        self.solution = QLabel("")
        self.step = QLabel("")
        self.open_folder = QPushButton("Open folder")
        self.open_folder.setObjectName("open_folder")
        self.open_folder.setFlat(True)
        self.open_folder.setVisible(False)
        self.open_folder.clicked.connect(self.open_saved_folder)
        self.saved_path: Path | None = None
        self.bar.addPermanentWidget(self.open_folder)
        for label in (self.selected, self.puzzle, self.solution, self.step):
            self.bar.addPermanentWidget(label)
        events = state.events
        events.puzzle.connect(self._on_puzzle)
        events.solutions.connect(self.refresh)
        events.mode.connect(self._on_mode)
        events.step.connect(self._on_step)
        events.message.connect(self._on_message)

    def show_selection(self, name: str) -> None:
        self.selected.setText(name)

    def show_error(self, message: str) -> None:
        self.bar.showMessage(message, ERROR_MS)

    def show_saved(self, path: str) -> None:
        """An export wrote `path` (a file or a folder): say so, offer to open its folder."""
        self.saved_path = Path(path)
        self.bar.showMessage(f"saved to {path}")
        self.open_folder.setToolTip(f"open {self.saved_folder()}")
        self.open_folder.setVisible(True)

    def saved_folder(self) -> Path | None:
        path = self.saved_path
        if path is None:
            return None
        return path if path.is_dir() else path.parent

    def open_saved_folder(self) -> bool:
        folder = self.saved_folder()
        if folder is None:
            return False
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder.resolve())))

    def show_preparing(self) -> None:
        self.bar.showMessage("preparing the solver (once per install)…")
        self.solution.setText("preparing the solver")

    def _on_puzzle(self, family) -> None:
        self.open_folder.setVisible(False)
        self.selected.setText("")  # no selection survives a new puzzle
        self.puzzle.setText(family.name)  # the title is `modes.ModeSwitch`'s
        self.refresh()

    def _on_mode(self) -> None:
        """A replay's account of its step ("V slides in along -y") is no news in Play or
        Design: the line shows the state's own message (what the new mode said, or nothing)."""
        if self.bar.currentMessage() != self.state.message:
            self._on_message(self.state.message)
        self.refresh()

    def _on_message(self, text: str) -> None:
        if text:
            self.bar.showMessage(text)
        else:
            self.bar.clearMessage()

    def _on_step(self) -> None:
        self.refresh()
        s = self.state
        if s.scene is not None and s.mode != "play":
            self.bar.showMessage(s.scene.describe(s.step))

    def refresh(self) -> None:
        """The solution and step labels, as the state is now."""
        s = self.state
        n = len(s.solutions)
        more = "+" if self.solving() else ""
        if s.mode == "play":
            self.solution.setText("Play mode")
        elif s.mode == "search":
            trace = s.trace
            cut = " (cut)" if trace is not None and trace.truncated else ""
            self.solution.setText(f"search trace{cut}")
        elif n:
            text = f"solution {s.solution_index + 1} of {n}{more}"
            level = _level(s.solution)
            self.solution.setText(f"{text} · level {level}" if level else text)
        else:
            self.solution.setText("no solution yet" if self.solving() else "no solution")
        step = f"{s.step:.2f}".rstrip("0").rstrip(".")
        replaying = s.mode in REPLAY_MODES  # the table and the editor have no steps
        self.step.setText(f"step {step} of {s.n_steps}" if replaying else "")


def _level(solution) -> str:
    """BurrTools' level of an interlocking solution ("" for any other): the status bar
    keeps it in view while the step readout says which move is playing."""
    from tessera.solvers.polycube.interlocking import InterlockedSolution, level_of

    return level_of(solution) if isinstance(solution, InterlockedSolution) else ""
