"""Design mode of the main window: the editor's parts, its actions and files, in one place.

Design is a mode of the one window (`viewer/_qt/window.py`), beside Solution, Search and Play:
the window docks the side panel and the layer view, puts the toolbar, the Design menu and the
badge up, and hands the render widget to the editor while the mode lasts. This object owns what
the mode adds and follows the `DesignDocument` (models/design.py) through its psygnal events:

| module | job |
|---|---|
| `_qt/design/editor.py` | the 3D view: click a face to add, Shift/right click to remove |
| viewer/_qt/design/layers.py | the layer view: one 2D grid per z-layer, a second way to edit |
| `_qt/design/panel.py` | the target and pieces: add, duplicate, delete, rename, colour |
| viewer/_qt/design/analysis.py | the debounced live count in a worker thread, and its badge |
| viewer/scenes/design.py | the editor's scene (Qt-free, drawn by viewer/render.py's renderer) |

**The document and the window's puzzle.** The document is linked to the puzzle the window
shows (`link`): entering Design opens that puzzle into the document unless it is the one the
document already holds (so the undo history survives a trip to Solution mode and back);
leaving Design hands the window the edited puzzle (`leaving_puzzle`) when the drawing changed
since, and the window solves it. Unsaved changes are asked about (`may_discard`) before the
window loads another puzzle, and before it closes.

**The grid.** A document is drawn on one of BurrTools' five grids (`DesignState.grid`); the
toolbar's grid box shows which, and choosing another there, or Design ▸ New puzzle on ▸ a grid,
starts a new document on it (unsaved changes are asked about first). New puzzle keeps the grid
the box shows.

Every key is a QAction added to the window (tests trigger them; VTK's one-letter keys never
reach VTK), enabled only in Design mode, so a key shared with another mode's action (Ctrl+Z,
Ctrl+Shift+S) is never ambiguous. Files: Save / Save As write format 1 TOML, or a yass `.soma`
figure (which keeps pre-placed pieces); Export writes BurrTools XML.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QToolBar,
    QWidget,
)

from tessera.models.assets import ASSETS
from tessera.models.design import TARGET, DesignDocument, DesignError, DesignState
from tessera.models.grids import GRIDS, Grid
from tessera.viewer._qt.design.analysis import AnalysisRunner, Badge
from tessera.viewer._qt.design.editor import Editor3D
from tessera.viewer._qt.design.layers import LayerView
from tessera.viewer._qt.design.panel import ShapePanel
from tessera.viewer.render import SceneRenderer

TOML_FILES = "Tessera puzzle (*.toml)"
SOMA_FILES = "yass Soma figure (*.soma)"
EXPORT_FILES = "BurrTools puzzle (*.xmpuzzle)"
#: The menu's layout (None: a separator; a tuple: a submenu's title and its actions).
MENU = (
    "new", ("New puzzle &on", tuple(f"new_{g.name}" for g in GRIDS)), "new_soma", None,
    "save", "save_as", "export_xmpuzzle", None,
    "undo", "redo", None, "optional_brush", "mirror_x", "mirror_y", "mirror_z", None,
    ("&Shape", ("turn_x", "turn_y", "turn_z", None, "flip_x", "flip_y", "flip_z", None,
                "nudge_x+", "nudge_x-", "nudge_y+", "nudge_y-", "nudge_z+", "nudge_z-")),
    "clear_shape", "release_placed", None, "open_solutions", "stop",
)  # fmt: skip
TOOLBAR = (
    "new_soma", "save", None, "undo", "redo", None, "optional_brush", "mirror_x", "mirror_y",
    "mirror_z", None, "turn_x", "turn_y", "turn_z", "flip_x",
)  # fmt: skip


class DesignMode(QObject):
    """The editor inside a host window. `actions` holds its QActions by name, `doc` is the
    document; `set_active` shows or hides everything the mode adds."""

    #: the badge was clicked on a count: the host shows the solutions (Solution mode)
    solutions_requested = Signal()
    #: the title's facts changed (name, file, unsaved changes)
    title_changed = Signal()

    def __init__(self, host: QWidget, renderer: SceneRenderer, renders=None) -> None:
        super().__init__(host)
        self.host = host
        self.doc = DesignDocument()
        self.active = False
        self.last_error = ""
        self.linked_family = None  # the window's puzzle the document was opened from / gave
        self.linked_state: DesignState = self.doc.state  # the drawing at that moment
        self.editor = Editor3D(self.doc, renderer, self, renders)
        self.panel = ShapePanel(self.doc)
        self.layers = LayerView(self.doc)
        self.runner = AnalysisRunner(self.doc, self)
        self.badge = Badge(self.runner)
        self.badge.open_requested.connect(self.open_solutions)
        self.message = QLabel()
        self.message.setObjectName("design_message")
        self.actions = self._make_actions()
        self.menu = self._build_menu()
        self.grid_box = self._build_grid_box()
        self.toolbar = self._build_toolbar()
        self.doc.events.changed.connect(self._changed)
        self.doc.events.changed.connect(self._show_grid)
        self.doc.events.dirty.connect(self.title_changed.emit)
        self.doc.events.path.connect(self.title_changed.emit)
        self.doc.events.history.connect(self._sync_actions)
        self.doc.events.current.connect(self._sync_actions)
        self.editor.hover_changed.connect(self._hover)
        self.editor.refused.connect(self.say)
        self.set_active(False)

    # -- actions ------------------------------------------------------------------------------
    def _make_actions(self) -> dict[str, QAction]:
        a: dict[str, QAction] = {}

        def add(name, text, slot=None, shortcut=None, checkable=False, tip="") -> QAction:
            action = QAction(text, self.host)
            action.setObjectName(f"design_{name}")
            if shortcut:
                action.setShortcut(QKeySequence(shortcut))
                action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setCheckable(checkable)
            if tip:
                action.setToolTip(tip)
            if slot is not None:
                (action.toggled if checkable else action.triggered).connect(slot)
            self.host.addAction(action)
            a[name] = action
            return action

        add("new", "&New puzzle", lambda: self.new_document(), QKeySequence.StandardKey.New,
            tip="a new puzzle on the grid the grid box shows")  # fmt: skip
        for grid in GRIDS:
            add(f"new_{grid.name}", grid.title.capitalize(),
                lambda _=False, g=grid: self.new_document(g),
                tip=f"a new puzzle on the grid of {grid.title}")  # fmt: skip
        add("new_soma", "New &Soma figure", self.new_soma_figure, "Ctrl+Shift+N",
            tip="the seven Soma pieces: draw only the figure")  # fmt: skip
        add("save", "&Save", self.save, QKeySequence.StandardKey.Save)
        add("save_as", "Save &As…", self.save_as_dialog, QKeySequence.StandardKey.SaveAs)
        add("export_xmpuzzle", "&Export BurrTools (.xmpuzzle)…", self.export_dialog)
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
        add("release_placed", "Release pre-placed pieces", lambda: self.doc.release_placed(),
            tip="the figure's pre-placed pieces become ordinary pieces to place")  # fmt: skip
        add("open_solutions", "Show solutions", self.open_solutions, "Ctrl+Return",
            tip="the counted puzzle's solutions in Solution mode")  # fmt: skip
        add("stop", "Stop counting", self.runner.stop, tip="stop the count (Esc)")
        return a

    def _build_menu(self) -> QMenu:
        menu = QMenu("&Design", self.host)
        menu.menuAction().setObjectName("design_menu")

        def fill(target: QMenu, names) -> None:
            for name in names:
                if name is None:
                    target.addSeparator()
                elif isinstance(name, tuple):
                    fill(target.addMenu(name[0]), name[1])
                else:
                    target.addAction(self.actions[name])

        fill(menu, MENU)
        return menu

    def _build_toolbar(self) -> QToolBar:
        tools = QToolBar("Design")
        tools.setObjectName("design_tools")
        tools.setMovable(False)
        tools.addWidget(QLabel(" Grid: "))
        tools.addWidget(self.grid_box)
        tools.addSeparator()
        for name in TOOLBAR:
            if name is None:
                tools.addSeparator()
            else:
                tools.addAction(self.actions[name])
        return tools

    def _build_grid_box(self) -> QComboBox:
        """The document's grid, shown; choosing another starts a new document on it."""
        box = QComboBox()
        box.setObjectName("design_grid")
        box.setToolTip("the grid this design is drawn on; choose another for a new design")
        for grid in GRIDS:
            box.addItem(grid.title, grid.name)
        box.setCurrentIndex(GRIDS.index(self.doc.state.grid))
        box.activated.connect(self._grid_chosen)  # the user's choice, not `_show_grid`'s
        return box

    def _show_grid(self, *_args) -> None:
        """The box follows the document's grid (a file opened, undo past a new document)."""
        index = GRIDS.index(self.doc.state.grid)
        if self.grid_box.currentIndex() != index:
            self.grid_box.blockSignals(True)
            self.grid_box.setCurrentIndex(index)
            self.grid_box.blockSignals(False)

    def _grid_chosen(self, index: int) -> None:
        grid = GRIDS[index]
        if grid is not self.doc.state.grid and not self.new_document(grid):
            self._show_grid()  # kept the unsaved design: the box says its grid again

    def _set_brush(self, on: bool) -> None:
        self.editor.optional_brush = self.layers.optional_brush = on

    def _mirror_toggled(self, _on: bool) -> None:
        axes = {axis for axis in "xyz" if self.actions[f"mirror_{axis}"].isChecked()}
        self.editor.mirror = axes
        self.layers.mirror = axes

    def _sync_actions(self, *_args) -> None:
        """Everything off outside Design mode; inside, what the document allows."""
        on, doc, a = self.active, self.doc, self.actions
        for action in a.values():
            action.setEnabled(on)
        a["undo"].setEnabled(on and doc.can_undo)
        a["redo"].setEnabled(on and doc.can_redo)
        a["undo"].setText(f"&Undo {doc.undo_label}" if doc.can_undo else "&Undo")
        a["redo"].setText(f"&Redo {doc.redo_label}" if doc.can_redo else "&Redo")
        a["optional_brush"].setEnabled(on and doc.current == TARGET)
        a["release_placed"].setEnabled(on and bool(doc.placed))

    # -- the mode -------------------------------------------------------------------------------
    def set_active(self, on: bool) -> None:
        """Show (Design mode) or hide what the mode adds; the editor takes or leaves the
        render widget. The host shows and hides the docks."""
        self.active = on
        self.menu.menuAction().setVisible(on)
        self.toolbar.setVisible(on)
        self.message.setVisible(on)
        self.badge.setVisible(on)
        self._sync_actions()
        if on:
            self.editor.attach()
            if self.runner.last is None and not self.runner.running:
                self.runner.schedule()
        else:
            self.editor.detach()

    def title(self) -> str:
        where = self.doc.path.name if self.doc.path else "not saved"
        grid = self.doc.state.grid
        on = "" if grid is GRIDS[0] else f" on {grid.title}"
        return f"Design — {self.doc.name}{on} ({where})"

    def link(self, family) -> None:
        """The window's puzzle is now `family`, and the drawing as it is stands for it."""
        self.linked_family = family
        self.linked_state = self.doc.state

    def open_family(self, family) -> None:
        """The window's puzzle (a polycube `LoadedPuzzle`) into the document, linked to it."""
        source = Path(family.source)
        # Save writes TOML: it may go back to a TOML file, never over a BurrTools or yass file.
        keep = source if source.suffix.lower() == ".toml" and source.exists() else None
        if keep is not None and keep.parent.resolve() == ASSETS.joinpath("puzzles").resolve():
            keep = None  # a built-in puzzle is never overwritten
        self.doc.open_puzzle(family.puzzle, keep)
        self.link(family)
        self.editor.frame()
        warnings = family.puzzle.warnings
        self.say(f"opened {source.name}" + (": " + "; ".join(warnings) if warnings else ""))

    def enter(self, family) -> bool:
        """Before the mode starts: the document follows the window's puzzle (None: keep the
        document). False if the user kept unsaved changes to another puzzle (Cancel)."""
        if family is None or family is self.linked_family:
            return True
        if not self.may_discard():
            return False
        self.open_family(family)
        return True

    def leaving_puzzle(self):
        """The edited puzzle for the window when the drawing changed since it was linked
        (None: nothing new). A drawing that is not a puzzle yet raises `DesignError`."""
        if self.doc.state is self.linked_state:
            return None
        return self.loaded_puzzle()

    def forget(self) -> None:
        """The window moves on to another puzzle (the user agreed): a fresh, clean document,
        opened from that puzzle the next time Design mode starts."""
        self.doc.new()
        self.linked_family = None
        self.linked_state = self.doc.state

    # -- following the document -----------------------------------------------------------------
    def _changed(self, label: str) -> None:
        self.say(label)
        self._sync_actions()
        self.title_changed.emit()

    def _hover(self, hover) -> None:
        if hover is None:
            self.message.setText("")
            return
        cell, _normal, what = hover
        if what == "remove":
            self.message.setText(f"click removes the cell at {list(cell)}")
        elif what == "ground":
            self.message.setText(f"click adds a cell at {list(cell)}")
        else:
            self.message.setText(f"cell {list(cell)}: click grows the marked face")

    def say(self, text: str) -> None:
        self.message.setText(text)

    def show_error(self, text: str) -> None:
        self.last_error = text
        self.message.setText(text)

    # -- files --------------------------------------------------------------------------------
    def ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' for a document with unsaved changes (tests replace
        this; a modal box would block them)."""
        box = QMessageBox(self.host)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Unsaved changes")
        box.setText(f"Save the changes to the design {self.doc.name}?")
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

    def new_document(self, grid: Grid | None = None) -> bool:
        """A new, empty document on `grid` (default: the grid the box shows), once unsaved
        changes are saved or given up."""
        if not self.may_discard():
            return False
        grid = GRIDS[self.grid_box.currentIndex()] if grid is None else grid
        self.doc.replace_all(DesignState(grid=grid))
        self.editor.frame()
        self.say(f"a new design on the grid of {grid.title}")
        return True

    def new_soma_figure(self) -> bool:
        if not self.may_discard():
            return False
        self.doc.new_soma_figure()
        return True

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
        """A file name and a format: format 1 TOML, or a yass figure (offered first when the
        document has pre-placed pieces, which only that format keeps)."""
        order = (SOMA_FILES, TOML_FILES) if self.doc.placed else (TOML_FILES, SOMA_FILES)
        filters = ";;".join(order)
        path, chosen = QFileDialog.getSaveFileName(self.host, "Save puzzle", "", filters)
        if not path:
            return False
        if Path(path).suffix.lower() not in (".toml", ".soma"):
            path += ".soma" if chosen == SOMA_FILES else ".toml"
        return self.save_to(path)

    def export_to(self, path: str | Path) -> bool:
        try:
            self.doc.export_xmpuzzle(path)
        except (DesignError, OSError) as exc:
            self.show_error(f"not exported: {str(exc).removeprefix('None: ')}")
            return False
        note = " (BurrTools has no pre-placed pieces: their cells are left out)"
        self.say(f"exported {path}" + (note if self.doc.placed else ""))
        return True

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.host, "Export puzzle", "", EXPORT_FILES)
        if path:
            self.export_to(path if path.lower().endswith(".xmpuzzle") else path + ".xmpuzzle")

    # -- solutions ----------------------------------------------------------------------------
    def loaded_puzzle(self):
        """The document as the registry's `LoadedPuzzle` (what the window shows and solves)."""
        from tessera.solvers.registry import FAMILIES, LoadedPuzzle

        puzzle = self.doc.to_puzzle()
        source = str(self.doc.path) if self.doc.path else f"{self.doc.name} (design)"
        return LoadedPuzzle(puzzle, source, FAMILIES["polycube"], name=self.doc.name)

    def open_solutions(self) -> None:
        """The badge's click: once a count is in, the host shows the solutions (Solution
        mode, on the edited puzzle)."""
        last = self.runner.last
        if last is None or last.status != "counted" or not last.solutions:
            return
        self.solutions_requested.emit()

    def shutdown(self) -> None:
        """Before the window closes: the count stops, the editor lets the widget go."""
        self.runner.shutdown()
        self.editor.shutdown()
