"""Play mode on screen: draws a `models.play.PlayModel` and animates its moves.

The model owns every fact (poses, fit, undo); this view only listens to its psygnal events.
Each piece is one actor with its own mesh (outer faces as quads, so edges follow the cells)
carrying a uint8 "rgb" cell array: a fit check recolours the faces of the bad cells red in
place, with no new mesh. A move is a short glide of `user_matrix` from where the piece is drawn
to its new pose; a quarter turn glides about the piece's anchor cell, the point the model turns
it about, so it turns in place.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from tessera.models import geometry
from tessera.models.play import PlayModel
from tessera.viewer.scenes.base import ActorSpec, Pose, Scene, affine, bounds_of, ease, hex_rgb
from tessera.viewer.scenes.polycube import _outline, piece_mesh

FLAG = "#ff1a1a"  # cells outside the target or overlapping
SPARE_COLORS = ("#17becf", "#bcbd22", "#7f7f7f")  # for piece colours too close to FLAG
HINT_COLOR = "#ffd21f"
ANIMATION_MS = 140
FRAME_MS = 15
PLAY_VIEW = (1.0, 1.7, 1.5)  # camera direction: the pieces wait in front (+y), target behind


def key_of(piece: int) -> str:
    return f"play-{piece}"


def _chroma(color: str) -> np.ndarray:
    rgb = np.array(hex_rgb(color), float) + 1
    return rgb / rgb.sum()


def play_colors(colors: list[str]) -> list[str]:
    """The puzzle's colours, with any that could be mistaken for the red flag swapped out."""
    spare = iter(SPARE_COLORS)
    flag = _chroma(FLAG)
    return [next(spare, "#7f7f7f") if np.abs(_chroma(c) - flag).max() < 0.12 else c for c in colors]


def face_cells(mesh, cells: np.ndarray) -> np.ndarray:
    """For each face of a piece mesh, the index of the cell it belongs to (the cell just
    inside the face: cell centres are integers, faces are half a cell out)."""
    points = np.asarray(mesh.points)
    quads = np.asarray(mesh.faces).reshape(-1, 5)[:, 1:]
    corners = points[quads]
    centre = corners.mean(axis=1)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    inside = np.rint(centre - 0.5 * normal).astype(np.int64)
    index = {tuple(c): i for i, c in enumerate(np.asarray(cells).tolist())}
    return np.array([index[tuple(c)] for c in inside.tolist()], np.int64)


def pose_matrix(pose) -> np.ndarray:
    return affine(geometry.rotations()[pose.rotation], pose.offset)


def _quaternion(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's method)."""
    m = r
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = np.sqrt(trace + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = np.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k]) * 2
        q = [0.0, 0.0, 0.0, 0.0]
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    q = np.array(q)
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s = np.cos(angle), np.sin(angle)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + s * k + (1 - c) * (k @ k)


def interpolate(start: np.ndarray, end: np.ndarray, pivot: np.ndarray, t: float) -> np.ndarray:
    """The rigid transform a fraction t of the way from `start` to `end`: the turn between them
    by the shortest angle, while the point `pivot` (in the piece's own coordinates) travels in a
    straight line. A quarter turn about the pivot keeps the pivot still."""
    r0, r1 = start[:3, :3], end[:3, :3]
    q = _quaternion(r1 @ r0.T)
    sine = np.linalg.norm(q[1:])
    if sine < 1e-9:
        rotation = r0
    else:
        angle = 2 * np.arctan2(sine, q[0])
        rotation = _axis_angle(q[1:] / sine, angle * t) @ r0
    p0 = r0 @ pivot + start[:3, 3]
    p1 = r1 @ pivot + end[:3, 3]
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = p0 + (p1 - p0) * t - rotation @ pivot
    return out


def build_play_scene(model: PlayModel) -> tuple[Scene, dict[str, np.ndarray]]:
    """Actors for the model's pieces and the target outline, plus each piece's face→cell map.

    The scene's `pose` reads the model, so a renderer showing it draws the table as it is."""
    colors = play_colors(model.puzzle.colors())
    actors: list[ActorSpec] = []
    faces: dict[str, np.ndarray] = {}
    for p in model.pieces:
        mesh = piece_mesh(p.base)  # one mesh per piece: copies are coloured separately
        key = key_of(p.index)
        faces[key] = face_cells(mesh, p.base)
        mesh.cell_data["rgb"] = np.tile(
            np.array(hex_rgb(colors[p.piece]), np.uint8), (mesh.n_cells, 1)
        )
        actors.append(
            ActorSpec(
                key, mesh, color=colors[p.piece], rgb=True, show_edges=True, role="piece",
                pickable=True, name=p.name,
            )
        )  # fmt: skip
    actors.append(_outline(model.puzzle))
    everything = [model.puzzle.target.cells] + [
        model.cells_at(k, s) for k, s in enumerate(model.start)
    ]
    bounds = bounds_of(np.vstack(everything).astype(float), margin=0.5)

    def pose(step: float) -> dict[str, Pose]:
        return {key_of(k): Pose(pose_matrix(model.pose(k))) for k in range(len(model.pieces))}

    return Scene(actors, 0, pose, bounds, view=PLAY_VIEW), faces


class PlayView(QObject):
    """Shows a PlayModel through the window's renderer and inspector, gliding between poses.

    `frame` is emitted whenever actors changed and the view needs a render; `settled` when the
    last animation ended."""

    frame = Signal()
    settled = Signal()

    def __init__(self, model: PlayModel, renderer, inspector, parent=None) -> None:
        super().__init__(parent)
        self.model = model
        self.renderer = renderer
        self.inspector = inspector
        self.scene, self.faces = build_play_scene(model)
        self.colors = {s.key: np.array(hex_rgb(s.color), np.uint8) for s in self.scene.actors}
        self.drawn: dict[str, np.ndarray] = {}  # base matrix drawn now, per piece
        # key -> (start matrix, end matrix, pivot in piece coordinates, start time)
        self._anim: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self.duration_ms = ANIMATION_MS  # 0: jump (scripts, many key presses in tests)
        model.events.moved.connect(self._on_moved)

    def detach(self) -> None:
        self.timer.stop()
        self.model.events.moved.disconnect(self._on_moved)

    # -- showing ------------------------------------------------------------------------------
    def show(self, frame_camera: bool = True) -> None:
        self.renderer.show(self.scene, 0.0, frame=frame_camera)
        self.inspector.forget()
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            self.drawn[key] = pose_matrix(self.model.pose(k))
            self.inspector.set_base(key, self.drawn[key])
        self.recolor()
        self.inspector.refresh()
        self.frame.emit()

    def recolor(self) -> None:
        """Faces of cells out of the target or overlapping in red, the rest in piece colour."""
        fit = self.model.fit()
        flag = np.array(hex_rgb(FLAG), np.uint8)
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            actor = self.renderer.actors.get(key)
            if actor is None:
                continue
            mesh = self.renderer.specs[key].mesh
            bad = fit.bad[k][self.faces[key]]
            rgb = np.where(bad[:, None], flag, self.colors[key]).astype(np.uint8)
            if not np.array_equal(mesh.cell_data["rgb"], rgb):
                mesh.cell_data["rgb"][:] = rgb
                mesh.cell_data["rgb"].VTKObject.Modified()
                mesh.Modified()

    def red_cells(self) -> dict[str, int]:
        """How many faces each piece shows in red now (for the status line and tests)."""
        flag = np.array(hex_rgb(FLAG), np.uint8)
        out = {}
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            rgb = np.asarray(self.renderer.specs[key].mesh.cell_data["rgb"])
            n = int((rgb == flag).all(axis=1).sum())
            if n:
                out[self.model.pieces[k].name] = n
        return out

    # -- animation ----------------------------------------------------------------------------
    @property
    def animating(self) -> bool:
        return bool(self._anim)

    def _on_moved(self, pieces: tuple[int, ...]) -> None:
        self.recolor()
        now = time.monotonic()
        keys = [key_of(k) for k in pieces]
        for k, key in zip(pieces, keys, strict=True):
            target = pose_matrix(self.model.pose(k))
            if self.duration_ms > 0:
                pivot = np.asarray(self.model.pieces[k].anchor, float)
                self._anim[key] = (self.drawn[key].copy(), target, pivot, now)
            else:
                self.drawn[key] = target
        if self._anim and not self.timer.isActive():
            self.timer.start()
        self._push(keys)

    def finish(self) -> None:
        """Jump every gliding piece to its end pose (tests, mode changes)."""
        keys = list(self._anim)
        for key, (_, end, _, _) in self._anim.items():
            self.drawn[key] = end
        self._anim.clear()
        self.timer.stop()
        self._push(keys)
        self.settled.emit()

    def _tick(self) -> None:
        now = time.monotonic()
        for key, (start, end, pivot, t0) in list(self._anim.items()):
            t = (now - t0) * 1000 / max(self.duration_ms, 1)
            if t >= 1.0:
                self.drawn[key] = end
                del self._anim[key]
            else:
                self.drawn[key] = interpolate(start, end, pivot, ease(t))
            self.inspector.set_base(key, self.drawn[key])
        self.inspector.refresh()
        self.frame.emit()
        if not self._anim:
            self.timer.stop()
            self.settled.emit()

    def _push(self, keys: list[str]) -> None:
        for key in keys:
            self.inspector.set_base(key, self.drawn[key])
        self.inspector.refresh(keys)
        self.frame.emit()

    # -- hint ghost ---------------------------------------------------------------------------
    def hint_actors(self, cells: np.ndarray) -> list[ActorSpec]:
        """A translucent piece and its bold outline where the hint says a piece goes."""
        mesh = piece_mesh(np.asarray(cells))
        edges = mesh.extract_feature_edges(
            boundary_edges=True, feature_edges=True, manifold_edges=False, non_manifold_edges=False
        )
        return [
            ActorSpec("hint-ghost", mesh, color=HINT_COLOR, opacity=0.35, role="guide"),
            ActorSpec("hint-edges", edges, color=HINT_COLOR, role="guide", line_width=4.0),
        ]
