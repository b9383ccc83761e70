"""Numbers the movement kernels and their Python callers share, in a module of their own: the
kernels compiled ahead of time (`solvers.native`) carry them, so the built modules go stale
when these change, and not when the Python around the kernels does."""

from __future__ import annotations

import numpy as np

FREE = np.int32(1 << 30)  # "never touches" in a distance matrix

# the separation search's return codes
FOUND, STUCK, LIMIT = 0, 1, 2

#: Shape numbers in the disassembler's pair cache stay below this (15 bits each in its keys)
SHAPES = 1 << 15
