"""The widgets around the 3D view: puzzle browser, solution list, step bar.

Each widget only shows the state and calls its methods; the window wires them. Every step
control is a QAction (with its key) so menus, toolbar buttons, keys and tests all go through
the same path.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSlider,
    QStyle,
    QToolBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tessera.viewer.families import builtin_groups

FAMILY_TITLES = {
    "polycube": "Polycubes",
    "dice": "Dice",
    "domino": "Dominoes",
    "kenken": "KenKen",
}

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


MODE_TIPS = {
    "solution": "pieces placed one by one in assembly order",
    "search": "the solver's search replayed, backtracks included",
    "play": "assemble it yourself: pieces beside the empty target (polycube puzzles)",
}

#: name -> (text, shortcut, tip): the hands-on viewer's actions (keys per issue 7)
HANDSON_ACTIONS = {
    "turn_x_pos": ("Turn about x", "X", "a quarter turn of the selected piece about x"),
    "turn_x_neg": ("Turn back about x", "Shift+X", "a quarter turn the other way about x"),
    "turn_y_pos": ("Turn about y", "Y", "a quarter turn of the selected piece about y"),
    "turn_y_neg": ("Turn back about y", "Shift+Y", "a quarter turn the other way about y"),
    "turn_z_pos": ("Turn about z", "Z", "a quarter turn of the selected piece about z"),
    "turn_z_neg": ("Turn back about z", "Shift+Z", "a quarter turn the other way about z"),
    "move_x_neg": ("Move −x", "Ctrl+Left", "one cell towards −x"),
    "move_x_pos": ("Move +x", "Ctrl+Right", "one cell towards +x"),
    "move_y_pos": ("Move +y", "Ctrl+Up", "one cell towards +y"),
    "move_y_neg": ("Move −y", "Ctrl+Down", "one cell towards −y"),
    "move_z_pos": ("Move up (+z)", "Ctrl+PgUp", "one cell up"),
    "move_z_neg": ("Move down (−z)", "Ctrl+PgDown", "one cell down"),
    "undo": ("Undo", "Ctrl+Z", "undo the last move"),
    "redo": ("Redo", "Ctrl+Shift+Z", "redo the move undone"),
    "reset_play": ("Reset pieces", "Ctrl+Shift+R", "every piece back beside the target"),
    "hint": ("Hint", "H", "can this still be completed? where does one more piece go?"),
    "apply_hint": ("Place the hinted piece", "Shift+H", "put the hinted piece in its place"),
    "ghost": ("Ghost the others", "G", "all but the selected piece translucent"),
    "export_stl": ("Export &STL…", "Ctrl+Shift+S", "pieces as STL files for 3D printing"),
}
TOOLBAR_TEXT = {
    "turn_x_pos": "X↻", "turn_x_neg": "X↺", "turn_y_pos": "Y↻", "turn_y_neg": "Y↺",
    "turn_z_pos": "Z↻", "turn_z_neg": "Z↺", "move_x_neg": "−x", "move_x_pos": "+x",
    "move_y_neg": "−y", "move_y_pos": "+y", "move_z_neg": "−z", "move_z_pos": "+z",
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


class HandsOnBar(QToolBar):
    """Turn and move buttons for the selected piece, undo/redo/reset, hint and ghosting."""

    def __init__(self, actions: dict[str, QAction], parent=None) -> None:
        super().__init__("Hands-on", parent)
        self.setObjectName("handson")
        self.setMovable(False)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        groups = (
            ("turn_x_pos", "turn_x_neg", "turn_y_pos", "turn_y_neg", "turn_z_pos", "turn_z_neg"),
            ("move_x_neg", "move_x_pos", "move_y_neg", "move_y_pos", "move_z_neg", "move_z_pos"),
            ("undo", "redo", "reset_play"),
            ("hint", "apply_hint", "ghost"),
        )
        for group in groups:
            for name in group:
                self.addAction(actions[name])
            self.addSeparator()
        self.selected_label = QLabel("")
        self.selected_label.setObjectName("selected_piece")
        self.addWidget(self.selected_label)


def make_mode_actions(parent: QWidget) -> tuple[QActionGroup, dict[str, QAction]]:
    group = QActionGroup(parent)
    group.setExclusive(True)
    actions = {}
    for name, text, key in (
        ("solution", "Solution mode", "Ctrl+1"),
        ("search", "Search mode", "Ctrl+2"),
        ("play", "Play mode", "Ctrl+3"),
    ):
        action = QAction(text, parent)
        action.setCheckable(True)
        action.setShortcut(QKeySequence(key))
        action.setObjectName(f"mode_{name}")
        action.setData(name)
        action.setToolTip(MODE_TIPS[name])
        group.addAction(action)
        actions[name] = action
    actions["solution"].setChecked(True)
    return group, actions


class StepBar(QToolBar):
    """first, back, play, forward, last, a slider, speed, the mode switch and a depth readout."""

    speed_changed = Signal(float)

    def __init__(self, actions: dict[str, QAction], mode_actions: dict[str, QAction], parent=None):
        super().__init__("Steps", parent)
        self.setObjectName("steps")
        self.setMovable(False)
        for name in ("first", "back", "play", "forward", "last"):
            self.addAction(actions[name])
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(240)
        self.slider.setToolTip("step")
        self.addWidget(self.slider)
        self.step_label = QLabel("0 / 0")
        self.step_label.setMinimumWidth(80)
        self.addWidget(self.step_label)
        self.addSeparator()
        self.addWidget(QLabel(" speed "))
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.25, 500.0)
        self.speed.setValue(2.0)
        self.speed.setSuffix(" steps/s")
        self.speed.setDecimals(2)
        self.speed.setToolTip("playback speed")
        self.speed.valueChanged.connect(self.speed_changed.emit)
        self.addWidget(self.speed)
        self.addSeparator()
        for name in ("solution", "search", "play"):
            if name in mode_actions:
                self.addAction(mode_actions[name])
        self.depth_label = QLabel("")
        self.depth_label.setMinimumWidth(80)
        self.addWidget(self.depth_label)

    def show_step(self, step: float, n_steps: int) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, n_steps)
        self.slider.setValue(round(step))
        self.slider.blockSignals(False)
        self.step_label.setText(f"{step:g} / {n_steps}" if step % 1 else f"{int(step)} / {n_steps}")


class SolutionPanel(QWidget):
    """The solution list, filled while the worker runs, with progress, count and Cancel."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.count_label = QLabel("no puzzle")
        layout.addWidget(self.count_label)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        row.addWidget(self.progress)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)
        self.list = QListWidget()
        self.list.setObjectName("solutions")
        layout.addWidget(self.list)

    def reset(self) -> None:
        self.list.clear()
        self.progress.setValue(0)
        self.count_label.setText("solving…")
        self.cancel_button.setEnabled(True)

    def add(self, total: int) -> None:
        """Show items up to `total` (the state's list length)."""
        start = self.list.count()
        self.list.setUpdatesEnabled(False)
        for k in range(start, total):
            self.list.addItem(f"Solution {k + 1}")
        self.list.setUpdatesEnabled(True)

    def show_progress(self, fraction: float, count: int) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        self.count_label.setText(f"solving… {count} found")

    def finish(self, cancelled: bool, count: int) -> None:
        self.cancel_button.setEnabled(False)
        if cancelled:
            self.count_label.setText(f"cancelled: {count} found")
        else:
            self.progress.setValue(1000)
            self.count_label.setText(f"{count} solution{'s' if count != 1 else ''} (complete)")


class PuzzleBrowser(QTreeWidget):
    """Built-ins grouped by family, then the recent files."""

    open_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setObjectName("browser")
        self.recent_root: QTreeWidgetItem | None = None
        self.populate([])
        self.itemActivated.connect(self._activated)
        self.itemDoubleClicked.connect(self._activated)

    def populate(self, recent: list[str]) -> None:
        # Take the old items back instead of clear(): clear() deletes C++ items that Python
        # still holds (recent_root), and dropping that wrapper later crashed now and then.
        self.recent_root = None
        while self.topLevelItemCount():
            self.takeTopLevelItem(0)
        for family, items in sorted(builtin_groups().items()):
            root = QTreeWidgetItem([FAMILY_TITLES.get(family, family.title())])
            root.setFlags(root.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            for stem, path in items:
                child = QTreeWidgetItem([stem])
                child.setData(0, Qt.ItemDataRole.UserRole, str(path))
                child.setToolTip(0, str(path))
                root.addChild(child)
            self.addTopLevelItem(root)
            root.setExpanded(True)
        self.recent_root = QTreeWidgetItem(["Recent"])
        for entry in recent:
            child = QTreeWidgetItem([Path(entry).name if Path(entry).exists() else entry])
            child.setData(0, Qt.ItemDataRole.UserRole, entry)
            child.setToolTip(0, entry)
            self.recent_root.addChild(child)
        self.addTopLevelItem(self.recent_root)
        self.recent_root.setExpanded(True)

    def item_for(self, stem: str) -> QTreeWidgetItem | None:
        for i in range(self.topLevelItemCount()):
            root = self.topLevelItem(i)
            for j in range(root.childCount()):
                if root.child(j).text(0) == stem:
                    return root.child(j)
        return None

    def _activated(self, item: QTreeWidgetItem, column: int = 0) -> None:
        target = item.data(0, Qt.ItemDataRole.UserRole)
        if target:
            self.open_requested.emit(str(target))
