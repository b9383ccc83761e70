"""BurrTools' rhombic grid (gridType 3): each cube of a lattice cut into 24 tetrahedra.

A cube is six square pyramids (apex at its centre, base a face), and each pyramid is four
tetrahedra cut along the face's diagonals. A rhombic dodecahedron is one cube's 24 plus the 24
of the six pyramids its neighbours turn towards it, so whole rhombic dodecahedra, and the
halves and quarters puzzles use, are all shapes of this grid.

BurrTools addresses a cube's 24 cells on a 5×5×5 raster: a cell's coordinate along each axis,
taken modulo 5 and folded (4 → 0, 3 → 1), is a permutation of {0, 1, 2}. The raster point is
where the tetrahedron's centroid falls when the cube is 5 units wide, which is how the table
below is built, not copied. Pieces move by whole cubes (5 raster units).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tessera.models.grids._signed import SignedPermutationGrid
from tessera.models.grids.base import as_cells

BLOCK = 5


def _folded(residue: np.ndarray) -> np.ndarray:
    return np.minimum(residue, BLOCK - 1 - residue)


@cache
def _tetrahedra() -> dict[tuple[int, int, int], np.ndarray]:
    """Raster residue -> the tetrahedron's four vertices in a unit cube."""
    centre = np.full(3, 0.5)
    table: dict[tuple[int, int, int], np.ndarray] = {}
    for axis in range(3):
        for side in (0.0, 1.0):
            a, b = [i for i in range(3) if i != axis]
            face = centre.copy()
            face[axis] = side
            corners = []
            for u, v in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.zeros(3)
                p[axis], p[a], p[b] = side, u, v
                corners.append(p)
            for k in range(4):
                tet = np.stack([centre, face, corners[k], corners[(k + 1) % 4]])
                residue = tuple(np.floor(tet.mean(axis=0) * BLOCK).astype(int).tolist())
                table[residue] = tet
    assert len(table) == 24
    return table


@cache
def _centroids() -> np.ndarray:
    """Each raster residue's tetrahedron centroid, indexed by (x·5 + y)·5 + z (NaN where the
    residue is no cell): centres of many cells in one look-up."""
    table = np.full((BLOCK**3, 3), np.nan)
    for (x, y, z), tet in _tetrahedra().items():
        table[(x * BLOCK + y) * BLOCK + z] = tet.mean(axis=0)
    return table


_TET_FACES = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def _outward(vertices: np.ndarray, faces: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Faces turned to wind counter-clockwise seen from outside."""
    centroid = vertices.mean(axis=0)
    out = []
    for f in faces:
        p = vertices[list(f)]
        normal = np.cross(p[1] - p[0], p[2] - p[0])
        out.append(f if normal @ (p[0] - centroid) > 0 else tuple(reversed(f)))
    return out


@cache
def _solid_of(residue: tuple[int, int, int]) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """One kind of cell's tetrahedron in the unit cube, faces turned outwards (the same for
    every cell of that kind: only its cube differs)."""
    tet = _tetrahedra()[residue]
    return tet, _outward(tet, _TET_FACES)


class Rhombic(SignedPermutationGrid):
    solutions_come_apart = False  # BurrTools lists every assembly here
    name = "rhombic"
    title = "rhombic dodecahedra"
    burrtools_type = 3
    # a whole cube along an axis, a face diagonal or a body diagonal (a rhombic dodecahedron's
    # three-fold axes: BurrTools' Twelve Piece Separation comes apart along them), each
    # followed by its opposite
    # fmt: off
    directions = ((5, 0, 0), (-5, 0, 0), (0, 5, 0), (0, -5, 0), (0, 0, 5), (0, 0, -5),
                  (5, 5, 0), (-5, -5, 0), (5, -5, 0), (-5, 5, 0), (5, 0, 5), (-5, 0, -5),
                  (5, 0, -5), (-5, 0, 5), (0, 5, 5), (0, -5, -5), (0, 5, -5), (0, -5, 5),
                  (5, 5, 5), (-5, -5, -5), (5, 5, -5), (-5, -5, 5), (5, -5, 5), (-5, 5, -5),
                  (5, -5, -5), (-5, 5, 5))
    direction_names = ("+x", "-x", "+y", "-y", "+z", "-z", "+x+y", "-x-y", "+x-y", "-x+y",
                       "+x+z", "-x-z", "+x-z", "-x+z", "+y+z", "-y-z", "+y-z", "-y+z",
                       "+x+y+z", "-x-y-z", "+x+y-z", "-x-y+z", "+x-y+z", "-x+y-z", "+x-y-z",
                       "-x+y+z")
    # fmt: on

    def valid(self, cells) -> np.ndarray:
        folded = np.sort(_folded(as_cells(cells) % BLOCK), axis=1)
        return (folded == np.array([0, 1, 2])).all(axis=1)

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        corner = np.asarray(corner, np.int64)
        return corner - corner % BLOCK

    def is_translation(self, offsets) -> np.ndarray:
        return (np.asarray(offsets) % BLOCK == 0).all(axis=-1)

    def centres(self, cells) -> np.ndarray:
        arr = as_cells(cells)
        residue = arr % BLOCK
        code = (residue[:, 0] * BLOCK + residue[:, 1]) * BLOCK + residue[:, 2]
        return arr // BLOCK + _centroids()[code]

    def solid(self, cell) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        cell = np.asarray(cell, np.int64)
        vertices, faces = _solid_of(tuple((cell % BLOCK).tolist()))
        return vertices + cell // BLOCK, faces
