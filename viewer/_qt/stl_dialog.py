"""File ▸ Export STL: the pieces as they are on screen, through the same code as `tessera stl`.

Which cells go out depends on the mode: in Solution mode the pieces of the solution shown
(exactly `tessera stl PUZZLE --solution K [--assembly]`), in Play mode wherever they are on the
table, otherwise every piece at its own cells. The files come from
`models.stl_export.piece_parts` and `write_part`, shared with the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from tessera.models.polycube import PolycubePuzzle
from tessera.models.stl_export import piece_parts, write_part


def export_stl(
    folder: str | Path,
    puzzle: PolycubePuzzle,
    instances: Sequence[tuple[int, np.ndarray]] | None,
    assembly: tuple[str, str] | None,
    whole: bool,
    cell_mm: float = 20.0,
    gap_mm: float = 0.0,
) -> list[tuple[Path, float]]:
    """Write one STL per piece, or (`whole`) only the assembly file; returns (path, volume mm³).

    `assembly` is the (file stem, label) of the one-file version: needs `instances`."""
    if not cell_mm > 0:
        raise ValueError(f"the cell size must be positive, not {cell_mm:g} mm")
    if not 0 <= gap_mm < cell_mm:
        raise ValueError(f"the gap must be at least 0 and less than the cell ({cell_mm:g} mm)")
    if whole and (instances is None or assembly is None):
        raise ValueError("no assembly to export here: show a solution or use Play mode")
    parts = piece_parts(puzzle, instances, assembly if whole else None)
    if whole:
        parts = parts[-1:]
    folder = Path(folder)
    if not folder.parent.is_dir():  # the command line's rule: missing parents are named
        raise ValueError(f"{folder.parent}: no such folder (create it first)")
    folder.mkdir(exist_ok=True)
    out = []
    for part in parts:
        _, vol = write_part(part, folder, cell_mm, gap_mm)
        out.append((folder / part.filename, vol))
    return out


class StlDialog(QDialog):
    """Cell size and gap in millimetres, and one file per piece or the whole assembly."""

    def __init__(self, parent: QWidget | None, can_assemble: bool) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export STL")
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.cell_mm = QDoubleSpinBox()
        self.cell_mm.setRange(1.0, 500.0)
        self.cell_mm.setValue(20.0)
        self.cell_mm.setSuffix(" mm")
        form.addRow("cell size", self.cell_mm)
        self.gap_mm = QDoubleSpinBox()
        self.gap_mm.setRange(0.0, 5.0)
        self.gap_mm.setSingleStep(0.1)
        self.gap_mm.setSuffix(" mm")
        self.gap_mm.setToolTip("clearance between neighbouring pieces (each shrinks by half)")
        form.addRow("gap", self.gap_mm)
        layout.addLayout(form)
        self.each = QRadioButton("each piece as its own file")
        self.each.setChecked(True)
        self.whole = QRadioButton("the whole assembly as one file")
        self.whole.setEnabled(can_assemble)
        layout.addWidget(self.each)
        layout.addWidget(self.whole)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
