"""A piece's cells as the viewer draws them: each grid's real solids (`models.grids.surface`),
in view space.

View space is the grid's space less ½ on every axis. On the cube grid that centres each cell on
its integer triple, where the viewer has always drawn it: a rotation of the cube group then maps
the mesh of a piece exactly onto the mesh of the rotated piece, and `viewer.framing` and the
inspector read the cells back off the faces. Every other grid is only shifted with it; a
placement there is still one affine `user_matrix` (`polycube.placement_matrix`), so the viewer
never rebuilds a mesh to move or turn a piece.

Polyhedral cells keep their quads and triangles, because the renderer draws their edges: the
dark lines then follow the cells, with no diagonals. Round cells are smooth balls that carry
their own normals (`render.py` shades such a mesh smoothly) and no drawn edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.base import as_cells
from tessera.models.grids.surface import DRAW_LEVEL, cell_faces, corners, icosphere, is_round

VIEW_SHIFT = 0.5  # view space = the grid's space - VIEW_SHIFT on each axis


@dataclass(frozen=True)
class Drawn:
    """One piece's surface in view space: points, faces in VTK's flat layout, the cell each
    face belongs to, and point normals for a smooth (round) surface."""

    points: np.ndarray
    faces: np.ndarray
    owner: np.ndarray
    normals: np.ndarray | None = None


def view_centres(grid: Grid, cells) -> np.ndarray:
    """Cell centres in view space (the cube grid's: the integer triples themselves)."""
    return grid.centres(as_cells(cells)) - VIEW_SHIFT


def drawn(grid: Grid, cells) -> Drawn:
    """The surface of a piece's cells as the viewer draws it (see the module docstring)."""
    arr = as_cells(cells)
    if is_round(grid):
        unit, triangles = icosphere(DRAW_LEVEL)
        centres = view_centres(grid, arr)
        points = (centres[:, None, :] + unit[None] * grid.radius).reshape(-1, 3)
        tris = (triangles[None] + len(unit) * np.arange(len(arr))[:, None, None]).reshape(-1, 3)
        faces = np.column_stack([np.full(len(tris), 3), tris]).ravel()
        owner = np.repeat(np.arange(len(arr)), len(triangles))
        return Drawn(points, faces, owner, np.tile(unit, (len(arr), 1)))
    points, faces, owner = cell_faces(grid, arr)
    return Drawn(points - VIEW_SHIFT, faces, owner)


def hull_points(grid: Grid, cells) -> tuple[np.ndarray, float]:
    """Points whose box, grown by the returned pad on every side, is the box of what a piece's
    cells fill in view space, along any direction: a polyhedron's corners (pad 0), a ball's
    centre (pad: its radius)."""
    arr = as_cells(cells)
    if is_round(grid):
        return view_centres(grid, arr), float(grid.radius)
    return corners(grid, arr) - VIEW_SHIFT, 0.0


def extent(grid: Grid, cells) -> tuple[np.ndarray, np.ndarray]:
    """The box (low, high corners) a piece's cells fill in view space."""
    points, pad = hull_points(grid, cells)
    return points.min(axis=0) - pad, points.max(axis=0) + pad


def reach(hull: tuple[np.ndarray, float], direction: np.ndarray) -> tuple[float, float]:
    """How far a piece reaches along a unit vector (lowest, highest), from its `hull_points`."""
    points, pad = hull
    along = points @ direction
    return float(along.min() - pad), float(along.max() + pad)


def cell_quads(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit cubes centred on the cells: vertices (k, 3) float and quads (m, 4) int of the
    faces not shared by two cells."""
    vertices, quads, _ = owned_quads(cells)
    return vertices, quads


def owned_quads(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`cell_quads`, and for each quad the index of the cell it belongs to (so a face can
    be painted in its own cell's colour: BurrTools' coloured voxels)."""
    arr = as_cells(cells)
    if len(arr) == 0:
        return np.zeros((0, 3)), np.zeros((0, 4), np.int64), np.zeros(0, np.int64)
    found = drawn(CUBES, arr)
    return found.points, found.faces.reshape(-1, 5)[:, 1:], found.owner
