"""File ▸ Export: a still image, an animation and STL files of what the window shows.

The pictures go through viewer/export.py (the same code as `tessera render`/`animate`, drawn
off screen from the window's camera); the STL files through viewer/_qt/stl_dialog.py and
models/stl_export.py (byte for byte what `tessera stl` writes). This module only asks (dialogs),
picks what is on screen from the viewer state (and, through `view()`, how the window shows
it: camera, explode, hidden and ghosted pieces, the layer cut, the theme), and reports: every
file written is announced by `saved(path)`, which the status bar turns into "saved to …" with
a button that opens the folder.

The file dialog's filter decides the extension: a name typed without one gets the chosen
filter's, so "tessera" with "MP4 video" selected is `tessera.mp4`, never a failure after the
dialog has closed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
    QWidget,
)

from tessera.viewer import export
from tessera.viewer._qt.stl_dialog import StlDialog, export_stl
from tessera.viewer.state import ViewerState

IMAGE_FILTERS = "PNG image (*.png)"
ANIMATION_FILTERS = "GIF animation (*.gif);;MP4 video (*.mp4)"


def suffixes_of(filters: str) -> list[str]:
    """The extensions a Qt filter string offers, in order ('*.gif' -> '.gif')."""
    return [s.lower() for s in re.findall(r"\*(\.[A-Za-z0-9]+)", filters)]


def with_extension(path: str | Path, selected_filter: str, filters: str) -> Path:
    """`path` with the chosen filter's extension when it has none of the offered ones (a
    name typed bare, or 'clip.gif.bak'); a name that already ends in an offered extension
    keeps it (typing 'clip.mp4' under the GIF filter means MP4)."""
    path = Path(path)
    offered = suffixes_of(filters)
    if path.suffix.lower() in offered:
        return path
    chosen = suffixes_of(selected_filter) or offered
    return path.with_name(path.name + chosen[0])


class Exporter(QObject):
    """The export actions of one window: `parent` is the window (dialogs sit on it). Pictures
    are drawn with `view()` (camera, inspector choices, theme), so they look as on screen;
    without it, with the `plotter`'s camera."""

    saved = Signal(str)  # a file (or folder) was written: its path

    def __init__(
        self,
        state: ViewerState,
        plotter,
        parent: QWidget,
        view: Callable[[], export.View] | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.plotter = plotter
        self.window = parent
        self._view = view

    def view(self) -> export.View:
        if self._view is not None:
            return self._view()
        return export.View(camera=self.plotter.camera_position)

    # -- pictures ------------------------------------------------------------------------------
    def export_image(self, path: str | Path, size=(1600, 1200), transparent=False, supersample=2):
        """Save the current step as a PNG, as the window shows it."""
        state = self.state
        if state.mode == "play":
            # the Play table is not a scene of steps: the picture is the view itself, at
            # the view's size (what is on screen, pixel for pixel)
            self.plotter.render()
            image = self.plotter.screenshot(transparent_background=transparent, return_img=True)
            export.save_png(path, image)
            self.saved.emit(str(path))
            return image
        if state.scene is None:
            return None
        image = export.render_image(
            state.scene, state.step, tuple(size), transparent, supersample, view=self.view()
        )
        export.save_png(path, image)
        self.saved.emit(str(path))
        return image

    def export_animation(
        self, path: str | Path, fps=12.0, size=(640, 480), orbit=0.0, frames_per_step=8,
        progress: QProgressDialog | None = None,
    ) -> int:  # fmt: skip
        """Save the current solution's steps (or the search trace) as a GIF or MP4."""
        state = self.state
        if state.scene is None:
            return 0
        steps = export.animation_steps(state.scene, state.replay_mode, frames_per_step)

        def on_frame(i: int, n: int) -> bool:
            if progress is None:
                return False
            progress.setMaximum(n)
            progress.setValue(i)
            return progress.wasCanceled()

        written = export.export_animation(
            state.scene, path, steps, fps, tuple(size), orbit, on_frame=on_frame,
            view=self.view(),
        )  # fmt: skip
        if progress is None or not progress.wasCanceled():
            self.saved.emit(str(path))
        return written

    def ask_path(self, title: str, name: str, filters: str) -> Path | None:
        """The save dialog; the extension follows the chosen filter."""
        path, chosen = QFileDialog.getSaveFileName(self.window, title, name, filters)
        return with_extension(path, chosen, filters) if path else None

    def image_dialog(self) -> None:
        dialog = ExportDialog(self.window, animation=False)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        path = self.ask_path("Export image", "tessera.png", IMAGE_FILTERS)
        if path is None:
            return
        try:
            self.export_image(path, dialog.size(), dialog.transparent.isChecked(), dialog.k.value())
        except Exception as exc:  # a full disk or a closed folder is a message, not a crash
            QMessageBox.warning(self.window, "Export failed", f"{path}:\n{exc}")

    def animation_dialog(self) -> None:
        dialog = ExportDialog(self.window, animation=True)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        path = self.ask_path("Export animation", "tessera.gif", ANIMATION_FILTERS)
        if path is None:
            return
        progress = QProgressDialog("Exporting frames…", "Cancel", 0, 100, self.window)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)
        try:
            self.export_animation(
                path, dialog.fps.value(), dialog.size(), dialog.orbit.value(), progress=progress
            )
        except Exception as exc:  # an encoder problem is a message, not a crash
            QMessageBox.warning(self.window, "Export failed", str(exc))
        finally:
            progress.close()
            progress.deleteLater()

    # -- STL -------------------------------------------------------------------------------------
    def stl_source(self):
        """(puzzle, instances, assembly) for Export STL from what is on screen now."""
        state = self.state
        family = state.family
        if family is None or not family.entry.editable:
            raise ValueError("STL export is for puzzles made of cells (polycubes)")
        puzzle = family.puzzle
        if state.mode == "play" and state.play is not None:
            model = state.play
            instances = [(p.piece, model.cells(p.index)) for p in model.pieces]
            return puzzle, instances, ("assembly-play", "play table")
        if state.mode == "solution" and state.solution is not None:
            number = state.solution_index + 1
            instances = [(p.piece, p.cells) for p in state.solution.pieces]
            return puzzle, instances, (f"assembly-{number}", f"solution {number}")
        return puzzle, None, None

    def export_stl(
        self, folder: str | Path, cell_mm: float = 20.0, gap_mm: float = 0.0, whole: bool = False
    ) -> list[tuple[Path, float]]:
        """Write the pieces shown (or the whole assembly) as STL; returns (path, volume mm³)."""
        puzzle, instances, assembly = self.stl_source()
        written = export_stl(folder, puzzle, instances, assembly, whole, cell_mm, gap_mm)
        self.saved.emit(str(folder))
        return written

    def stl_dialog(self) -> None:
        try:
            _, instances, _ = self.stl_source()
        except ValueError as exc:
            self.state.say(str(exc))
            return
        dialog = StlDialog(self.window, can_assemble=instances is not None)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        folder = QFileDialog.getExistingDirectory(self.window, "Export STL into folder")
        if not folder:
            return
        try:
            self.export_stl(
                folder, dialog.cell_mm.value(), dialog.gap_mm.value(), dialog.whole.isChecked()
            )
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self.window, "Export failed", str(exc))


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
