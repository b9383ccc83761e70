"""What a scene is: meshes built once, and poses that depend on the step.

A family's scene module turns (puzzle, solution, mode) into a `Scene`: a list of `ActorSpec`
(mesh, colour, style) and a `pose(step)` function giving each actor's 4×4 transform, visibility
and emphasis. The window and the headless exporter both hand the same `Scene` to
`viewer.render.SceneRenderer`, so what a test exports is what a person sees. Poses never carry
meshes: moving a piece (here, by the step slider; in the hands-on viewer, by the user) is only a
new `user_matrix`, which is what keeps a step under a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

import numpy as np
import pyvista as pv

Emphasis = Literal["normal", "active", "dim"]
IDENTITY = np.eye(4)


@dataclass
class ActorSpec:
    """One actor of a scene. `role` tells the hands-on viewer what it may pick and move."""

    key: str
    mesh: pv.DataSet
    color: str = "#cccccc"
    rgb: bool = False  # colour from the mesh's uint8 cell array "rgb" instead of `color`
    opacity: float = 1.0
    show_edges: bool = False
    edge_color: str = "#202020"
    line_width: float = 1.0
    style: Literal["surface", "wireframe"] = "surface"
    role: Literal["piece", "guide", "board", "label"] = "piece"
    pickable: bool = False
    name: str = ""  # what the status bar calls it (a piece's name)
    #: A closed solid, opaque as the scene shows it: its back faces never show, and where it
    #: touches another such actor neither face does, so the renderer may draw it merged with
    #: others that look alike, without those faces (`viewer.render.StaticMerge`).
    closed: bool = False


@dataclass(frozen=True)
class Pose:
    """Where an actor is at a step. `opacity` < 1 fades it (a piece Search mode takes back
    fades out over the step instead of vanishing, so the eye sees what went)."""

    matrix: np.ndarray = field(default_factory=lambda: IDENTITY)
    visible: bool = True
    emphasis: Emphasis = "normal"
    opacity: float = 1.0


@dataclass(frozen=True)
class Timeline:
    """A search trace as the step bar needs it: per event (event k leads to step k + 1) its
    kind (`PLACE`, `REMOVE`, `SOLUTION` as 0, 1, 2) and the depth after it. The window's
    next/previous backtrack and next-solution jumps and the depth mini-map read only this."""

    kinds: np.ndarray
    depths: np.ndarray

    PLACE, REMOVE, SOLUTION = 0, 1, 2

    def next_step(self, step: float, kind: int) -> int | None:
        """The first step after `step` reached by an event of `kind`, or None."""
        after = int(np.floor(step))  # steps after this one: events from index `after` on
        hits = np.flatnonzero(self.kinds[after:] == kind)
        return after + int(hits[0]) + 1 if len(hits) else None

    def previous_step(self, step: float, kind: int) -> int | None:
        """The last step before `step` reached by an event of `kind`, or None."""
        before = int(np.ceil(step)) - 1  # events with index < before lead to earlier steps
        hits = np.flatnonzero(self.kinds[: max(before, 0)] == kind)
        return int(hits[-1]) + 1 if len(hits) else None


@dataclass
class Scene:
    """Everything needed to draw any step of one solution (or one search trace).

    `n_steps` is the last step; `pose(step)` accepts fractional steps (a piece part-way along
    its path) so animations glide. Actors missing from a pose keep their static transform.
    """

    actors: list[ActorSpec]
    n_steps: int
    pose: Callable[[float], dict[str, Pose]]
    bounds: tuple[float, float, float, float, float, float]
    view: tuple[float, float, float] = (1.0, -1.6, 1.2)  # direction from focus to camera
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    describe: Callable[[float], str] = field(default=lambda step: "")
    depth: Callable[[float], int | None] = field(default=lambda step: None)
    #: A flat board (KenKen, dominoes): seen from straight above with a parallel projection,
    #: so every clue has the same true size and nothing is foreshortened.
    flat: bool = False
    #: Whether explode and the layer cut mean anything (not on a flat board).
    inspectable: bool = True
    #: What the Inside list shows instead of the pieces: (label, colour) rows, e.g. the cages.
    listing: list[tuple[str, str]] | None = None
    #: The search trace's kinds and depths, in Search mode (jumps and the mini-map).
    timeline: Timeline | None = None


def translation(offset) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = offset
    return m


def affine(rotation: np.ndarray, offset) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = offset
    return m


def quads_mesh(vertices: np.ndarray, quads: np.ndarray) -> pv.PolyData:
    faces = np.hstack([np.full((len(quads), 1), quads.shape[1]), quads]).ravel()
    return pv.PolyData(np.asarray(vertices, float), faces)


def hex_rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return int(color[0:2], 16), int(color[2:4], 16), int(color[4:6], 16)


def bounds_of(points: np.ndarray, margin: float = 0.5) -> tuple[float, ...]:
    lo = points.min(axis=0) - margin
    hi = points.max(axis=0) + margin
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def boxes_mesh(boxes) -> pv.PolyData:
    """Axis-aligned boxes `(x0, x1, y0, y1, z0, z1)` as one quad mesh (borders, bars, slabs).

    Built straight from corners: merging hundreds of `pv.Box` meshes is far slower."""
    b = np.asarray(boxes, float).reshape(-1, 6)
    corners = np.array([[i, j, k] for k in (0, 1) for j in (0, 1) for i in (0, 1)])
    lo, hi = b[:, 0::2], b[:, 1::2]
    vertices = lo[:, None, :] + corners[None, :, :] * (hi - lo)[:, None, :]
    faces = np.array(
        [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]
    )
    quads = (np.arange(len(b))[:, None, None] * 8 + faces[None]).reshape(-1, 4)
    return quads_mesh(vertices.reshape(-1, 3), quads)


#: vtkVectorText draws ASCII only: the maths signs become their ASCII look-alikes.
_ASCII = str.maketrans({"−": "-", "×": "x", "÷": "/"})
_GLYPH_HEIGHT = 1.1  # vtkVectorText's height of a digit or capital, in its own units


def text_mesh(text: str, height: float, depth: float = 0.02) -> pv.PolyData:
    """Flat 3D text facing +z, reading along +x, centred on the origin; `height` is that of a
    digit, so labels of one size line up whatever letters they hold. A mesh like any other
    (not a 2D overlay): it moves with `user_matrix` and draws the same on and off screen."""
    points, triangles = text_triangles(text, height, depth)
    return pv.PolyData.from_regular_faces(points.copy(), triangles)


@cache
def text_triangles(text: str, height: float, depth: float = 0.02) -> tuple[np.ndarray, np.ndarray]:
    """`text_mesh` as (points, triangles) arrays, cached: boards repeat the same few labels."""
    mesh = pv.Text3D(text.translate(_ASCII), depth=1.0)
    if mesh.n_points == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64)
    mesh = mesh.triangulate()
    s = height / _GLYPH_HEIGHT
    points = (np.asarray(mesh.points) - np.array(mesh.center)) * np.array([s, s, depth])
    points.flags.writeable = False
    return points, mesh.regular_faces


def placed_copies(mesh: pv.PolyData, matrices) -> pv.PolyData:
    """One mesh of copies of `mesh`, each placed by its 4×4 matrix: what those copies look
    like as actors with that `user_matrix` (faces, their colours, point normals), in one.
    A mirror image's faces are wound the other way round, so each stays outward."""
    matrices = np.asarray(matrices, float).reshape(-1, 4, 4)
    rotations, shifts = matrices[:, :3, :3], matrices[:, :3, 3]
    points = np.asarray(mesh.points, float)
    placed = np.einsum("mij,pj->mpi", rotations, points) + shifts[:, None, :]
    polys = mesh.GetPolys()
    offsets = np.asarray(pv.convert_array(polys.GetOffsetsArray()), np.int64)
    connectivity = np.asarray(pv.convert_array(polys.GetConnectivityArray()), np.int64)
    sizes = np.diff(offsets)
    face = np.repeat(np.arange(len(sizes)), sizes)
    within = np.arange(len(connectivity)) - offsets[face]
    backwards = connectivity[offsets[face] + sizes[face] - 1 - within]
    mirrored = np.linalg.det(rotations) < 0
    base = (np.arange(len(matrices)) * len(points))[:, None]
    conn = np.where(mirrored[:, None], backwards[None], connectivity[None]) + base
    out = pv.PolyData()
    out.points = placed.reshape(-1, 3)
    all_offsets = (offsets[:-1][None] + (np.arange(len(matrices)) * offsets[-1])[:, None]).ravel()
    out.polys = pv.CellArray.from_arrays(
        np.append(all_offsets, len(matrices) * offsets[-1]), conn.ravel()
    )
    if "rgb" in mesh.cell_data:
        out.cell_data["rgb"] = np.tile(np.asarray(mesh.cell_data["rgb"]), (len(matrices), 1))
    normals = mesh.point_data.active_normals
    if normals is not None:
        turned = np.einsum("mij,pj->mpi", rotations, np.asarray(normals, float))
        out.point_data["Normals"] = turned.reshape(-1, 3)
        out.point_data.active_normals_name = "Normals"
    return out


def merge_triangles(parts) -> pv.PolyData:
    """One mesh from many (points, triangles) pairs: much faster than `pv.merge` for the
    hundreds of small labels and pips a board has."""
    parts = [(np.asarray(p, float), np.asarray(t)) for p, t in parts if len(t)]
    if not parts:
        return pv.PolyData()
    offsets = np.cumsum([0] + [len(p) for p, _ in parts[:-1]])
    points = np.concatenate([p for p, _ in parts])
    triangles = np.concatenate([t + o for (_, t), o in zip(parts, offsets, strict=True)])
    return pv.PolyData.from_regular_faces(points, triangles)


def ease(t: float) -> float:
    """Smoothstep: motions start and stop gently (every glide in every scene)."""
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


class TraceReplay:
    """What Search mode reads off a solver's trace at a (fractional) step, for every family:
    the events so far, the choices standing, the readout text and the depth."""

    def __init__(self, events, describe_choice: Callable[[int], str]) -> None:
        from tessera.solvers.trace import stacks_after_each

        self.events = events
        self.stacks = stacks_after_each(events)
        self.describe_choice = describe_choice

    def at(self, step: float) -> int:
        return int(min(max(step, 0), len(self.events)))

    def stack(self, step: float) -> tuple[int, ...]:
        return self.stacks[self.at(step)]

    def last(self, step: float):
        """The event that led to this step (None at the start)."""
        s = self.at(step)
        return self.events[s - 1] if s else None

    def describe(
        self, step: float, *, start: str = "search start", verbs=("place", "backtrack: remove")
    ) -> str:
        from tessera.solvers.trace import EventKind

        event = self.last(step)
        if event is None:
            return start
        if event.kind is EventKind.SOLUTION:
            return "solution found"
        verb = verbs[0] if event.kind is EventKind.PLACE else verbs[1]
        return f"{verb} {self.describe_choice(event.choice)}"

    def depth(self, step: float) -> int:
        return len(self.stack(step))

    def timeline(self) -> Timeline:
        from tessera.solvers.trace import EventKind

        code = {EventKind.PLACE: 0, EventKind.REMOVE: 1, EventKind.SOLUTION: 2}
        kinds = np.array([code[e.kind] for e in self.events], np.int8)
        depths = np.array([len(s) for s in self.stacks[1:]], np.int32)
        return Timeline(kinds, depths)

    def removed_at(self, step: float) -> tuple[int, float] | None:
        """While the step moves from k to k + 1 over a REMOVE event: (the depth from which
        the stack loses its entries, how far along, 0..1). Scenes show those entries fading
        out instead of gone at once."""
        from tessera.solvers.trace import EventKind

        k = int(np.floor(step))
        frac = step - k
        if frac <= 0 or k >= len(self.events) or self.events[k].kind is not EventKind.REMOVE:
            return None
        return len(self.stacks[k + 1]), frac
