"""A piece's cells as real solids, on any grid: what the scenes draw and `tessera stl` prints.

Everything here asks the grid (`Grid.solid`, `centres`, `radius`, `residue`, `directions`) and
never which grid it is, so a sixth grid is drawn and printed the day it can say those.

- `space_vector`: a lattice translation in cell units (a piece's step, a disassembly's offset,
  fractions of one while it glides) as a vector in space. Centres move rigidly under lattice
  translations, so this is one linear map per grid, read off the grid's own `directions`.
- `cell_faces`: the faces of the cells' solids that two cells of the same piece do not share
  (a shared face has the same vertices): the piece's outer surface, with its triangles and
  quads kept whole so drawn edges follow the cells. The cube grid's cells are unit cubes at
  integer positions (`Grid.is_cubic`), so its faces come from an array lookup, not per cell.
- `printable_surface`: a closed, outward, manifold triangle surface for STL. Polyhedral cells:
  those faces, split into triangles, with a vertex per fan where parts of a piece touch only
  along an edge or at a corner (as the cube code in `models.mesh` does, written for any
  convex cells). Round cells (balls): see `ball_surface`.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from tessera.models.grids.base import Grid, as_cells

#: A printed ball's join to each ball it touches: a neck of this radius (a fraction of the
#: ball's), so a polysphere prints as one part
NECK = 0.35
#: Subdivisions of the icosahedron a printed ball is made of (level 3: 1,280 triangles) and
#: a drawn one (level 2: 320 triangles, shaded smooth)
PRINT_LEVEL = 3
DRAW_LEVEL = 2
_SNAP = 1e6  # vertices closer than 1e-6 are one vertex (`Grid._face_keys` rounds the same)


# -- positions ---------------------------------------------------------------------------------
@cache
def some_cell(grid: Grid) -> np.ndarray:
    """A valid cell of the grid (not every grid has the origin: the rhombic one does not)."""
    block = np.array(list(itertools.product(range(6), repeat=3)), np.int64)
    ok = grid.valid(block)
    if not ok.any():
        raise ValueError(f"{grid!r} has no cell near the origin")
    return block[int(np.argmax(ok))]


@cache
def _space_matrix(grid: Grid) -> np.ndarray:
    """The 3×3 map from lattice translations (cell units) to space, fitted exactly on the
    grid's `directions` from one cell's centre (entries that are whole numbers kept whole,
    so the cube grid's is the identity exactly)."""
    steps = np.array(grid.directions, np.int64).reshape(-1, 3)
    if np.linalg.matrix_rank(steps) < 3:
        raise ValueError(f"{grid!r}: its directions do not span space")
    cell = some_cell(grid)
    moved = grid.centres(cell + steps) - grid.centres(cell[None, :])
    solved, *_ = np.linalg.lstsq(steps.astype(np.float64), moved, rcond=None)
    matrix = solved.T
    whole = np.round(matrix)
    matrix = np.where(np.abs(matrix - whole) < 1e-12, whole, matrix)
    if not np.allclose(steps @ matrix.T, moved, atol=1e-9):
        raise ValueError(f"{grid!r}: its centres do not move rigidly with its translations")
    matrix.flags.writeable = False
    return matrix


def space_vector(grid: Grid, offsets) -> np.ndarray:
    """Lattice translations (`(..., 3)`, cell units, fractions allowed for a glide) as vectors
    in the space of `Grid.centres`: `centres(cell + t) - centres(cell)` for any cell."""
    return np.asarray(offsets, np.float64) @ _space_matrix(grid).T


@cache
def is_round(grid: Grid) -> bool:
    """Whether the grid's cells are balls (`Grid.solid` is None), not polyhedra."""
    return grid.solid(some_cell(grid).tolist()) is None


def cell_volume(grid: Grid, cell) -> float:
    """One cell's volume: its solid's by the divergence theorem (a ball's for round cells)."""
    solid = grid.solid(np.asarray(cell).tolist())
    if solid is None:
        return 4.0 / 3.0 * np.pi * grid.radius**3
    vertices, faces = solid
    total = 0.0
    for face in faces:
        p = vertices[list(face)]
        for i in range(1, len(face) - 1):
            total += float(np.dot(p[0], np.cross(p[i], p[i + 1])))
    return total / 6.0


# -- the outer faces ---------------------------------------------------------------------------
def _cube_faces() -> list[tuple[np.ndarray, np.ndarray]]:
    """Per outward normal of a unit cube: the neighbour's offset and the face's four corners,
    relative to the cell's low corner, counter-clockwise seen from outside."""
    out = []
    for axis in range(3):
        for sign in (1, -1):
            n = np.zeros(3)
            n[axis] = sign
            u, v = np.zeros(3), np.zeros(3)
            if sign > 0:
                u[(axis + 1) % 3], v[(axis + 2) % 3] = 1, 1
            else:
                u[(axis + 2) % 3], v[(axis + 1) % 3] = 1, 1
            corners = np.array([n - u - v, n + u - v, n + u + v, n - u + v]) * 0.5 + 0.5
            out.append((n.astype(np.int64), corners))
    return out


_CUBE = _cube_faces()


def _cube_quads(cells: np.ndarray) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The cube grid's outer faces: a face is outer when the cell across it is not in the
    piece, a set lookup per face instead of the generic per-cell solids."""
    occupied = {tuple(c) for c in cells.tolist()}
    corner_list, owners = [], []
    for normal, corners in _CUBE:
        neighbours = cells + normal
        outer = np.array([tuple(c) not in occupied for c in neighbours.tolist()], bool)
        if outer.any():
            corner_list.append(cells[outer][:, None, :] + corners[None, :, :])
            owners.append(np.flatnonzero(outer))
    if not corner_list:
        return np.zeros((0, 3)), []
    quads = np.concatenate(corner_list)  # (m, 4, 3)
    doubled = np.rint(quads.reshape(-1, 3) * 2).astype(np.int64)
    unique, inverse = np.unique(doubled, axis=0, return_inverse=True)
    return unique / 2.0, [(inverse.reshape(-1, 4), np.concatenate(owners))]


def _solid_polygons(
    grid: Grid, cells: np.ndarray
) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Any polyhedral grid's outer faces: every cell's solid (asked once per kind of cell,
    `Grid.residue`, and moved by its lattice translation), less the faces two cells share."""
    residue = grid.residue(cells)
    kinds, kind_of = np.unique(residue, axis=0, return_inverse=True)
    kind_of = kind_of.ravel()
    shift = space_vector(grid, cells - residue)
    by_size: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for k, kind in enumerate(kinds):
        vertices, faces = grid.solid(kind.tolist())  # type: ignore[misc]
        mine = np.flatnonzero(kind_of == k)
        for size in sorted({len(f) for f in faces}):
            loops = np.array([f for f in faces if len(f) == size], np.int64)
            corners = vertices[loops][None] + shift[mine][:, None, None, :]
            polys, owners = by_size.setdefault(size, ([], []))
            polys.append(corners.reshape(-1, size, 3))
            owners.append(np.repeat(mine, len(loops)))
    groups = [(np.concatenate(p), np.concatenate(o)) for _, (p, o) in sorted(by_size.items())]
    # one vertex per point (rounded, as `Grid._face_keys` rounds), then faces by vertex set
    flat = np.concatenate([c.reshape(-1, 3) for c, _ in groups])
    keys = np.round(flat * _SNAP).astype(np.int64)
    _, first, vertex_of = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    vertex_of = vertex_of.ravel()
    kept, start = [], 0
    for corners, owner in groups:
        m, size = corners.shape[:2]
        ids = vertex_of[start : start + m * size].reshape(m, size)
        start += m * size
        _, face_of, count = np.unique(
            np.sort(ids, axis=1), axis=0, return_inverse=True, return_counts=True
        )
        outer = count[face_of.ravel()] == 1
        kept.append((ids[outer], owner[outer]))
    used = np.unique(np.concatenate([ids.ravel() for ids, _ in kept]))
    renumber = np.full(len(first), -1, np.int64)
    renumber[used] = np.arange(len(used))
    points = flat[first[used]]
    return points, [(renumber[ids], owner) for ids, owner in kept if len(ids)]


def corners(grid: Grid, cells) -> np.ndarray:
    """Every corner of every cell's solid, repeats and all (`(m, 3)`, the grid's space): what
    a box round the piece, or its reach along a direction, is measured on."""
    arr = as_cells(cells)
    residue = grid.residue(arr)
    kinds, kind_of = np.unique(residue, axis=0, return_inverse=True)
    shift = space_vector(grid, arr - residue)
    out = []
    for k, kind in enumerate(kinds):
        vertices, _ = grid.solid(kind.tolist())  # type: ignore[misc]
        out.append(vertices[None] + shift[kind_of.ravel() == k][:, None, :])
    return np.concatenate(out).reshape(-1, 3) if out else np.zeros((0, 3))


def outer_polygons(grid: Grid, cells) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """The outer faces of a piece on a polyhedral grid, in the grid's space: `(points (k, 3),
    [(polygons (m, s) vertex indices, owner (m,) cell index)] per polygon size s)`, each
    polygon counter-clockwise seen from outside."""
    arr = as_cells(cells)
    if len(arr) == 0:
        return np.zeros((0, 3)), []
    if is_round(grid):
        raise ValueError(f"{grid!r}: round cells have no faces")
    if grid.is_cubic:
        return _cube_quads(arr)
    return _solid_polygons(grid, arr)


def cell_faces(grid: Grid, cells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`outer_polygons` in VTK's flat layout: `(points, faces [s, i0, ..., s, ...], owner)`,
    ready for `pyvista.PolyData(points, faces)`."""
    points, groups = outer_polygons(grid, cells)
    if not groups:
        return points, np.zeros(0, np.int64), np.zeros(0, np.int64)
    faces = np.concatenate(
        [np.column_stack([np.full(len(p), p.shape[1]), p]).ravel() for p, _ in groups]
    )
    return points, faces, np.concatenate([o for _, o in groups])


# -- a closed surface for printing -----------------------------------------------------------
def _label_components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of n nodes joined by the pairs (a[i], b[i]): a label per node."""
    label = np.arange(n)
    while True:
        low = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, low)
        np.minimum.at(new, b, low)
        new = new[new]
        if np.array_equal(new, label):
            return np.unique(label, return_inverse=True)[1].ravel()
        label = new


def _manifold(
    points: np.ndarray, groups: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Outward polygons (sharing vertices by position) as a closed manifold triangle surface.

    Each edge's faces are paired: two faces, each other; four or more (parts of the piece
    touching along that edge only), the two faces on either side of each run of the piece's
    cells around the edge, found by angle, so touching parts stay apart. Then every point
    gets one vertex per fan of faces joined through paired edges. If keeping the parts apart
    leaves an edge between the same two vertices twice (the parts are joined round both of its
    ends), that edge pairs its faces across the empty runs instead, as `models.mesh` does."""
    polys = [p for p, _ in groups]
    sizes = np.concatenate([np.full(len(p), p.shape[1]) for p in polys])
    origin = np.concatenate([p.ravel() for p in polys])
    face = np.repeat(np.arange(len(sizes)), sizes)
    first = np.cumsum(sizes) - sizes
    corner = np.arange(len(origin)) - first[face]
    nxt = first[face] + (corner + 1) % sizes[face]
    dest = origin[nxt]
    # face centroids and outward normals (Newell), for the angles round shared edges
    loops = [points[p] for p in polys]
    centroid = np.concatenate([c.mean(axis=1) for c in loops])
    normal = np.concatenate([np.cross(c, np.roll(c, -1, axis=1)).sum(axis=1) for c in loops])
    lo, hi = np.minimum(origin, dest), np.maximum(origin, dest)
    _, edge_of, count = np.unique(lo * len(points) + hi, return_inverse=True, return_counts=True)
    edge_of = edge_of.ravel()
    order = np.argsort(edge_of, kind="stable")
    starts = np.cumsum(count) - count
    partner = np.full(len(origin), -1, np.int64)
    two = count == 2
    pair_a, pair_b = order[starts[two]], order[starts[two] + 1]
    partner[pair_a], partner[pair_b] = pair_b, pair_a
    crowded = [order[s : s + c] for s, c in zip(starts[~two], count[~two], strict=True)]
    runs = [_around_edge(h, points, origin, dest, face, centroid, normal) for h in crowded]

    def pair(join: np.ndarray) -> None:
        for k, (ring, inside_after) in enumerate(runs):
            m = len(ring)
            for i in range(m):
                if inside_after[i] != bool(join[k]):
                    partner[ring[i]], partner[ring[(i + 1) % m]] = ring[(i + 1) % m], ring[i]

    join = np.zeros(len(runs), bool)
    for _ in range(3):
        pair(join)
        if (partner < 0).any():
            raise ValueError("the cells' faces do not close up")
        h = np.arange(len(origin))
        vertex = _label_components(len(origin), np.concatenate([h, nxt]),
                                   np.concatenate([nxt[partner], partner]))  # fmt: skip
        clash = np.zeros(len(runs), bool)
        for k, (ring, _) in enumerate(runs):
            ends = {(int(vertex[e]), int(vertex[nxt[e]])) for e in ring}
            clash[k] = len(ends) < len(ring)
        if not clash.any():
            break
        join |= clash
    position = points[origin[np.unique(vertex, return_index=True)[1]]]
    triangles = []
    for size in np.unique(sizes).tolist():
        base = first[sizes == size]
        triangles += [np.stack([base, base + i, base + i + 1], axis=1) for i in range(1, size - 1)]
    corners = np.concatenate(triangles)
    return position, vertex[corners]


def _around_edge(
    ring: np.ndarray, points, origin, dest, face, centroid, normal
) -> tuple[np.ndarray, np.ndarray]:
    """The half-edges on one edge in angular order round it, and for each whether the piece's
    inside follows it (counter-clockwise about the edge's low-to-high direction)."""
    a = min(int(origin[ring[0]]), int(dest[ring[0]]))
    b = max(int(origin[ring[0]]), int(dest[ring[0]]))
    axis = points[b] - points[a]
    axis = axis / np.linalg.norm(axis)
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    w = centroid[face[ring]] - points[a]
    w -= np.outer(w @ axis, axis)
    angle = np.arctan2(w @ e2, w @ e1)
    inside_after = np.einsum("ij,ij->i", np.cross(axis, w), normal[face[ring]]) < 0
    order = np.argsort(angle)
    return ring[order], inside_after[order]


def _midpoint(vertices: list, middle: dict[tuple[int, int], int], i: int, j: int) -> int:
    """The vertex halfway between two on the sphere (made once per edge)."""
    key = (min(i, j), max(i, j))
    if key not in middle:
        p = vertices[i] + vertices[j]
        vertices.append(p / np.linalg.norm(p))
        middle[key] = len(vertices) - 1
    return middle[key]


@cache
def icosphere(level: int) -> tuple[np.ndarray, np.ndarray]:
    """A unit sphere of outward triangles: an icosahedron, each triangle split in four
    `level` times, every vertex pushed out onto the sphere."""
    t = (1 + 5**0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]  # fmt: skip
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]  # fmt: skip
    vertices = [np.array(p, np.float64) / np.linalg.norm(p) for p in v]
    faces = list(f)
    for _ in range(level):
        middle: dict[tuple[int, int], int] = {}
        split = []
        for a, b, c in faces:
            ab, bc, ca = (_midpoint(vertices, middle, i, j) for i, j in ((a, b), (b, c), (c, a)))
            split += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = split
    points, triangles = np.array(vertices), np.array(faces, np.int64)
    points.flags.writeable = triangles.flags.writeable = False
    return points, triangles


def _clip(
    vertices: np.ndarray, triangles: np.ndarray, axis: np.ndarray, depth: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A convex triangle surface less what lies beyond the plane `axis · x = depth`:
    `(vertices, triangles, renumber)`, where `renumber` maps each old vertex, then each new
    one (the cut loop's, one per edge the plane crosses, shared by both triangles there), to
    its new index (-1: cut away). The loop is a convex polygon."""
    s = vertices @ axis - depth
    s = np.where(np.abs(s) < 1e-12, -1e-12, s)  # a vertex on the plane counts as kept
    out = s > 0
    n_out = out[triangles].sum(axis=1)
    new: list[np.ndarray] = []
    on_edge: dict[tuple[int, int], int] = {}

    def cut(a: int, b: int) -> int:
        key = (min(a, b), max(a, b))
        if key not in on_edge:
            t = s[a] / (s[a] - s[b])
            new.append(vertices[a] + t * (vertices[b] - vertices[a]))
            on_edge[key] = len(vertices) + len(new) - 1
        return on_edge[key]

    kept = [triangles[n_out == 0]]
    for tri in triangles[(n_out == 1) | (n_out == 2)].tolist():
        lone = out if sum(out[v] for v in tri) == 1 else ~out  # the vertex on its own side
        k = next(i for i in range(3) if lone[tri[i]])
        a, b, c = tri[k:] + tri[:k]
        if out[a]:  # a is cut off: the quad (ab, b, c, ca) stays
            ab, ca = cut(a, b), cut(c, a)
            kept.append(np.array([[ab, b, c], [ab, c, ca]]))
        else:  # only a stays: the triangle (a, ab, ca)
            kept.append(np.array([[a, cut(a, b), cut(c, a)]]))
    every = np.vstack([vertices, *new]) if new else vertices
    tris = np.concatenate(kept)
    used = np.unique(tris)
    renumber = np.full(len(every), -1, np.int64)
    renumber[used] = np.arange(len(used))
    return every[used], renumber[tris], renumber


def _zip(a: np.ndarray, b: np.ndarray, points: np.ndarray, centre, axis) -> np.ndarray:
    """Triangles joining two loops round `axis` (a nearer its start than b), each taken in
    the order of its angle about the axis: a band whose triangles face away from the axis."""
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)  # e1 × e2 = axis: angles grow counter-clockwise about it

    def ordered(loop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rel = points[loop] - centre
        angle = np.arctan2(rel @ e2, rel @ e1)
        order = np.argsort(angle)
        return loop[order], np.append(angle[order], angle[order][0] + 2 * np.pi)

    a, ta = ordered(a)
    b, tb = ordered(b)
    na, nb = len(a), len(b)
    i = j = 0
    out = []
    while i < na or j < nb:
        if j >= nb or (i < na and ta[i + 1] <= tb[j + 1]):
            out.append((a[i % na], a[(i + 1) % na], b[j % nb]))
            i += 1
        else:
            out.append((a[i % na], b[(j + 1) % nb], b[j % nb]))
            j += 1
    return np.array(out, np.int64)


def ball_surface(
    centres: np.ndarray, radius: float, pairs, level: int = PRINT_LEVEL, neck: float = NECK
) -> tuple[np.ndarray, np.ndarray]:
    """Balls as one closed manifold surface for printing, joined where they touch.

    Why a neck: balls that touch meet in a single point, which no printer can print and no
    slicer reads as one part; enlarged balls would overlap, and their union needs a boolean
    mesh operation numpy alone does not do well. So each touching pair gets a short tube of
    radius `neck` × `radius` round the line between the centres: each ball is cut flat where
    the tube enters (a cap of half-angle asin(neck), 20° for 0.35: caps of neighbours, 60° or
    more apart, never meet), and the tube's triangles join the two cut loops. Every edge is
    then shared by two triangles, all outward, with no faces crossing. The volume is the balls'
    (as tessellated: an icosphere of `level` subdivisions, within 1.3% below a true ball at
    level 3) less the two caps, plus the tube: `joint_volume`."""
    centres = np.asarray(centres, np.float64).reshape(-1, 3)
    unit, unit_triangles = icosphere(level)
    cut = neck * radius
    depth = float(np.sqrt(radius**2 - cut**2))
    necks: dict[int, list[tuple[int, np.ndarray]]] = {i: [] for i in range(len(centres))}
    for p, (i, j) in enumerate(pairs):
        u = centres[j] - centres[i]
        u = u / np.linalg.norm(u)
        necks[i].append((p, u))
        necks[j].append((p, -u))
    vertices, triangles = [], []
    rims: dict[tuple[int, int], np.ndarray] = {}  # (pair, ball) -> the ball's cut loop
    base = 0
    for i, centre in enumerate(centres):
        v, t = unit * radius, unit_triangles
        loops: dict[int, np.ndarray] = {}
        for p, u in necks[i]:
            n_old = len(v)
            v, t, renumber = _clip(v, t, u, depth)
            loops = {q: renumber[loop] for q, loop in loops.items()}
            loops[p] = renumber[n_old:]
        vertices.append(v + centre)
        triangles.append(t + base)
        rims.update({(p, i): loop + base for p, loop in loops.items()})
        base += len(v)
    points = np.vstack(vertices) if vertices else np.zeros((0, 3))
    for p, (i, j) in enumerate(pairs):
        u = centres[j] - centres[i]
        u = u / np.linalg.norm(u)
        triangles.append(_zip(rims[(p, i)], rims[(p, j)], points, centres[i], u))
    tris = np.concatenate(triangles) if triangles else np.zeros((0, 3), np.int64)
    return points, tris


def joint_volume(radius: float, neck: float = NECK) -> float:
    """What one join adds to two true balls: its tube, less the two caps cut off for it."""
    h = radius - np.sqrt(radius**2 - (neck * radius) ** 2)  # each cap's height
    return float(np.pi * (neck * radius) ** 2 * 2 * h - 2 * np.pi * h * h * (3 * radius - h) / 3)


def can_shrink(grid: Grid) -> bool:
    """Whether `printable_surface` can leave a gap for fit on this grid: balls shrink, and
    unit cubes erode exactly (`models.mesh`); other polyhedral cells cannot yet."""
    return is_round(grid) or grid.is_cubic


def printable_surface(grid: Grid, cells, gap: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A piece as a closed, outward, manifold triangle surface in the grid's space:
    `(vertices (n, 3), triangles (m, 3))`, for STL, on every grid but cubes (whose fan-table
    surface, with erosion, is `models.mesh.cube_surface`). `gap` (cell units) shrinks it by half the
    gap on every side where the grid allows (`can_shrink`); ValueError elsewhere."""
    arr = as_cells(cells)
    if len(arr) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    if is_round(grid):
        radius = grid.radius - gap / 2
        if radius <= 0:
            raise ValueError(f"a gap of {gap:g} cells leaves nothing of a ball")
        return ball_surface(grid.centres(arr), radius, grid.neighbour_pairs(arr))
    if gap:
        raise ValueError(f"a gap is not available on the {grid.title} grid yet; use a gap of 0")
    points, groups = _solid_polygons(grid, arr)
    return _manifold(points, groups)
