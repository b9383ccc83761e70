"""Piece surfaces are closed, outward, manifold solids of the right volume, and STL keeps them.

Volumes with a gap are checked against a brute-force count of the eroded solid (a point is in
it when the cube of half-gap around it lies in the piece), and STL files are read back with
PyVista's reader as well as ours, so a bug shared by writer and reader cannot hide."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

from tessera.models.mesh import piece_surface, read_stl, volume, vtk_faces, weld, write_stl
from tessera.models.polycube import load_polycube
from tests._paths import case_file

SOMA = case_file("polycube/soma.toml")

SHAPES = {
    "cube": [(0, 0, 0)],
    "bar": [(0, 0, 0), (1, 0, 0), (2, 0, 0)],
    "edge-touch": [(0, 0, 0), (1, 1, 0)],  # two cubes sharing only an edge
    "corner-touch": [(0, 0, 0), (1, 1, 1)],  # only a corner
    "ring": [(0, 0, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (1, 1, 0)],  # closes on an edge
    "saddle": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 1, 1)],
    "donut": [(x, y, 0) for x in range(3) for y in range(3) if (x, y) != (1, 1)],
    # two cells touching along an edge whose ends are both linked round through other cells
    "bridged-edge": [(0, 1, z) for z in range(3)]
    + [(1, 0, z) for z in range(3)]
    + [(1, 1, 0), (1, 1, 2)],
}
# expected Euler characteristic V - E + F without and with a gap: 2 per sphere-like shell, 0
# for a torus. A gap opens every edge contact; without one, a contact closed at both ends is
# kept whole (splitting it would leave one vertex with two fans at an end).
EULER = {
    "cube": (2, 2),
    "bar": (2, 2),
    "edge-touch": (4, 4),
    "corner-touch": (4, 4),
    "ring": (2, 2),
    "saddle": (2, 2),
    "donut": (0, 0),
    "bridged-edge": (2, 0),
}


def check_closed_manifold(vertices: np.ndarray, triangles: np.ndarray) -> int:
    """Assert every edge is used once in each direction and every vertex's triangles form one
    fan; return the Euler characteristic."""
    assert triangles.min() >= 0 and triangles.max() < len(vertices)
    assert len(np.unique(triangles)) == len(vertices), "unused vertices"
    directed = Counter()
    around: dict[int, dict[int, int]] = defaultdict(dict)
    for a, b, c in triangles.tolist():
        for u, v, w in ((a, b, c), (b, c, a), (c, a, b)):
            directed[u, v] += 1
            assert v not in around[u], f"vertex {u} has two triangles leaving along {u}->{v}"
            around[u][v] = w
    assert all(n == 1 for n in directed.values()), "an edge is used twice the same way"
    assert all((v, u) in directed for u, v in directed), "an edge has one triangle only"
    for u, nxt in around.items():
        start = next(iter(nxt))
        v, steps = nxt[start], 1
        while v != start:
            v, steps = nxt[v], steps + 1
        assert steps == len(nxt), f"vertex {u} is pinched (its triangles form several fans)"
    return len(vertices) - len(directed) // 2 + len(triangles)


def eroded_volume(cells, half_gap: float, step: float) -> float:
    """Volume of {p : the open cube of half-size `half_gap` around p lies in the cells}, by
    counting sample points at the centres of a grid fine enough to make the count exact."""
    cells = np.asarray(cells)
    lo = cells.min(axis=0) - 1
    grid = np.zeros(tuple(cells.max(axis=0) - lo + 2), bool)
    grid[tuple((cells - lo).T)] = True
    axes = [np.arange(lo[a] + 1 + step / 2, lo[a] + grid.shape[a] - 1, step) for a in range(3)]
    points = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    inside = np.ones(len(points), bool)
    for corner in np.array(np.meshgrid((-1, 1), (-1, 1), (-1, 1))).T.reshape(-1, 3):
        cell = np.floor(points + corner * half_gap).astype(int) - lo
        inside &= grid[tuple(cell.T)]
    return inside.sum() * step**3


def inside_cells(points: np.ndarray, cells) -> np.ndarray:
    occupied = {tuple(c) for c in np.asarray(cells).tolist()}
    return np.array([tuple(c) in occupied for c in np.floor(points).astype(int).tolist()])


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_awkward_shapes_are_closed_manifolds_of_the_right_volume(name):
    vertices, triangles = piece_surface(SHAPES[name])
    assert check_closed_manifold(vertices, triangles) == EULER[name][0]
    assert volume(vertices, triangles) == pytest.approx(len(SHAPES[name]))
    vertices, triangles = piece_surface(SHAPES[name], gap=0.25)
    assert check_closed_manifold(vertices, triangles) == EULER[name][1]
    expected = eroded_volume(SHAPES[name], 0.125, 1 / 16)
    assert volume(vertices, triangles) == pytest.approx(expected)


def test_soma_pieces_are_closed_and_outward():
    puzzle = load_polycube(SOMA)
    for piece in puzzle.pieces:
        vertices, triangles = piece_surface(piece.cells)
        assert check_closed_manifold(vertices, triangles) == 2
        assert volume(vertices, triangles) == pytest.approx(piece.size)
        # faces between two cells of the piece are dropped: 6 per cube minus 2 per contact
        contacts = sum(
            1
            for a in piece.cells.tolist()
            for b in piece.cells.tolist()
            if sum(abs(x - y) for x, y in zip(a, b, strict=True)) == 1
        )
        assert len(triangles) == 2 * (6 * piece.size - contacts)
        # every triangle faces out: just outside it is empty, just inside it is the piece
        corners = vertices[triangles]
        normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
        centres = corners.mean(axis=1)
        assert not inside_cells(centres + 0.01 * normals, piece.cells).any()
        assert inside_cells(centres - 0.01 * normals, piece.cells).all()


def test_a_gap_shrinks_each_outer_face_by_half_of_it():
    bar = [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    vertices, triangles = piece_surface(bar, gap=0.2, cell_size=10.0)
    check_closed_manifold(vertices, triangles)
    assert vertices.min(axis=0) == pytest.approx([0.1, 0.1, 0.1])
    assert vertices.max(axis=0) == pytest.approx([29.9, 9.9, 9.9])
    assert volume(vertices, triangles) == pytest.approx(29.8 * 9.8 * 9.8)
    for piece in load_polycube(SOMA).pieces:
        v, t = piece_surface(piece.cells, gap=0.25)
        assert check_closed_manifold(v, t) == 2
        assert volume(v, t) == pytest.approx(eroded_volume(piece.cells, 0.125, 1 / 16))


def test_random_shapes_stay_closed_manifolds():
    rng = np.random.default_rng(2024)
    for _ in range(150):
        cells = np.argwhere(rng.random((3, 3, 3)) < rng.uniform(0.3, 0.8)) - 1
        if len(cells) == 0:
            continue
        for gap in (0.0, 0.3):
            vertices, triangles = piece_surface(cells, gap=gap)
            check_closed_manifold(vertices, triangles)
        assert volume(*piece_surface(cells)) == pytest.approx(len(cells))


def test_cells_sit_where_they_are_and_scale():
    vertices, _ = piece_surface([(5, -2, 7)], cell_size=20.0)
    assert vertices.min(axis=0).tolist() == [100, -40, 140]
    assert vertices.max(axis=0).tolist() == [120, -20, 160]


def test_bad_gap_and_empty_input():
    with pytest.raises(ValueError, match="gap"):
        piece_surface([(0, 0, 0)], gap=1.0)
    with pytest.raises(ValueError, match="gap"):
        piece_surface([(0, 0, 0)], gap=-0.1)
    vertices, triangles = piece_surface(np.zeros((0, 3), int))
    assert vertices.shape == (0, 3) and triangles.shape == (0, 3)


def test_vtk_faces_layout():
    assert vtk_faces(np.array([[0, 1, 2], [2, 1, 3]])).tolist() == [3, 0, 1, 2, 3, 2, 1, 3]


def test_stl_round_trip_ours_and_pyvista(tmp_path):
    import pyvista as pv

    piece = load_polycube(SOMA).pieces[4]
    vertices, triangles = piece_surface(piece.cells, gap=1.0, cell_size=8.0)
    path = tmp_path / "A.stl"
    write_stl(path, vertices, triangles, "Soma A")
    assert path.stat().st_size == 84 + 50 * len(triangles)
    corners, normals, header = read_stl(path)
    assert not header.startswith(b"solid")  # would make readers try ASCII STL
    assert b"Soma A" in header
    assert np.allclose(corners, vertices[triangles], atol=1e-4)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1, atol=1e-6)
    welded_vertices, welded_triangles = weld(corners)
    check_closed_manifold(welded_vertices, welded_triangles)
    expected = eroded_volume(piece.cells, 1 / 16, 1 / 32) * 8**3
    assert volume(welded_vertices, welded_triangles) == pytest.approx(expected, rel=1e-5)

    mesh = pv.read(path)
    assert mesh.n_cells == len(triangles)
    assert mesh.n_open_edges == 0
    assert mesh.is_manifold
    assert mesh.volume == pytest.approx(expected, rel=1e-5)
