"""Where the camera looks, for the window, `tessera render`, `tessera animate` and the tests.

One rule, in one place: the camera frames what is on screen *at this step* (not the target's
box, not a whole disassembly's flight path), from a direction in which the piece under way can
be seen, with a margin, never cutting anything off, and as tight as the projection allows.

- `fit` is the geometry: points, a view direction, up, the frame's aspect ratio -> a `Shot`
  (focal point, position, up, parallel scale). It centres the points' *projected* extent and
  puts the camera just far enough back that the widest of them stays `MARGIN` inside the frame.
- `shot_at` is what a view asks for at a step: what the scene shows then (`step_points`), seen
  along `view_direction(scene, step)`.
- `view_direction` keeps the moving piece in sight (docs/window.md, "The camera"): from a few
  candidate directions (the scene's own, then its mirror images about the vertical planes,
  then the same seen from below) it takes the first from which at least `SEEN_ENOUGH` of the
  moving piece's surface is unoccluded by the other opaque pieces, else the best one. The
  estimate casts rays from the moving cells' faces through the other pieces' cells (numpy, no
  rendering), so the window, the exports and the tests make the same choice.
- `glide` is an animation's camera: every frame's own shot, eased across each whole step
  (where the direction or the set of pieces may change) and then pushed back, if need be, so
  that the frame still holds everything drawn in it.

Pure numpy and the scene's meshes: no Qt, no plotter (`apply` is the one place that writes a
pyvista camera).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tessera.viewer.scenes.base import Scene

#: The part of the frame's half width/height left free around the content, on each side.
MARGIN = 0.05
VIEW_ANGLE = 30.0  # VTK's default vertical view angle, degrees
SEEN_ENOUGH = 0.75  # the first candidate direction showing this much of the moving piece wins
EASE_STEPS = 0.35  # an animation's camera turns over this much of a step on each side of it
_FACE_SAMPLES = (0.2, 0.5, 0.8)  # where rays leave a face, per side


@dataclass(frozen=True)
class Shot:
    """A camera: pyvista's (position, focal point, up) and, for a parallel projection, its
    half height in world units."""

    position: tuple[float, float, float]
    focal: tuple[float, float, float]
    up: tuple[float, float, float]
    parallel_scale: float | None = None
    view_angle: float = VIEW_ANGLE

    @property
    def direction(self) -> np.ndarray:
        """Unit vector from the focal point to the camera."""
        d = np.subtract(self.position, self.focal)
        return d / np.linalg.norm(d)

    @property
    def distance(self) -> float:
        return float(np.linalg.norm(np.subtract(self.position, self.focal)))

    @property
    def camera_position(self):
        return (self.position, self.focal, self.up)


def _basis(direction, up) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, toward the camera) for a view along `direction`; `up` is made orthogonal
    (any vector not along the direction will do)."""
    d = np.asarray(direction, float)
    d = d / np.linalg.norm(d)
    u = np.asarray(up, float) - np.dot(up, d) * d
    if np.linalg.norm(u) < 1e-6:  # looking straight along `up`
        u = np.array((0.0, 1.0, 0.0)) - d[1] * d
    u = u / np.linalg.norm(u)
    return np.cross(u, d), u, d


def fit(
    points: np.ndarray,
    direction,
    up,
    aspect: float,
    *,
    view_angle: float = VIEW_ANGLE,
    parallel: bool = False,
    margin: float = MARGIN,
) -> Shot:
    """The tightest camera along `direction` (focus to camera) that shows every point, at
    least `margin` of the half frame inside each border of a frame `aspect` = width/height."""
    pts = np.asarray(points, float).reshape(-1, 3)
    if len(pts) == 0:
        pts = np.zeros((1, 3))
    right, u, d = _basis(direction, up)
    x, y, z = pts @ right, pts @ u, pts @ d
    keep = 1.0 - margin
    if parallel:
        cx, cy = (x.min() + x.max()) / 2, (y.min() + y.max()) / 2
        half_h = max((y.max() - y.min()) / 2, (x.max() - x.min()) / 2 / aspect, 1e-3) / keep
        depth = float(np.ptp(z)) + 10.0
        focal = cx * right + cy * u + ((z.min() + z.max()) / 2) * d
        position = focal + d * depth
        return Shot(tuple(position), tuple(focal), tuple(u), half_h, view_angle)
    tan_v = math.tan(math.radians(view_angle / 2)) * keep
    tan_h = tan_v * aspect
    # The camera sits at (cx, cy) across the screen, at depth e along d; a point is inside
    # when |x - cx| <= tan_h (e - z) and |y - cy| <= tan_v (e - z). Along each axis the
    # nearest e is where the two extreme rays meet, the larger e wins, and at any e the
    # offset with equal room on both sides is the same one.
    ex, cx = _axis_fit(x, z, tan_h)
    ey, cy = _axis_fit(y, z, tan_v)
    e = max(ex, ey, float(z.max()) + 1e-3)
    cz = min((float(z.min()) + float(z.max())) / 2, e - 1e-3)
    focal = cx * right + cy * u + cz * d
    position = cx * right + cy * u + e * d
    return Shot(tuple(position), tuple(focal), tuple(u), None, view_angle)


def _axis_fit(s: np.ndarray, z: np.ndarray, tan: float) -> tuple[float, float]:
    """Along one screen axis: the nearest camera depth e and its offset c from which every
    (s, z) lies within the half angle: c + tan (e - z) >= s and c - tan (e - z) <= s."""
    hi = float((s + tan * z).max())  # c + tan e >= s + tan z for all points
    lo = float((s - tan * z).min())  # c - tan e <= s - tan z
    e = (hi - lo) / (2 * tan)
    return e, (hi + lo) / 2


def contain(shot: Shot, points: np.ndarray, aspect: float, margin: float = MARGIN) -> Shot:
    """`shot`, moved back along its own direction (its focal point kept) or its parallel
    scale grown just enough that every point is inside: a user's camera or a blended one
    never cuts a piece off."""
    pts = np.asarray(points, float).reshape(-1, 3)
    if len(pts) == 0:
        return shot
    right, u, d = _basis(shot.direction, shot.up)
    rel = pts - np.asarray(shot.focal)
    x, y, z = rel @ right, rel @ u, rel @ d
    keep = 1.0 - margin
    if shot.parallel_scale is not None:
        need = max(float(np.abs(y).max()), float(np.abs(x).max()) / aspect) / keep
        if need <= shot.parallel_scale * (1 + 1e-9):
            return shot
        return Shot(shot.position, shot.focal, shot.up, need, shot.view_angle)
    tan_v = math.tan(math.radians(shot.view_angle / 2)) * keep
    need = float(np.max(np.maximum(np.abs(x) / (tan_v * aspect), np.abs(y) / tan_v) + z))
    if need <= shot.distance * (1 + 1e-9):
        return shot
    position = np.asarray(shot.focal) + d * need
    return Shot(tuple(position), shot.focal, shot.up, None, shot.view_angle)


def blend(a: Shot, b: Shot, t: float) -> Shot:
    """Part-way from `a` to `b` (0..1): focal point and distance linearly, the direction and
    up turned along the way (normalised linear interpolation)."""
    t = min(max(float(t), 0.0), 1.0)
    if t <= 0:
        return a
    if t >= 1:
        return b
    focal = np.asarray(a.focal) * (1 - t) + np.asarray(b.focal) * t
    direction = a.direction * (1 - t) + b.direction * t
    if np.linalg.norm(direction) < 1e-6:  # opposite directions: turn through `up`
        direction = np.asarray(a.up, float)
    direction /= np.linalg.norm(direction)
    up = np.asarray(a.up) * (1 - t) + np.asarray(b.up) * t
    distance = a.distance ** (1 - t) * b.distance**t
    scale = None
    if a.parallel_scale is not None and b.parallel_scale is not None:
        scale = a.parallel_scale ** (1 - t) * b.parallel_scale**t
    position = focal + direction * distance
    return Shot(tuple(position), tuple(focal), tuple(_basis(direction, up)[1]), scale, a.view_angle)


# -- what a scene shows at a step ------------------------------------------------------------------
def _box_corners(bounds) -> np.ndarray:
    b = np.asarray(bounds, float)
    return np.array([(x, y, z) for x in b[0:2] for y in b[2:4] for z in b[4:6]])


def keeps_boxes(matrix: np.ndarray) -> bool:
    """Whether a placement's turn maps axis-aligned boxes onto such boxes (the cube group's
    turns do): the box of a placed mesh is then its own box's corners, moved."""
    turn = np.asarray(matrix, float)[:3, :3]
    return bool(((np.abs(turn) > 1e-9).sum(axis=0) == 1).all())


def placed_corners(points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The 8 corners of the box round `points` once placed by `matrix`: after any other
    turn than the cube group's (a prism's sixth of a turn, the sphere grid's), the moved box
    of the mesh would stand up to √3 times wider than the piece and push the frame off
    centre, so the box is taken round the moved points themselves."""
    m = np.asarray(matrix, float)
    moved = np.asarray(points, float).reshape(-1, 3) @ m[:3, :3].T + m[:3, 3]
    lo, hi = moved.min(axis=0), moved.max(axis=0)
    return _box_corners((lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]))


def step_points(scene: Scene, step: float, hidden: Iterable[str] = ()) -> np.ndarray:
    """The corners of every actor drawn at `step` (the boxes of their meshes, placed by the
    step's poses), less the `hidden` ones: what the frame has to hold."""
    hidden = set(hidden)
    poses = scene.pose(step)
    out = []
    for spec in scene.actors:
        if spec.key in hidden:
            continue
        pose = poses.get(spec.key)
        if pose is not None and not pose.visible:
            continue
        bounds = spec.mesh.bounds
        if bounds[0] > bounds[1]:
            continue
        corners = _box_corners(bounds)
        if pose is not None:
            m = np.asarray(pose.matrix, float)
            if keeps_boxes(m):
                corners = corners @ m[:3, :3].T + m[:3, 3]
            else:
                corners = placed_corners(spec.mesh.points, m)
        out.append(corners)
    return np.concatenate(out) if out else np.zeros((0, 3))


def mesh_cells(mesh, cells: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """(cells, owner): the unit cells whose outer faces a mesh of axis-aligned unit squares
    shows, and per face the index of its cell; None for any other mesh. With `cells`, the
    owners index into those instead."""
    try:
        faces = np.asarray(mesh.faces).reshape(-1, 5)
    except (AttributeError, ValueError):
        return None
    if len(faces) == 0 or (faces[:, 0] != 4).any():
        return None
    corners = np.asarray(mesh.points)[faces[:, 1:]]
    centre = corners.mean(axis=1)
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    if not np.allclose(length, 1.0):
        return None
    inside = centre - 0.5 * normal / length
    if not np.allclose(inside, np.rint(inside), atol=1e-6):
        return None
    inside = np.rint(inside).astype(np.int64)
    if cells is None:
        cells, owner = np.unique(inside, axis=0, return_inverse=True)
        return cells, owner.ravel()
    index = {tuple(c): i for i, c in enumerate(np.asarray(cells).tolist())}
    return np.asarray(cells), np.array([index[tuple(c)] for c in inside.tolist()], np.int64)


#: A mesh's cells by id, with the mesh itself kept so that its id cannot be reused while
#: the entry lives; emptied when it grows past _CELLS_KEPT (a few scenes' pieces).
_CELLS: dict[int, tuple[object, np.ndarray | None]] = {}
_CELLS_KEPT = 2048


def _cells_of(mesh) -> np.ndarray | None:
    entry = _CELLS.get(id(mesh))
    if entry is None or entry[0] is not mesh:
        if len(_CELLS) >= _CELLS_KEPT:
            _CELLS.clear()
        found = mesh_cells(mesh)
        entry = _CELLS[id(mesh)] = (mesh, None if found is None else found[0].astype(float))
    return entry[1]


def moving_keys(scene: Scene, step: float) -> list[str]:
    """The pieces under way at `step` (the scene marks them "active"); at the end, where
    nothing is marked, those of the last move."""
    for s in (step, step - 0.5):
        poses = scene.pose(max(s, 0.0))
        keys = [k for k, p in poses.items() if p.visible and p.emphasis == "active"]
        if keys:
            return keys
    return []


def piece_cells(
    scene: Scene, step: float, hidden: Iterable[str] = ()
) -> tuple[np.ndarray, np.ndarray] | None:
    """(moving cells, other opaque cells) as world centres at `step`, or None when the scene
    is not made of unit cells or nothing moves. See-through pieces (a cage drawn at 30%)
    hide nothing and are left out of the others."""
    moving = set(moving_keys(scene, step))
    if not moving:
        return None
    hidden = set(hidden)
    poses = scene.pose(step)
    mine, others = [], []
    for spec in scene.actors:
        pose = poses.get(spec.key)
        if spec.role != "piece" or pose is None or not pose.visible or spec.key in hidden:
            continue
        cells = _cells_of(spec.mesh)
        if cells is None:
            return None
        m = np.asarray(pose.matrix, float)
        world = cells @ m[:3, :3].T + m[:3, 3]
        if spec.key in moving:
            mine.append(world)
        elif spec.opacity * pose.opacity >= 1.0:
            others.append(world)
    if not mine:
        return None
    return np.concatenate(mine), (np.concatenate(others) if others else np.zeros((0, 3)))


_AXES = np.eye(3)


def visible_fraction(moving: np.ndarray, others: np.ndarray, direction) -> float:
    """About how much of the moving cells' silhouette, seen along `direction` (toward the
    camera, rays taken parallel), no other cell covers: rays leave a grid of points on every
    outer face turned to the camera, weighted by how squarely it faces it; rays the moving
    cells block themselves are out of the count (they are not seen alone either)."""
    d = np.asarray(direction, float)
    d = d / np.linalg.norm(d)
    starts, weights = [], []
    grid = np.array([(a, b) for a in _FACE_SAMPLES for b in _FACE_SAMPLES]) - 0.5
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = _AXES[axis] * sign
            facing = float(n @ d)
            if facing <= 1e-6:
                continue
            neighbour = moving + n
            gap = np.linalg.norm(moving[None, :, :] - neighbour[:, None, :], axis=2).min(axis=1)
            outer = moving[gap > 0.25]
            if not len(outer):
                continue
            a, b = _AXES[(axis + 1) % 3], _AXES[(axis + 2) % 3]
            offsets = grid[:, :1] * a + grid[:, 1:] * b + 0.5 * n + 1e-4 * n
            pts = (outer[:, None, :] + offsets[None]).reshape(-1, 3)
            starts.append(pts)
            weights.append(np.full(len(pts), facing))
    if not starts:
        return 1.0
    p = np.concatenate(starts)
    w = np.concatenate(weights)
    self_blocked = _blocked(p, d, moving)
    if self_blocked.all():
        return 1.0
    p, w = p[~self_blocked], w[~self_blocked]
    if not len(others):
        return 1.0
    hit = _blocked(p, d, others)
    return float(w[~hit].sum() / w.sum())


def _blocked(points: np.ndarray, d: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Whether the ray from each point along d (t > 0) passes through any unit cell."""
    if not len(cells):
        return np.zeros(len(points), bool)
    lo = cells - 0.5
    hi = cells + 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(np.abs(d) > 1e-12, 1.0 / d, np.inf)
        t1 = (lo[None, :, :] - points[:, None, :]) * inv
        t2 = (hi[None, :, :] - points[:, None, :]) * inv
    # a zero component: the ray is inside the slab for every t or never
    flat = np.abs(d) <= 1e-12
    inside = (points[:, None, :] > lo[None]) & (points[:, None, :] < hi[None])
    t_near = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2)).max(axis=2)
    t_far = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2)).min(axis=2)
    return ((t_far > np.maximum(t_near, 1e-6)) & (t_far > 1e-6)).any(axis=1)


def candidates(direction) -> list[np.ndarray]:
    """The directions a step may be seen from, the scene's own first: its mirror images
    across the vertical planes (the other three corners at the same height), the same four
    from below, then from higher and lower above and below (24 in all)."""
    d = np.asarray(direction, float)
    out = []
    for sz in (1.0, -1.0, 2.5, 0.3, -2.5, -0.3):
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            out.append(d * np.array((sx, sy, sz)))
    return out


def view_direction(
    scene: Scene, step: float, direction=None, hidden: Iterable[str] = ()
) -> np.ndarray:
    """The direction to see `step` from: `direction` (default the scene's) unless the moving
    piece hides behind the others from there (see the module docstring)."""
    base = np.asarray(direction if direction is not None else scene.view, float)
    if scene.flat:
        return base
    found = piece_cells(scene, step, hidden)
    if found is None:
        return base
    moving, others = found
    best, best_seen = base, -1.0
    for candidate in candidates(base):
        seen = visible_fraction(moving, others, candidate)
        if seen >= SEEN_ENOUGH:
            return candidate
        if seen > best_seen + 1e-9:
            best, best_seen = candidate, seen
    return best


def shot_at(
    scene: Scene,
    step: float,
    aspect: float,
    *,
    direction=None,
    points: np.ndarray | None = None,
    hidden: Iterable[str] = (),
    view_angle: float = VIEW_ANGLE,
    follow_moving: bool = True,
) -> Shot:
    """The camera for `step`: what is drawn then (`points`, else `step_points`), seen along
    `view_direction` (or exactly `direction` when `follow_moving` is off). A flat board is
    seen straight down its own view with a parallel projection."""
    hidden = tuple(hidden)
    if points is None:
        points = step_points(scene, step, hidden)
    if scene.flat and direction is None:
        return fit(_box_corners(scene.bounds), scene.view, scene.up, aspect, parallel=True,
                   margin=0.03)  # fmt: skip
    if follow_moving:
        d = view_direction(scene, step, direction, hidden)
    else:
        d = np.asarray(direction if direction is not None else scene.view, float)
    return fit(points, d, scene.up, aspect, view_angle=view_angle)


def glide(
    scene: Scene,
    steps: Sequence[float],
    aspect: float,
    points: Sequence[np.ndarray],
    *,
    direction=None,
    hidden: Iterable[str] = (),
    follow_moving: bool = True,
) -> list[Shot]:
    """An animation's cameras, one per frame (`points[i]`: what frame i draws). Each whole
    step k has its own shot (what is on screen around it); between two, the camera holds
    the shot of the move under way and eases into the next one over `EASE_STEPS` on either
    side of k, and is then pushed back as far as the frame's own points need."""
    hidden = tuple(hidden)
    cache: dict[int, Shot] = {}

    def move_shot(k: int) -> Shot:
        """The shot of move k (from step k to k + 1): what it shows at its start, middle and
        end, seen along the direction chosen for its middle."""
        if k not in cache:
            k_end = min(k + 1, scene.n_steps)
            mids = [min(k + f, k_end) for f in (1e-3, 0.5, 1.0)]
            pts = np.concatenate([step_points(scene, s, hidden) for s in [float(k), *mids]])
            d = (
                view_direction(scene, k + 0.5, direction, hidden)
                if follow_moving
                else np.asarray(direction if direction is not None else scene.view, float)
            )
            if scene.flat and direction is None:
                cache[k] = shot_at(scene, k, aspect)
            else:
                cache[k] = fit(pts, d, scene.up, aspect)
        return cache[k]

    shots = []
    last = max(scene.n_steps - 1, 0)
    for step, pts in zip(steps, points, strict=True):
        k = min(int(math.floor(step)), last)
        frac = step - k
        shot = move_shot(k)
        if frac < EASE_STEPS and k > 0:
            t = 0.5 + 0.5 * frac / EASE_STEPS  # from halfway between the two moves
            shot = blend(move_shot(k - 1), shot, _smooth(t))
        elif frac > 1 - EASE_STEPS and k < last:
            t = 0.5 * (frac - (1 - EASE_STEPS)) / EASE_STEPS
            shot = blend(shot, move_shot(k + 1), _smooth(t))
        shots.append(contain(shot, pts, aspect))
    return shots


def _smooth(t: float) -> float:
    t = min(max(t, 0.0), 1.0)
    return t * t * (3 - 2 * t)


def apply(camera, shot: Shot, renderer=None) -> None:
    """Point a pyvista camera at `shot` (and reset the renderer's clipping range)."""
    camera.parallel_projection = shot.parallel_scale is not None
    camera.view_angle = shot.view_angle
    camera.position = shot.position
    camera.focal_point = shot.focal
    camera.up = shot.up
    if shot.parallel_scale is not None:
        camera.parallel_scale = shot.parallel_scale
    if renderer is not None:
        renderer.ResetCameraClippingRange()


def shot_of(camera) -> Shot:
    """A pyvista camera as a `Shot`."""
    scale = camera.parallel_scale if camera.parallel_projection else None
    return Shot(
        tuple(camera.position), tuple(camera.focal_point), tuple(camera.up), scale,
        float(camera.view_angle),
    )  # fmt: skip


def same(a: Shot, b: Shot, tol: float = 1e-4) -> bool:
    """Whether two shots are the same camera (a user's orbit or zoom makes them differ)."""
    scale = max(a.distance, 1.0) * tol
    close = all(
        np.allclose(x, y, atol=scale) for x, y in ((a.position, b.position), (a.focal, b.focal))
    )
    up = np.allclose(a.up, b.up, atol=1e-3)
    scales = (a.parallel_scale is None) == (b.parallel_scale is None) and (
        a.parallel_scale is None or abs(a.parallel_scale - b.parallel_scale) <= scale
    )
    return close and up and scales
