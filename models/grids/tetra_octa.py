"""BurrTools' tetrahedra-octahedra grid (gridType 4).

Each cube of a lattice holds one regular tetrahedron on four of its corners and four small
corner tetrahedra, each an eighth of the octahedron that eight cubes build around a shared
corner. Which four corners the big tetrahedron uses alternates from cube to cube, so the cubes
form a chessboard in three dimensions, and a piece moves by two cubes, or one cube along two
axes at once (the face-centred lattice).

BurrTools addresses a cube's five cells on a 3×3×3 raster: the centre point (1, 1, 1) is the big
tetrahedron, and the corner point 2c of the raster is the small tetrahedron at cube corner c.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from tessera.models.grids._signed import SignedPermutationGrid
from tessera.models.grids.base import as_cells
from tessera.models.grids.rhombic import _TET_FACES, _outward

BLOCK = 3


def _odd(block: np.ndarray) -> np.ndarray:
    return (block.sum(axis=-1) & 1).astype(bool)


@cache
def _corner_tetra(corner: tuple[int, int, int]) -> np.ndarray:
    c = np.array(corner, np.float64)
    ends = [c.copy() for _ in range(3)]
    for axis in range(3):
        ends[axis][axis] = 1 - c[axis]
    return np.stack([c, *ends])


@cache
def _big_tetra(even_corners: bool) -> np.ndarray:
    want = 0 if even_corners else 1
    return np.array(
        [c for c in itertools.product((0, 1), repeat=3) if sum(c) % 2 == want][::-1], np.float64
    )


@cache
def _solid_of(sub: tuple[int, int, int], odd: bool) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """One kind of cell's tetrahedron in its unit cube, faces turned outwards."""
    if sub == (1, 1, 1):
        # the big tetrahedron uses the corners the small ones leave: odd cubes hold the
        # small ones on even corners
        tet = _big_tetra(even_corners=not odd)
    else:
        tet = _corner_tetra((sub[0] // 2, sub[1] // 2, sub[2] // 2))
    return tet, _outward(tet, _TET_FACES)


class TetraOcta(SignedPermutationGrid):
    solutions_come_apart = False  # BurrTools lists every assembly here
    name = "tetra-octa"
    title = "tetrahedra and octahedra"
    burrtools_type = 4
    # one cube along two axes at once (along a tetrahedron's edge), then two cubes along one
    # axis (BurrTools' Four Piece Tetrahedron comes apart only so), each followed by its
    # opposite
    # fmt: off
    directions = ((3, 3, 0), (-3, -3, 0), (3, -3, 0), (-3, 3, 0), (3, 0, 3), (-3, 0, -3),
                  (3, 0, -3), (-3, 0, 3), (0, 3, 3), (0, -3, -3), (0, 3, -3), (0, -3, 3),
                  (6, 0, 0), (-6, 0, 0), (0, 6, 0), (0, -6, 0), (0, 0, 6), (0, 0, -6))
    direction_names = ("+x+y", "-x-y", "+x-y", "-x+y", "+x+z", "-x-z", "+x-z", "-x+z",
                       "+y+z", "-y-z", "+y-z", "-y+z", "+x", "-x", "+y", "-y", "+z", "-z")
    # fmt: on

    def valid(self, cells) -> np.ndarray:
        arr = as_cells(cells)
        block, sub = arr // BLOCK, arr % BLOCK
        centre = (sub == 1).all(axis=1)
        corner = ((sub == 0) | (sub == 2)).all(axis=1)
        # corners with an even count of 2s in odd cubes, an odd count in even cubes
        twos = (sub == 2).sum(axis=1) & 1
        return centre | (corner & (twos.astype(bool) != _odd(block)))

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        corner = np.asarray(corner, np.int64)
        base = corner - corner % BLOCK
        shift = np.zeros_like(base)
        shift[..., 0] = np.where(_odd(base // BLOCK), BLOCK, 0)
        return base - shift

    def is_translation(self, offsets) -> np.ndarray:
        offsets = np.asarray(offsets)
        return (offsets % BLOCK == 0).all(axis=-1) & ~_odd(offsets // BLOCK)

    def centres(self, cells) -> np.ndarray:
        arr = as_cells(cells)
        return np.array([self.solid(c)[0].mean(axis=0) for c in arr.tolist()]).reshape(-1, 3)

    def solid(self, cell) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        cell = np.asarray(cell, np.int64)
        block = cell // BLOCK
        vertices, faces = _solid_of(tuple((cell % BLOCK).tolist()), bool(_odd(block)))
        return vertices + block, faces
