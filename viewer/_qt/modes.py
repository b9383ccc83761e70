"""Mode switching in the window: Solution, Search, Play and Design, and what each shows.

The mode itself is a fact of the `ViewerState` (`set_mode`, `events.mode`); this object asks
for it on the user's behalf and follows it, showing the widgets of the mode and hiding the
others:

* only the controls that mean something for the puzzle and mode: the hands-on bar and the
  Piece menu in Play mode only, the step bar's buttons, slider and speed in Solution and
  Search only (its mode switch always);
* **Design** swaps the docks (the Shapes panel and the Layers view for the puzzle browser, the
  solutions and Inside), the top toolbar and the status bar's labels (the live-count badge),
  and lends the one render widget to the editor (`DesignMode`); the mouse filter of the other
  modes steps aside meanwhile. Entering Design opens the puzzle shown into the editor; leaving
  it gives the window the edited puzzle, which is solved like any other;
* the title names the puzzle and the mode, or in Design the drawing and its unsaved mark.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from tessera.models.errors import PuzzleError
from tessera.viewer.state import ASIDE_MODES, MODES, REPLAY_MODES

MODE_TITLES = {mode: f"{mode.capitalize()} mode" for mode in MODES}
REPLAY_DOCKS = ("puzzles", "solutions", "inside")  # hidden in Design mode
DESIGN_DOCKS = ("shapes", "layers")  # shown in Design mode only


class ModeSwitch(QObject):
    """Asks the state for a mode and shows the window's widgets for the one it is in.
    `window` is the `MainWindow`, typed by its Qt base so the modules do not import each
    other."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.state
        self._shown = "solution"  # the mode the widgets show (what `_on_mode` left)
        self.state.events.puzzle.connect(self.show_family_controls)
        self.state.events.mode.connect(self._on_mode)
        self.state.events.puzzle.connect(self.update_title)
        window.design.title_changed.connect(self.update_title)
        window.design.solutions_requested.connect(lambda: self.set_mode("solution"))

    def set_mode(self, mode: str) -> None:
        """Solution, Search, Play or Design (Play and Design: polycube puzzles only).

        Entering Design opens the puzzle shown into the editor (unless the editor holds it
        already); leaving Design shows the edited puzzle, solved afresh, when the drawing
        changed (a drawing that is no puzzle yet leaves the puzzle shown as it was, and says
        why)."""
        state, window = self.state, self.window
        note = ""
        if mode == "design" and state.mode != "design" and state.can_design:
            if not window.design.enter(state.family):
                window.sync.revert_mode()
                return
        elif state.mode == "design" and mode != "design" and mode in MODES:
            note = self._take_design()
        if not state.set_mode(mode):
            window.sync.revert_mode()
            window.show_error(state.message)
        elif note:
            window.show_error(note)  # after the mode change, which clears the status line

    def _take_design(self) -> str:
        """The edited puzzle becomes the window's puzzle (when the drawing changed); or why
        it cannot (the drawing is not a puzzle yet)."""
        design = self.window.design
        try:
            loaded = design.leaving_puzzle()
        except PuzzleError as exc:
            shown = self.state.family.name if self.state.family is not None else "nothing"
            reason = str(exc).removeprefix("None: ")
            return f"the drawing is not a puzzle yet ({reason}); showing {shown}"
        if loaded is not None:
            self.window.set_family(loaded, None)
            design.link(self.state.family)
        return ""

    def _on_mode(self, mode: str) -> None:
        window = self.window
        left_design = self._shown == "design" and mode != "design"
        if mode in ASIDE_MODES or left_design:
            window.replay.frame_next = True  # the replay framed again when it comes back
        self._shown = mode
        mouse = window.handson.mouse
        if mode == "design":
            window.playback.pause()
            window.handson.state.reset()  # no selection of the replay survives into Design
            if mouse is not None:
                mouse.detach()  # the editor's clicks are not piece picks
        self.show_mode_widgets()
        window.design.set_active(mode == "design")
        if left_design and mouse is not None:
            window.plotter.interactor.installEventFilter(mouse)
        if left_design:
            window.solver.start()  # the puzzle loaded (or drawn) while designing
        self.update_title()
        window.mode_changed.emit(mode)

    def show_family_controls(self, *_args) -> None:
        """Only what means something for this puzzle and mode: turning and moving pieces (the
        hands-on bar, the Piece menu) in Play mode, which only playable puzzles enter; greyed
        out in the replay or the editor they were only clutter."""
        playing = self.state.mode == "play" and self.state.can_play
        self.window.handson_bar.setVisible(playing)
        for action in self.window.menuBar().actions():
            if action.objectName() == "piece_menu":
                action.setVisible(playing)

    def show_mode_widgets(self) -> None:
        """Design mode's docks, toolbar, menu and badge, or the replay's: never both."""
        design = self.state.mode == "design"
        docks, status = self.window.docks, self.window.status
        for name in REPLAY_DOCKS:
            docks[name].setVisible(not design)
        for name in DESIGN_DOCKS:
            docks[name].setVisible(design)
        for label in (status.selected, status.puzzle, status.solution, status.step):
            label.setVisible(not design)
        self.window.step_bar.show_steps(self.state.mode in REPLAY_MODES)
        self.show_family_controls()

    def update_title(self, *_args) -> None:
        """'Tessera — Soma cube — Solution mode'; in Design mode the drawing's name, its
        file and the unsaved-changes mark."""
        window = self.window
        if self.state.mode == "design":
            window.setWindowTitle(f"Tessera — {window.design.title()}[*]")
            window.setWindowModified(window.design.doc.dirty)
            return
        family = self.state.family
        name = f" — {family.name}" if family is not None else ""
        window.setWindowTitle(f"Tessera{name} — {MODE_TITLES[self.state.mode]}")
        window.setWindowModified(False)
