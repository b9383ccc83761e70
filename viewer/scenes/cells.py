"""Marks drawn around single cells on any grid, in view space (`_surface.view_centres`): the
wire outline of a cell (Play's flag on a bad cell, Design's hover), a flat tile under a cell
(Play's target footprint, Design's ground), and the points a camera must see to show cells
whole.

Each asks the grid for its cell's solid (`Grid.solid`) and draws a ball (a round cell, which
has none) as circles and discs of its radius: no grid is named here.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pyvista as pv

from tessera.models.grids import Grid
from tessera.models.grids.base import as_cells
from tessera.viewer.scenes._surface import VIEW_SHIFT, hull_points, view_centres

ROUND = 24  # segments of a drawn circle


def _circle(n: int = ROUND) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([np.cos(t), np.sin(t)], axis=1)


def solid(grid: Grid, cell) -> tuple[np.ndarray, list[tuple[int, ...]]] | None:
    """The cell's solid in view space (vertices, faces), or None for a ball."""
    found = grid.solid(tuple(int(v) for v in cell))
    if found is None:
        return None
    vertices, faces = found
    return np.asarray(vertices, float) - VIEW_SHIFT, list(faces)


def cell_edges(grid: Grid, cells, grow: float = 0.04) -> pv.PolyData:
    """Every edge of each cell's solid, the solid grown about its centre by `grow` of a cell
    (so the lines are not lost in a piece's own edges); a ball as three great circles."""
    arr = as_cells(cells)
    if len(arr) == 0:
        return pv.PolyData()
    points: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    count = 0
    centres = view_centres(grid, arr)
    for cell, centre in zip(arr.tolist(), centres, strict=True):
        shape = solid(grid, cell)
        if shape is None:
            ring = _circle() * grid.radius * (1 + 2 * grow)
            for a, b in ((0, 1), (1, 2), (2, 0)):
                loop = np.zeros((ROUND, 3))
                loop[:, a], loop[:, b] = ring[:, 0], ring[:, 1]
                points.append(centre + loop)
                k = np.arange(ROUND)
                lines.append(np.stack([k, (k + 1) % ROUND], axis=1) + count)
                count += ROUND
            continue
        vertices, faces = shape
        middle = vertices.mean(axis=0)
        vertices = middle + (vertices - middle) * (1 + 2 * grow)
        pairs = {tuple(sorted((f[i], f[(i + 1) % len(f)]))) for f in faces for i in range(len(f))}
        points.append(vertices)
        lines.append(np.array(sorted(pairs), np.int64) + count)
        count += len(vertices)
    pairs = np.vstack(lines)
    flat = np.hstack([np.full((len(pairs), 1), 2), pairs]).ravel()
    return pv.PolyData(np.vstack(points), lines=flat)


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2D points, counter-clockwise (monotone chain)."""
    pts = sorted(set(map(tuple, np.round(points, 9).tolist())))
    if len(pts) < 3:
        return np.array(pts)

    def cross(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def footprint(grid: Grid, cell) -> np.ndarray:
    """The cell's outline seen from above (xy, counter-clockwise, view space): a cube's
    square, a prism's triangle, a ball's circle."""
    shape = solid(grid, cell)
    if shape is None:
        centre = view_centres(grid, [cell])[0]
        return centre[:2] + _circle() * grid.radius
    return _hull(shape[0][:, :2])


def bottom(grid: Grid, cells) -> float:
    """The lowest point of the cells in view space (z)."""
    points, pad = hull_points(grid, cells)
    return float(points[:, 2].min() - pad)


def tiles(grid: Grid, cells, z0: float, z1: float) -> pv.PolyData:
    """A flat slab from z0 to z1 under each cell's footprint (one mesh; faces are grouped per
    cell, top face first, so a picked face's cell is `face // faces_per_tile` only when every
    tile has the same number of sides: use `tile_owner`)."""
    points: list[np.ndarray] = []
    faces: list[int] = []
    count = 0
    for cell in as_cells(cells).tolist():
        ring = footprint(grid, cell)
        n = len(ring)
        low = np.column_stack([ring, np.full(n, z0)])
        high = np.column_stack([ring, np.full(n, z1)])
        points += [low, high]
        faces += [n, *(count + n + np.arange(n))]  # the top, counter-clockwise from above
        faces += [n, *(count + np.arange(n)[::-1])]
        for i in range(n):
            j = (i + 1) % n
            faces += [4, count + i, count + j, count + n + j, count + n + i]
        count += 2 * n
    if not points:
        return pv.PolyData()
    return pv.PolyData(np.vstack(points), np.array(faces, np.int64))


def tile_owner(grid: Grid, cells) -> np.ndarray:
    """Per face of `tiles(grid, cells, ...)`, the index of its cell."""
    sides = [len(footprint(grid, c)) for c in as_cells(cells).tolist()]
    return np.repeat(np.arange(len(sides)), [n + 2 for n in sides]).astype(np.int64)


def cell_points(grid: Grid, cells) -> np.ndarray:
    """Points that must be in view to see the cells whole: a solid's corners, a ball's
    centre pushed out by its radius along each axis."""
    points, pad = hull_points(grid, cells)
    if pad == 0:
        return np.unique(np.round(points, 9), axis=0)
    out = [points + pad * s * np.eye(3)[a] for a in range(3) for s in (1, -1)]
    return np.vstack(out)


def plates(grid: Grid, cells, z: float) -> pv.PolyData:
    """One flat polygon per cell at height z, its footprint (Design's ground: face k is
    cell k's square, triangle or disc)."""
    points: list[np.ndarray] = []
    faces: list[int] = []
    count = 0
    for cell in as_cells(cells).tolist():
        ring = footprint(grid, cell)
        points.append(np.column_stack([ring, np.full(len(ring), z)]))
        faces += [len(ring), *(count + np.arange(len(ring)))]
        count += len(ring)
    if not points:
        return pv.PolyData()
    return pv.PolyData(np.vstack(points), np.array(faces, np.int64))


def _normal(loop: np.ndarray) -> np.ndarray:
    """The outward unit normal of a counter-clockwise polygon (Newell's method)."""
    nxt = np.roll(loop, -1, axis=0)
    n = np.array(
        [
            ((loop[:, 1] - nxt[:, 1]) * (loop[:, 2] + nxt[:, 2])).sum(),
            ((loop[:, 2] - nxt[:, 2]) * (loop[:, 0] + nxt[:, 0])).sum(),
            ((loop[:, 0] - nxt[:, 0]) * (loop[:, 1] + nxt[:, 1])).sum(),
        ]
    )
    return n / np.linalg.norm(n)


def face_normals(points: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Per polygon of a VTK flat face list, its outward unit normal."""
    out = []
    i = 0
    while i < len(faces):
        n = int(faces[i])
        out.append(_normal(np.asarray(points)[faces[i + 1 : i + 1 + n]]))
        i += n + 1
    return np.array(out).reshape(-1, 3)


@cache
def neighbour_table(grid: Grid) -> np.ndarray:
    """Every step from a cell to a neighbour across a face (touching, for balls), over all
    kinds of cell: the grid's directions first, in their order (on cubes exactly +x, -x, +y,
    -y, +z, -z), then the rest."""
    found = {
        tuple(int(v) for v in off) for kind in _kinds(grid) for off in grid.neighbour_offsets(kind)
    }
    first = [d for d in grid.directions if d in found]
    rest = sorted(found - set(first))
    return np.array(first + rest, np.int64).reshape(-1, 3)


def _kinds(grid: Grid) -> list[tuple[int, int, int]]:
    """One residue per kind of cell (the upward and the downward prism)."""
    block = np.array(list(itertools.product(range(6), repeat=3)), np.int64)
    block = block[grid.valid(block)]
    return sorted({tuple(int(v) for v in r) for r in grid.residue(block)})


def across(grid: Grid, cell, normal: np.ndarray) -> int:
    """The index in `neighbour_table(grid)` of the neighbour of `cell` across the face (or at
    the point of a ball) whose outward normal is `normal`: the one in that direction."""
    table = neighbour_table(grid)
    cell = np.asarray(cell, np.int64)
    mine = {
        tuple(int(v) for v in off) for off in grid.neighbour_offsets(grid.residue(cell[None])[0])
    }
    ok = np.flatnonzero([tuple(off) in mine for off in table.tolist()])
    ways = view_centres(grid, cell + table[ok]) - view_centres(grid, cell[None])
    ways /= np.linalg.norm(ways, axis=1, keepdims=True)
    return int(ok[int(np.argmax(ways @ np.asarray(normal, float)))])


def face_patch(grid: Grid, cell, offset, inset: float = 0.72, lift: float = 0.02) -> np.ndarray:
    """The mark on the face of `cell` shared with the neighbour at `offset` (view space, a
    counter-clockwise loop): that face shrunk about its centre by `inset` and lifted off it
    by `lift`; on a ball, a small disc where it would touch that neighbour."""
    cell = np.asarray(cell, np.int64)
    centre = view_centres(grid, cell[None])[0]
    way = view_centres(grid, (cell + np.asarray(offset, np.int64))[None])[0] - centre
    way /= np.linalg.norm(way)
    shape = solid(grid, cell)
    if shape is None:
        u = np.cross(way, [0.0, 0.0, 1.0] if abs(way[2]) < 0.9 else [1.0, 0.0, 0.0])
        u /= np.linalg.norm(u)
        v = np.cross(way, u)
        ring = _circle() * grid.radius * 0.5
        middle = centre + way * (grid.radius + lift)
        return middle + ring[:, :1] * u + ring[:, 1:] * v
    vertices, faces = shape
    loops = [vertices[list(f)] for f in faces]
    best = max(loops, key=lambda loop: float(_normal(loop) @ way))
    middle = best.mean(axis=0)
    return middle + (best - middle) * inset + _normal(best) * lift


def face_middle(grid: Grid, cell, offset) -> np.ndarray:
    """The centre of the face of `cell` shared with the neighbour at `offset` (a ball: the
    point where it would touch it), view space."""
    if solid(grid, cell) is None:
        return _ball_point(grid, cell, offset)
    return face_patch(grid, cell, offset, inset=0.0, lift=0.0).mean(axis=0)


def _ball_point(grid: Grid, cell, offset) -> np.ndarray:
    cell = np.asarray(cell, np.int64)
    centre = view_centres(grid, cell[None])[0]
    way = view_centres(grid, (cell + np.asarray(offset, np.int64))[None])[0] - centre
    return centre + way / np.linalg.norm(way) * grid.radius
