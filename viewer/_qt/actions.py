"""Every QAction of the window, its menus, and which actions are enabled now.

Menus, toolbar buttons, keys and tests all go through the same QActions (keys on QActions,
not on VTK: see the pyvista-qt notes). What an action may do follows the viewer state:
`ActionSync` listens to the mode, the puzzle and the hands-on controller and enables,
checks and names the actions, so no caller has to remember to update them.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenuBar, QSlider, QStyle, QWidget

from tessera.viewer._qt.handson import MOVE_KEYS, TURN_KEYS, VIEW_LABELS
from tessera.viewer.scenes.base import Timeline
from tessera.viewer.state import REPLAY_MODES, ViewerState

#: name -> (text, shortcut, standard icon, tip)
STEP_ACTIONS = {
    "first": ("First step", "Home", QStyle.StandardPixmap.SP_MediaSkipBackward, "go to step 0"),
    "back": ("Step back", "Left", QStyle.StandardPixmap.SP_MediaSeekBackward, "one step back"),
    "play": ("Play", "Space", QStyle.StandardPixmap.SP_MediaPlay, "play / pause"),
    "forward": (
        "Step forward", "Right", QStyle.StandardPixmap.SP_MediaSeekForward, "one step forward",
    ),
    "last": ("Last step", "End", QStyle.StandardPixmap.SP_MediaSkipForward, "go to the last step"),
    "previous_solution": (
        "Previous solution", "Up", QStyle.StandardPixmap.SP_ArrowUp, "previous solution",
    ),
    "next_solution": ("Next solution", "Down", QStyle.StandardPixmap.SP_ArrowDown, "next solution"),
}  # fmt: skip


def make_step_actions(parent: QWidget) -> dict[str, QAction]:
    style = parent.style()
    actions = {}
    for name, (text, key, icon, tip) in STEP_ACTIONS.items():
        action = QAction(style.standardIcon(icon), text, parent)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(f"{tip} ({key})")
        action.setObjectName(name)
        actions[name] = action
    actions["play"].setCheckable(True)
    return actions


#: name -> (text, shortcut, button text, tip): Search mode's jumps through the trace
SEARCH_ACTIONS = {
    "previous_backtrack": (
        "Previous backtrack", "Shift+Left", "◂ backtrack", "go to the previous backtrack",
    ),
    "next_backtrack": (
        "Next backtrack", "Shift+Right", "backtrack ▸", "the next backtrack",
    ),
    "next_found": (
        "Next solution in the trace", "Shift+End", "solution ▸", "where the search finds one",
    ),
}  # fmt: skip


def make_search_actions(parent: QWidget) -> dict[str, QAction]:
    """The trace jumps; visible in Search mode only (ActionSync)."""
    actions = {}
    for name, (text, key, button, tip) in SEARCH_ACTIONS.items():
        action = QAction(text, parent)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setIconText(button)
        action.setToolTip(f"{tip} ({key})")
        action.setObjectName(name)
        actions[name] = action
    return actions


MODE_TIPS = {
    "solution": "pieces placed one by one in assembly order",
    "search": "the solver's search replayed, backtracks included",
    "play": "assemble it yourself: pieces beside the empty target (polycube puzzles)",
    "design": "draw the pieces and the target, with a live solution count (polycube puzzles)",
}

#: the moves' and turns' keys; their texts and tips are the view's terms (`VIEW_LABELS`), which
#: ActionSync.relabel keeps naming from the camera
VIEW_KEYS = {
    "turn_x_pos": "X", "turn_x_neg": "Shift+X", "turn_y_pos": "Y", "turn_y_neg": "Shift+Y",
    "turn_z_pos": "Z", "turn_z_neg": "Shift+Z",
    "move_x_neg": "Ctrl+Left", "move_x_pos": "Ctrl+Right", "move_y_pos": "Ctrl+Up",
    "move_y_neg": "Ctrl+Down", "move_z_pos": "Ctrl+PgUp", "move_z_neg": "Ctrl+PgDown",
}  # fmt: skip
#: name -> (text, shortcut, tip): the hands-on viewer's actions (keys per issue 7)
HANDSON_ACTIONS = {
    **{name: (VIEW_LABELS[name][1], key, VIEW_LABELS[name][2]) for name, key in VIEW_KEYS.items()},
    "undo": ("Undo", "Ctrl+Z", "undo the last move"),
    "redo": ("Redo", "Ctrl+Shift+Z", "redo the move undone"),
    "reset_play": ("Reset pieces", "Ctrl+Shift+R", "every piece back beside the target"),
    "hint": ("Hint", "H", "can this still be completed? where does one more piece go?"),
    "apply_hint": ("Place the hinted piece", "Shift+H", "put the hinted piece in its place"),
    "ghost": ("Ghost the others", "G", "all but the selected piece translucent"),
    "export_stl": ("Export &STL…", "Ctrl+Shift+S", "pieces as STL files for 3D printing"),
}
TOOLBAR_TEXT = {
    **{name: VIEW_LABELS[name][0] for name in VIEW_KEYS},
    "undo": "Undo", "redo": "Redo", "reset_play": "Reset", "hint": "Hint",
    "apply_hint": "Place hint", "ghost": "Ghost",
}  # fmt: skip


def make_handson_actions(parent: QWidget) -> dict[str, QAction]:
    """Rotate/move/undo/hint/ghost/export actions; the window connects and enables them."""
    actions = {}
    for name, (text, key, tip) in HANDSON_ACTIONS.items():
        action = QAction(text, parent)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(f"{tip} ({key})")
        action.setObjectName(name)
        if name in TOOLBAR_TEXT:
            action.setIconText(TOOLBAR_TEXT[name])
        actions[name] = action
    actions["ghost"].setCheckable(True)
    return actions


def make_mode_actions(parent: QWidget) -> tuple[QActionGroup, dict[str, QAction]]:
    group = QActionGroup(parent)
    group.setExclusive(True)
    actions = {}
    for name, text, key in (
        ("solution", "Solution mode", "Ctrl+1"),
        ("search", "Search mode", "Ctrl+2"),
        ("play", "Play mode", "Ctrl+3"),
        ("design", "Design mode", "Ctrl+4"),
    ):
        action = QAction(text, parent)
        action.setIconText(text.split()[0])  # the step bar's button: "Design", the menu's text
        action.setCheckable(True)
        action.setShortcut(QKeySequence(key))
        action.setObjectName(f"mode_{name}")
        action.setData(name)
        action.setToolTip(MODE_TIPS[name])
        group.addAction(action)
        actions[name] = action
    actions["solution"].setChecked(True)
    return group, actions


#: name -> (text, shortcut): file, camera and solver actions (the window connects them)
WINDOW_ACTIONS = {
    "open": ("&Open…", QKeySequence.StandardKey.Open),
    "open_id": ("Open game &ID…", "Ctrl+Shift+O"),
    "open_folder": ("Open &folder…", "Ctrl+Shift+F"),
    "design": ("&Design mode", "Ctrl+D"),
    "export_image": ("Export &image…", "Ctrl+E"),
    "export_animation": ("Export &animation…", "Ctrl+Shift+E"),
    "quit": ("&Quit", QKeySequence.StandardKey.Quit),
    "reset_camera": ("&Reset camera", "Ctrl+R"),
    "isometric": ("&Isometric view", "Ctrl+I"),
    "cancel": ("&Cancel solving", "Esc"),
    "preferences": ("&Preferences…", QKeySequence.StandardKey.Preferences),
    "shortcuts": ("&Keyboard shortcuts", "F1"),
    "about": ("&About Tessera", ""),
}
STEP_NAMES = ("first", "back", "play", "forward", "last")
PIECE_MENU = (
    ("turn_x_pos", "turn_x_neg", "turn_y_pos", "turn_y_neg", "turn_z_pos", "turn_z_neg"),
    ("move_x_neg", "move_x_pos", "move_y_neg", "move_y_pos", "move_z_neg", "move_z_pos"),
    ("undo", "redo", "reset_play"),
    ("hint", "apply_hint"),
)


def make_actions(parent: QWidget) -> tuple[dict[str, QAction], QActionGroup]:
    """Every action by name (modes as `mode_<name>`), added to `parent` so their keys work
    wherever the focus is, and the exclusive group of the mode actions."""
    actions = make_step_actions(parent)
    group, modes = make_mode_actions(parent)
    actions.update({f"mode_{name}": action for name, action in modes.items()})
    for name, (text, key) in WINDOW_ACTIONS.items():
        action = QAction(text, parent)
        action.setShortcut(QKeySequence(key))
        action.setObjectName(name)
        actions[name] = action
    actions.update(make_handson_actions(parent))
    actions.update(make_search_actions(parent))
    for action in actions.values():
        parent.addAction(action)
    return actions, group


def build_menus(menubar: QMenuBar, a: dict[str, QAction]):
    """File, View, Step and Piece menus; returns the (empty) File ▸ Open recent menu."""
    file_menu = menubar.addMenu("&File")
    file_menu.addAction(a["open"])
    file_menu.addAction(a["open_id"])
    file_menu.addAction(a["open_folder"])
    file_menu.addAction(a["design"])
    recent_menu = file_menu.addMenu("Open &recent")
    file_menu.addSeparator()
    for name in ("export_image", "export_animation", "export_stl"):
        file_menu.addAction(a[name])
    file_menu.addSeparator()
    file_menu.addAction(a["preferences"])
    file_menu.addSeparator()
    file_menu.addAction(a["quit"])
    view_menu = menubar.addMenu("&View")
    for name in ("reset_camera", "isometric", "ghost"):
        view_menu.addAction(a[name])
    step_menu = menubar.addMenu("&Step")
    for group in (
        STEP_NAMES,
        tuple(SEARCH_ACTIONS),
        ("previous_solution", "next_solution"),
        ("mode_solution", "mode_search", "mode_play", "mode_design"),
        ("cancel",),
    ):
        for name in group:
            step_menu.addAction(a[name])
        step_menu.addSeparator()
    piece_menu = menubar.addMenu("&Piece")
    piece_menu.menuAction().setObjectName("piece_menu")
    for group in PIECE_MENU:
        for name in group:
            piece_menu.addAction(a[name])
        piece_menu.addSeparator()
    help_menu = menubar.addMenu("&Help")
    help_menu.addAction(a["shortcuts"])
    help_menu.addAction(a["about"])
    return recent_menu


#: Exports of what the replay or the table shows: off in Design mode (Ctrl+Shift+S is Save As
#: there), whose drawing is saved as a puzzle file instead.
EXPORT_NAMES = ("export_image", "export_animation", "export_stl")


class ActionSync(QObject):
    """Keeps the actions in line with the state: the checked mode, step controls only when
    replaying, turn/move only in Play with a piece selected, undo/redo as the table allows
    (named after the move they take back), Play only for polycube puzzles, the Design mode
    button shown only where Design fits (polycube puzzles, or none yet), exports not in
    Design mode."""

    def __init__(
        self, actions: dict[str, QAction], state: ViewerState, handson, slider: QSlider, parent
    ) -> None:
        super().__init__(parent)
        self.actions = actions
        self.state = state
        self.handson = handson
        self.slider = slider
        state.events.mode.connect(self.update)
        state.events.puzzle.connect(self.update)
        handson.actions_changed.connect(self.update)
        handson.view_terms_changed.connect(self.relabel)
        self.update()
        self.relabel()

    def relabel(self) -> None:
        """The move and turn actions in the view's terms (→, ↺, …), their tips naming the
        world axis each means from the camera now (`HandsOn.action_labels`)."""
        for name, (button, text, tip) in self.handson.action_labels().items():
            action = self.actions[name]
            action.setIconText(button)
            action.setText(text)
            key = action.shortcut().toString()
            action.setToolTip(f"{tip} ({key})" if key else tip)

    def update(self) -> None:
        a, state = self.actions, self.state
        playing = state.mode == "play"
        a[f"mode_{state.mode}"].setChecked(True)
        a["mode_play"].setEnabled(state.can_play)
        for name in ("mode_design", "design"):
            a[name].setVisible(state.can_design)
            a[name].setEnabled(state.can_design)
        replaying = state.mode in REPLAY_MODES
        for name in EXPORT_NAMES:
            a[name].setEnabled(state.mode != "design")
        chosen = self.handson.selected_piece is not None
        for name in (*TURN_KEYS, *MOVE_KEYS):
            a[name].setEnabled(chosen)
        model = state.play if playing else None
        a["undo"].setEnabled(model is not None and model.can_undo)
        a["redo"].setEnabled(model is not None and model.can_redo)
        for name in ("reset_play", "hint", "apply_hint"):
            a[name].setEnabled(playing)
        for name in (*STEP_NAMES, "previous_solution", "next_solution"):
            a[name].setEnabled(replaying)
            a[name].setVisible(replaying)  # hidden where nothing steps (the bar's too)
        searching = state.mode == "search"
        for name in SEARCH_ACTIONS:  # the trace jumps mean something in Search mode only
            a[name].setVisible(searching)
            a[name].setEnabled(searching)
        self.slider.setEnabled(replaying)
        undo = model.undo_label if model is not None else None
        redo = model.redo_label if model is not None else None
        a["undo"].setText(f"Undo {undo}" if undo else "Undo")
        a["redo"].setText(f"Redo {redo}" if redo else "Redo")

    def revert_mode(self) -> None:
        """A mode action was refused: check the mode the state is in again."""
        self.actions[f"mode_{self.state.mode}"].setChecked(True)


def wire_actions(window) -> None:
    """Every action of the window (a `MainWindow`, untyped here so the two modules do not
    import each other) to the part that owns what it does: the state, the replay, the files,
    the hands-on controller, the exporter, the window's camera and dialogs. Nothing here keeps
    a copy of a fact the state holds."""
    a, state, h, replay = window.actions, window.state, window.handson, window.replay
    files, exporter = window.files, window.exporter
    for name, slot in (
        ("first", state.first), ("last", state.last),
        ("back", replay.back), ("forward", replay.forward),
        ("previous_solution", state.previous_solution),
        ("next_solution", state.next_solution),
        ("open", files.open_file_dialog), ("open_id", files.open_id_dialog),
        ("open_folder", files.open_folder_dialog), ("design", window.open_design),
        ("export_image", exporter.image_dialog),
        ("export_animation", exporter.animation_dialog),
        ("export_stl", exporter.stl_dialog),
        ("quit", window.close), ("reset_camera", window.reset_camera),
        ("isometric", window.isometric_view), ("cancel", window.cancel),
        ("undo", h.undo), ("redo", h.redo), ("reset_play", h.reset),
        ("hint", h.ask_hint), ("apply_hint", h.apply_hint),
        ("next_backtrack", lambda: replay.jump(Timeline.REMOVE, +1)),
        ("previous_backtrack", lambda: replay.jump(Timeline.REMOVE, -1)),
        ("next_found", lambda: replay.jump(Timeline.SOLUTION, +1)),
        ("about", window.show_about), ("shortcuts", window.show_shortcuts),
        ("preferences", window.show_preferences),
    ):  # fmt: skip
        a[name].triggered.connect(slot)
    for name, (axis, turns) in TURN_KEYS.items():
        a[name].triggered.connect(lambda _=False, x=axis, t=turns: h.turn(x, t))
    for name, (axis, cells) in MOVE_KEYS.items():
        a[name].triggered.connect(lambda _=False, x=axis, c=cells: h.move(x, c))
    a["ghost"].toggled.connect(h.state.set_ghost)
    window.mode_group.triggered.connect(lambda action: window.set_mode(action.data()))
