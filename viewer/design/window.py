"""Design mode's window: pieces | 3D editor | layers, the analysis badge in the status bar.

Composition only; each job has its module and follows the `DesignDocument` (models/design.py)
through its psygnal events:

| module | job |
|---|---|
| viewer/design/editor.py | the 3D view: click a face to add, Shift/right click to remove, hover |
| viewer/design/layers.py | the layer view: one 2D grid per z-layer, a second way to edit |
| viewer/design/panel.py | the target and pieces: add, duplicate, delete, rename, colour, copies |
| viewer/design/analysis.py | the debounced live count in a worker thread, and its badge |
| viewer/design/scene.py | the editor's scene (Qt-free, drawn by viewer/render.py's renderer) |

Every key is a QAction (tests trigger them; VTK's one-letter keys never reach VTK). Files:
Save / Save As write format 1 TOML, Export writes BurrTools XML; closing, New and Open ask
first when there are unsaved changes (`ask_unsaved`, which tests replace).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QToolBar,
)

from tessera.models.assets import ASSETS
from tessera.models.design import TARGET, DesignDocument, DesignError
from tessera.models.errors import NoSolution, PuzzleError
from tessera.viewer import export
from tessera.viewer.design.analysis import AnalysisRunner, Badge
from tessera.viewer.design.editor import Editor3D
from tessera.viewer.design.layers import LayerView
from tessera.viewer.design.panel import ShapePanel
from tessera.viewer.perf import ViewerInteractor
from tessera.viewer.render import SceneRenderer, style_plotter

ICON = ASSETS / "icons" / "tessera.svg"
OPEN_FILES = "Polycube puzzles (*.toml *.json *.xmpuzzle *.soma);;All files (*)"
SAVE_FILES = "Tessera puzzle (*.toml)"
EXPORT_FILES = "BurrTools puzzle (*.xmpuzzle)"


class DesignWindow(QMainWindow):
    """The editor. `actions` holds every QAction by name; `doc` is the document."""

    #: the counted puzzle, as a `solvers.registry.LoadedPuzzle`, when the badge is clicked
    solutions_requested = Signal(object)

    def __init__(self, parent=None, doc: DesignDocument | None = None) -> None:
        super().__init__(parent)
        if ICON.exists():
            self.setWindowIcon(QIcon(str(ICON)))
        self.resize(1200, 760)
        self.doc = doc or DesignDocument()
        self.last_error = ""
        self.solution_windows: list = []  # main windows opened by the badge
        self.opens_main_window = True
        self.plotter = ViewerInteractor(self, auto_update=False, multi_samples=0)
        style_plotter(self.plotter, anti_aliasing="fxaa")
        export.add_lights(self.plotter)
        self.plotter.reset_key_events()
        from tessera.viewer.window import VtkKeyFilter

        self._key_filter = VtkKeyFilter(self)
        self.plotter.interactor.installEventFilter(self._key_filter)
        self.setCentralWidget(self.plotter.interactor)
        self.renderer = SceneRenderer(self.plotter)
        self.editor = Editor3D(self.doc, self.renderer, self)
        self.panel = ShapePanel(self.doc)
        self.layers = LayerView(self.doc)
        self._dock("Shapes", "shapes", self.panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self._dock("Layers", "layers", self.layers, Qt.DockWidgetArea.RightDockWidgetArea)
        self.runner = AnalysisRunner(self.doc, self)
        self.badge = Badge(self.runner)
        self.badge.open_requested.connect(self.open_solutions)
        self.message = QLabel()
        self.statusBar().addWidget(self.message, 1)
        self.statusBar().addPermanentWidget(self.badge)
        self.actions = self._make_actions()
        self._build_menus()
        self.doc.events.changed.connect(self._changed)
        self.doc.events.dirty.connect(self._update_title)
        self.doc.events.path.connect(self._update_title)
        self.doc.events.history.connect(self._history)
        self.doc.events.current.connect(self._current)
        self.editor.hover_changed.connect(self._hover)
        self._update_title()
        self._history(self.doc.can_undo, self.doc.can_redo)
        self._current(self.doc.current)
        self.runner.schedule()

    def _dock(self, title: str, name: str, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.addDockWidget(area, dock)
        return dock

    # -- actions ------------------------------------------------------------------------------
    def _make_actions(self) -> dict[str, QAction]:
        a: dict[str, QAction] = {}

        def add(name, text, slot=None, shortcut=None, checkable=False, tip="") -> QAction:
            action = QAction(text, self)
            action.setObjectName(name)
            if shortcut:
                action.setShortcut(QKeySequence(shortcut))
            action.setCheckable(checkable)
            if tip:
                action.setToolTip(tip)
            if slot is not None:
                (action.toggled if checkable else action.triggered).connect(slot)
            self.addAction(action)
            a[name] = action
            return action

        add("new", "&New", self.new_document, QKeySequence.StandardKey.New)
        add("new_soma", "New &Soma figure", self.new_soma_figure, "Ctrl+Shift+N",
            tip="the seven Soma pieces: draw only the figure")  # fmt: skip
        add("open", "&Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        add("save", "&Save", self.save, QKeySequence.StandardKey.Save)
        add("save_as", "Save &As…", self.save_as_dialog, QKeySequence.StandardKey.SaveAs)
        add("export_xmpuzzle", "&Export BurrTools (.xmpuzzle)…", self.export_dialog)
        add("close", "&Close", self.close, QKeySequence.StandardKey.Close)
        add("undo", "&Undo", self.doc.undo, QKeySequence.StandardKey.Undo)
        add("redo", "&Redo", self.doc.redo, QKeySequence.StandardKey.Redo)
        for name in ("undo", "redo"):  # the toolbar keeps the short word, the menu says what
            a[name].setIconText(name.capitalize())
        add("optional_brush", "Optional (+) brush", self._set_brush, "O", True,
            "added target cubes are optional: they may stay empty")  # fmt: skip
        for axis in "xyz":
            add(f"mirror_{axis}", f"Mirror {axis}", self._mirror_toggled, None, True,
                f"draw mirrored across the shape's middle plane along {axis}")  # fmt: skip
        for axis in "xyz":
            add(f"turn_{axis}", f"Turn about {axis}", lambda _=False, x=axis: self.doc.rotate(x))
        for axis in "xyz":
            add(f"flip_{axis}", f"Flip along {axis}", lambda _=False, x=axis: self.doc.flip(x))
        for axis in "xyz":
            for sign, delta in (("+", 1), ("-", -1)):
                add(f"nudge_{axis}{sign}", f"Move {sign}{axis}",
                    lambda _=False, x=axis, d=delta: self.doc.nudge(x, d))  # fmt: skip
        add("clear_shape", "Clear shape", lambda: self.doc.clear_shape())
        add("reset_camera", "Reset camera", self.editor.frame, "Home")
        add("open_solutions", "Show solutions", self.open_solutions, "Ctrl+Return")
        add("stop", "Stop counting", self.runner.stop, "Escape")
        return a

    def _build_menus(self) -> None:
        a = self.actions
        bar = self.menuBar()
        menus = {
            "&File": ["new", "new_soma", "open", None, "save", "save_as", "export_xmpuzzle",
                      None, "close"],
            "&Edit": ["undo", "redo", None, "optional_brush", "mirror_x", "mirror_y",
                      "mirror_z", None, "clear_shape"],
            "&Shape": ["turn_x", "turn_y", "turn_z", None, "flip_x", "flip_y", "flip_z", None,
                       "nudge_x+", "nudge_x-", "nudge_y+", "nudge_y-", "nudge_z+", "nudge_z-"],
            "&View": ["reset_camera", None, "open_solutions", "stop"],
        }  # fmt: skip
        for title, names in menus.items():
            menu = bar.addMenu(title)
            for name in names:
                if name is None:
                    menu.addSeparator()
                else:
                    menu.addAction(a[name])
        tools = QToolBar("Design")
        tools.setObjectName("design_tools")
        for name in ("new_soma", "open", "save", None, "undo", "redo", None, "optional_brush",
                     "mirror_x", "mirror_y", "mirror_z", None, "turn_x", "turn_y", "turn_z",
                     "flip_x", None, "reset_camera"):  # fmt: skip
            if name is None:
                tools.addSeparator()
            else:
                tools.addAction(a[name])
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tools)

    def _set_brush(self, on: bool) -> None:
        self.editor.optional_brush = self.layers.optional_brush = on

    def _mirror_toggled(self, _on: bool) -> None:
        axes = {axis for axis in "xyz" if self.actions[f"mirror_{axis}"].isChecked()}
        self.editor.mirror = axes
        self.layers.mirror = axes

    # -- following the document -----------------------------------------------------------------
    def _changed(self, label: str) -> None:
        self.say(label)
        self._update_title()

    def _history(self, can_undo: bool, can_redo: bool) -> None:
        a = self.actions
        a["undo"].setEnabled(can_undo)
        a["redo"].setEnabled(can_redo)
        a["undo"].setText(f"&Undo {self.doc.undo_label}" if can_undo else "&Undo")
        a["redo"].setText(f"&Redo {self.doc.redo_label}" if can_redo else "&Redo")

    def _current(self, shape: int) -> None:
        self.actions["optional_brush"].setEnabled(shape == TARGET)

    def _hover(self, hover) -> None:
        if hover is None:
            self.message.setText("")
            return
        cell, _normal, what = hover
        if what == "remove":
            self.message.setText(f"click removes the cube at {list(cell)}")
        elif what == "ground":
            self.message.setText(f"click adds a cube at {list(cell)}")
        else:
            self.message.setText(f"cube {list(cell)}: click grows the marked face")

    def _update_title(self, *_args) -> None:
        where = self.doc.path.name if self.doc.path else "not saved"
        self.setWindowTitle(f"Tessera — Design — {self.doc.name} ({where})[*]")
        self.setWindowModified(self.doc.dirty)

    def say(self, text: str) -> None:
        self.message.setText(text)

    def show_error(self, text: str) -> None:
        self.last_error = text
        self.message.setText(text)

    # -- files --------------------------------------------------------------------------------
    def ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' for a document with unsaved changes (tests replace
        this; a modal box would block them)."""
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Unsaved changes")
        box.setText(f"Save the changes to {self.doc.name}?")
        box.setStandardButtons(
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        answer = box.exec()
        return {
            QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard",
        }.get(QMessageBox.StandardButton(answer), "cancel")

    def may_discard(self) -> bool:
        """Whether the document may be replaced or closed (asking first when dirty)."""
        if not self.doc.dirty:
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_document(self) -> bool:
        if not self.may_discard():
            return False
        self.doc.new()
        return True

    def new_soma_figure(self) -> bool:
        if not self.may_discard():
            return False
        self.doc.new_soma_figure()
        return True

    def open_file(self, name_or_path: str, ask: bool = True) -> bool:
        """Any polycube puzzle (file or built-in name) into the editor; False with the reason
        in the status bar when it cannot be read or is not a polycube puzzle."""
        from tessera.solvers.registry import load

        if ask and not self.may_discard():
            return False
        try:
            loaded = load(name_or_path, family="polycube")
        except (PuzzleError, NoSolution, OSError) as exc:
            self.show_error(f"could not open {Path(str(name_or_path)).name}: {exc}")
            return False
        source = Path(loaded.source)
        # Save writes TOML: it may go back to a TOML file, never over a BurrTools or yass file.
        keep = source if source.suffix.lower() == ".toml" and source.exists() else None
        if keep is not None and keep.parent.resolve() == ASSETS.joinpath("puzzles").resolve():
            keep = None  # a built-in puzzle is never overwritten
        self.doc.open_puzzle(loaded.puzzle, keep)
        self.editor.frame()
        self.say(f"opened {source.name}" + (": " + "; ".join(loaded.puzzle.warnings)
                                            if loaded.puzzle.warnings else ""))  # fmt: skip
        return True

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open puzzle", "", OPEN_FILES)
        if path:
            self.open_file(path)

    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as_dialog()
        return self.save_to(self.doc.path)

    def save_to(self, path: str | Path) -> bool:
        try:
            saved = self.doc.save(path)
        except (DesignError, OSError) as exc:
            self.show_error(f"not saved: {str(exc).removeprefix('None: ')}")
            return False
        self.say(f"saved {saved}")
        return True

    def save_as_dialog(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save puzzle", "", SAVE_FILES)
        if not path:
            return False
        if not path.lower().endswith(".toml"):
            path += ".toml"
        return self.save_to(path)

    def export_to(self, path: str | Path) -> bool:
        try:
            self.doc.export_xmpuzzle(path)
        except (DesignError, OSError) as exc:
            self.show_error(f"not exported: {str(exc).removeprefix('None: ')}")
            return False
        self.say(f"exported {path}")
        return True

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export puzzle", "", EXPORT_FILES)
        if path:
            self.export_to(path if path.lower().endswith(".xmpuzzle") else path + ".xmpuzzle")

    # -- solutions ----------------------------------------------------------------------------
    def loaded_puzzle(self):
        """The document as the registry's `LoadedPuzzle` (what the main window opens)."""
        from tessera.solvers.registry import FAMILIES, LoadedPuzzle

        puzzle = self.doc.to_puzzle()
        source = str(self.doc.path) if self.doc.path else f"{self.doc.name} (design)"
        return LoadedPuzzle(puzzle, source, FAMILIES["polycube"], name=self.doc.name)

    def open_solutions(self) -> None:
        """The badge's click: the counted puzzle in the main window's Solution mode. A
        host that shows them itself (the main window's Design mode) listens to
        `solutions_requested` and sets `opens_main_window` False; otherwise a window opens."""
        last = self.runner.last
        if last is None or last.status != "counted" or not last.solutions:
            return
        if any(p.is_range for p in self.doc.pieces):
            self.show_error("piece ranges: the solutions of each count are not listed yet")
            return
        try:
            loaded = self.loaded_puzzle()
        except DesignError as exc:
            self.show_error(str(exc))
            return
        self.solutions_requested.emit(loaded)
        if not self.opens_main_window:
            return
        from tessera.viewer.window import MainWindow

        window = MainWindow()
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.show()
        window.set_family(loaded, None)
        window.set_mode("solution")
        self.solution_windows.append(window)
        window.destroyed.connect(lambda *_: self._forget(window))

    def _forget(self, window) -> None:
        if window in self.solution_windows:
            self.solution_windows.remove(window)

    # -- screenshots and teardown -----------------------------------------------------------------
    def save_screenshot(self, path: str | Path) -> bool:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        self.plotter.render_still()
        return self.grab().save(str(path))

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if not self.may_discard():
            event.ignore()
            return
        self.runner.shutdown()
        self.editor.shutdown()
        self.renderer.clear()
        self.plotter.close()
        super().closeEvent(event)
