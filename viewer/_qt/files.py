"""Opening puzzles in the window: files, built-ins, game IDs, folders and recent files.

A puzzle that opens becomes the state's (`ViewerState.set_family`) and is solved in the
background (`solving.Solving`); one that does not gives an error dialog naming the reason, the
file, the line and the offending line, and the window keeps what it showed. Unsaved changes of
the design are asked about first. Recent files live in QSettings (`recent.RecentFiles`) and
fill both File ▸ Open recent and the puzzle browser.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow

from tessera.viewer._qt.dialogs import error_box
from tessera.viewer._qt.recent import RecentFiles, fill_menu
from tessera.viewer._qt.solving import impossible_reason
from tessera.viewer.families import Family, load
from tessera.viewer.scenes import check_drawable

PUZZLE_FILES = "Puzzles (*.toml *.json *.xmpuzzle *.kenken *.soma);;All files (*)"


class Files(QObject):
    """File ▸ Open, Open game ID, Open folder, Open recent and the browser, for `window` (the
    `MainWindow`, typed by its Qt base so that the two modules do not import each other)."""

    def __init__(self, window: QMainWindow, recent: RecentFiles) -> None:
        super().__init__(window)
        self.window = window
        self.recent = recent
        self.galleries: list = []  # closed with the window
        recent.changed.connect(self._recent_changed)
        self._recent_changed(recent.entries())

    def open_puzzle(self, name_or_path: str) -> bool:
        """Load a file, built-in or game ID and start solving it. False and an error dialog
        (reason, file, line, the offending line) if it is bad; False too if the design has
        unsaved changes the user keeps (Cancel). In Design mode a polycube puzzle opens into
        the editor; any other leaves Design for Solution mode."""
        window = self.window
        if not window.design.may_discard():
            return False
        try:
            family = load(name_or_path)
            check_drawable(family)  # before anything is built on this thread
        except Exception as exc:  # noqa: BLE001 - any failure to open is a dialog, never a crash
            window.show_error(f"could not open {Path(str(name_or_path)).name}: {exc}")
            title = "Cannot open the puzzle"
            window.error_dialog = error_box(window, title, exc, str(name_or_path))
            return False
        if window.design.doc.dirty:  # the user chose to discard them
            window.design.forget()
        self.set_family(family, name_or_path)
        if window.state.mode == "design":  # still: a polycube puzzle, into the editor
            window.design.open_family(window.state.family)
        return True

    def set_family(self, family: Family, label: str | None = None) -> None:
        """Show `family` and solve it in a worker thread. In Design mode the solver waits
        until Design is left: the badge counts meanwhile, and two searches would share the
        cores."""
        window = self.window
        window.solver.stop()
        window.solver.forget()
        window.replay.stop_fade()
        window.replay.frame_next = True
        window.solution_panel.reset(impossible_reason(family))
        window.state.set_family(family)  # may leave Design mode (not a polycube puzzle)
        if label and (Path(label).exists() or family.source == label):
            self.recent.remember(label)
        if window.state.mode != "design":
            window.solver.start()
        window.status.refresh()
        window.puzzle_loaded.emit(family.name)

    def open_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open puzzle", "", PUZZLE_FILES)
        if path:
            self.open_puzzle(path)

    def open_folder_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.window, "Open a folder of puzzles")
        if folder:
            self.open_gallery(folder)

    def open_gallery(self, folder: str):
        """The folder's puzzles with thumbnails and counts; a click opens one here."""
        from tessera.viewer._qt.gallery import GalleryDialog

        gallery = GalleryDialog(folder, self.window)
        gallery.open_requested.connect(self.open_puzzle)
        gallery.show()
        self.galleries.append(gallery)
        return gallery

    def open_id_dialog(self) -> None:
        text, ok = QInputDialog.getText(self.window, "Open game ID", "Dominosa or Keen game ID:")
        if ok and text.strip():
            self.open_puzzle(text.strip())

    def _recent_changed(self, entries: list[str]) -> None:
        self.window.browser.populate(entries)
        fill_menu(self.window.recent_menu, entries, self.open_puzzle)

    def close_galleries(self) -> None:
        for gallery in self.galleries:
            gallery.close()
