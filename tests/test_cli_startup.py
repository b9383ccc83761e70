"""`tessera --help` starts fast: building the parser loads no numerical or GUI library.

Every module in cli/ imports the solvers, models and viewer it needs inside its command
functions (cli/main.py), so `tessera --help` and `tessera COMMAND --help` cost about as much as
Python itself. Checked by the modules a fresh interpreter imports, never by timing: the list
`python -X importtime` prints, and `sys.modules` at exit (modules loaded through
`importlib.import_module`, as the family CLIs are, do not appear in the importtime list).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests._paths import ROOT

pytestmark = pytest.mark.timeout(120)

#: Top-level packages `--help` must not load.
HEAVY = ("numpy", "numba", "networkx", "pyvista", "vtk", "vtkmodules", "PySide6", "scipy")

HELPS = [
    [],
    ["solve"],
    ["list"],
    ["convert"],
    ["dice", "solve"],
    ["dice", "generate"],
    ["kenken", "solve"],
    ["kenken", "generate"],
    ["domino", "generate"],
    ["domino", "solve"],
    ["view"],
    ["render"],
    ["animate"],
    ["stl"],
    ["design"],
]

#: Runs `tessera ARGS --help` as the console script does, then prints every loaded module.
_WRAPPER = """
import sys
sys.argv = ["tessera", *sys.argv[1:]]
from tessera.__main__ import run
try:
    run()
except SystemExit:
    pass
sys.stdout.flush()
print("MODULES", *sorted(sys.modules), file=sys.stderr)
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def _heavy(modules: list[str]) -> list[str]:
    return sorted({m for m in modules if m.split(".")[0] in HEAVY})


def test_help_imports_no_heavy_module_by_importtime():
    result = _python("-X", "importtime", "-m", "tessera", "--help")
    assert result.returncode == 0, result.stderr
    assert "usage: tessera" in result.stdout
    imported = re.findall(r"^import time:\s*\d+\s*\|\s*\d+\s*\|\s*(\S+)\s*$", result.stderr, re.M)
    assert len(imported) > 20  # the list was read (argparse, pathlib, tessera.cli.main, ...)
    assert "tessera.cli.main" in imported
    assert _heavy(imported) == []


@pytest.mark.parametrize("command", HELPS, ids=lambda c: " ".join(c) or "tessera")
def test_help_of_every_command_imports_no_heavy_module(command):
    result = _python("-c", _WRAPPER, *command, "--help")
    assert "usage: tessera" in result.stdout, result.stderr
    modules = result.stderr.rsplit("MODULES", 1)[1].split()
    assert "tessera.cli.polycube" in modules  # every family's commands were registered
    assert _heavy(modules) == []


def test_constants_written_out_for_help_agree_with_the_solvers():
    from tessera.cli import disassemble as cli_disassemble
    from tessera.cli import kenken as cli_kenken
    from tessera.solvers import kenken
    from tessera.solvers.polycube import disassemble

    assert cli_kenken.LEVELS == kenken.LEVELS
    assert cli_disassemble.DEFAULT_NODE_LIMIT == disassemble.DEFAULT_NODE_LIMIT
