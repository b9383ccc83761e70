"""The arrows run one way: viewer -> solvers -> models. models/ and solvers/ stay free of Qt
and VTK so that everything headless (the CLI, tests, scripts) never needs a display."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUI_MODULES = {"PySide6", "pyvista", "pyvistaqt", "vtk", "vtkmodules", "qtpy", "PyQt5", "PyQt6"}
FORBIDDEN = {
    "models": GUI_MODULES | {"solvers", "viewer", "cli"},
    "solvers": GUI_MODULES | {"viewer", "cli"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_models_and_solvers_import_no_gui_and_point_downwards():
    offences = []
    for package, forbidden in FORBIDDEN.items():
        files = sorted((ROOT / package).rglob("*.py"))
        assert files, f"{package}/ has no modules"
        for path in files:
            bad = imported_roots(path) & forbidden
            if bad:
                offences.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offences, "\n".join(offences)


def test_the_checker_sees_a_forbidden_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import pyvista as pv\nfrom PySide6.QtCore import QObject\n")
    assert imported_roots(probe) >= {"pyvista", "PySide6"}
