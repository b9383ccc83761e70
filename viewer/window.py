"""The main window: browser | 3D scene | solutions, step bar below, status bar.

The window owns a `ViewerState` and a `SceneRenderer` on a pyvistaqt `QtInteractor`; widgets
change the state, the state's events move actors and refresh labels. Pieces are separate actors
placed by `user_matrix` (see viewer/render.py), so the hands-on viewer can pick and move them
without touching this file's stepping logic.

Hands-on (issue 7): a left click on a piece selects it (pyvista mesh picking, helper actors not
pickable); Play mode, hints and the inspector live in viewer/handson.py, viewer/play_view.py and
viewer/inspect_view.py, and only listen to `models.play.PlayModel` and the `InspectState`.
Renders are coalesced (`schedule_render`): a burst of moves or a slider drag costs one frame.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
)

from tessera.models.assets import ASSETS
from tessera.models.errors import NoSolution, PuzzleError
from tessera.viewer import export
from tessera.viewer.controls import (
    HandsOnBar,
    PuzzleBrowser,
    SolutionPanel,
    StepBar,
    make_handson_actions,
    make_mode_actions,
    make_step_actions,
)
from tessera.viewer.families import Family, load
from tessera.viewer.handson import MOVE_KEYS, TURN_KEYS, HandsOn
from tessera.viewer.inspect_view import InspectPanel
from tessera.viewer.perf import ViewerInteractor
from tessera.viewer.render import SceneRenderer, style_plotter
from tessera.viewer.state import ViewerState
from tessera.viewer.stl_dialog import StlDialog, export_stl
from tessera.viewer.worker import SolveWorker

PLAY_INTERVAL_MS = 33  # ~30 frames a second while playing
MAX_RECENT = 8
ICON = ASSETS / "icons" / "tessera.svg"


class MainWindow(QMainWindow):
    """The desktop viewer. `actions` holds every QAction by name (tests trigger them)."""

    puzzle_loaded = Signal(str)
    solving_finished = Signal(bool, int)  # cancelled?, count
    step_shown = Signal(float)
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
        self._frame_next = True
        self._play_clock = 0.0
        self.settings = QSettings("tessera", "viewer")

        # No MSAA: ghosted pieces need depth peeling, which renders wrongly with MSAA on Mesa;
        # FXAA smooths the edges instead.
        self.plotter = ViewerInteractor(self, auto_update=False, multi_samples=0)
        style_plotter(self.plotter, anti_aliasing="fxaa")
        export.add_lights(self.plotter)
        self.plotter.reset_key_events()
        self.setCentralWidget(self.plotter.interactor)
        self.renderer = SceneRenderer(self.plotter)
        self.handson = HandsOn(self)
        self.plotter.enable_mesh_picking(
            self.handson.on_pick, use_actor=True, left_clicking=True, show=False,
            show_message=False,
        )  # fmt: skip
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(0)
        self._render_timer.timeout.connect(self.render_now)

        self.actions: dict[str, QAction] = {}
        self._build_actions()
        self._build_docks()
        self._build_menus()
        self._build_status()

        self.play_timer = QTimer(self)
        self.play_timer.setInterval(PLAY_INTERVAL_MS)
        self.play_timer.timeout.connect(self._tick)

        self.state.events.puzzle.connect(self._on_puzzle)
        self.state.events.scene.connect(self._on_scene)
        self.state.events.step.connect(self._on_step)
        self.state.events.solutions.connect(self._on_solutions)
        self.state.events.mode.connect(self._on_mode)

    # -- construction ------------------------------------------------------------------------
    def _build_actions(self) -> None:
        self.actions.update(make_step_actions(self))
        self.mode_group, mode_actions = make_mode_actions(self)
        self.actions.update({f"mode_{k}": a for k, a in mode_actions.items()})
        a = self.actions
        a["first"].triggered.connect(self.state.first)
        a["back"].triggered.connect(self._back)
        a["forward"].triggered.connect(self._forward)
        a["last"].triggered.connect(self.state.last)
        a["play"].toggled.connect(self.set_playing)
        a["previous_solution"].triggered.connect(self.state.previous_solution)
        a["next_solution"].triggered.connect(self.state.next_solution)
        self.mode_group.triggered.connect(lambda action: self.set_mode(action.data()))
        for name, text, key, slot in (
            ("open", "&Open…", QKeySequence.StandardKey.Open, self.open_file_dialog),
            ("open_id", "Open game &ID…", "Ctrl+Shift+O", self.open_id_dialog),
            ("export_image", "Export &image…", "Ctrl+E", self.export_image_dialog),
            ("export_animation", "Export &animation…", "Ctrl+Shift+E",
             self.export_animation_dialog),
            ("quit", "&Quit", QKeySequence.StandardKey.Quit, self.close),
            ("reset_camera", "&Reset camera", "Ctrl+R", self.reset_camera),
            ("isometric", "&Isometric view", "Ctrl+I", self.isometric_view),
            ("cancel", "&Cancel solving", "Esc", self.cancel_solving),
        ):  # fmt: skip
            action = QAction(text, self)
            action.setShortcut(QKeySequence(key))
            action.setObjectName(name)
            action.triggered.connect(slot)
            self.actions[name] = action
            self.addAction(action)
        for name in ("first", "back", "play", "forward", "last"):
            self.addAction(self.actions[name])
        self._build_handson_actions()

    def _build_handson_actions(self) -> None:
        actions = make_handson_actions(self)
        self.actions.update(actions)
        h = self.handson
        for name, (axis, turns) in TURN_KEYS.items():
            actions[name].triggered.connect(lambda _=False, a=axis, t=turns: h.turn(a, t))
        for name, (axis, cells) in MOVE_KEYS.items():
            actions[name].triggered.connect(lambda _=False, a=axis, c=cells: h.move(a, c))
        actions["undo"].triggered.connect(h.undo)
        actions["redo"].triggered.connect(h.redo)
        actions["reset_play"].triggered.connect(h.reset)
        actions["hint"].triggered.connect(h.ask_hint)
        actions["apply_hint"].triggered.connect(h.apply_hint)
        actions["ghost"].toggled.connect(h.state.set_ghost)
        actions["export_stl"].triggered.connect(self.export_stl_dialog)
        for action in actions.values():
            self.addAction(action)
        self.update_handson_actions()

    def _build_docks(self) -> None:
        self.browser = PuzzleBrowser()
        self.browser.populate(self.recent_files())
        self.browser.open_requested.connect(self.open_puzzle)
        left = QDockWidget("Puzzles", self)
        left.setObjectName("puzzles")
        left.setWidget(self.browser)
        left.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, left)

        self.solution_panel = SolutionPanel()
        self.solution_panel.cancel_button.clicked.connect(self.cancel_solving)
        self.solution_panel.list.currentRowChanged.connect(self._list_row_changed)
        right = QDockWidget("Solutions", self)
        right.setObjectName("solutions")
        right.setWidget(self.solution_panel)
        right.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, right)

        mode_actions = {
            "solution": self.actions["mode_solution"],
            "search": self.actions["mode_search"],
            "play": self.actions["mode_play"],
        }
        self.step_bar = StepBar(self.actions, mode_actions, self)
        self.step_bar.slider.valueChanged.connect(self.state.set_step)
        self.step_bar.speed_changed.connect(lambda _: None)
        self.step_bar.addSeparator()
        self.step_bar.addAction(self.actions["reset_camera"])
        self.step_bar.addAction(self.actions["isometric"])
        self.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.step_bar)

        self.inspect_panel = InspectPanel(self.handson.state, self.handson.inspector)
        self.handson.message.connect(self.inspect_panel.message.setText)
        inside = QDockWidget("Inside", self)
        inside.setObjectName("inside")
        inside.setWidget(self.inspect_panel)
        inside.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, inside)
        self.handson_bar = HandsOnBar(self.actions, self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.handson_bar)

    def _build_menus(self) -> None:
        a = self.actions
        file_menu = self.menuBar().addMenu("&File")
        file_menu.addAction(a["open"])
        file_menu.addAction(a["open_id"])
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._fill_recent_menu()
        file_menu.addSeparator()
        file_menu.addAction(a["export_image"])
        file_menu.addAction(a["export_animation"])
        file_menu.addAction(a["export_stl"])
        file_menu.addSeparator()
        file_menu.addAction(a["quit"])
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(a["reset_camera"])
        view_menu.addAction(a["isometric"])
        view_menu.addAction(a["ghost"])
        step_menu = self.menuBar().addMenu("&Step")
        for name in ("first", "back", "play", "forward", "last"):
            step_menu.addAction(a[name])
        step_menu.addSeparator()
        step_menu.addAction(a["previous_solution"])
        step_menu.addAction(a["next_solution"])
        step_menu.addSeparator()
        step_menu.addAction(a["mode_solution"])
        step_menu.addAction(a["mode_search"])
        step_menu.addAction(a["mode_play"])
        step_menu.addSeparator()
        step_menu.addAction(a["cancel"])
        piece_menu = self.menuBar().addMenu("&Piece")
        for group in (
            ("turn_x_pos", "turn_x_neg", "turn_y_pos", "turn_y_neg", "turn_z_pos", "turn_z_neg"),
            ("move_x_neg", "move_x_pos", "move_y_neg", "move_y_pos", "move_z_neg", "move_z_pos"),
            ("undo", "redo", "reset_play"),
            ("hint", "apply_hint"),
        ):
            for name in group:
                piece_menu.addAction(a[name])
            piece_menu.addSeparator()

    def _build_status(self) -> None:
        self.status_puzzle = QLabel("no puzzle")
        self.status_solution = QLabel("")
        self.status_step = QLabel("")
        self.status_selected = QLabel("")
        self.status_selected.setObjectName("status_selected")
        for label in (
            self.status_selected, self.status_puzzle, self.status_solution, self.status_step,
        ):  # fmt: skip
            self.statusBar().addPermanentWidget(label)

    # -- puzzles -----------------------------------------------------------------------------
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
        self.set_playing(False)
        self.stop_worker()
        self._frame_next = True
        was_playing = self.handson.playing
        self.handson.leave_play()
        self.state.set_family(family)
        if was_playing and not self.handson.enter_play():
            self.actions[f"mode_{self.state.mode}"].setChecked(True)
        self.update_handson_actions()
        if label and (Path(label).exists() or family.source == label):
            self._remember(label)
        self.solution_panel.reset()
        self.worker = SolveWorker(family, self)
        self.worker.found.connect(self.state.add_solutions)
        self.worker.progress.connect(self.solution_panel.show_progress)
        self.worker.failed.connect(lambda msg: self.show_error(f"solver failed: {msg}"))
        self.worker.finished_search.connect(self._on_worker_finished)
        self.worker.start()
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

    def _on_worker_finished(self, cancelled: bool, count: int) -> None:
        self.solution_panel.finish(cancelled, count)
        self._update_status()
        self.solving_finished.emit(cancelled, count)

    @property
    def solving(self) -> bool:
        return self.worker is not None and self.worker.isRunning()

    def show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        self.last_error = message

    # -- recent files --------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []][:MAX_RECENT]

    def _remember(self, entry: str) -> None:
        entry = str(Path(entry).resolve()) if Path(entry).exists() else entry
        recent = [entry] + [r for r in self.recent_files() if r != entry]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.browser.populate(recent[:MAX_RECENT])
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for entry in self.recent_files():
            action = self.recent_menu.addAction(entry)
            action.triggered.connect(lambda _=False, e=entry: self.open_puzzle(e))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open puzzle", "", "Puzzles (*.toml *.json *.xmpuzzle *.kenken);;All files (*)"
        )
        if path:
            self.open_puzzle(path)

    def open_id_dialog(self) -> None:
        text, ok = QInputDialog.getText(self, "Open game ID", "Dominosa or Keen game ID:")
        if ok and text.strip():
            self.open_puzzle(text.strip())

    # -- stepping -----------------------------------------------------------------------------
    def _forward(self) -> None:
        self.set_playing(False)
        self.state.forward()

    def _back(self) -> None:
        self.set_playing(False)
        self.state.back()

    def set_mode(self, mode: str) -> None:
        """Solution, Search or Play (Play: polycube puzzles only)."""
        self.set_playing(False)
        if mode == "play":
            if not self.handson.enter_play():
                self.actions[f"mode_{self.state.mode}"].setChecked(True)
                self.show_error("Play mode is for polycube puzzles")
            else:
                self.actions["mode_play"].setChecked(True)
                self.inspect_panel.rebuild()
            self.update_handson_actions()
            self._update_status()
            return
        if self.handson.playing:
            self.handson.leave_play()
            if mode == self.state.mode and self.state.scene is not None:
                self._frame_next = True
                self._on_scene(self.state.scene)  # the same mode's scene, shown again
                self._on_step(self.state.step)
        self.state.set_mode(mode)
        self.update_handson_actions()

    @property
    def mode(self) -> str:
        return "play" if self.handson.playing else self.state.mode

    def set_playing(self, playing: bool) -> None:
        action = self.actions["play"]
        if action.isChecked() != playing:
            action.blockSignals(True)
            action.setChecked(playing)
            action.blockSignals(False)
        style = self.style()
        icon = style.StandardPixmap.SP_MediaPause if playing else style.StandardPixmap.SP_MediaPlay
        action.setIcon(style.standardIcon(icon))
        action.setText("Pause" if playing else "Play")
        if playing:
            if self.state.at_end:
                self.state.first()
            self._play_clock = time.monotonic()
            self.play_timer.start()
        else:
            self.play_timer.stop()
            if self.state.step % 1:
                self.state.set_step(round(self.state.step))

    @property
    def playing(self) -> bool:
        return self.play_timer.isActive()

    def _tick(self) -> None:
        now = time.monotonic()
        elapsed, self._play_clock = now - self._play_clock, now
        speed = self.step_bar.speed.value()
        self.state.set_step(self.state.step + speed * min(elapsed, 0.25))
        if self.state.at_end:
            self.set_playing(False)

    def _list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.state.set_solution(row)

    # -- state events -------------------------------------------------------------------------
    def _on_puzzle(self, family: Family) -> None:
        self.status_puzzle.setText(family.name)
        self.setWindowTitle(f"Tessera — {family.name}")

    def _on_scene(self, scene) -> None:
        if self.handson.playing:
            return  # Play mode owns the view; this scene is shown when it is left
        self.renderer.show(scene, self.state.step, frame=self._frame_next)
        self._frame_next = False
        self.handson.scene_replaced()
        self.inspect_panel.rebuild()
        row = self.state.solution_index
        if row >= 0 and self.solution_panel.list.currentRow() != row:
            self.solution_panel.list.blockSignals(True)
            self.solution_panel.list.setCurrentRow(row)
            self.solution_panel.list.blockSignals(False)

    def _on_step(self, step: float) -> None:
        if self.handson.playing:
            return
        self.renderer.apply(step)
        self.handson.stepped()
        self.render_now()
        self.step_bar.show_step(step, self.state.n_steps)
        self._update_status()
        self.step_shown.emit(step)

    def _on_solutions(self, count: int) -> None:
        self.solution_panel.add(count)
        self._update_status()

    def _on_mode(self, mode: str) -> None:
        if not self.handson.playing:
            self.actions[f"mode_{mode}"].setChecked(True)
        self.step_bar.speed.setValue(2.0 if mode == "solution" else 25.0)

    def _update_status(self) -> None:
        s = self.state
        n = len(s.solutions)
        more = "+" if self.solving else ""
        if self.handson.playing:
            self.status_solution.setText("Play mode")
        elif s.mode == "search":
            trace = s.trace
            cut = " (cut)" if trace is not None and trace.truncated else ""
            self.status_solution.setText(f"search trace{cut}")
        elif n:
            self.status_solution.setText(f"solution {s.solution_index + 1} of {n}{more}")
        else:
            self.status_solution.setText("no solution yet" if self.solving else "no solution")
        step = f"{s.step:.2f}".rstrip("0").rstrip(".")
        self.status_step.setText(f"step {step} of {s.n_steps}")
        if s.scene is not None and not self.handson.playing:
            depth = s.scene.depth(s.step)
            self.step_bar.depth_label.setText("" if depth is None else f" depth {depth}")
            self.statusBar().showMessage(s.scene.describe(s.step))

    # -- hands-on ------------------------------------------------------------------------------
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

    def show_selection(self, name: str) -> None:
        self.status_selected.setText(name)
        self.handson_bar.selected_label.setText(f"  selected: {name}" if name else "")
        if name:
            self.statusBar().showMessage(f"{name} selected")

    def update_handson_actions(self) -> None:
        """Turn/move need Play mode and a selected piece; undo/redo follow the model."""
        h = self.handson
        if not hasattr(self, "step_bar"):
            return
        playing = h.playing
        chosen = playing and h.selected_piece is not None
        for name in (*TURN_KEYS, *MOVE_KEYS):
            self.actions[name].setEnabled(chosen)
        model = h.model
        self.actions["undo"].setEnabled(playing and model is not None and model.can_undo)
        self.actions["redo"].setEnabled(playing and model is not None and model.can_redo)
        for name in ("reset_play", "hint", "apply_hint"):
            self.actions[name].setEnabled(playing)
        self.actions["mode_play"].setEnabled(h.can_play())
        for name in ("first", "back", "play", "forward", "last"):
            self.actions[name].setEnabled(not playing)
        self.actions["previous_solution"].setEnabled(not playing)
        self.actions["next_solution"].setEnabled(not playing)
        self.step_bar.slider.setEnabled(not playing)
        if model is not None:
            undo, redo = model.undo_label, model.redo_label
            self.actions["undo"].setText(f"Undo {undo}" if undo else "Undo")
            self.actions["redo"].setText(f"Redo {redo}" if redo else "Redo")

    def stl_source(self):
        """(puzzle, instances, assembly) for Export STL from what is on screen now."""
        family = self.state.family
        if family is None or family.family != "polycube":
            raise ValueError("STL export is for polycube puzzles")
        puzzle = family.puzzle
        if self.handson.playing:
            model = self.handson.model
            instances = [(p.piece, model.cells(p.index)) for p in model.pieces]
            return puzzle, instances, ("assembly-play", "play table")
        if self.state.mode == "solution" and self.state.solution is not None:
            number = self.state.solution_index + 1
            instances = [(p.piece, p.cells) for p in self.state.solution.pieces]
            return puzzle, instances, (f"assembly-{number}", f"solution {number}")
        return puzzle, None, None

    def export_stl(
        self, folder: str | Path, cell_mm: float = 20.0, gap_mm: float = 0.0, whole: bool = False
    ) -> list[tuple[Path, float]]:
        """Write the pieces shown (or the whole assembly) as STL; returns (path, volume mm³)."""
        puzzle, instances, assembly = self.stl_source()
        written = export_stl(folder, puzzle, instances, assembly, whole, cell_mm, gap_mm)
        self.statusBar().showMessage(f"wrote {len(written)} STL file(s) to {folder}", 10000)
        return written

    def export_stl_dialog(self) -> None:
        try:
            _, instances, _ = self.stl_source()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        dialog = StlDialog(self, can_assemble=instances is not None)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        folder = QFileDialog.getExistingDirectory(self, "Export STL into folder")
        if not folder:
            return
        try:
            self.export_stl(
                folder, dialog.cell_mm.value(), dialog.gap_mm.value(), dialog.whole.isChecked()
            )
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self, "Export failed", str(exc))

    # -- camera -------------------------------------------------------------------------------
    def reset_camera(self) -> None:
        self.renderer.frame_camera()
        self.plotter.render()

    def isometric_view(self) -> None:
        self.renderer.isometric()
        self.plotter.render()

    # -- export -------------------------------------------------------------------------------
    def export_image(self, path: str | Path, size=(1600, 1200), transparent=False, supersample=2):
        """Save the current step as a PNG, seen from the current camera."""
        if self.state.scene is None:
            return None
        image = export.render_image(
            self.state.scene, self.state.step, tuple(size), transparent, supersample,
            camera=self.plotter.camera_position,
        )  # fmt: skip
        export.save_png(path, image)
        return image

    def export_animation(
        self, path: str | Path, fps=12.0, size=(640, 480), orbit=0.0, frames_per_step=8,
        progress: QProgressDialog | None = None,
    ) -> int:  # fmt: skip
        """Save the current solution's steps (or the search trace) as a GIF or MP4."""
        if self.state.scene is None:
            return 0
        steps = export.animation_steps(self.state.scene, self.state.mode, frames_per_step)

        def on_frame(i: int, n: int) -> bool:
            if progress is None:
                return False
            progress.setMaximum(n)
            progress.setValue(i)
            return progress.wasCanceled()

        return export.export_animation(
            self.state.scene, path, steps, fps, tuple(size), orbit, on_frame=on_frame,
            camera=self.plotter.camera_position,
        )  # fmt: skip

    def export_image_dialog(self) -> None:
        dialog = ExportDialog(self, animation=False)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export image", "tessera.png", "PNG (*.png)")
        if path:
            self.export_image(path, dialog.size(), dialog.transparent.isChecked(), dialog.k.value())

    def export_animation_dialog(self) -> None:
        dialog = ExportDialog(self, animation=True)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Export animation", "tessera.gif", "GIF (*.gif);;MP4 video (*.mp4)"
        )
        if not path:
            return
        progress = QProgressDialog("Exporting frames…", "Cancel", 0, 100, self)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)
        try:
            self.export_animation(
                path, dialog.fps.value(), dialog.size(), dialog.orbit.value(), progress=progress
            )
        except Exception as exc:  # an encoder problem is a message, not a crash
            QMessageBox.warning(self, "Export failed", str(exc))
        finally:
            progress.close()
            progress.deleteLater()

    # -- screenshots and teardown ------------------------------------------------------------------
    def save_screenshot(self, path: str | Path) -> bool:
        """A grab of the whole window, 3D view included (what a person sees)."""
        self.plotter.render_still()
        return self.grab().save(str(path))

    def closeEvent(self, event) -> None:
        self.play_timer.stop()
        self._render_timer.stop()
        self.handson.shutdown()
        self.stop_worker()
        for worker in self._old_workers:
            worker.wait(2000)
        self.renderer.clear()
        self.plotter.close()
        super().closeEvent(event)


class ExportDialog(QDialog):
    """Size, transparency and supersampling for a still; size, fps and orbit for an animation."""

    def __init__(self, parent, animation: bool) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export animation" if animation else "Export image")
        form = QFormLayout(self)
        self.width_box, self.height_box = QSpinBox(), QSpinBox()
        for box, value in (
            (self.width_box, 640 if animation else 1600),
            (self.height_box, 480 if animation else 1200),
        ):
            box.setRange(16, 8192)
            box.setValue(value)
        form.addRow("width", self.width_box)
        form.addRow("height", self.height_box)
        self.transparent = QCheckBox("transparent background")
        self.k = QSpinBox()
        self.k.setRange(1, 4)
        self.k.setValue(2)
        self.fps = QSpinBox()
        self.fps.setRange(1, 60)
        self.fps.setValue(12)
        self.orbit = QSpinBox()
        self.orbit.setRange(0, 720)
        self.orbit.setSuffix("°")
        if animation:
            form.addRow("frames per second", self.fps)
            form.addRow("turntable orbit", self.orbit)
        else:
            form.addRow("", self.transparent)
            form.addRow("supersampling", self.k)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def size(self) -> tuple[int, int]:  # type: ignore[override]
        return self.width_box.value(), self.height_box.value()
