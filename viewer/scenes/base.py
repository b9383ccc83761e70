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


@dataclass(frozen=True)
class Pose:
    matrix: np.ndarray = field(default_factory=lambda: IDENTITY)
    visible: bool = True
    emphasis: Emphasis = "normal"


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
