"""Tessera's modules byte-compiled before a whole-process timing, as `pip install` leaves them.

This clone is installed in editable mode, so its modules are compiled on first import and
cached in `__pycache__`; with PYTHONDONTWRITEBYTECODE set (some shells and sandboxes set it) the
cache is never written and every `tessera` process compiles every module it imports from source
again (about 50 ms of a Soma batch's 0.7 s). An installed Tessera never does that, so the
benchmarks that time `tessera` as a fresh process compile the package once first.
"""

from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("cli", "models", "solvers", "viewer")


def compile_package() -> None:
    """Write `__pycache__` for every module of the package (quietly; errors are the test
    suite's business, not the benchmark's)."""
    for name in PACKAGE_FOLDERS:
        compileall.compile_dir(ROOT / name, quiet=1)
    for path in ROOT.glob("*.py"):
        compileall.compile_file(path, quiet=1)
