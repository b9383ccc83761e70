"""The main window: browser | 3D scene | solutions, step bar below, status bar.

This module composes; each job lives in its own module and follows the `ViewerState`
(viewer/state.py) through its psygnal events:

| module | job |
|---|---|
| viewer/_qt/actions.py | every QAction, the menus, which actions are enabled (`ActionSync`) |
| viewer/_qt/playback.py | play / pause: a timer that moves the step |
| viewer/_qt/status.py | the status bar labels and the transient message |
| viewer/_qt/recent.py | recent files (QSettings), File ▸ Open recent |
| viewer/_qt/export_actions.py | File ▸ Export image / animation / STL |
| viewer/_qt/handson.py | picking, the Play table, hints, the inspector |
| viewer/_qt/controls.py | the browser, solution list, step bar and hands-on bar widgets |
| viewer/_qt/minimap.py | Search mode's depth mini-map under the slider |
| viewer/_qt/dialogs.py | error dialogs, About, keyboard shortcuts, Preferences (QSettings) |
| viewer/trace_match.py | which listed solution the search trace shows |
| viewer/_qt/design/mode.py | Design mode: the editor, its panel, layers, badge, actions and files |

What stays here: opening a puzzle and running its solver in a worker thread, drawing the
replay scene when the state says it changed (pieces are separate actors placed by
`user_matrix`, viewer/render.py), coalesced renders (`schedule_render`: a burst of moves or a
slider drag costs one frame), the camera, the screenshot, and an orderly close.

Only the controls that mean something for the puzzle are shown: the hands-on bar and the
Piece menu for polycube puzzles (Play mode), the trace jumps in Search mode, explode and
layers where the scene is not a flat board. VTK's own one-letter keys (w: wireframe,
3: stereo, e/q: quit the interactor, ...) never reach VTK: every key is a QAction's.

**Design mode** swaps the docks (the Shapes panel and the Layers view for the puzzle browser,
the solutions and Inside), the top toolbar and the status bar's labels (the live-count badge),
and lends the one render widget to the editor (`DesignMode`), whose scene replaces the replay
on the same `SceneRenderer`; the mouse filter of the other modes steps aside meanwhile. Leaving
Design gives the window the edited puzzle, which is solved like any other; loading another
puzzle or closing asks about unsaved changes first.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, QVariantAnimation, Signal
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog, QInputDialog, QMainWindow

from tessera.models.assets import ASSETS
from tessera.models.errors import NoSolution, PuzzleError
from tessera.viewer import export
from tessera.viewer._qt.actions import ActionSync, build_menus, make_actions
from tessera.viewer._qt.controls import HandsOnBar, PuzzleBrowser, SolutionPanel, StepBar
from tessera.viewer._qt.design.mode import DesignMode
from tessera.viewer._qt.dialogs import (
    Preferences,
    PreferencesDialog,
    ShortcutsDialog,
    about_box,
    error_box,
)
from tessera.viewer._qt.export_actions import Exporter
from tessera.viewer._qt.handson import MOVE_KEYS, TURN_KEYS, HandsOn
from tessera.viewer._qt.inspect_view import InspectPanel
from tessera.viewer._qt.perf import ViewerInteractor
from tessera.viewer._qt.playback import Playback
from tessera.viewer._qt.recent import RecentFiles, fill_menu
from tessera.viewer._qt.status import StatusLine
from tessera.viewer._qt.worker import SolveWorker
from tessera.viewer.families import Family, load
from tessera.viewer.render import SceneRenderer, set_theme, style_plotter
from tessera.viewer.scenes.base import Timeline
from tessera.viewer.state import MODES, ViewerState

ICON = ASSETS / "icons" / "tessera.svg"
PUZZLE_FILES = "Puzzles (*.toml *.json *.xmpuzzle *.kenken *.soma);;All files (*)"
FADE_MS = 320  # a piece Search mode takes back fades out over this long
MODE_TITLES = {mode: f"{mode.capitalize()} mode" for mode in MODES}
REPLAY_DOCKS = ("puzzles", "solutions", "inside")  # hidden in Design mode
DESIGN_DOCKS = ("shapes", "layers")  # shown in Design mode only


class VtkKeyFilter(QObject):
    """Swallows plain character keys on their way into the VTK widget, where VTK's interactor
    style would act on them (w: wireframe, s: surface, 3: stereo, e/q: stop the interactor,
    ...); `reset_key_events` does not remove those. Application keys are QAction shortcuts,
    which Qt matches before the widget sees the key, so they keep working; modifier keys,
    arrows and Escape pass through."""

    def eventFilter(self, obj, event) -> bool:
        if event.type() in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            text = event.text()
            mods = event.modifiers() & (
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
            )
            if text and text.isprintable() and not mods:
                return True
        return False


def dark_palette() -> QPalette:
    """A dark window palette (Fusion's roles), matching the dark scene background."""
    p = QPalette()
    base, window, text = QColor("#1e2228"), QColor("#2b3038"), QColor("#e6e8eb")
    for role, colour in (
        (QPalette.ColorRole.Window, window), (QPalette.ColorRole.WindowText, text),
        (QPalette.ColorRole.Base, base), (QPalette.ColorRole.AlternateBase, window),
        (QPalette.ColorRole.Text, text), (QPalette.ColorRole.Button, window),
        (QPalette.ColorRole.ButtonText, text), (QPalette.ColorRole.ToolTipBase, base),
        (QPalette.ColorRole.ToolTipText, text), (QPalette.ColorRole.Highlight, QColor("#3d6fb4")),
        (QPalette.ColorRole.HighlightedText, QColor("#ffffff")),
        (QPalette.ColorRole.Link, QColor("#8ab4f8")),
    ):  # fmt: skip
        p.setColor(role, colour)
    grey = QColor("#7d828a")  # disabled controls must look disabled on dark too
    for role in (
        QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText
    ):  # fmt: skip
        p.setColor(QPalette.ColorGroup.Disabled, role, grey)
    return p


def _within(bounds, framed) -> bool:
    """Whether the box `bounds` (xmin, xmax, ymin, ymax, zmin, zmax) lies inside `framed`."""
    if framed is None:
        return False
    return all(bounds[2 * a] >= framed[2 * a] - 1e-6 for a in range(3)) and all(
        bounds[2 * a + 1] <= framed[2 * a + 1] + 1e-6 for a in range(3)
    )


class MainWindow(QMainWindow):
    """The desktop viewer. `actions` holds every QAction by name (tests trigger them)."""

    puzzle_loaded = Signal(str)
    solving_finished = Signal(bool, int)  # cancelled?, count
    step_shown = Signal(float)
    mode_changed = Signal(str)  # after the window followed a mode change of the state
    rendered = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Tessera")
        if ICON.exists():
            self.setWindowIcon(QIcon(str(ICON)))
        self.resize(1200, 760)
        self.state = ViewerState()
        self.worker: SolveWorker | None = None
        self._children: list = []  # galleries, closed with this one
        self.docks: dict[str, QDockWidget] = {}
        self._shown_mode = "solution"  # the mode the widgets show (what `_on_mode` left)
        self._solving_family: Family | None = None  # what the solver was started on
        self._closed = False
        self._old_workers: list[SolveWorker] = []
        self._frame_next = True  # the next scene shown frames the camera
        self._framed: tuple[float, ...] | None = None  # the bounds it was last framed on
        self.last_error = ""
        self.error_dialog = None  # the last error box opened (tests look at it)
        self.prefs = Preferences()
        self.theme = self.prefs.theme
        self._fade_target: int | None = None  # where a running fade ends
        self._fade = QVariantAnimation(self)
        self._fade.setDuration(FADE_MS)
        self._fade.valueChanged.connect(self._fade_frame)
        self._fade.finished.connect(lambda: self._fade_frame(self._fade.endValue(), True))

        # No MSAA: ghosted pieces need depth peeling, which renders wrongly with MSAA on Mesa;
        # FXAA smooths the edges instead.
        self.plotter = ViewerInteractor(self, auto_update=False, multi_samples=0)
        style_plotter(self.plotter, anti_aliasing="fxaa")
        export.add_lights(self.plotter)
        self.plotter.reset_key_events()
        self._key_filter = VtkKeyFilter(self)
        self.plotter.interactor.installEventFilter(self._key_filter)
        self.setCentralWidget(self.plotter.interactor)
        self.renderer = SceneRenderer(self.plotter)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(0)
        self._render_timer.timeout.connect(self.render_now)

        self.handson = HandsOn(self.state, self.renderer, self)
        self.handson.frame.connect(self.schedule_render)
        self.plotter.enable_mesh_picking(
            self.handson.on_pick, use_actor=True, left_clicking=True, show=False,
            show_message=False,
        )  # fmt: skip
        self.actions, self.mode_group = make_actions(self)
        self.recent = RecentFiles(self)
        self.exporter = Exporter(self.state, self.plotter, self, view=self.export_view)
        self.design = DesignMode(self, self.renderer)
        self._build_docks()
        self.recent_menu = build_menus(self.menuBar(), self.actions)
        bar = self.menuBar()
        bar.insertMenu(bar.actions()[-1], self.design.menu)  # before Help
        self.status = StatusLine(self, self.state, lambda: self.solving)
        self.statusBar().addWidget(self.design.message, 1)
        self.statusBar().addPermanentWidget(self.design.badge)
        self.status_selected, self.status_puzzle = self.status.selected, self.status.puzzle
        self.status_solution, self.status_step = self.status.solution, self.status.step
        speeds = {mode: self.prefs.speed(mode) for mode in ("solution", "search")}
        self.playback = Playback(
            self.state, self.actions["play"], self.step_bar.speed, self, speeds=speeds
        )
        self.sync = ActionSync(self.actions, self.state, self.handson, self.step_bar.slider, self)
        self._connect()
        self._recent_changed(self.recent.entries())
        self.apply_theme(self.theme)
        self._show_family_controls()
        self._show_mode_widgets()
        self._update_title()
        geometry = self.prefs.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)

    # -- composition ---------------------------------------------------------------------------
    def _build_docks(self) -> None:
        self.browser = PuzzleBrowser()
        self.browser.open_requested.connect(self.open_puzzle)
        self._dock("Puzzles", "puzzles", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.solution_panel = SolutionPanel(self.state)
        self._dock("Solutions", "solutions", self.solution_panel)
        modes = {name: self.actions[f"mode_{name}"] for name in MODES}
        self.step_bar = StepBar(self.actions, modes, self)
        self.step_bar.addSeparator()
        self.step_bar.addAction(self.actions["reset_camera"])
        self.step_bar.addAction(self.actions["isometric"])
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.step_bar)
        self.inspect_panel = InspectPanel(self.handson.state, self.handson.inspector)
        self._dock("Inside", "inside", self.inspect_panel)
        self.handson_bar = HandsOnBar(self.actions, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.handson_bar)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.design.toolbar)
        self._dock("Shapes", "shapes", self.design.panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Layers", "layers", self.design.layers)

    def _dock(self, title: str, name: str, widget, area=Qt.DockWidgetArea.RightDockWidgetArea):
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def _connect(self) -> None:
        """User actions go to the state (or the part that owns them); state events come back
        to the widgets. Nothing here keeps a copy of a fact the state holds."""
        a, state, h = self.actions, self.state, self.handson
        for name, slot in (
            ("first", state.first), ("last", state.last),
            ("back", self._back), ("forward", self._forward),
            ("previous_solution", state.previous_solution),
            ("next_solution", state.next_solution),
            ("open", self.open_file_dialog), ("open_id", self.open_id_dialog),
            ("open_folder", self.open_folder_dialog), ("design", self.open_design),
            ("export_image", self.exporter.image_dialog),
            ("export_animation", self.exporter.animation_dialog),
            ("export_stl", self.exporter.stl_dialog),
            ("quit", self.close), ("reset_camera", self.reset_camera),
            ("isometric", self.isometric_view), ("cancel", self._cancel),
            ("undo", h.undo), ("redo", h.redo), ("reset_play", h.reset),
            ("hint", h.ask_hint), ("apply_hint", h.apply_hint),
            ("next_backtrack", lambda: self.jump(Timeline.REMOVE, +1)),
            ("previous_backtrack", lambda: self.jump(Timeline.REMOVE, -1)),
            ("next_found", lambda: self.jump(Timeline.SOLUTION, +1)),
            ("about", self.show_about), ("shortcuts", self.show_shortcuts),
            ("preferences", self.show_preferences),
        ):  # fmt: skip
            a[name].triggered.connect(slot)
        for name, (axis, turns) in TURN_KEYS.items():
            a[name].triggered.connect(lambda _=False, x=axis, t=turns: h.turn(x, t))
        for name, (axis, cells) in MOVE_KEYS.items():
            a[name].triggered.connect(lambda _=False, x=axis, c=cells: h.move(x, c))
        a["ghost"].toggled.connect(h.state.set_ghost)
        self.mode_group.triggered.connect(lambda action: self.set_mode(action.data()))
        self.step_bar.slider.valueChanged.connect(state.set_step)
        self.step_bar.step_requested.connect(self._go_to_step)
        self.exporter.saved.connect(self.status.show_saved)
        state.events.puzzle.connect(self._show_family_controls)
        self.solution_panel.cancel_button.clicked.connect(self.cancel_solving)
        self.solution_panel.chosen.connect(self._list_row_changed)
        self.recent.changed.connect(self._recent_changed)
        h.selection_changed.connect(self.status.show_selection)
        h.selection_changed.connect(self.handson_bar.show_selection)
        h.scene_shown.connect(self.inspect_panel.rebuild)
        state.events.message.connect(self.inspect_panel.show_message)
        state.events.scene.connect(self._on_scene)
        state.events.step.connect(self._on_step)
        state.events.solutions.connect(self.solution_panel.add)
        state.events.mode.connect(self._on_mode)
        state.events.puzzle.connect(self._update_title)
        self.design.title_changed.connect(self._update_title)
        self.design.solutions_requested.connect(lambda: self.set_mode("solution"))

    # -- puzzles and the solver -------------------------------------------------------------
    def open_puzzle(self, name_or_path: str) -> bool:
        """Load a file, built-in or game ID and start solving it. False and an error dialog
        (reason, file, line, the offending line) if it is bad; False too if the design has
        unsaved changes the user keeps (Cancel). In Design mode a polycube puzzle opens into
        the editor; any other leaves Design for Solution mode."""
        if not self.design.may_discard():
            return False
        try:
            family = load(name_or_path)
        except (PuzzleError, NoSolution, OSError) as exc:
            self.show_error(f"could not open {Path(str(name_or_path)).name}: {exc}")
            title = "Cannot open the puzzle"
            self.error_dialog = error_box(self, title, exc, str(name_or_path))
            return False
        if self.design.doc.dirty:  # the user chose to discard them
            self.design.forget()
        self.set_family(family, name_or_path)
        if self.state.mode == "design":  # still: a polycube puzzle, into the editor
            self.design.open_family(self.state.family)
        return True

    def set_family(self, family: Family, label: str | None = None) -> None:
        """Show `family` and solve it in a worker thread. In Design mode the solver waits
        until Design is left: the badge counts meanwhile, and two searches would share the
        cores."""
        self.stop_worker()
        self._solving_family = None
        self._stop_fade()
        self._frame_next = True
        self.solution_panel.reset(self.impossible_reason(family))
        self.state.set_family(family)  # may leave Design mode (not a polycube puzzle)
        if label and (Path(label).exists() or family.source == label):
            self.recent.remember(label)
        if self.state.mode != "design":
            self._start_solving()
        self.status.refresh()
        self.puzzle_loaded.emit(family.name)

    def _start_solving(self) -> None:
        """The solver on the puzzle shown, unless it runs (or ran) on it already."""
        family = self.state.family
        if family is None or self._solving_family is family:
            return
        self._solving_family = family
        self.worker = SolveWorker(family, self)
        self.worker.found.connect(self._on_found)
        self.worker.progress.connect(self.solution_panel.show_progress)
        self.worker.failed.connect(lambda msg: self.show_error(f"solver failed: {msg}"))
        self.worker.preparing.connect(self._on_preparing)
        self.worker.finished_search.connect(self._on_worker_finished)
        self.worker.start()

    @staticmethod
    def impossible_reason(family: Family) -> str | None:
        """Why the puzzle cannot have a solution, when that is known before searching."""
        check = getattr(family.puzzle, "volume_problem", None)
        return check() if callable(check) else None

    def _on_preparing(self) -> None:
        if self.sender() is self.worker:
            self.solution_panel.preparing()
            self.status.show_preparing()

    def stop_worker(self, wait_ms: int = 5000) -> None:
        worker, self.worker = self.worker, None
        if worker is None:
            return
        for signal in (
            worker.found, worker.progress, worker.finished_search, worker.failed, worker.preparing
        ):  # fmt: skip
            signal.disconnect()
        worker.cancel()
        if not worker.wait(wait_ms):  # pragma: no cover - a solver ignoring cancel
            self._old_workers.append(worker)

    def cancel_solving(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _on_found(self, solutions: list) -> None:
        if self.sender() is self.worker:  # not a batch queued by the previous puzzle's worker
            self.state.add_solutions(solutions)

    def _on_worker_finished(self, cancelled: bool, count: int) -> None:
        self.solution_panel.finish(cancelled, count)
        self.status.refresh()
        self.solving_finished.emit(cancelled, count)

    @property
    def solving(self) -> bool:
        return self.worker is not None and not self.worker.done

    def show_error(self, message: str) -> None:
        self.status.show_error(message)
        self.last_error = message

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open puzzle", "", PUZZLE_FILES)
        if path:
            self.open_puzzle(path)

    def open_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a folder of puzzles")
        if folder:
            self.open_gallery(folder)

    def open_gallery(self, folder: str):
        """The folder's puzzles with thumbnails and counts; a click opens one here."""
        from tessera.viewer._qt.gallery import GalleryDialog

        gallery = GalleryDialog(folder, self)
        gallery.open_requested.connect(self.open_puzzle)
        gallery.show()
        self._children.append(gallery)
        return gallery

    def open_design(self):
        """File ▸ Design mode: the editor on the puzzle shown, in this window (returned)."""
        self.set_mode("design")
        return self

    def open_id_dialog(self) -> None:
        text, ok = QInputDialog.getText(self, "Open game ID", "Dominosa or Keen game ID:")
        if ok and text.strip():
            self.open_puzzle(text.strip())

    def recent_files(self) -> list[str]:
        return self.recent.entries()

    def _recent_changed(self, entries: list[str]) -> None:
        self.browser.populate(entries)
        fill_menu(self.recent_menu, entries, self.open_puzzle)

    # -- mode and stepping ----------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """Solution, Search, Play or Design (Play and Design: polycube puzzles only).

        Entering Design opens the puzzle shown into the editor (unless the editor holds it
        already); leaving Design shows the edited puzzle, solved afresh, when the drawing
        changed (a drawing that is no puzzle yet leaves the puzzle shown as it was, and says
        why)."""
        state = self.state
        note = ""
        if mode == "design" and state.mode != "design" and state.can_design:
            if not self.design.enter(state.family):
                self.sync.revert_mode()
                return
        elif state.mode == "design" and mode != "design" and mode in MODES:
            note = self._take_design()
        if not state.set_mode(mode):
            self.sync.revert_mode()
            self.show_error(self.state.message)
        elif note:
            self.show_error(note)  # after the mode change, which clears the status line

    def _take_design(self) -> str:
        """The edited puzzle becomes the window's puzzle (when the drawing changed); or why
        it cannot (the drawing is not a puzzle yet)."""
        try:
            loaded = self.design.leaving_puzzle()
        except PuzzleError as exc:
            shown = self.state.family.name if self.state.family is not None else "nothing"
            reason = str(exc).removeprefix("None: ")
            return f"the drawing is not a puzzle yet ({reason}); showing {shown}"
        if loaded is not None:
            self.set_family(loaded, None)
            self.design.link(self.state.family)
        return ""

    def _cancel(self) -> None:
        """Esc: stop the design's count in Design mode, else the solver."""
        if self.state.mode == "design":
            self.design.runner.stop()
        else:
            self.cancel_solving()

    @property
    def mode(self) -> str:
        return self.state.mode

    def set_playing(self, playing: bool) -> None:
        self.playback.set_playing(playing)

    @property
    def playing(self) -> bool:
        return self.playback.playing

    def _forward(self) -> None:
        self.playback.pause()
        timeline = self._timeline()
        k = int(self.state.step)
        if (
            timeline is not None and self.state.step == k and k < len(timeline.kinds)
            and timeline.kinds[k] == Timeline.REMOVE
        ):  # fmt: skip
            self.fade_to(k + 1)  # a backtrack: the piece fades out rather than vanishing
            return
        self.state.forward()

    def _timeline(self) -> Timeline | None:
        scene = self.state.scene
        if self.state.mode != "search" or scene is None:
            return None
        return scene.timeline

    def _fade_frame(self, value, finished: bool = False) -> None:
        """A frame of a fade (Qt also reports values while one is being set up: ignored)."""
        if finished or self._fade.state() == QVariantAnimation.State.Running:
            self.state.set_step(float(value))

    def _stop_fade(self) -> None:
        self._fade.stop()
        self._fade_target = None

    def fade_to(self, step: int) -> None:
        """Go to `step` (one past a REMOVE event) through the fractional steps between, so
        the scene's fade plays; `step_shown` fires for `step` only."""
        self._stop_fade()
        self._fade_target = step
        self.state.set_step(step - 1)
        self._fade.setStartValue(float(step - 1))
        self._fade.setEndValue(float(step))
        self._fade.start()

    def jump(self, kind: int, direction: int) -> bool:
        """Search mode: go to the next (+1) or previous (-1) step reached by an event of
        `kind` (Timeline.REMOVE: a backtrack; Timeline.SOLUTION: a solution found)."""
        timeline = self._timeline()
        if timeline is None:
            return False
        self.playback.pause()
        self._stop_fade()
        step = self.state.step
        target = (
            timeline.next_step(step, kind) if direction > 0 else timeline.previous_step(step, kind)
        )
        if target is None:
            what = "backtrack" if kind == Timeline.REMOVE else "solution"
            self.state.say(f"no {'further' if direction > 0 else 'earlier'} {what} in the trace")
            return False
        if kind == Timeline.REMOVE:
            self.fade_to(target)
        else:
            self.state.set_step(target)
        return True

    def _go_to_step(self, step: int) -> None:
        self.playback.pause()
        self._stop_fade()
        self.state.set_step(step)

    def _back(self) -> None:
        self.playback.pause()
        self.state.back()

    def _list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.state.set_solution(row)

    def _trace_row(self) -> int | None:
        """The listed solution the search trace shows now (None before its first solution,
        or when it cannot be matched): what the list highlights in Search mode."""
        from tessera.viewer.trace_match import solution_row

        timeline = self._timeline()
        if timeline is None:
            return None
        done = timeline.kinds[: int(self.state.step)] == Timeline.SOLUTION
        if not done.any():
            return None
        at = int(done.nonzero()[0][-1]) + 1  # the step of the last solution event so far
        key = (id(self.state.scene), at, len(self.state.solutions))
        if getattr(self, "_trace_row_key", None) != key:
            from tessera.solvers.trace import stack_at

            stack = stack_at(self.state.trace.events, at)
            self._trace_row_cache = solution_row(
                self.state.family, self.state.trace, stack, self.state.solutions
            )
            self._trace_row_key = key
        return self._trace_row_cache

    def _sync_list(self) -> None:
        """The list highlights the solution shown: the state's in Solution mode, the trace's
        (or none) in Search mode, so the two never disagree."""
        if self.state.mode == "search":
            self.solution_panel.highlight(self._trace_row())
        elif self.state.mode == "solution":
            row = self.state.solution_index
            if row >= 0 and self.solution_panel.list.currentRow() != row:
                self.solution_panel.highlight(row)

    # -- per family controls, theme, help -------------------------------------------------------
    def _show_family_controls(self, *_args) -> None:
        """Only what means something for this puzzle and mode: turning and moving pieces (the
        hands-on bar, the Piece menu) for polycube puzzles, not while designing."""
        playable = self.state.can_play or self.state.family is None
        playable = playable and self.state.mode != "design"
        self.handson_bar.setVisible(playable)
        for action in self.menuBar().actions():
            if action.objectName() == "piece_menu":
                action.setVisible(playable)

    def _show_mode_widgets(self) -> None:
        """Design mode's docks, toolbar, menu and badge, or the replay's: never both."""
        design = self.state.mode == "design"
        for name in REPLAY_DOCKS:
            self.docks[name].setVisible(not design)
        for name in DESIGN_DOCKS:
            self.docks[name].setVisible(design)
        for label in (self.status.selected, self.status.puzzle, self.status.solution,
                      self.status.step):  # fmt: skip
            label.setVisible(not design)
        self._show_family_controls()

    def _update_title(self, *_args) -> None:
        """'Tessera — Soma cube — Solution mode'; in Design mode the drawing's name, its
        file and the unsaved-changes mark."""
        if self.state.mode == "design":
            self.setWindowTitle(f"Tessera — {self.design.title()}[*]")
            self.setWindowModified(self.design.doc.dirty)
            return
        family = self.state.family
        name = f" — {family.name}" if family is not None else ""
        self.setWindowTitle(f"Tessera{name} — {MODE_TITLES[self.state.mode]}")
        self.setWindowModified(False)

    def apply_theme(self, theme: str) -> None:
        """Light or dark: the window's palette and the 3D scene's background together."""
        self.theme = theme
        app = QApplication.instance()
        if theme == "dark":
            app.setStyle("Fusion")
            app.setPalette(dark_palette())
        else:
            app.setPalette(app.style().standardPalette())
        set_theme(self.plotter, theme)
        self.schedule_render()

    def show_about(self) -> None:
        self.about_dialog = about_box(self)

    def show_shortcuts(self) -> None:
        design = {f"design_{name}": a for name, a in self.design.actions.items()}
        self.shortcuts_dialog = ShortcutsDialog({**self.actions, **design}, self)
        self.shortcuts_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shortcuts_dialog.open()

    def show_preferences(self) -> None:
        dialog = PreferencesDialog(self.prefs, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(self._preferences_changed)
        self.preferences_dialog = dialog
        dialog.open()

    def _preferences_changed(self) -> None:
        self.apply_theme(self.prefs.theme)
        for mode in ("solution", "search"):
            self.playback.speeds[mode] = self.prefs.speed(mode)
        if self.state.mode in self.playback.speeds:
            self.step_bar.speed.setValue(self.playback.speeds[self.state.mode])

    def export_view(self) -> export.View:
        """How the view shows the scene now, for an export that looks the same."""
        camera = self.plotter.camera
        return export.View(
            camera=self.plotter.camera_position,
            parallel_scale=camera.parallel_scale if camera.parallel_projection else None,
            inspect=self.handson.state,
            theme=self.theme,
        )

    # -- state events -------------------------------------------------------------------------
    def _on_mode(self, mode: str) -> None:
        left_design = self._shown_mode == "design" and mode != "design"
        if mode in ("play", "design") or left_design:
            self._frame_next = True  # the replay framed again when it comes back
        self._shown_mode = mode
        mouse = self.handson.mouse
        if mode == "design":
            self.playback.pause()
            self.handson.state.reset()  # no selection of the replay survives into Design
            if mouse is not None:
                mouse.detach()  # the editor's clicks are not piece picks
        self._show_mode_widgets()
        self.design.set_active(mode == "design")
        if left_design and mouse is not None:
            self.plotter.interactor.installEventFilter(mouse)
        if left_design:
            self._start_solving()  # the puzzle loaded (or drawn) while designing
        self._update_title()
        self.mode_changed.emit(mode)

    def _on_scene(self, scene) -> None:
        if self.state.mode in ("play", "design"):
            return  # the Play table or the editor owns the view; this scene waits
        self._stop_fade()
        # frame again when the scene reaches past what the camera was framed on (a burr's
        # disassembly spreads its pieces far beyond the target the empty scene showed)
        frame = self._frame_next or scene.flat or not _within(scene.bounds, self._framed)
        self.renderer.show(scene, self.state.step, frame=frame)
        if frame:
            self._framed = tuple(scene.bounds)
        self._frame_next = False
        self.handson.scene_replaced()
        self.step_bar.depth_map.set_timeline(
            scene.timeline if self.state.mode == "search" else None
        )
        self._sync_list()

    def _on_step(self, step: float) -> None:
        if self.state.mode in ("play", "design"):
            return
        self.renderer.apply(step)
        self.handson.stepped()
        self.render_now()
        scene = self.state.scene
        depth = scene.depth(step) if scene is not None else None
        self.step_bar.show_step(step, self.state.n_steps, depth)
        if self.state.mode == "search":
            self._sync_list()
        target = self._fade_target
        if target is not None and step != target:
            return  # a frame of a fade: `step_shown` is for where it ends
        self._fade_target = None
        self.step_shown.emit(step)

    # -- rendering and camera ---------------------------------------------------------------------
    def schedule_render(self) -> None:
        """Render once the current burst of changes is over (coalesced on the event loop)."""
        if not self._render_timer.isActive():
            self._render_timer.start()

    def render_now(self) -> None:
        self._render_timer.stop()
        # pieces moved since the camera was framed (Play table, explode): nothing may be cut
        self.plotter.renderer.ResetCameraClippingRange()
        self.plotter.render()
        self.rendered.emit()

    @property
    def render_pending(self) -> bool:
        return self._render_timer.isActive()

    def reset_camera(self) -> None:
        self.renderer.frame_camera()
        self.plotter.render()

    def isometric_view(self) -> None:
        self.renderer.isometric()
        self.plotter.render()

    # -- screenshots and teardown ------------------------------------------------------------------
    def save_screenshot(self, path: str | Path) -> bool:
        """A grab of the whole window, 3D view included (what a person sees)."""
        # a label whose text just changed (the solution count) is laid out on the next event
        # loop pass; a grab does not wait for it, so lay out now or the text comes out cut
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        self.plotter.render_still()
        return self.grab().save(str(path))

    def closeEvent(self, event) -> None:
        if self._closed:  # closed once already: everything is released
            super().closeEvent(event)
            return
        if not self.design.may_discard():
            event.ignore()
            return
        self._closed = True
        for child in self._children:
            child.close()
        self.prefs.set_geometry(self.saveGeometry())
        self._stop_fade()
        self.playback.pause()
        self._render_timer.stop()
        self.handson.shutdown()
        self.design.shutdown()
        self.stop_worker()
        for worker in self._old_workers:
            worker.wait(2000)
        self.renderer.clear()
        self.plotter.close()
        super().closeEvent(event)
