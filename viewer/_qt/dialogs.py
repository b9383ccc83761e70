"""The window's dialogs: errors a person can act on, About, keyboard help, Preferences.

Errors used to be a 15-second status-bar line written for a terminal ("tessera: error:
/full/path:5: ..."). `error_box` says the same in a dialog: the reason first, then the file
and line, and for a bad file the offending line itself, so the fix is visible without opening
an editor. Boxes are opened with `open()` (window-modal, not a nested event loop), so the
window keeps drawing and tests find them among the top-level widgets.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tessera import __version__
from tessera.models.errors import PuzzleError

#: The terminal's advice, and what a window user does instead.
CLI_HINTS = {
    "(see 'tessera list')": "(the Puzzles list on the left shows every built-in)",
    "see 'tessera list'": "the Puzzles list on the left shows every built-in",
}


def offending_line(path: str | None, line: int | None) -> str | None:
    """The text of line `line` of the file at `path` (None when unreadable or not a file)."""
    if not path or not line or line < 1:
        return None
    try:
        file = Path(path)
        if not file.is_file() or file.stat().st_size > 16 * 1024 * 1024:
            return None
        with file.open(encoding="utf-8", errors="replace") as f:
            for number, text in enumerate(f, 1):
                if number == line:
                    return text.rstrip("\r\n")
    except OSError:
        return None
    return None


def describe_error(error: BaseException, source: str = "") -> tuple[str, str]:
    """(summary, details as HTML) for an error opening `source`."""
    if isinstance(error, PuzzleError):
        reason, path, line = error.message, error.path, error.line
    else:
        reason, path, line = str(error), None, None
    for terminal, window in CLI_HINTS.items():
        reason = reason.replace(terminal, window)
    parts = [f"<p><b>{html.escape(reason)}</b></p>"]
    where = path or source
    if where:
        label = "File" if path and Path(path).exists() else "Puzzle"
        at = f", line {line}" if line else ""
        parts.append(f"<p>{label}: {html.escape(str(where))}{at}</p>")
    text = offending_line(path, line)
    if text is not None:
        shown = html.escape(text if len(text) <= 200 else text[:197] + "...")
        parts.append(f"<pre>{line:>4} | {shown}</pre>")
    return reason, "".join(parts)


def error_box(parent: QWidget, title: str, error: BaseException, source: str = "") -> QMessageBox:
    """A window-modal warning with the reason, file, line and offending line; opened, not
    run (the caller's event loop goes on)."""
    reason, details = describe_error(error, source)
    box = QMessageBox(QMessageBox.Icon.Warning, title, "", QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("error_box")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(details)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


ABOUT = """<h3>Tessera</h3>
<p>A 3D puzzle workbench: it models, solves and shows polycube packings (Soma, pentominoes,
Bedlam, BurrTools files), Instant Insanity dice, domino puzzles and KenKen.</p>
<p>Solution mode places the pieces in assembly order; Search mode replays the solver's
search, backtracks included; Play mode lets you assemble a polycube puzzle yourself.</p>
<p>The <code>tessera</code> command does every solve, count and export without a window.</p>"""


def about_box(parent: QWidget) -> QMessageBox:
    text = ABOUT.replace("<h3>Tessera</h3>", f"<h3>Tessera {__version__}</h3>", 1)
    box = QMessageBox(QMessageBox.Icon.Information, "About Tessera", text,
                      QMessageBox.StandardButton.Ok, parent)  # fmt: skip
    box.setObjectName("about_box")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


class ShortcutsDialog(QDialog):
    """Every action with a key, as the menus name them (the one list, never out of date)."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcuts_dialog")
        self.setWindowTitle("Keyboard shortcuts")
        layout = QVBoxLayout(self)
        rows = [
            (a.text().replace("&", "").rstrip("…"), a.shortcut().toString())
            for a in actions.values()
            if not a.shortcut().isEmpty()
        ]
        rows.append(("Orbit / pan / zoom", "left drag / middle drag / wheel"))
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["action", "key"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (text, key) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(text))
            self.table.setItem(r, 1, QTableWidgetItem(key))
        self.table.resizeColumnsToContents()
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
        self.resize(420, 520)


class Preferences:
    """The user's preferences in QSettings (`tessera/viewer`, next to the recent files):
    the theme, the default playback speed of each replay mode, the window geometry."""

    THEMES = ("light", "dark")
    DEFAULT_SPEED = {"solution": 2.0, "search": 25.0}

    def __init__(self) -> None:
        self.settings = QSettings("tessera", "viewer")

    @property
    def theme(self) -> str:
        value = str(self.settings.value("theme", "light"))
        return value if value in self.THEMES else "light"

    @theme.setter
    def theme(self, value: str) -> None:
        self.settings.setValue("theme", value if value in self.THEMES else "light")

    def speed(self, mode: str) -> float:
        default = self.DEFAULT_SPEED.get(mode, 2.0)
        try:
            return float(self.settings.value(f"speed/{mode}", default))
        except (TypeError, ValueError):
            return default

    def set_speed(self, mode: str, value: float) -> None:
        self.settings.setValue(f"speed/{mode}", float(value))

    def geometry(self):
        return self.settings.value("geometry")

    def set_geometry(self, data) -> None:
        self.settings.setValue("geometry", data)


class PreferencesDialog(QDialog):
    """Theme and default speeds; OK writes them to `Preferences`."""

    def __init__(self, prefs: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preferences_dialog")
        self.setWindowTitle("Preferences")
        self.prefs = prefs
        form = QFormLayout(self)
        self.theme = QComboBox()
        self.theme.addItems(list(Preferences.THEMES))
        self.theme.setCurrentText(prefs.theme)
        form.addRow("theme", self.theme)
        self.speeds: dict[str, QDoubleSpinBox] = {}
        for mode in ("solution", "search"):
            box = QDoubleSpinBox()
            box.setRange(0.25, 500.0)
            box.setDecimals(2)
            box.setSuffix(" steps/s")
            box.setValue(prefs.speed(mode))
            self.speeds[mode] = box
            form.addRow(f"{mode} speed", box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.buttons = buttons

    def accept(self) -> None:
        self.prefs.theme = self.theme.currentText()
        for mode, box in self.speeds.items():
            self.prefs.set_speed(mode, box.value())
        super().accept()
