"""The main window: browser | 3D scene | solutions, step bar below, status bar.

This module composes; each job lives in its own module and follows the `ViewerState`
(viewer/state.py) through its psygnal events:

| module | job |
|---|---|
| viewer/actions.py | every QAction, the menus, which actions are enabled (`ActionSync`) |
| viewer/playback.py | play / pause: a timer that moves the step |
| viewer/status.py | the status bar labels and the transient message |
| viewer/recent.py | recent files (QSettings), File ▸ Open recent |
| viewer/export_actions.py | File ▸ Export image / animation / STL |
| viewer/handson.py | picking, the Play table, hints, the inspector |
| viewer/controls.py | the browser, solution list, step bar and hands-on bar widgets |

What stays here: opening a puzzle and running its solver in a worker thread, drawing the
replay scene when the state says it changed (pieces are separate actors placed by
`user_matrix`, viewer/render.py), coalesced renders (`schedule_render`: a burst of moves or a
slider drag costs one frame), the camera, the screenshot, and an orderly close.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDockWidget, QFileDialog, QInputDialog, QMainWindow

from tessera.models.assets import ASSETS
from tessera.models.errors import NoSolution, PuzzleError
from tessera.viewer import export
from tessera.viewer.actions import ActionSync, build_menus, make_actions
from tessera.viewer.controls import HandsOnBar, PuzzleBrowser, SolutionPanel, StepBar
from tessera.viewer.export_actions import Exporter
from tessera.viewer.families import Family, load
from tessera.viewer.handson import MOVE_KEYS, TURN_KEYS, HandsOn
from tessera.viewer.inspect_view import InspectPanel
from tessera.viewer.perf import ViewerInteractor
from tessera.viewer.playback import Playback
from tessera.viewer.recent import RecentFiles, fill_menu
from tessera.viewer.render import SceneRenderer, style_plotter
from tessera.viewer.state import ViewerState
from tessera.viewer.status import StatusLine
from tessera.viewer.worker import SolveWorker

ICON = ASSETS / "icons" / "tessera.svg"
PUZZLE_FILES = "Puzzles (*.toml *.json *.xmpuzzle *.kenken);;All files (*)"


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
        self._old_workers: list[SolveWorker] = []
        self._frame_next = True  # the next scene shown frames the camera
        self.last_error = ""

        # No MSAA: ghosted pieces need depth peeling, which renders wrongly with MSAA on Mesa;
        # FXAA smooths the edges instead.
        self.plotter = ViewerInteractor(self, auto_update=False, multi_samples=0)
        style_plotter(self.plotter, anti_aliasing="fxaa")
        export.add_lights(self.plotter)
        self.plotter.reset_key_events()
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
        self.exporter = Exporter(self.state, self.plotter, self)
        self._build_docks()
        self.recent_menu = build_menus(self.menuBar(), self.actions)
        self.status = StatusLine(self, self.state, lambda: self.solving)
        self.status_selected, self.status_puzzle = self.status.selected, self.status.puzzle
        self.status_solution, self.status_step = self.status.solution, self.status.step
        self.playback = Playback(self.state, self.actions["play"], self.step_bar.speed, self)
        self.sync = ActionSync(self.actions, self.state, self.handson, self.step_bar.slider, self)
        self._connect()
        self._recent_changed(self.recent.entries())

    # -- composition ---------------------------------------------------------------------------
    def _build_docks(self) -> None:
        self.browser = PuzzleBrowser()
        self.browser.open_requested.connect(self.open_puzzle)
        self._dock("Puzzles", "puzzles", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.solution_panel = SolutionPanel()
        self._dock("Solutions", "solutions", self.solution_panel)
        modes = {name: self.actions[f"mode_{name}"] for name in ("solution", "search", "play")}
        self.step_bar = StepBar(self.actions, modes, self)
        self.step_bar.addSeparator()
        self.step_bar.addAction(self.actions["reset_camera"])
        self.step_bar.addAction(self.actions["isometric"])
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.step_bar)
        self.inspect_panel = InspectPanel(self.handson.state, self.handson.inspector)
        self._dock("Inside", "inside", self.inspect_panel)
        self.handson_bar = HandsOnBar(self.actions, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.handson_bar)

    def _dock(self, title: str, name: str, widget, area=Qt.DockWidgetArea.RightDockWidgetArea):
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(area, dock)

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
            ("export_image", self.exporter.image_dialog),
            ("export_animation", self.exporter.animation_dialog),
            ("export_stl", self.exporter.stl_dialog),
            ("quit", self.close), ("reset_camera", self.reset_camera),
            ("isometric", self.isometric_view), ("cancel", self.cancel_solving),
            ("undo", h.undo), ("redo", h.redo), ("reset_play", h.reset),
            ("hint", h.ask_hint), ("apply_hint", h.apply_hint),
        ):  # fmt: skip
            a[name].triggered.connect(slot)
        for name, (axis, turns) in TURN_KEYS.items():
            a[name].triggered.connect(lambda _=False, x=axis, t=turns: h.turn(x, t))
        for name, (axis, cells) in MOVE_KEYS.items():
            a[name].triggered.connect(lambda _=False, x=axis, c=cells: h.move(x, c))
        a["ghost"].toggled.connect(h.state.set_ghost)
        self.mode_group.triggered.connect(lambda action: self.set_mode(action.data()))
        self.step_bar.slider.valueChanged.connect(state.set_step)
        self.solution_panel.cancel_button.clicked.connect(self.cancel_solving)
        self.solution_panel.list.currentRowChanged.connect(self._list_row_changed)
        self.recent.changed.connect(self._recent_changed)
        h.selection_changed.connect(self.status.show_selection)
        h.selection_changed.connect(self.handson_bar.show_selection)
        h.scene_shown.connect(self.inspect_panel.rebuild)
        state.events.message.connect(self.inspect_panel.show_message)
        state.events.scene.connect(self._on_scene)
        state.events.step.connect(self._on_step)
        state.events.solutions.connect(self.solution_panel.add)
        state.events.mode.connect(self._on_mode)

    # -- puzzles and the solver -------------------------------------------------------------
    def open_puzzle(self, name_or_path: str) -> bool:
        """Load a file, built-in or game ID and start solving it. False (and a message) if bad."""
        try:
            family = load(name_or_path)
        except (PuzzleError, NoSolution) as exc:
            self.show_error(f"tessera: error: {exc}")
            return False
        self.set_family(family, name_or_path)
        return True

    def set_family(self, family: Family, label: str | None = None) -> None:
        self.stop_worker()
        self._frame_next = True
        self.solution_panel.reset()
        self.state.set_family(family)
        if label and (Path(label).exists() or family.source == label):
            self.recent.remember(label)
        self.worker = SolveWorker(family, self)
        self.worker.found.connect(self._on_found)
        self.worker.progress.connect(self.solution_panel.show_progress)
        self.worker.failed.connect(lambda msg: self.show_error(f"solver failed: {msg}"))
        self.worker.finished_search.connect(self._on_worker_finished)
        self.worker.start()
        self.status.refresh()
        self.puzzle_loaded.emit(family.name)

    def stop_worker(self, wait_ms: int = 5000) -> None:
        worker, self.worker = self.worker, None
        if worker is None:
            return
        for signal in (worker.found, worker.progress, worker.finished_search, worker.failed):
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
        return self.worker is not None and self.worker.isRunning()

    def show_error(self, message: str) -> None:
        self.status.show_error(message)
        self.last_error = message

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open puzzle", "", PUZZLE_FILES)
        if path:
            self.open_puzzle(path)

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
        """Solution, Search or Play (Play: polycube puzzles only)."""
        if not self.state.set_mode(mode):
            self.sync.revert_mode()
            self.show_error(self.state.message)

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
        self.state.forward()

    def _back(self) -> None:
        self.playback.pause()
        self.state.back()

    def _list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.state.set_solution(row)

    # -- state events -------------------------------------------------------------------------
    def _on_mode(self, mode: str) -> None:
        if mode == "play":
            self._frame_next = True  # the replay framed again when it comes back
        self.mode_changed.emit(mode)

    def _on_scene(self, scene) -> None:
        if self.state.mode == "play":
            return  # the Play table owns the view; this scene is shown when Play is left
        self.renderer.show(scene, self.state.step, frame=self._frame_next)
        self._frame_next = False
        self.handson.scene_replaced()
        row = self.state.solution_index
        if row >= 0 and self.solution_panel.list.currentRow() != row:
            self.solution_panel.list.blockSignals(True)
            self.solution_panel.list.setCurrentRow(row)
            self.solution_panel.list.blockSignals(False)

    def _on_step(self, step: float) -> None:
        if self.state.mode == "play":
            return
        self.renderer.apply(step)
        self.handson.stepped()
        self.render_now()
        scene = self.state.scene
        depth = scene.depth(step) if scene is not None else None
        self.step_bar.show_step(step, self.state.n_steps, depth)
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
        self.playback.pause()
        self._render_timer.stop()
        self.handson.shutdown()
        self.stop_worker()
        for worker in self._old_workers:
            worker.wait(2000)
        self.renderer.clear()
        self.plotter.close()
        super().closeEvent(event)
