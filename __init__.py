"""Tessera, a 3D puzzle workbench: polycube packings, Instant Insanity dice, interlocking burrs,
domino puzzles and KenKen, solved headless (`tessera.cli`) or shown in a Qt window
(`tessera.viewer`).

The repository's top-level folders are the subpackages: `tessera.models` (puzzle data and file
formats), `tessera.solvers` (algorithms), `tessera.viewer` (Qt and PyVista), `tessera.cli` (the
`tessera` command) and `tessera/assets` (built-in puzzles and icons, package data).
"""

__version__ = "0.2.0"

import os as _os

# Before numpy loads: its OpenBLAS starts a thread per core on import (about 50 ms of CPU, a
# third of a small command's), and Tessera's matrices are a few rows each. A user's own
# setting wins.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Before anything imports numba: a read-only install must still find (or skip) a kernel cache.
from tessera._numba_cache import configure as _configure_numba_cache  # noqa: E402

_configure_numba_cache()
