"""Closed triangle surfaces of polycube pieces, and binary STL, with numpy alone.

The viewer draws pieces with these surfaces and `tessera stl` prints them, so one function
serves both: it must be fast (a piece is rebuilt on every edit) and its output must be a valid
solid for a slicer: every edge shared by exactly two triangles, all of them turned outwards.

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


def _surface(occ: np.ndarray, coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The closed surface of the True cells of `occ` (whose outer layer must be False);
    `coords[a][m]` is where grid plane m (the low side of cell m) lies along axis a."""
    comp_table, count_table, joined_table = _fan_table()
    n0, n1, n2 = occ.shape
    shape = (n0 - 1, n1 - 1, n2 - 1)
    # occupancy pattern of every grid point that can carry a face (points 1 .. n-1 per axis)
    windows = np.lib.stride_tricks.sliding_window_view(occ.view(np.uint8), (2, 2, 2))
    pattern = windows.reshape(*shape, 8) @ _BIT_WEIGHTS
    comp = comp_table[pattern.ravel()]  # (points, 12)
    n_fans = count_table[pattern.ravel()]
    joined = joined_table[pattern]
    if joined.any():
        # edges whose two diagonal cells are connected around both ends: chain across empties
        join = np.zeros(shape, np.int64)
        for a in range(3):
            low = [slice(None)] * 3
            high = [slice(None)] * 3
            low[a], high[a] = slice(0, -1), slice(1, None)
            both = joined[(*low, 2 * a + 1)] & joined[(*high, 2 * a)]
            join[tuple(low)] |= both.astype(np.int64) << (2 * a + 1)
            join[tuple(high)] |= both.astype(np.int64) << (2 * a)
        for flat in np.flatnonzero(join).tolist():
            comp[flat], n_fans[flat] = _fans(int(pattern.flat[flat]), int(join.flat[flat]))
    first = np.cumsum(n_fans) - n_fans  # first vertex number of each point
    point_of_vertex = np.repeat(np.arange(len(n_fans)), n_fans)
    pi, pj, pk = np.unravel_index(point_of_vertex, shape)
    vertices = np.column_stack([coords[0][pi + 1], coords[1][pj + 1], coords[2][pk + 1]])

    cells = np.argwhere(occ)
    neighbours = cells[:, None, :] + _STEP  # (cells, 6, 3)
    exposed = ~occ[neighbours[..., 0], neighbours[..., 1], neighbours[..., 2]]
    which, direction = np.nonzero(exposed)
    points = cells[which][:, None, :] + _CORNERS[direction] - 1  # (faces, 4, 3)
    flat = (points[..., 0] * shape[1] + points[..., 1]) * shape[2] + points[..., 2]
    quads = first[flat] + comp[flat, _SLOTS[direction]]
    triangles = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    return vertices.astype(np.float64), triangles


def _refine(occ: np.ndarray) -> np.ndarray:
    """Split every unit interval into thin | wide | thin parts (see the module docstring).

    Along each axis, refined index 2k is the thin slab around grid plane k (kept only when the
    cells on both sides, k-1 and k, are kept) and 2k+1 the wide middle of cell k."""
    for axis in range(3):
        n = occ.shape[axis]
        shape = list(occ.shape)
        shape[axis] = 2 * n + 1
        out = np.zeros(shape, bool)
        odd = [slice(None)] * 3
        odd[axis] = slice(1, 2 * n, 2)
        out[tuple(odd)] = occ
        inner = [slice(None)] * 3
        inner[axis] = slice(2, 2 * n - 1, 2)
        low = [slice(None)] * 3
        low[axis] = slice(0, n - 1)
        high = [slice(None)] * 3
        high[axis] = slice(1, n)
        out[tuple(inner)] = occ[tuple(low)] & occ[tuple(high)]
        occ = out
    return occ


def piece_surface(cells, gap: float = 0.0, cell_size: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The outer surface of a set of unit cubes: `(vertices (n, 3) float, triangles (m, 3) int)`.

    Cell (x, y, z) is the cube [x, x+1] × [y, y+1] × [z, z+1] (times `cell_size`). Faces between
    two of the cells are left out; the result is closed, with outward (counter-clockwise)
    triangles. `gap` (same unit as `cell_size`, less than it) shrinks every outer face inward
    by gap/2, so two pieces printed this way leave `gap` between them.
    """
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
    if len(arr) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    if cell_size <= 0:
        raise ValueError("cell_size must be positive")
    g = gap / 2 / cell_size
    if not 0 <= g < 0.5:
        raise ValueError(f"gap must be at least 0 and less than the cell size, not {gap}")
    lo = arr.min(axis=0)
    rel = arr - lo + 1  # one empty layer all round
    occ = np.zeros(tuple((rel.max(axis=0) + 2).tolist()), bool)
    occ[rel[:, 0], rel[:, 1], rel[:, 2]] = True
    if g == 0:
        coords = tuple(np.arange(n + 1) + lo[a] - 1.0 for a, n in enumerate(occ.shape))
    else:
        occ = _refine(occ)
        coords = []
        for a, n in enumerate(occ.shape):
            m = np.arange(n + 1)
            coords.append(m // 2 + np.where(m % 2, g, -g) + lo[a] - 1.0)
        coords = tuple(coords)
    vertices, triangles = _surface(occ, coords)
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
