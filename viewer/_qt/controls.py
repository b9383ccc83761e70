"""The widgets around the 3D view: puzzle browser, solution list, step bar, hands-on bar.

Each widget only shows the state and calls its methods; the window wires them. The buttons
are QActions made in viewer/_qt/actions.py (with their keys), so menus, toolbar buttons, keys and
tests all go through the same path.
"""

from __future__ import annotations

import bisect
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSlider,
    QToolBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tessera.viewer._qt.minimap import DepthMap
from tessera.viewer.families import FAMILIES, builtin_groups


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

    def show_selection(self, name: str) -> None:
        self.selected_label.setText(f"  selected: {name}" if name else "")


#: The step bar's own buttons (the Step menu has them too): hidden with the slider in Play and
#: Design, where nothing steps.
STEP_BUTTONS = ("first", "back", "play", "forward", "last")


class StepBar(QToolBar):
    """first, back, play, forward, last, Search mode's jumps (previous/next backtrack, next
    solution in the trace), a slider with the search-depth mini-map under it, speed, the mode
    switch and a depth readout."""

    speed_changed = Signal(float)
    step_requested = Signal(int)  # the mini-map was clicked

    def __init__(self, actions: dict[str, QAction], mode_actions: dict[str, QAction], parent=None):
        super().__init__("Steps", parent)
        self.setObjectName("steps")
        self.setMovable(False)
        for name in STEP_BUTTONS:
            self.addAction(actions[name])
        for name in ("previous_backtrack", "next_backtrack", "next_found"):
            if name in actions:
                self.addAction(actions[name])
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(200)
        self.slider.setToolTip("step")
        column.addWidget(self.slider)
        self.depth_map = DepthMap(self.step_requested.emit)
        self.depth_map.setVisible(False)
        column.addWidget(self.depth_map)
        self.step_label = QLabel("0 / 0")
        self.step_label.setMinimumWidth(80)
        self._step_items = [actions[name] for name in STEP_BUTTONS]
        self._step_items += [self.addWidget(box), self.addWidget(self.step_label)]
        self._step_items.append(self.addSeparator())
        self.speed = QDoubleSpinBox()  # its suffix says what it is: no label, more slider
        self.speed.setRange(0.25, 500.0)
        self.speed.setValue(2.0)
        self.speed.setSuffix(" steps/s")
        self.speed.setDecimals(2)
        self.speed.setToolTip("playback speed")
        self.speed.valueChanged.connect(self.speed_changed.emit)
        self._step_items += [self.addWidget(self.speed), self.addSeparator()]
        for name in ("solution", "search", "play", "design"):
            if name in mode_actions:
                self.addAction(mode_actions[name])
        self.depth_label = QLabel("")
        self.depth_label.setMinimumWidth(80)
        self.addWidget(self.depth_label)

    def show_steps(self, shown: bool) -> None:
        """The step buttons, slider and speed, shown only where there are steps (Solution and
        Search); the mode switch and the camera buttons stay, a way to every mode."""
        for item in self._step_items:
            item.setVisible(shown)

    def show_step(self, step: float, n_steps: int, depth: int | None = None) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, n_steps)
        self.slider.setValue(round(step))
        self.slider.blockSignals(False)
        self.step_label.setText(f"{step:g} / {n_steps}" if step % 1 else f"{int(step)} / {n_steps}")
        self.depth_label.setText("" if depth is None else f" depth {depth}")
        self.depth_map.set_step(step)

    def button(self, action: QAction) -> QWidget:
        """The tool button showing `action` (what a person clicks)."""
        return self.widgetForAction(action)


class SolutionPanel(QWidget):
    """The solution list, filled while the worker runs, with progress, count and Cancel.

    For an interlocking puzzle (`solvers.interlocking`: some solution needs the
    disassembler) every row shows BurrTools' level, e.g. "Solution 1 · level 98.2.4.2
    (assembly 11)", and the list can be ordered hardest level first. A row always stands for
    one solution of the state's list: `chosen` says which (its index there, whatever the
    order), and `highlight` takes that index too. It reads the solutions from `state`."""

    chosen = Signal(int)  # the person picked a row: the index of its solution in the state

    ORDERS = ("as found", "hardest level first")

    def __init__(self, state=None, parent=None) -> None:
        super().__init__(parent)
        self.state = state
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.count_label = QLabel("no puzzle")
        self.count_label.setObjectName("solution_count")
        self.count_label.setWordWrap(True)
        layout.addWidget(self.count_label)
        self.reason = QLabel("")  # why there can be no solution (a volume mismatch)
        self.reason.setObjectName("solution_reason")
        self.reason.setWordWrap(True)
        self.reason.setStyleSheet("color: #b22222; font-weight: bold")
        self.reason.setVisible(False)
        layout.addWidget(self.reason)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        row.addWidget(self.progress)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)
        self.order = QComboBox()  # shown once a level means something
        self.order.setObjectName("solution_order")
        self.order.addItems(self.ORDERS)
        self.order.setToolTip("order of the solutions")
        self.order.setVisible(False)
        self.order.currentIndexChanged.connect(self._reorder)
        layout.addWidget(self.order)
        self.list = QListWidget()
        self.list.setObjectName("solutions")
        self.list.currentRowChanged.connect(self._row_changed)
        layout.addWidget(self.list)
        self.levels = False  # whether rows show levels (the puzzle interlocks)
        self._rows: list[int] = []  # solution index per row
        if state is not None:
            state.events.scene.connect(self._follow_state)

    def reset(self, reason: str | None = None) -> None:
        """A new puzzle; `reason` says why it cannot have a solution (shown instead of a bare
        "0 solutions")."""
        self.list.clear()
        self._rows = []
        self.levels = False
        self.order.setVisible(False)
        self.progress.setValue(0)
        self.count_label.setText("solving…")
        self.cancel_button.setEnabled(True)
        self.reason.setText(reason or "")
        self.reason.setVisible(bool(reason))

    def preparing(self) -> None:
        """The solver's compiled kernel is being built (first solve after an install)."""
        self.count_label.setText("preparing the solver (once per install)…")

    def highlight(self, index: int | None) -> None:
        """Select solution `index`'s row (None: nothing) without telling the window it was a
        user's choice."""
        self.list.blockSignals(True)
        if index is None or index < 0 or index not in self._rows:
            self.list.setCurrentRow(-1)
            self.list.clearSelection()
        else:
            self.list.setCurrentRow(self._rows.index(index))
        self.list.blockSignals(False)

    def add(self, total: int) -> None:
        """Show items up to `total` (the state's list length)."""
        start = len(self._rows)
        if start >= total:
            return
        if not self.levels and any(self._interlocked(k) for k in range(start, total)):
            self.levels = True
            self.order.setVisible(True)
            self._relabel()
        self.list.setUpdatesEnabled(False)
        for k in range(start, total):
            row = self._row_for(k)
            self._rows.insert(row, k)
            self.list.insertItem(row, self._text(k))
        self.list.setUpdatesEnabled(True)

    # -- levels and order ---------------------------------------------------------------------
    def _solution(self, k: int):
        if self.state is None or k >= len(self.state.solutions):
            return None
        return self.state.solutions[k]

    def _interlocked(self, k: int) -> bool:
        from tessera.solvers.polycube.interlocking import InterlockedSolution

        return isinstance(self._solution(k), InterlockedSolution)

    def level(self, k: int) -> str:
        """Solution k's level ("1" for one the straight plan builds)."""
        from tessera.solvers.polycube.interlocking import level_of

        solution = self._solution(k)
        return level_of(solution) if solution is not None else ""

    def _text(self, k: int) -> str:
        if not self.levels:
            return f"Solution {k + 1}"
        text = f"Solution {k + 1} · level {self.level(k)}"
        number = getattr(self._solution(k), "assembly", 0)
        if number and number != k + 1:
            text += f" (assembly {number})"
        return text

    def _key(self, k: int) -> tuple:
        """Sort key of solution k in the chosen order (ascending)."""
        if self.order.currentIndex() == 1 and self.levels:
            from tessera.solvers.polycube.interlocking import level_key

            return tuple(-v for v in level_key(self.level(k))) + (k,)
        return (k,)

    def _row_for(self, k: int) -> int:
        if self.order.currentIndex() == 0 or not self.levels:
            return len(self._rows)  # as found: solutions arrive in order
        keys = [self._key(j) for j in self._rows]
        return bisect.bisect(keys, self._key(k))

    def _relabel(self) -> None:
        for row, k in enumerate(self._rows):
            self.list.item(row).setText(self._text(k))

    def _reorder(self) -> None:
        """Lay the rows out again in the chosen order, keeping the selection."""
        current = self.list.currentRow()
        chosen = self._rows[current] if 0 <= current < len(self._rows) else None
        self._rows.sort(key=self._key)
        self.list.blockSignals(True)
        self.list.clear()
        self.list.addItems([self._text(k) for k in self._rows])
        self.list.blockSignals(False)
        self.highlight(chosen)

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self._rows):
            self.chosen.emit(self._rows[row])

    def _follow_state(self, *_args) -> None:
        """In Solution mode the row of the solution shown is the one selected, in any order."""
        state = self.state
        if state is not None and state.mode == "solution" and state.solution_index >= 0:
            self.highlight(state.solution_index)

    # -- progress -----------------------------------------------------------------------------
    def show_progress(self, fraction: float, count: int) -> None:
        self.progress.setValue(int(round(fraction * 1000)))
        if fraction > 0 or count:  # the first report after the kernel was prepared
            self.count_label.setText(f"solving… {count} found")

    def finish(self, cancelled: bool, count: int) -> None:
        self.cancel_button.setEnabled(False)
        if cancelled:
            self.count_label.setText(f"cancelled: {count} found")
        else:
            self.progress.setValue(1000)
            self.count_label.setText(f"{count} solution{'s' if count != 1 else ''} (complete)")
            if count == 0 and not self.reason.text():
                self.reason.setText("the complete search found no solution")
                self.reason.setVisible(True)


class PuzzleBrowser(QTreeWidget):
    """Built-ins grouped by family, then the recent files."""

    open_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setObjectName("browser")
        self._add_builtins()
        # one Recent group for the browser's life: only its entries change. Taking whole
        # groups out and putting new ones in (or clear()) handed items between Qt and Python
        # on every change of the recent files, and now and then one was freed twice.
        self.recent_root = QTreeWidgetItem(["Recent"])
        self.addTopLevelItem(self.recent_root)
        self.recent_root.setExpanded(True)
        # itemActivated alone: it fires on a double click (and Enter) already; listening to
        # itemDoubleClicked too opened every puzzle twice (and a bad file's error twice)
        self.itemActivated.connect(self._activated)

    def _add_builtins(self) -> None:
        """The built-ins, grouped by family (they do not change while the app runs)."""
        for family, items in sorted(builtin_groups().items()):
            root = QTreeWidgetItem([FAMILIES[family].title or family.title()])
            root.setFlags(root.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            for stem, path in items:
                child = QTreeWidgetItem([stem])
                child.setData(0, Qt.ItemDataRole.UserRole, str(path))
                child.setToolTip(0, str(path))
                root.addChild(child)
            self.addTopLevelItem(root)
            root.setExpanded(True)

    def populate(self, recent: list[str]) -> None:
        """The Recent group's entries, newest first."""
        # takeChildren hands the old entries to Python, which frees them with this list
        taken = self.recent_root.takeChildren()
        del taken
        for entry in recent:
            child = QTreeWidgetItem([Path(entry).name if Path(entry).exists() else entry])
            child.setData(0, Qt.ItemDataRole.UserRole, entry)
            child.setToolTip(0, entry)
            self.recent_root.addChild(child)
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
