"""Closed triangle surfaces of polycube pieces, and binary STL, with numpy alone.

`tessera stl` and the window's STL export print pieces with `piece_surface`, so its output must
be a valid solid for a slicer: every edge shared by exactly two triangles, all of them turned
outwards. On the other grids each cell is its grid's solid (`models.grids.surface`); the cube
grid's unit cubes are made here, fast (a piece is rebuilt on every edit).

Only the cells and the grid points at their corners are ever visited, looked up in sorted keys
(`_Lookup`): memory grows with the piece, never with its bounding box (issue 21: two cubes 1000
apart along every axis allocated a 1 GB grid).

How: a unit face is on the surface when its cell is in the piece and the neighbour across it is
not. Faces meet at grid points; where a point is shared by parts of the piece that touch only
along an edge or at a corner, one vertex there would make the surface non-manifold, so each
point gets one vertex per *fan* (a closed loop of faces around it). Which faces form which fan
depends only on the 8 cells around the point, so a 256-entry table, built once, decides it, and
the rest is array arithmetic.

A gap for real-world fit moves every outer face inward by gap/2. That is erosion by a small
cube; done by moving vertices it breaks at saddle points (faces would have to split), so
instead the grid is refined: each unit interval becomes thin | wide | thin (widths g, 1-2g, g
with g = gap/2) and a refined cell is kept when every unit cell within g of it is in the piece.
The eroded solid is exactly a union of refined cells, so the same fan code makes it watertight.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.surface import printable_surface

# A grid point's 8 surrounding cells ("octants") are numbered bit = i + 2j + 4k, where i/j/k
# is 0 on the point's negative side of x/y/z and 1 on the positive side. A face through the
# point lies in one of 12 quarter-planes ("slots"): perpendicular to axis a, reaching towards
# side u of axis (a+1)%3 and side v of axis (a+2)%3: slot = 4a + u + 2v.


def _octant(bits: dict[int, int]) -> int:
    return bits[0] | bits[1] << 1 | bits[2] << 2


def _slot_octants(slot: int) -> tuple[int, int]:
    """The two octants a slot separates: (the one on the axis's negative side, positive)."""
    a, u, v = slot // 4, slot % 2, (slot // 2) % 2
    b, c = (a + 1) % 3, (a + 2) % 3
    return _octant({a: 0, b: u, c: v}), _octant({a: 1, b: u, c: v})


def _rays() -> list[list[int]]:
    """For each ray from a grid point (number 2a + s: along axis a, to side s), the 4 slots
    that contain it."""
    rays = []
    for a in range(3):
        for s in range(2):
            around = []
            for slot in range(12):
                p, u, v = slot // 4, slot % 2, (slot // 2) % 2
                if p != a and (u if a == (p + 1) % 3 else v) == s:
                    around.append(slot)
            rays.append(around)
    return rays


_RAYS = _rays()


@cache
def _fans(pattern: int, join: int = 0) -> tuple[tuple[int, ...], int]:
    """The fan number of each slot (-1: no face there) at a point with this occupancy pattern,
    and the number of fans.

    Faces are chained through the rays; a ray with four faces (two cells touching along that
    edge only) chains each cell's two faces, keeping the cells apart, unless bit `ray` of `join`
    says to chain across the empty cells instead (see `_joined`)."""
    occupied = [(pattern >> b) & 1 for b in range(8)]
    boundary = [s for s in range(12) if len({occupied[o] for o in _slot_octants(s)}) == 2]
    parent = {s: s for s in boundary}

    def find(s: int) -> int:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for ray, around in enumerate(_RAYS):
        faces = [s for s in around if s in parent]
        pairs = []
        if len(faces) == 2:
            pairs = [faces]
        elif len(faces) == 4:
            keep = 0 if join >> ray & 1 else 1
            for octant in range(8):
                if occupied[octant] == keep:
                    sides = [s for s in faces if octant in _slot_octants(s)]
                    if len(sides) == 2:
                        pairs.append(sides)
        for s, t in pairs:
            parent[find(s)] = find(t)
    roots: dict[int, int] = {}
    comp = [-1] * 12
    for s in boundary:
        comp[s] = roots.setdefault(find(s), len(roots))
    return tuple(comp), len(roots)


def _joined(pattern: int) -> list[bool]:
    """Per ray: four faces meet on it and the two cells there are connected around the point
    through face-adjacent cells. Keeping those cells apart would give the point a single fan
    that passes the ray twice; if the same holds at the other end of the edge, both ends'
    vertices would be shared by four triangles. Such an edge chains across the empty cells
    instead, which is then always safe (the two empty cells cannot be connected as well)."""
    occupied = [(pattern >> b) & 1 for b in range(8)]
    # components of the occupied cells around the point under face adjacency
    label = list(range(8))
    for _ in range(8):
        for o in range(8):
            for bit in (1, 2, 4):
                n = o ^ bit
                if occupied[o] and occupied[n]:
                    label[o] = label[n] = min(label[o], label[n])
    out = []
    for a in range(3):
        for s in range(2):
            cells = [o for o in range(8) if (o >> a) & 1 == s and occupied[o]]
            diagonal = len(cells) == 2 and bin(cells[0] ^ cells[1]).count("1") == 2
            out.append(diagonal and label[cells[0]] == label[cells[1]])
    return out


@cache
def _fan_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_fans` for all 256 patterns with no joined rays, and `_joined`, as arrays."""
    comp = np.array([_fans(p)[0] for p in range(256)], np.int64)
    count = np.array([_fans(p)[1] for p in range(256)], np.int64)
    joined = np.array([_joined(p) for p in range(256)], bool)
    return comp, count, joined


def _directions() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face direction (axis a, outward side s; number 2a + s): the neighbour's offset, the
    face's 4 corners relative to its cell in outward (counter-clockwise) order, and the slot
    the face takes at each corner."""
    step = np.zeros((6, 3), np.int64)
    corners = np.zeros((6, 4, 3), np.int64)
    slots = np.zeros((6, 4), np.int64)
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        for s in range(2):
            d = 2 * a + s
            step[d, a] = 1 if s else -1
            # counter-clockwise seen from +a, since e_b x e_c = e_a; reversed for -a
            order = ((0, 0), (1, 0), (1, 1), (0, 1)) if s else ((0, 1), (1, 1), (1, 0), (0, 0))
            for k, (db, dc) in enumerate(order):
                corners[d, k, a], corners[d, k, b], corners[d, k, c] = s, db, dc
                slots[d, k] = 4 * a + (1 - db) + 2 * (1 - dc)
    return step, corners, slots


_STEP, _CORNERS, _SLOTS = _directions()
_BIT_WEIGHTS = np.array([1 << (i + 2 * j + 4 * k) for i in (0, 1) for j in (0, 1) for k in (0, 1)])


class _Lookup:
    """Membership of integer triples in a set, by sorted keys: memory in proportion to the
    set, never to its bounding box (two cells 1000 apart once took a 1 GB grid: issue 21).

    Each axis's values are replaced by their rank among the values the set has there, so keys
    stay small whatever the coordinates; a triple with a value the set never has on an axis
    cannot be in it."""

    def __init__(self, triples: np.ndarray) -> None:
        self.axes = [np.unique(triples[:, a]) for a in range(3)]
        self.sizes = [len(v) + 1 for v in self.axes]
        keys, _ = self._keys(triples)
        self.keys = np.sort(keys)

    def _keys(self, triples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = np.zeros(len(triples), np.int64)
        known = np.ones(len(triples), bool)
        for a in range(3):
            values = self.axes[a]
            rank = np.searchsorted(values, triples[:, a])
            known &= values[np.minimum(rank, len(values) - 1)] == triples[:, a]
            key = key * self.sizes[a] + rank
        return key, known

    def index(self, triples: np.ndarray) -> np.ndarray:
        """Each triple's position in the sorted set, or -1 when it is not in it."""
        triples = np.asarray(triples, np.int64).reshape(-1, 3)
        key, known = self._keys(triples)
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        return np.where(known & (self.keys[at] == key), at, -1)

    def contains(self, triples: np.ndarray) -> np.ndarray:
        return self.index(triples) >= 0


_OCTANTS = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)], np.int64)


def _surface(cells: np.ndarray, coords) -> tuple[np.ndarray, np.ndarray]:
    """The closed surface of a set of cells (unique integer triples); `coords(axis, m)` is
    where grid plane m (the low side of cell m) lies along that axis. Only the grid points at
    the cells' corners are visited, found by `_Lookup`, never a box around them."""
    comp_table, count_table, joined_table = _fan_table()
    cells = cells[np.lexsort((cells[:, 2], cells[:, 1], cells[:, 0]))]
    occupied = _Lookup(cells)
    # every grid point touching a cell, in x, y, z order (points with no face get no vertex)
    points = np.unique((cells[:, None, :] + _OCTANTS).reshape(-1, 3), axis=0)
    around = (points[:, None, :] - 1 + _OCTANTS).reshape(-1, 3)
    pattern = occupied.contains(around).reshape(-1, 8).astype(np.int64) @ _BIT_WEIGHTS
    comp = comp_table[pattern]  # (points, 12)
    n_fans = count_table[pattern]
    joined = joined_table[pattern]
    if joined.any():
        # edges whose two diagonal cells are connected around both ends: chain across empties
        at_point = _Lookup(points)
        join = np.zeros(len(points), np.int64)
        for a in range(3):
            step = np.zeros(3, np.int64)
            step[a] = 1
            low = np.flatnonzero(joined[:, 2 * a + 1])
            high = at_point.index(points[low] + step)
            found = high >= 0
            low, high = low[found], high[found]
            both = joined[high, 2 * a]
            join[low[both]] |= 1 << (2 * a + 1)
            join[high[both]] |= 1 << (2 * a)
        for flat in np.flatnonzero(join).tolist():
            comp[flat], n_fans[flat] = _fans(int(pattern[flat]), int(join[flat]))
    first = np.cumsum(n_fans) - n_fans  # first vertex number of each point
    where = points[np.repeat(np.arange(len(points)), n_fans)]
    vertices = np.column_stack([coords(a, where[:, a]) for a in range(3)])

    neighbours = cells[:, None, :] + _STEP  # (cells, 6, 3)
    exposed = ~occupied.contains(neighbours.reshape(-1, 3)).reshape(-1, 6)
    which, direction = np.nonzero(exposed)
    corners = cells[which][:, None, :] + _CORNERS[direction]  # (faces, 4, 3)
    point = _Lookup(points).index(corners.reshape(-1, 3)).reshape(-1, 4)
    quads = first[point] + comp[point, _SLOTS[direction]]
    triangles = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    return vertices.astype(np.float64), triangles


def _refine(cells: np.ndarray) -> np.ndarray:
    """The refined cells of the eroded solid (see the module docstring), listed from the
    cells themselves. Along each axis refined index 2k is the thin slab around grid plane k
    (kept only when the cells on both sides, k-1 and k, are kept) and 2k+1 the wide middle of
    cell k; a refined cell is kept when every cell it needs is."""
    occupied = _Lookup(cells)
    candidates = np.unique((2 * cells[:, None, :] + _NEAR).reshape(-1, 3), axis=0)
    keep = np.ones(len(candidates), bool)
    for pick in _OCTANTS:  # per axis: the cell below (0) or above (1) a slab; a middle's own
        need = (candidates - 1 + pick * (1 - candidates % 2)) // 2
        keep &= occupied.contains(need)
    return candidates[keep]


_NEAR = np.array([(i, j, k) for i in (0, 1, 2) for j in (0, 1, 2) for k in (0, 1, 2)], np.int64)


def cube_surface(cells, gap: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The outer surface of a set of unit cubes, in cell units: cell (x, y, z) is the cube
    [x, x+1] × [y, y+1] × [z, z+1]. `gap` (less than 1) shrinks every outer face by gap/2."""
    arr = np.unique(np.asarray(cells, dtype=np.int64).reshape(-1, 3), axis=0)
    if len(arr) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    g = gap / 2
    if g == 0:
        return _surface(arr, lambda a, m: m.astype(np.float64))
    return _surface(_refine(arr), lambda a, m: m // 2 + np.where(m % 2, g, -g))


def piece_surface(
    cells, gap: float = 0.0, cell_size: float = 1.0, grid: Grid = CUBES
) -> tuple[np.ndarray, np.ndarray]:
    """The outer surface of a piece: `(vertices (n, 3) float, triangles (m, 3) int)`, closed,
    with outward (counter-clockwise) triangles, faces between two of its cells left out.

    On the cube grid cell (x, y, z) is the cube [x, x+1] × [y, y+1] × [z, z+1] (times
    `cell_size`); on the others each cell is its grid's solid (`models.grids.surface`), in the
    grid's space times `cell_size`. `gap` (same unit as `cell_size`, less than it) shrinks
    every outer face inward by gap/2, so two pieces printed this way leave `gap` between them
    (on grids that can: `models.grids.surface.can_shrink`).
    """
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
    if cell_size <= 0:
        raise ValueError("cell_size must be positive")
    g = gap / 2 / cell_size
    if not 0 <= g < 0.5:
        raise ValueError(f"gap must be at least 0 and less than the cell size, not {gap}")
    if len(arr) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    if grid.is_cubic:
        vertices, triangles = cube_surface(arr, gap / cell_size)
    else:
        vertices, triangles = printable_surface(grid, arr, gap / cell_size)
    return vertices * cell_size, triangles


def volume(vertices: np.ndarray, triangles: np.ndarray) -> float:
    """Enclosed volume by the divergence theorem (positive for outward triangles)."""
    v = np.asarray(vertices, np.float64)[np.asarray(triangles)]
    return float(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6)


def vtk_faces(triangles: np.ndarray) -> np.ndarray:
    """Triangles in VTK's flat cell layout `[3, a, b, c, 3, ...]` (pyvista.PolyData faces)."""
    tri = np.asarray(triangles, np.int64)
    return np.column_stack([np.full(len(tri), 3, np.int64), tri]).ravel()


STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("vertices", "<f4", (3, 3)), ("attribute", "<u2")])


def write_stl(
    path: str | Path, vertices: np.ndarray, triangles: np.ndarray, name: str = ""
) -> None:
    """Write a binary STL. The 80-byte header holds `name` but never starts with "solid", which
    would make some readers take the file for ASCII STL."""
    corners = np.asarray(vertices, np.float64)[np.asarray(triangles, np.int64)]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    lengths = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, lengths, out=np.zeros_like(normals), where=lengths > 0)
    records = np.zeros(len(corners), STL_RECORD)
    records["normal"] = normals
    records["vertices"] = corners
    header = f"Tessera {name}".encode()[:80].ljust(80, b" ")
    with open(path, "wb") as fh:
        fh.write(header)
        fh.write(np.uint32(len(records)).tobytes())
        fh.write(records.tobytes())


def read_stl(path: str | Path) -> tuple[np.ndarray, np.ndarray, bytes]:
    """Read a binary STL back: `(corners (m, 3, 3) float32, normals (m, 3), header)`."""
    data = Path(path).read_bytes()
    if len(data) < 84:
        raise ValueError(f"{path}: too short for a binary STL")
    count = int(np.frombuffer(data, "<u4", 1, 80)[0])
    if len(data) != 84 + count * STL_RECORD.itemsize:
        raise ValueError(f"{path}: size does not match its {count} triangles")
    records = np.frombuffer(data, STL_RECORD, count, 84)
    return records["vertices"].copy(), records["normal"].copy(), data[:80]


def weld(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shared vertices from triangle corners (as read from an STL): `(vertices, triangles)`."""
    flat = np.asarray(corners).reshape(-1, 3)
    vertices, inverse = np.unique(flat, axis=0, return_inverse=True)
    return vertices, inverse.reshape(-1, 3)
