"""The Design editor's scene, Qt-free: one shape as drawn, a ground grid, the hover marks.

It is an ordinary `viewer.scenes.base.Scene` drawn by `viewer.render.SceneRenderer`, the same
builder and renderer the main window and the headless exporter use, so an editor frame can be
exported off screen like any other. What the editor needs beyond a scene is which cube and which
face a picked mesh cell is: `DesignScene` keeps that per mesh cell (`face_cube`, `face_normal`,
`ground_cells`), so a click costs a pick and an array look-up, never a search of the geometry.

The hover marks (a box around the cube under the mouse, a patch on the face that will grow) are
built once at the origin and moved with `user_matrix`, the scenes' rule for anything that moves.

The target's pre-placed pieces (a `.soma` figure's letters) are cubes of the same mesh in their
pieces' colours: a face of one is a face to grow the target against like any other, and
`placed` says which cubes they are (the editor refuses to remove those).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyvista as pv

from tessera.viewer.scenes.base import ActorSpec, Pose, Scene, bounds_of, boxes_mesh, quads_mesh

#: The six face normals, in the order `face_normal` indexes them.
NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.int64)
TARGET_COLOR = "#8d99a8"
OPTIONAL_TOWARDS = np.array([255, 255, 255])
OPTIONAL_AMOUNT = 0.62  # optional (+) cells: the shape's colour faded this far towards white
GROUND_COLOR = "#dfe5ec"
GROUND_MARGIN = 2  # empty squares of ground around the shape
HOVER_COLOR = "#ffb000"  # the face that will grow
REMOVE_COLOR = "#e0312b"  # the cube a Shift-click or right click would remove
GROUND_SIZE = 5  # the ground of an empty shape: 5 × 5 squares from the origin


def _face_corners() -> np.ndarray:
    """(6, 4, 3) corner offsets of a unit cube's faces, counter-clockwise seen from outside."""
    out = []
    for n in NORMALS:
        axis = int(np.flatnonzero(n)[0])
        sign = int(n[axis])
        u = np.zeros(3)
        v = np.zeros(3)
        if sign > 0:
            u[(axis + 1) % 3], v[(axis + 2) % 3] = 1, 1
        else:
            u[(axis + 2) % 3], v[(axis + 1) % 3] = 1, 1
        out.append(np.array([n - u - v, n + u - v, n + u + v, n - u + v]) * 0.5)
    return np.array(out)


CORNERS = _face_corners()


@dataclass
class DesignScene:
    """The scene plus what a picked mesh cell means."""

    scene: Scene
    cells: np.ndarray  # (n, 3) the shape's cubes
    optional: np.ndarray  # (n,) bool: a target's optional cube
    placed: np.ndarray  # (n,) int: the pre-placed piece a cube belongs to, -1 for none
    face_cube: np.ndarray  # per face of the shape mesh: index into `cells`
    face_normal: np.ndarray  # per face of the shape mesh: index into NORMALS
    ground_cells: np.ndarray  # per ground square: the (x, y, z) a click there adds
    floor: int  # the z of the lowest layer (the ground lies just below it)

    def face_centre(self, cube: int, normal: int) -> np.ndarray:
        """World centre of one face of one cube (tests click there)."""
        return self.cells[cube] + NORMALS[normal] * 0.5

    def ground_centre(self, x: int, y: int) -> np.ndarray:
        return np.array([x, y, self.floor - 0.5], float)

    def cube_index(self, cell) -> int:
        hits = np.flatnonzero((self.cells == np.asarray(cell)).all(axis=1))
        return int(hits[0]) if len(hits) else -1


def _faded(rgb: np.ndarray) -> np.ndarray:
    return np.rint(rgb * (1 - OPTIONAL_AMOUNT) + OPTIONAL_TOWARDS * OPTIONAL_AMOUNT)


def shape_faces(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cube index, normal index) of every outer face: faces between two cubes are skipped."""
    occupied = {tuple(c) for c in cells.tolist()}
    cube, normal = [], []
    for k, n in enumerate(NORMALS):
        outer = [tuple(c) not in occupied for c in (cells + n).tolist()]
        idx = np.flatnonzero(outer)
        cube.append(idx)
        normal.append(np.full(len(idx), k))
    if not cube:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(cube).astype(np.int64), np.concatenate(normal).astype(np.int64)


def _shape_mesh(cells, face_cube, face_normal, colours) -> pv.PolyData:
    quads = cells[face_cube][:, None, :] + CORNERS[face_normal]  # (m, 4, 3)
    vertices = quads.reshape(-1, 3)
    mesh = quads_mesh(vertices, np.arange(len(vertices)).reshape(-1, 4))
    mesh.cell_data["rgb"] = colours[face_cube].astype(np.uint8)
    return mesh


def _ground(cells: np.ndarray, floor: int) -> tuple[pv.PolyData, np.ndarray]:
    if len(cells):
        lo = cells[:, :2].min(axis=0) - GROUND_MARGIN
        hi = cells[:, :2].max(axis=0) + GROUND_MARGIN
    else:
        lo = np.zeros(2, np.int64)
        hi = np.full(2, GROUND_SIZE - 1)
    xs, ys = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1), indexing="ij")
    squares = np.stack([xs.ravel(), ys.ravel(), np.full(xs.size, floor)], axis=1)
    z = floor - 0.5
    corners = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    vertices = np.zeros((len(squares), 4, 3))
    vertices[:, :, :2] = squares[:, None, :2] + corners[None]
    vertices[:, :, 2] = z
    mesh = quads_mesh(vertices.reshape(-1, 3), np.arange(len(squares) * 4).reshape(-1, 4))
    return mesh, squares.astype(np.int64)


def _hover_face() -> pv.PolyData:
    """A patch on the +z face of the cube at the origin, slightly inset and lifted (so the
    face's edges stay visible and it never fights the face for depth)."""
    s = 0.36
    vertices = np.array([[-s, -s, 0.52], [s, -s, 0.52], [s, s, 0.52], [-s, s, 0.52]])
    return quads_mesh(vertices, np.array([[0, 1, 2, 3]]))


def _hover_box() -> pv.PolyData:
    e = 0.53
    return boxes_mesh([(-e, e, -e, e, -e, e)]).extract_all_edges()


def face_matrix(cell, normal: int) -> np.ndarray:
    """The 4×4 that carries the +z patch of `_hover_face` onto face `normal` of `cell`."""
    n = NORMALS[normal].astype(float)
    z = np.array([0.0, 0.0, 1.0])
    m = np.eye(4)
    if normal == 4:
        r = np.eye(3)
    elif normal == 5:
        r = np.diag([1.0, -1.0, -1.0])
    else:  # a quarter turn taking +z to n: about the axis z × n
        axis = np.cross(z, n)
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        r = np.eye(3) + k + k @ k  # Rodrigues with sin = 1, cos = 0
    m[:3, :3] = r
    m[:3, 3] = np.asarray(cell, float)
    return m


def build(
    required: frozenset,
    optional: frozenset,
    color: str,
    floor: int | None = None,
    placed: tuple[tuple[frozenset, str], ...] = (),
) -> DesignScene:
    """The scene of one shape: `required` cubes in `color`, `optional` ones faded, the
    `placed` pieces' cubes ((cells, colour) each) in their colours, on a ground grid under the
    lowest layer (at z = 0 for an empty shape)."""
    from tessera.viewer.scenes.base import hex_rgb

    req = sorted(required)
    opt = sorted(optional - required)
    taken = set(required) | set(optional)
    fixed = [(c, k) for k, (cs, _) in enumerate(placed) for c in sorted(cs) if c not in taken]
    cells = np.array(req + opt + [c for c, _ in fixed], np.int64).reshape(-1, 3)
    is_optional = np.array([False] * len(req) + [True] * len(opt) + [False] * len(fixed), bool)
    owner = np.array([-1] * (len(req) + len(opt)) + [k for _, k in fixed], np.int64)
    base = np.array(hex_rgb(color), float)
    colours = np.where(is_optional[:, None], _faded(base), base)
    for k, (_, piece_colour) in enumerate(placed):
        colours[owner == k] = np.array(hex_rgb(piece_colour), float)
    if floor is None:
        floor = int(cells[:, 2].min()) if len(cells) else 0
    face_cube, face_normal = shape_faces(cells)
    ground_mesh, ground_cells = _ground(cells, floor)
    actors = [
        ActorSpec(
            "ground", ground_mesh, color=GROUND_COLOR, show_edges=True, edge_color="#9aa7b6",
            role="board", pickable=True, name="ground",
        ),
        ActorSpec("hover-face", _hover_face(), color=HOVER_COLOR, role="guide"),
        ActorSpec(
            "hover-box", _hover_box(), color=HOVER_COLOR, role="guide", line_width=3.0,
            style="wireframe",
        ),
    ]  # fmt: skip
    if len(cells):
        mesh = _shape_mesh(cells, face_cube, face_normal, colours)
        actors.insert(
            1,
            ActorSpec("shape", mesh, rgb=True, show_edges=True, pickable=True, name="shape"),
        )
    points = np.vstack([cells.astype(float), ground_cells.astype(float)])
    bounds = bounds_of(points, margin=0.6)

    def pose(_step: float) -> dict[str, Pose]:
        return {"hover-face": Pose(visible=False), "hover-box": Pose(visible=False)}

    scene = Scene(actors, 0, pose, bounds, view=(0.9, -1.7, 1.3))
    return DesignScene(
        scene, cells, is_optional, owner, face_cube, face_normal, ground_cells, floor
    )
