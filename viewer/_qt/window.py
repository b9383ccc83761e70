"""The main window: browser | 3D scene | solutions, step bar below, status bar.

This module composes; each job lives in its own module and follows the `ViewerState`
(viewer/state.py) through its psygnal events. Widgets listen and forward; nothing in them
decides what a scene shows.

| module | job |
|---|---|
| viewer/_qt/actions.py | every QAction, the menus, what each is wired to, which are enabled |
| viewer/_qt/docks.py | the panels and toolbars and where they sit |
| viewer/_qt/modes.py | mode switching: which widgets each mode shows, the title |
| viewer/_qt/replay.py | the replay scene on screen, fades, trace jumps, the list's highlight |
| viewer/_qt/solving.py | the solve worker's wiring (viewer/_qt/worker.py is the job) |
| viewer/_qt/files.py | open a file, game ID or folder, recent files |
| viewer/_qt/background.py | the one worker thread pattern (solver, count, gallery, hints) |
| viewer/_qt/render_batch.py | coalesced renders: a burst of changes costs one frame |
| viewer/_qt/playback.py | play / pause: a timer that moves the step |
| viewer/_qt/status.py | the status bar labels and the transient message |
| viewer/_qt/recent.py | recent files (QSettings), File ▸ Open recent |
| viewer/_qt/export_actions.py | File ▸ Export image / animation / STL |
| viewer/_qt/handson.py | picking, the Play table, hints, the inspector |
| viewer/_qt/controls.py | the browser, solution list, step bar and hands-on bar widgets |
| viewer/_qt/minimap.py | Search mode's depth mini-map under the slider |
| viewer/_qt/dialogs.py | error dialogs, About, keyboard shortcuts, Preferences (QSettings) |
| viewer/_qt/design/mode.py | Design mode: the editor, its panel, layers, badge, actions and files |

What stays here: building the view (pieces are separate actors placed by `user_matrix`,
viewer/render.py) and the parts, the names tests and the app call them by, the theme, the
camera, the screenshot, and an orderly close. VTK's own one-letter keys (w: wireframe,
3: stereo, e/q: quit the interactor, ...) never reach VTK: every key is a QAction's.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QMainWindow

from tessera.models.assets import ASSETS
from tessera.viewer import export
from tessera.viewer._qt.actions import ActionSync, build_menus, make_actions, wire_actions
from tessera.viewer._qt.design.mode import DesignMode
from tessera.viewer._qt.dialogs import Preferences, PreferencesDialog, ShortcutsDialog, about_box
from tessera.viewer._qt.docks import build_panels
from tessera.viewer._qt.export_actions import Exporter
from tessera.viewer._qt.files import Files
from tessera.viewer._qt.handson import HandsOn
from tessera.viewer._qt.modes import ModeSwitch
from tessera.viewer._qt.perf import ViewerInteractor
from tessera.viewer._qt.playback import Playback
from tessera.viewer._qt.recent import RecentFiles
from tessera.viewer._qt.render_batch import RenderBatch
from tessera.viewer._qt.replay import Replay
from tessera.viewer._qt.solving import Solving
from tessera.viewer._qt.status import StatusLine
from tessera.viewer.families import Family
from tessera.viewer.gizmo import contrast_labels
from tessera.viewer.render import SceneRenderer, set_theme, style_plotter
from tessera.viewer.state import ViewerState

ICON = ASSETS / "icons" / "tessera.svg"


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
        self.docks = {}
        self._closed = False
        self.last_error = ""
        self.error_dialog = None  # the last error box opened (tests look at it)
        self.prefs = Preferences()
        self.theme = self.prefs.theme
        self._build_view()
        self.actions, self.mode_group = make_actions(self)
        self.recent = RecentFiles(self)
        self.exporter = Exporter(self.state, self.plotter, self, view=self.export_view)
        self.design = DesignMode(self, self.renderer, self.renders)
        self._build_panels()
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
        self._build_parts()
        self.apply_theme(self.theme)
        self.modes.show_mode_widgets()
        self.modes.update_title()
        geometry = self.prefs.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)

    # -- composition ---------------------------------------------------------------------------
    def _build_view(self) -> None:
        """The 3D view, its renderer and batching of frames, and the hands-on controller."""
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
        self.renders = RenderBatch(self.plotter, self)
        self.renders.rendered.connect(self.rendered)
        self.handson = HandsOn(self.state, self.renderer, self)
        self.handson.frame.connect(self.schedule_render)
        self.plotter.enable_mesh_picking(
            self.handson.on_pick, use_actor=True, left_clicking=True, show=False,
            show_message=False,
        )  # fmt: skip

    def _build_panels(self) -> None:
        panels = build_panels(self, self.state, self.actions, self.handson, self.design)
        self.browser, self.solution_panel = panels.browser, panels.solution_panel
        self.step_bar, self.inspect_panel = panels.step_bar, panels.inspect_panel
        self.handson_bar = panels.handson_bar
        self.docks.update(panels.docks)
        self.recent_menu = build_menus(self.menuBar(), self.actions)
        bar = self.menuBar()
        bar.insertMenu(bar.actions()[-1], self.design.menu)  # before Help

    def _build_parts(self) -> None:
        """The jobs the window delegates, each following the state: the replay on screen, the
        solver, the files, the modes; then the actions wired to them. The order is the order
        their state listeners run in."""
        state, h = self.state, self.handson
        self.replay = Replay(
            state, self.renderer, h, self.step_bar, self.solution_panel, self.playback,
            self.render_now, self,
        )  # fmt: skip
        self.replay.step_shown.connect(self.step_shown)
        self.solver = Solving(state, self.solution_panel, self.status, self.show_error, self)
        self.solver.finished.connect(self.solving_finished)
        self.files = Files(self, self.recent)
        self.browser.open_requested.connect(self.files.open_puzzle)
        self.modes = ModeSwitch(self)
        wire_actions(self)
        self.step_bar.slider.valueChanged.connect(state.set_step)
        self.step_bar.step_requested.connect(self.replay.go_to_step)
        self.exporter.saved.connect(self.status.show_saved)
        self.solution_panel.cancel_button.clicked.connect(self.solver.cancel)
        self.solution_panel.chosen.connect(self.replay.list_row_changed)
        h.selection_changed.connect(self.status.show_selection)
        h.selection_changed.connect(self.handson_bar.show_selection)
        h.scene_shown.connect(self.inspect_panel.rebuild)
        state.events.message.connect(self.inspect_panel.show_message)
        state.events.solutions.connect(self.solution_panel.add)

    # -- what the parts do, by the names tests and the app use -----------------------------------
    def open_puzzle(self, name_or_path: str) -> bool:
        """Load a file, built-in or game ID and solve it (see `files.Files.open_puzzle`)."""
        return self.files.open_puzzle(name_or_path)

    def set_family(self, family: Family, label: str | None = None) -> None:
        self.files.set_family(family, label)

    def open_gallery(self, folder: str):
        return self.files.open_gallery(folder)

    def open_design(self):
        """File ▸ Design mode: the editor on the puzzle shown, in this window (returned)."""
        self.set_mode("design")
        return self

    def recent_files(self) -> list[str]:
        return self.recent.entries()

    def set_mode(self, mode: str) -> None:
        """Solution, Search, Play or Design (see `modes.ModeSwitch.set_mode`)."""
        self.modes.set_mode(mode)

    @property
    def mode(self) -> str:
        return self.state.mode

    def set_playing(self, playing: bool) -> None:
        self.playback.set_playing(playing)

    @property
    def playing(self) -> bool:
        return self.playback.playing

    def jump(self, kind: int, direction: int) -> bool:
        return self.replay.jump(kind, direction)

    @property
    def worker(self):
        """The solve worker of the puzzle shown (None before one); `worker.job` is its
        `SolveJob`."""
        return self.solver.worker

    @property
    def solving(self) -> bool:
        return self.solver.solving

    def stop_worker(self, wait_ms: int = 5000) -> None:
        self.solver.stop(wait_ms)

    def cancel_solving(self) -> None:
        self.solver.cancel()

    def cancel(self) -> None:
        """Esc: stop the design's count in Design mode, else the solver."""
        if self.state.mode == "design":
            self.design.runner.stop()
        else:
            self.solver.cancel()

    def show_error(self, message: str) -> None:
        self.status.show_error(message)
        self.last_error = message

    # -- theme and help -------------------------------------------------------------------------
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
        contrast_labels(self.plotter)
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
        self.replay.settle_camera()
        camera = self.plotter.camera
        w, h = self.plotter.window_size
        replaying = self.state.mode in ("solution", "search")
        return export.View(
            camera=self.plotter.camera_position,
            parallel_scale=camera.parallel_scale if camera.parallel_projection else None,
            inspect=self.handson.state,
            theme=self.theme,
            follow=replaying and self.replay.following and not self.replay.user_moved(),
            aspect=w / max(h, 1),
        )

    # -- rendering and camera ---------------------------------------------------------------------
    def schedule_render(self) -> None:
        """Render once the current burst of changes is over (`render_batch.RenderBatch`)."""
        self.renders.schedule()

    def render_now(self) -> None:
        self.renders.render_now()

    @property
    def render_pending(self) -> bool:
        return self.renders.pending

    def reset_camera(self) -> None:
        """Frame what is shown now; in Solution and Search the camera follows the steps again
        (an orbit or zoom had stopped it: `replay.Replay.reframe`)."""
        if self.state.mode in ("solution", "search"):
            self.replay.reframe()
        else:
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
        self.replay.settle_camera()
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
        # nothing the state announces from now on (a batch of solutions still queued from the
        # worker, a step) may reach the widgets: they would draw on a closed render window,
        # which VTK answers with a crash, not an error
        self.state.events.block()
        self.files.close_galleries()
        self.prefs.set_geometry(self.saveGeometry())
        self.replay.stop_fade()
        self.replay.stop_camera()
        self.playback.pause()
        self.renders.close()
        self.handson.shutdown()
        self.design.shutdown()
        self.solver.shutdown()
        self.renderer.clear()
        self.plotter.close()
        super().closeEvent(event)
