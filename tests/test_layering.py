"""The arrows run one way: cli -> viewer -> solvers -> models, and Qt or VTK never reach models/
or solvers/. import-linter checks the real import graph (contracts in pyproject.toml); these
tests run it the way `make test` does and prove the checker can fail."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests._paths import ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def run_lint_imports(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args], cwd=cwd, capture_output=True, text=True
    )


def test_the_projects_contracts_are_kept():
    result = run_lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_model_that_imports_the_viewer_or_pyvista_breaks_the_contracts(tmp_path):
    pkg = tmp_path / "probe"
    for sub in ("models", "viewer"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "models" / "bad.py").write_text("import pyvista\nfrom probe.viewer import x\n")
    (pkg / "viewer" / "x.py").write_text("")
    (tmp_path / ".importlinter").write_text(
        textwrap.dedent(
            """\
            [importlinter]
            root_package = probe
            include_external_packages = True

            [importlinter:contract:layers]
            name = layers
            type = layers
            layers =
                probe.viewer
                probe.models

            [importlinter:contract:gui]
            name = no gui in models
            type = forbidden
            source_modules = probe.models
            forbidden_modules = pyvista
            """
        )
    )
    env_path = f"{tmp_path}"
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 broken" in result.stdout
