"""Play mode on screen: draws a `models.play.PlayModel` and animates its moves.

The model owns every fact (poses, fit, undo); this view only listens to its psygnal events.
Each piece is one actor with its own mesh (its cells as the grid's solids: cubes, prisms,
balls, `scenes.polycube.piece_mesh`) carrying a uint8 "rgb" cell array: a fit check recolours
the faces of the bad cells in place, with no new mesh. A pose is drawn as one rigid map of
that mesh (`pose_matrix`: the grid's real-space matrix of the pose's rotation, and the shift
that puts the anchor cell's centre where the pose has it). A move is a short glide of
`user_matrix` from where the piece is drawn to its new pose; a turn glides about the piece's
anchor cell, the point the model turns it about, so it turns in place. While the mouse carries
a piece, `preview` draws it where the hand holds it without touching the model; the drop is
one model move.

Pieces keep the puzzle's own colours, as in every other mode (a coloured puzzle's pieces a
colour per cell); the *flag* (cells outside the target, overlapping, or on a target cell whose
colour the colour rules forbid for them) takes a colour far from all of them instead
(`flag_color`). Because a flagged cell is usually inside the assembly, its edges are also
drawn as a bright wire solid on an overlay layer (a second VTK renderer on the same camera,
whose depth buffer starts empty): it shows through the pieces in front. The solved table gets
a banner on that layer and a camera that frames the finished shape.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyvista as pv
import vtk
from PySide6.QtCore import QObject, QTimer, Signal

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.surface import is_round
from tessera.models.play import PlayModel
from tessera.models.play import Pose as PlayPose
from tessera.viewer.scenes._surface import drawn, view_centres
from tessera.viewer.scenes.base import (
    ActorSpec,
    Pose,
    Scene,
    affine,
    bounds_of,
    ease,
    hex_rgb,
)
from tessera.viewer.scenes.cells import bottom, cell_edges, cell_points, tiles
from tessera.viewer.scenes.polycube import _outline, piece_mesh, voxel_coloured_mesh

#: Flag colours to choose from, most vivid first: the first far enough from every piece wins.
FLAG_CHOICES = ("#ff00ff", "#00f0ff", "#39ff14", "#ff1a1a", "#ffffff")
FLAG = FLAG_CHOICES[0]  # the flag of puzzles whose colours leave it free (Soma)
FLAG_WIDTH = 5.0  # the overlay wire solids, in pixels
HINT_COLOR = "#ffd21f"
SOLVED_COLOR = "#0b7a3b"
ANIMATION_MS = 140
FRAME_MS = 15
#: Camera direction: above the table and in front of it (the pieces wait at +y, the target
#: behind them). More from above than from the side, so the axis nearest the view is z and a
#: drag slides pieces over the table (see viewer/_qt/mouse.py).
PLAY_VIEW = (0.55, 1.0, 1.45)
SOLVED_VIEW = (1.0, 1.5, 1.2)  # the finished shape from the front, a little from above


def key_of(piece: int) -> str:
    return f"play-{piece}"


def _chroma(color: str) -> np.ndarray:
    rgb = np.array(hex_rgb(color), float) + 1
    return rgb / rgb.sum()


def flag_color(colors: list[str]) -> str:
    """The flag for a puzzle: the first of `FLAG_CHOICES` whose hue no piece comes near, so a
    flagged face is never mistaken for a piece (and pieces never change colour for the flag's
    sake); the most distant one when none is clear."""
    chromas = [_chroma(c) for c in colors]

    def distance(flag: str) -> float:
        f = _chroma(flag)
        return min((float(np.abs(c - f).max()) for c in chromas), default=1.0)

    for flag in FLAG_CHOICES:
        if distance(flag) >= 0.15:
            return flag
    return max(FLAG_CHOICES, key=distance)


def _drawn_colours(colors: dict[str, np.ndarray]) -> list[str]:
    """Every colour the pieces' faces are drawn in (a coloured puzzle's voxel colours too), as
    hex: what the flag must stay clear of."""
    if not colors:
        return []
    rows = np.unique(np.vstack([c.reshape(-1, 3) for c in colors.values()]), axis=0)
    return ["#{:02x}{:02x}{:02x}".format(*map(int, row)) for row in rows]


def face_cells(grid: Grid, cells: np.ndarray) -> np.ndarray:
    """For each face of the piece mesh of `cells` (`piece_mesh`), the index of the cell it
    belongs to (the grid's surface says, face by face)."""
    return drawn(grid, cells).owner


def pose_matrix(pose: PlayPose, model: PlayModel | None = None, piece: int = 0) -> np.ndarray:
    """The 4×4 that carries a piece's mesh (drawn at its base cells) to its cells in `pose`:
    the grid's matrix of the rotation, and the shift that puts the anchor cell's centre where
    the pose has it. Without a model, the cube grid's, where that shift is the offset."""
    if model is None:
        return affine(CUBES.matrices[pose.rotation], pose.offset)
    grid = model.grid
    rotation = grid.matrices[pose.rotation]
    base = view_centres(grid, model.pieces[piece].anchor[None])[0]
    here = view_centres(grid, model.anchor_cell(piece, pose)[None])[0]
    out = affine(rotation, here - rotation @ base)
    whole = np.round(out)
    return np.where(np.abs(out - whole) < 1e-9, whole, out)


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


def cube_edges(cells: np.ndarray, grow: float = 0.04, grid: Grid = CUBES) -> pv.PolyData:
    """The edges of each cell's solid (a little larger than the cell, so they are not lost in
    the piece's own edges; a ball's three great circles), as one line mesh."""
    return cell_edges(grid, cells, grow)


def floor_mesh(target_cells: np.ndarray, floor: int, grid: Grid = CUBES) -> pv.PolyData:
    """The target's footprint on the table: a thin slab under its lowest layer, so the place a
    piece goes is plain from above (squares, triangles or discs, as its cells are)."""
    cells = np.asarray(target_cells, np.int64)
    lowest = cells[cells[:, 2] == cells[:, 2].min()]
    z = bottom(grid, lowest)
    return tiles(grid, lowest, z - 0.06, z - 0.02)


def cell_corners(cells: np.ndarray, grid: Grid = CUBES) -> np.ndarray:
    """What must be in view to see the cells whole: their solids' corners (a ball's extremes)."""
    return cell_points(grid, cells)


def frame_points(plotter, points: np.ndarray, direction, up=(0.0, 0.0, 1.0), margin=1.06) -> None:
    """Point the camera along `direction` (from the scene to the camera) so that every point is
    in view and they fill it: the distance is solved for the actual view angle and window
    shape, not for a bounding sphere (which left the pieces a fifth of the view)."""
    points = np.asarray(points, float).reshape(-1, 3)
    back = np.asarray(direction, float)
    back /= np.linalg.norm(back)
    right = np.cross(np.asarray(up, float), back)
    right /= np.linalg.norm(right)
    upward = np.cross(back, right)
    camera = plotter.camera
    width, height = plotter.window_size
    tan_v = math.tan(math.radians(camera.view_angle) / 2) / margin
    tan_h = tan_v * max(width, 1) / max(height, 1)
    centre = points.mean(axis=0)
    for _ in range(3):  # centre what the camera sees, then fit it; twice more refines both
        rel = points - centre
        x, y, z = rel @ right, rel @ upward, rel @ back
        distance = float(max((np.abs(x) / tan_h + z).max(), (np.abs(y) / tan_v + z).max()))
        # where each point lands on screen, as a fraction of the half-width / half-height
        sx = x / ((distance - z) * tan_h)
        sy = y / ((distance - z) * tan_v)
        shift_x = (sx.max() + sx.min()) / 2 * tan_h * distance
        shift_y = (sy.max() + sy.min()) / 2 * tan_v * distance
        centre = centre + right * shift_x + upward * shift_y
    rel = points - centre
    x, y, z = rel @ right, rel @ upward, rel @ back
    distance = float(max((np.abs(x) / tan_h + z).max(), (np.abs(y) / tan_v + z).max()))
    camera.focal_point = tuple(centre)
    camera.position = tuple(centre + back * distance)
    camera.up = tuple(up)
    plotter.renderer.ResetCameraClippingRange()


def build_play_scene(model: PlayModel) -> tuple[Scene, dict[str, np.ndarray]]:
    """Actors for the model's pieces and the target outline, plus each piece's face→cell map.

    The scene's `pose` reads the model, so a renderer showing it draws the table as it is."""
    colors = model.puzzle.colors()  # the same colours as in Solution and Search mode
    rules = model.puzzle.colour_rules
    palette = rules.palette if rules is not None else ()
    grid = model.grid
    edges = not is_round(grid)  # a ball's triangles are no cell edges
    actors: list[ActorSpec] = []
    faces: dict[str, np.ndarray] = {}
    for p in model.pieces:
        key = key_of(p.index)
        faces[key] = face_cells(grid, p.base)
        piece = model.puzzle.pieces[p.piece]
        if piece.coloured:  # its cells' own colours, as Solution mode paints them
            mesh = voxel_coloured_mesh(piece, colors[p.piece], palette)
        else:  # one mesh per piece: copies are coloured separately
            mesh = piece_mesh(p.base, grid)
            mesh.cell_data["rgb"] = np.tile(
                np.array(hex_rgb(colors[p.piece]), np.uint8), (mesh.n_cells, 1)
            )
        actors.append(
            ActorSpec(
                key, mesh, color=colors[p.piece], rgb=True, show_edges=edges, role="piece",
                pickable=True, name=p.name,
            )
        )  # fmt: skip
    outline = _outline(model.puzzle)
    outline.opacity, outline.line_width = 0.7, 1.5  # the target is where the eye goes first
    actors.append(outline)
    actors.append(
        ActorSpec("target-floor", floor_mesh(model.puzzle.target.cells, model.floor, grid),
                  color="#8a96a8", opacity=1.0, role="guide")
    )  # fmt: skip
    everything = [model.puzzle.target.cells] + [
        model.cells_at(k, s) for k, s in enumerate(model.start)
    ]
    bounds = bounds_of(cell_points(grid, np.vstack(everything)), margin=0.0)

    def pose(step: float) -> dict[str, Pose]:
        return {
            key_of(k): Pose(pose_matrix(model.pose(k), model, k)) for k in range(len(model.pieces))
        }

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
        #: each piece's face colours as drawn when nothing is wrong (a coloured puzzle's
        #: pieces have a colour per cell)
        self.colors = {
            s.key: np.array(s.mesh.cell_data["rgb"], np.uint8)
            for s in self.scene.actors
            if s.role == "piece"
        }
        voxels = _drawn_colours(self.colors) if model.puzzle.coloured else []
        self.flag = flag_color([*model.puzzle.colors(), *voxels])
        self.drawn: dict[str, np.ndarray] = {}  # base matrix drawn now, per piece
        # key -> (start matrix, end matrix, pivot in piece coordinates, start time)
        self._anim: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self.duration_ms = ANIMATION_MS  # 0: jump (scripts, many key presses in tests)
        self.overlay: vtk.vtkRenderer | None = None
        self.flag_actor = None  # the wire cubes of flagged cells, on the overlay
        self.banner = None  # the "Solved!" text, on the overlay
        self.flagged: np.ndarray = np.zeros((0, 3))  # the cells outlined now
        self._camera_before: tuple | None = None  # the camera before the solved close-up
        model.events.moved.connect(self._on_moved)

    def detach(self) -> None:
        self.timer.stop()
        self.model.events.moved.disconnect(self._on_moved)
        self._remove_overlay()

    # -- showing ------------------------------------------------------------------------------
    def show(self, frame_camera: bool = True) -> None:
        self.renderer.show(self.scene, 0.0, frame=frame_camera)
        if frame_camera:
            self.frame_table()
        self._add_overlay()
        self.inspector.forget()
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            self.drawn[key] = pose_matrix(self.model.pose(k), self.model, k)
            self.inspector.set_base(key, self.drawn[key])
        self.recolor()
        if self.model.solved:
            self.show_solved(None)
        self.inspector.refresh()
        self.frame.emit()

    def frame_table(self) -> None:
        """The camera on the target and every piece where it lies (the tray included)."""
        cells = [self.model.puzzle.target.cells] + [
            self.model.cells(k) for k in range(len(self.model.pieces))
        ]
        points = cell_corners(np.vstack(cells), self.model.grid)
        frame_points(self.renderer.plotter, points, PLAY_VIEW)

    def frame_target(self) -> None:
        """The camera on the finished shape."""
        corners = cell_corners(self.model.puzzle.target.cells, self.model.grid)
        frame_points(self.renderer.plotter, corners, SOLVED_VIEW, margin=1.6)

    def _add_overlay(self) -> None:
        """A second renderer on the main camera, drawn after the scene with a cleared depth
        buffer: whatever is on it shows in front of every piece."""
        if self.overlay is not None:
            return
        plotter = self.renderer.plotter
        ren_win = plotter.render_window
        overlay = vtk.vtkRenderer()
        overlay.SetLayer(1)
        overlay.SetInteractive(False)
        overlay.SetActiveCamera(plotter.renderer.GetActiveCamera())
        if ren_win.GetNumberOfLayers() < 2:
            ren_win.SetNumberOfLayers(2)
        ren_win.AddRenderer(overlay)
        self.overlay = overlay
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pv.PolyData())
        actor = vtk.vtkActor()
        actor.SetMapper(mapper)
        actor.PickableOff()
        prop = actor.GetProperty()
        prop.SetColor(*(np.array(hex_rgb(self.flag)) / 255))
        prop.SetLineWidth(FLAG_WIDTH)
        prop.LightingOff()
        overlay.AddActor(actor)
        self.flag_actor = actor

    def _remove_overlay(self) -> None:
        if self.overlay is None:
            return
        plotter = self.renderer.plotter
        ren_win = getattr(plotter, "render_window", None)
        if ren_win is not None:
            ren_win.RemoveRenderer(self.overlay)
        self.overlay = self.flag_actor = self.banner = None

    def recolor(self) -> None:
        """Faces of bad cells (out of the target, overlapping, or of a colour the target's
        colour rules forbid there: `Fit.bad`) in the flag colour, the rest in the piece's
        colours; the flagged cells' wire solids on the overlay."""
        fit = self.model.fit()
        flag = np.array(hex_rgb(self.flag), np.uint8)
        flagged = []
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            flagged.append(self.model.cells(k)[fit.bad[k]])
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
        cells = np.vstack(flagged) if flagged else np.zeros((0, 3))
        cells = np.unique(cells, axis=0) if len(cells) else cells
        if self.flag_actor is not None and not np.array_equal(cells, self.flagged):
            self.flag_actor.GetMapper().SetInputData(cube_edges(cells, grid=self.model.grid))
            self.flag_actor.SetVisibility(bool(len(cells)))
        self.flagged = cells

    def flagged_cells(self) -> dict[str, int]:
        """How many faces each piece shows in the flag colour now (status line and tests)."""
        flag = np.array(hex_rgb(self.flag), np.uint8)
        out = {}
        for k in range(len(self.model.pieces)):
            key = key_of(k)
            rgb = np.asarray(self.renderer.specs[key].mesh.cell_data["rgb"])
            n = int((rgb == flag).all(axis=1).sum())
            if n:
                out[self.model.pieces[k].name] = n
        return out

    red_cells = flagged_cells  # its name from when the flag was always red

    # -- solved -------------------------------------------------------------------------------
    def show_solved(self, number: int | None, total: int | None = None) -> None:
        """The banner over the view ("Solved!", and which solution once known) and the camera
        on the finished shape."""
        if self.overlay is None:
            return
        text = "Solved!"
        if number:
            text += f"\nsolution {number}" + (f" of {total}" if total else "")
        elif number == 0:
            text += "\n(not a listed solution)"
        if self.banner is None:
            banner = vtk.vtkTextActor()
            banner.GetTextProperty().SetJustificationToCentered()
            banner.GetTextProperty().SetVerticalJustificationToTop()
            banner.GetTextProperty().SetBold(True)
            banner.GetTextProperty().SetShadow(True)
            banner.GetTextProperty().SetColor(*(np.array(hex_rgb(SOLVED_COLOR)) / 255))
            banner.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
            banner.GetPositionCoordinate().SetValue(0.5, 0.96)
            self.overlay.AddViewProp(banner)
            self.banner = banner
            camera = self.renderer.plotter.camera
            self._camera_before = (camera.position, camera.focal_point, camera.up)
            self.frame_target()
        height = self.renderer.plotter.window_size[1]
        self.banner.GetTextProperty().SetFontSize(max(24, int(height * 0.08)))
        self.banner.SetInput(text)
        self.banner.SetVisibility(True)
        self.frame.emit()

    def hide_solved(self) -> None:
        """No longer solved (an undo, a piece taken out): the banner goes and the camera goes
        back to where it was, so the tray is in view again."""
        if self.banner is not None:
            self.banner.SetVisibility(False)
            self.overlay.RemoveViewProp(self.banner)
            self.banner = None
            if self._camera_before is not None:
                camera = self.renderer.plotter.camera
                camera.position, camera.focal_point, camera.up = self._camera_before
                self.renderer.plotter.renderer.ResetCameraClippingRange()
                self._camera_before = None
            self.frame.emit()

    @property
    def banner_text(self) -> str:
        return "" if self.banner is None else self.banner.GetInput()

    # -- the hand -----------------------------------------------------------------------------
    def preview(self, piece: int, pose) -> None:
        """Draw the piece at `pose` while the mouse carries it (the model is not told)."""
        key = key_of(piece)
        self._anim.pop(key, None)
        self.drawn[key] = pose_matrix(pose, self.model, piece)
        self._push([key])

    # -- animation ----------------------------------------------------------------------------
    @property
    def animating(self) -> bool:
        return bool(self._anim)

    def _on_moved(self, pieces: tuple[int, ...]) -> None:
        self.recolor()
        now = time.monotonic()
        keys = [key_of(k) for k in pieces]
        for k, key in zip(pieces, keys, strict=True):
            target = pose_matrix(self.model.pose(k), self.model, k)
            if self.duration_ms > 0 and not np.allclose(self.drawn[key], target):
                pivot = view_centres(self.model.grid, self.model.pieces[k].anchor[None])[0]
                self._anim[key] = (self.drawn[key].copy(), target, pivot, now)
            else:
                self._anim.pop(key, None)
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
        mesh = piece_mesh(np.asarray(cells), self.model.grid)
        edges = mesh.extract_feature_edges(
            boundary_edges=True, feature_edges=True, manifold_edges=False, non_manifold_edges=False
        )
        return [
            ActorSpec("hint-ghost", mesh, color=HINT_COLOR, opacity=0.35, role="guide"),
            ActorSpec("hint-edges", edges, color=HINT_COLOR, role="guide", line_width=4.0),
        ]
