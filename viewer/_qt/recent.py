"""Recently opened puzzles, kept in QSettings and offered in File ▸ Open recent and the browser.

Files are remembered by absolute path, game IDs and built-in names as typed. `changed` carries
the new list so the browser and the menu refill themselves; nothing else writes the setting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

MAX_RECENT = 8


class RecentFiles(QObject):
    """The recent list (newest first, at most `MAX_RECENT`)."""

    changed = Signal(list)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.settings = QSettings("tessera", "viewer")

    def entries(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []][:MAX_RECENT]

    def remember(self, entry: str) -> None:
        """Put `entry` first (a file by its absolute path)."""
        entry = str(Path(entry).resolve()) if Path(entry).exists() else entry
        recent = ([entry] + [r for r in self.entries() if r != entry])[:MAX_RECENT]
        self.settings.setValue("recent", recent)
        self.changed.emit(recent)


def fill_menu(menu: QMenu, entries: list[str], open_entry: Callable[[str], object]) -> None:
    """One action per entry; the menu is disabled while the list is empty."""
    menu.clear()
    for entry in entries:
        # made here, not by `addAction(text)`: that returns whatever Python wrapper PySide has
        # cached for the new action's address, which was once a deleted QSurface's (seen in a
        # full test run: "'QSurface' object has no attribute 'triggered'")
        action = QAction(entry, menu)
        action.triggered.connect(lambda _=False, e=entry: open_entry(e))
        menu.addAction(action)
    menu.setEnabled(bool(entries))
