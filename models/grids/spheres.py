"""BurrTools' sphere grid (gridType 2): balls packed face-centred cubic.

A cell is a triple with an even sum; touching balls differ by a permutation of (±1, ±1, 0),
so in space the lattice is scaled by √½ to make balls of diameter 1. Square layers (the 5×11
board) and hexagonal layers (a pyramid's slopes) are both planes of this one lattice, which is
why one set of polysphere pieces builds both.

Turns: the 24 of the cube, and each of those after a sixth of a turn about one of the four body
diagonals: 120 in all. The cube's turns map the lattice onto itself; the others map only the
hexagonal plane through the turning point onto itself, so they give the extra orientations a
flat piece has within a hexagonal layer and nothing for a piece that is not flat. As BurrTools
does, a shape is turned about its first ball, and an image that leaves the lattice is dropped.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from tessera.models import geometry
from tessera.models.grids.base import Grid, as_cells

SCALE = np.sqrt(0.5)  # balls of diameter 1


def _turn(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


@cache
def _matrices() -> np.ndarray:
    """120 turns (the cube's 24 first, in the cube grid's order), then their mirror images."""
    cube = [m.astype(np.float64) for m in geometry.rotations()]
    found = list(cube)
    for diagonal in itertools.product((1, -1), repeat=2):
        twist = _turn(np.array([1.0, *diagonal]), np.pi / 3)
        for m in cube:
            t = m @ twist
            if not any(np.allclose(t, f) for f in found):
                found.append(t)
    assert len(found) == 120, len(found)
    return np.stack(found + [-m for m in found])


class Spheres(Grid):
    solutions_come_apart = False  # BurrTools lists every assembly here
    name = "spheres"
    title = "spheres"
    burrtools_type = 2
    n_rotations = 120
    radius = 0.5
    # to each of the 12 touching neighbours, each followed by its opposite
    # fmt: off
    directions = ((1, 1, 0), (-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, 0, 1), (-1, 0, -1),
                  (1, 0, -1), (-1, 0, 1), (0, 1, 1), (0, -1, -1), (0, 1, -1), (0, -1, 1))
    direction_names = ("+x+y", "-x-y", "+x-y", "-x+y", "+x+z", "-x-z", "+x-z", "-x+z",
                       "+y+z", "-y-z", "+y-z", "-y+z")
    # fmt: on

    @property
    def matrices(self) -> np.ndarray:
        return _matrices()

    def valid(self, cells) -> np.ndarray:
        return (as_cells(cells).sum(axis=1) & 1) == 0

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        corner = np.array(corner, np.int64)
        corner[..., 0] -= corner.sum(axis=-1) & 1
        return corner

    def is_translation(self, offsets) -> np.ndarray:
        return (np.asarray(offsets).sum(axis=-1) & 1) == 0

    def centres(self, cells) -> np.ndarray:
        return as_cells(cells) * SCALE

    def transform_all(self, cells, mirrors: bool = False) -> tuple[np.ndarray, np.ndarray]:
        arr = as_cells(cells)
        mats = _matrices()[: 240 if mirrors else 120]
        if len(arr) == 0:
            return np.zeros((len(mats), 0, 3), np.int64), np.ones(len(mats), bool)
        rel = (arr - arr[0]).astype(np.float64)
        moved = np.einsum("gij,nj->gni", mats, rel)
        images = np.rint(moved).astype(np.int64)
        ok = (np.abs(moved - images) < 1e-6).all(axis=(1, 2))
        ok &= ((images.sum(axis=2) & 1) == 0).all(axis=1)
        return images + arr[0], ok

    def solid(self, cell) -> None:
        return None
