"""Outer surface of a set of unit cells, as quads (private helper until models/mesh.py lands).

Cells are cube centres on the integer grid (a cell spans c ± 0.5), so a rotation matrix of the
cube group maps the mesh of a piece exactly onto the mesh of the rotated piece and a placement
is one affine `user_matrix`: the viewer never rebuilds a mesh to move or turn a piece.
Quads rather than triangles because the renderer draws their edges: the dark lines then follow
the cell grid, with no diagonals.
"""

from __future__ import annotations

import numpy as np

# For each outward normal: four corner offsets in counter-clockwise order seen from outside.
_FACES: list[tuple[np.ndarray, np.ndarray]] = []
for _axis in range(3):
    for _sign in (1, -1):
        n = np.zeros(3)
        n[_axis] = _sign
        u = np.zeros(3)
        v = np.zeros(3)
        if _sign > 0:
            u[(_axis + 1) % 3], v[(_axis + 2) % 3] = 1, 1
        else:
            u[(_axis + 2) % 3], v[(_axis + 1) % 3] = 1, 1
        corners = np.array([n - u - v, n + u - v, n + u + v, n - u + v]) * 0.5
        _FACES.append((n.astype(np.int64), corners))


def cell_quads(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (k, 3) float and quads (m, 4) int of the faces not shared by two cells."""
    vertices, quads, _ = owned_quads(cells)
    return vertices, quads


def owned_quads(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`cell_quads`, and for each quad the index of the cell it belongs to (so a face can
    be painted in its own cell's colour: BurrTools' coloured voxels)."""
    cells = np.asarray(cells, np.int64).reshape(-1, 3)
    occupied = {tuple(c) for c in cells.tolist()}
    corner_list = []
    owners = []
    for normal, corners in _FACES:
        neighbours = cells + normal
        outer = np.array([tuple(c) not in occupied for c in neighbours.tolist()], bool)
        if outer.any():
            corner_list.append(cells[outer][:, None, :] + corners[None, :, :])
            owners.append(np.flatnonzero(outer))
    if not corner_list:
        return np.zeros((0, 3)), np.zeros((0, 4), np.int64), np.zeros(0, np.int64)
    quads = np.concatenate(corner_list)  # (m, 4, 3)
    doubled = np.rint(quads.reshape(-1, 3) * 2).astype(np.int64)
    unique, inverse = np.unique(doubled, axis=0, return_inverse=True)
    return unique / 2.0, inverse.reshape(-1, 4), np.concatenate(owners)
