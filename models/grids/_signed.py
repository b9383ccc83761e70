"""Grids whose symmetries are the cube's 48: the cube grid itself, and BurrTools' rhombic and
tetra-octa grids, which cut each cube of a coarser lattice into several cells.

On all three, a signed permutation acts on a cell's centre `v + ½`, so on the integers it is
`v -> (M (2v + 1) - 1) / 2`: exact integer arithmetic, never an image off the lattice.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tessera.models import geometry
from tessera.models.grids.base import Grid, as_cells


@cache
def _matrices(mirrors: bool) -> np.ndarray:
    """The 24 rotations, then (with mirrors) the 24 improper symmetries, in the cube grid's
    long-standing order (`geometry.symmetries`): orientation numbers in saved files and
    traces stay what they were."""
    mats = geometry.symmetries() if mirrors else geometry.rotations()
    return np.stack(mats)


class SignedPermutationGrid(Grid):
    n_rotations = 24

    @property
    def matrices(self) -> np.ndarray:
        return _matrices(True).astype(np.float64)

    def transform_all(self, cells, mirrors: bool = False) -> tuple[np.ndarray, np.ndarray]:
        arr = as_cells(cells)
        mats = _matrices(mirrors)
        doubled = np.einsum("gij,nj->gni", mats, 2 * arr + 1)
        return (doubled - 1) // 2, np.ones(len(mats), bool)
