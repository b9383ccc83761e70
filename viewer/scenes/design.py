"""The Design editor's scene, Qt-free: one shape as drawn, a ground grid, the hover marks.

It is an ordinary `viewer.scenes.base.Scene` drawn by `viewer.render.SceneRenderer`, the same
builder and renderer the main window and the headless exporter use, so an editor frame can be
exported off screen like any other. What the editor needs beyond a scene is which cell and
which face a picked mesh cell is: `DesignScene` keeps that per mesh cell (`face_cube`,
`face_normal`, `ground_cells`), so a click costs a pick and an array look-up, never a search of
the geometry.

Every grid is drawn as its own solids (`scenes._surface.drawn`: cubes, prisms, balls, ...). A
face's `face_normal` is an index into `offsets`, the grid's steps from a cell to the neighbour
across a face (`cells.neighbour_table`; on cubes exactly `NORMALS`): the neighbour whose
direction the face looks along, so a click on a face adds the cell across it; on a ball, the
touching ball nearest the picked point. The ground is the floor layer's cells, each drawn as
its footprint (squares, triangles, discs).

The hover marks (an outline of the cell under the mouse, a patch on the face that will grow)
are small meshes the editor replaces as the mouse moves (`cells.face_patch`,
`cells.cell_edges`).

The target's pre-placed pieces (a `.soma` figure's letters) are cells of the same mesh in their
pieces' colours: a face of one is a face to grow the target against like any other, and
`placed` says which cells they are (the editor refuses to remove those).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.surface import is_round
from tessera.viewer.scenes._surface import drawn, view_centres
from tessera.viewer.scenes.base import ActorSpec, Pose, Scene, bounds_of, boxes_mesh
from tessera.viewer.scenes.cells import (
    across,
    bottom,
    face_middle,
    face_normals,
    neighbour_table,
    plates,
)

#: The six face normals of a cube, in the order the cube grid's `face_normal` indexes them.
NORMALS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.int64)
TARGET_COLOR = "#8d99a8"
OPTIONAL_TOWARDS = np.array([255, 255, 255])
OPTIONAL_AMOUNT = 0.62  # optional (+) cells: the shape's colour faded this far towards white
GROUND_COLOR = "#dfe5ec"
GROUND_MARGIN = 2  # empty squares of ground around the shape
HOVER_COLOR = "#ffb000"  # the face that will grow
REMOVE_COLOR = "#e0312b"  # the cube a Shift-click or right click would remove
GROUND_SIZE = 5  # the ground of an empty shape: 5 × 5 squares from the origin


@dataclass
class DesignScene:
    """The scene plus what a picked mesh cell means."""

    scene: Scene
    cells: np.ndarray  # (n, 3) the shape's cells
    optional: np.ndarray  # (n,) bool: a target's optional cell
    placed: np.ndarray  # (n,) int: the pre-placed piece a cell belongs to, -1 for none
    face_cube: np.ndarray  # per face of the shape mesh: index into `cells`
    face_normal: np.ndarray  # per face of the shape mesh: index into `offsets`
    ground_cells: np.ndarray  # per ground tile: the (x, y, z) a click there adds
    floor: int  # the z of the lowest layer (the ground lies just below it)
    grid: Grid = CUBES
    #: the steps to the neighbour across each kind of face (`cells.neighbour_table`)
    offsets: np.ndarray = field(default_factory=lambda: NORMALS.copy())
    ground_z: float = -0.5  # the height of the ground (view space)

    def grow(self, cube: int, normal: int) -> tuple[int, int, int]:
        """The cell a click on face `normal` of cell `cube` adds."""
        c = self.cells[cube] + self.offsets[normal]
        return (int(c[0]), int(c[1]), int(c[2]))

    def face_centre(self, cube: int, normal: int) -> np.ndarray:
        """World centre of one face of one cell (a ball: where it would touch that
        neighbour; tests click there)."""
        return face_middle(self.grid, self.cells[cube], self.offsets[normal])

    def normal_of(self, step) -> int:
        """The index in `offsets` of a step to a neighbour."""
        hits = np.flatnonzero((self.offsets == np.asarray(step)).all(axis=1))
        return int(hits[0]) if len(hits) else -1

    def ground_centre(self, x: int, y: int) -> np.ndarray:
        """The middle of the ground tile under cell (x, y, floor)."""
        centre = view_centres(self.grid, [(x, y, self.floor)])[0]
        return np.array([centre[0], centre[1], self.ground_z], float)

    def cube_index(self, cell) -> int:
        hits = np.flatnonzero((self.cells == np.asarray(cell)).all(axis=1))
        return int(hits[0]) if len(hits) else -1


def _faded(rgb: np.ndarray) -> np.ndarray:
    return np.rint(rgb * (1 - OPTIONAL_AMOUNT) + OPTIONAL_TOWARDS * OPTIONAL_AMOUNT)


def shape_faces(
    cells: np.ndarray, grid: Grid = CUBES
) -> tuple[pv.PolyData, np.ndarray, np.ndarray]:
    """The shape's outer faces as its grid's solids (`_surface.drawn`), and per face the
    index of its cell and of the neighbour step across it (`cells.neighbour_table`): faces
    between two cells of the shape are not drawn."""
    surface = drawn(grid, cells)
    mesh = pv.PolyData(np.asarray(surface.points, float), surface.faces)
    if surface.normals is not None:  # a ball: shaded smooth (render.py)
        mesh.point_data["Normals"] = surface.normals
        mesh.point_data.active_normals_name = "Normals"
    owner = np.asarray(surface.owner, np.int64)
    normals = face_normals(mesh.points, surface.faces)
    # one look-up per (cell kind, rounded normal): a shape's faces share a few dozen normals
    found: dict[tuple, int] = {}
    residues = grid.residue(cells) if len(cells) else np.zeros((0, 3), np.int64)
    across_of = np.empty(len(owner), np.int64)
    for f, (k, n) in enumerate(zip(owner.tolist(), np.round(normals, 3).tolist(), strict=True)):
        key = (tuple(residues[k].tolist()), tuple(n))
        if key not in found:
            found[key] = across(grid, cells[k], normals[f])
        across_of[f] = found[key]
    return mesh, owner, across_of


def _ground(
    cells: np.ndarray, floor: int, grid: Grid = CUBES
) -> tuple[pv.PolyData, np.ndarray, float]:
    """The floor layer's cells under and around the shape (its footprint grown by
    `GROUND_MARGIN` cells' widths), each drawn as a flat tile at the bottom of that layer:
    (mesh, the cell of each tile, the ground's height)."""
    if len(cells):
        centres = view_centres(grid, cells)
        lo = centres[:, :2].min(axis=0) - GROUND_MARGIN
        hi = centres[:, :2].max(axis=0) + GROUND_MARGIN
        box_lo = cells[:, :2].min(axis=0)
        box_hi = cells[:, :2].max(axis=0)
    else:
        # the squares of a cube's 5 × 5 from the origin; on other grids the cells whose
        # centres lie on them (the origin's own cell among them)
        lo, hi = np.full(2, -0.5), np.full(2, GROUND_SIZE - 0.5)
        box_lo = box_hi = np.zeros(2, np.int64)
    reach = 4 * GROUND_MARGIN + GROUND_SIZE + 4  # cell units always enough to cover the box
    xs = np.arange(box_lo[0] - reach, box_hi[0] + reach + 1)
    ys = np.arange(box_lo[1] - reach, box_hi[1] + reach + 1)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    layer = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, floor)], axis=1).astype(np.int64)
    layer = layer[grid.valid(layer)]
    at = view_centres(grid, layer)[:, :2]
    inside = ((at >= lo - 1e-9) & (at <= hi + 1e-9)).all(axis=1)
    tiles = layer[inside]
    z = bottom(grid, tiles) if len(tiles) else floor - 0.5
    return plates(grid, tiles, z), tiles, z


def build(
    required: frozenset,
    optional: frozenset,
    color: str,
    floor: int | None = None,
    placed: tuple[tuple[frozenset, str], ...] = (),
    grid: Grid = CUBES,
) -> DesignScene:
    """The scene of one shape on `grid`: `required` cells in `color`, `optional` ones faded,
    the `placed` pieces' cells ((cells, colour) each) in their colours, on a ground of the
    floor layer's tiles under the lowest layer (at z = 0 for an empty shape)."""
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
    ground_mesh, ground_cells, ground_z = _ground(cells, floor, grid)
    edges = not is_round(grid)
    actors = [
        ActorSpec(
            "ground", ground_mesh, color=GROUND_COLOR, show_edges=True, edge_color="#9aa7b6",
            role="board", pickable=True, name="ground",
        ),
        ActorSpec("hover-face", _blank(), color=HOVER_COLOR, role="guide"),
        ActorSpec(
            "hover-box", _blank_lines(), color=HOVER_COLOR, role="guide", line_width=3.0,
            style="wireframe",
        ),
    ]  # fmt: skip
    face_cube = face_normal = np.zeros(0, np.int64)
    if len(cells):
        mesh, face_cube, face_normal = shape_faces(cells, grid)
        mesh.cell_data["rgb"] = colours[face_cube].astype(np.uint8)
        actors.insert(
            1,
            ActorSpec("shape", mesh, rgb=True, show_edges=edges, pickable=True, name="shape"),
        )
    points = np.vstack([view_centres(grid, cells), view_centres(grid, ground_cells)])
    bounds = bounds_of(points, margin=0.6)

    def pose(_step: float) -> dict[str, Pose]:
        return {"hover-face": Pose(visible=False), "hover-box": Pose(visible=False)}

    scene = Scene(actors, 0, pose, bounds, view=(0.9, -1.7, 1.3))
    return DesignScene(
        scene, cells, is_optional, owner, face_cube, face_normal, ground_cells, floor, grid,
        neighbour_table(grid), ground_z,
    )  # fmt: skip


def _blank() -> pv.PolyData:
    """A placeholder the hover patch replaces (a tiny triangle, never shown as it is)."""
    return pv.PolyData(np.zeros((3, 3)), np.array([3, 0, 1, 2]))


def _blank_lines() -> pv.PolyData:
    return boxes_mesh([(-0.5, 0.5, -0.5, 0.5, -0.5, 0.5)]).extract_all_edges()
