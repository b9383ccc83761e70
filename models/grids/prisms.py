"""BurrTools' triangular-prism grid (gridType 1): equilateral triangles in layers.

In a layer, cell (x, y) is an upward triangle when x + y is even and a downward one when it is
odd; rows are y, and x walks along a row half a side at a time. Layers stack along z, one unit
high. The symmetries are the hexagonal prism's: six turns about z, each also flipped over (12
rotations), and their mirror images. They act in space, about a corner of the triangles, and
land every centre on a centre. A piece moves by translations that keep triangles pointing the
way they point: along z, or by a whole side in the layer (x + y even).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tessera.models.grids.base import Grid, as_cells

_ROW = np.sqrt(0.75)  # a row's height: the triangle's height for sides of 1


@cache
def _matrices() -> np.ndarray:
    """12 rotations (six turns, then each flipped about the x axis), then 12 mirror images."""
    turns = []
    for k in range(6):
        a = np.pi / 3 * k
        c, s = np.cos(a), np.sin(a)
        turns.append(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]))
    flip = np.diag([1.0, -1.0, -1.0])
    rotations = turns + [t @ flip for t in turns]
    mirror = np.diag([1.0, 1.0, -1.0])
    return np.stack(rotations + [r @ mirror for r in rotations])


class Prisms(Grid):
    name = "prisms"
    title = "triangular prisms"
    burrtools_type = 1
    n_rotations = 12
    # BurrTools' order (movementcache_1.cpp), each followed by its opposite: the disassembler
    # tries them in this order, which decides its level strings
    directions = ((0, 0, 1), (0, 0, -1), (2, 0, 0), (-2, 0, 0), (1, 1, 0), (-1, -1, 0),
                  (-1, 1, 0), (1, -1, 0))  # fmt: skip
    # the signs of each direction's x and y in space, as the cube grid names its own
    direction_names = ("+z", "-z", "+x", "-x", "+x+y", "-x-y", "-x+y", "+x-y")

    @property
    def matrices(self) -> np.ndarray:
        return _matrices()

    def valid(self, cells) -> np.ndarray:
        return np.ones(len(as_cells(cells)), bool)

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        corner = np.array(corner, np.int64)
        corner[..., 0] -= (corner[..., 0] + corner[..., 1]) & 1
        return corner

    def is_translation(self, offsets) -> np.ndarray:
        offsets = np.asarray(offsets)
        return ((offsets[..., 0] + offsets[..., 1]) & 1) == 0

    def centres(self, cells) -> np.ndarray:
        arr = as_cells(cells)
        up = ((arr[:, 0] + arr[:, 1]) & 1) == 0
        x = 0.5 + 0.5 * arr[:, 0]
        y = _ROW * arr[:, 1] + np.where(up, _ROW / 3, 2 * _ROW / 3)
        return np.stack([x, y, arr[:, 2] + 0.5], axis=1)

    def _cells_at(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The cells whose centres are these points, and whether each point is one."""
        y = np.floor(points[..., 1] / _ROW + 1e-9).astype(np.int64)
        x = np.rint(2 * points[..., 0] - 1).astype(np.int64)
        z = np.rint(points[..., 2] - 0.5).astype(np.int64)
        cells = np.stack([x, y, z], axis=-1)
        back = self.centres(cells.reshape(-1, 3)).reshape(points.shape)
        return cells, (np.abs(back - points) < 1e-6).all(axis=-1)

    def transform_all(self, cells, mirrors: bool = False) -> tuple[np.ndarray, np.ndarray]:
        arr = as_cells(cells)
        mats = _matrices()[: 24 if mirrors else 12]
        moved = np.einsum("gij,nj->gni", mats, self.centres(arr))
        images, exact = self._cells_at(moved)
        return images, exact.all(axis=1) if len(arr) else np.ones(len(mats), bool)

    def solid(self, cell) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        x, y, z = (int(v) for v in cell)
        left = 0.5 * x
        base = _ROW * y
        if (x + y) & 1 == 0:  # upward: base below, apex above
            tri = [(left, base), (left + 1, base), (left + 0.5, base + _ROW)]
        else:  # downward: apex below
            tri = [(left + 0.5, base), (left + 1, base + _ROW), (left, base + _ROW)]
        bottom = [(px, py, z) for px, py in tri]
        top = [(px, py, z + 1) for px, py in tri]
        vertices = np.array(bottom + top, np.float64)
        faces = [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)]
        return vertices, faces
