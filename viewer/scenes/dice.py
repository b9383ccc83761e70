"""Instant Insanity scenes: a tower of coloured dice and its four sides unrolled beside it.

Each die is one cube mesh painted in its own frame (face i of the file in colour i); where it
sits and how it is turned is one affine `user_matrix`: a translation to its level times the
rotation of its orientation. The four side strips reuse the same meshes: a strip square is the
die turned the same way, then turned so the side it stands for faces the camera and squashed
flat, so it shows that side's colour with no mesh rebuilt and no colour changed per step.

Solution mode drops the dice one by one, bottom first, each spinning a quarter turn into place;
Search mode replays `solvers.dice.DiceSearch`'s trace (die d always sits at level d, its
orientation changes as the search turns it; backtracks take it off the tower).
"""

from __future__ import annotations

import math

import numpy as np
import pyvista as pv

from tessera.models.dice import ORIENTATIONS, SIDE_NAMES, SIDES, DicePuzzle, orient
from tessera.solvers.trace import EventKind
from tessera.viewer.scenes._surface import cell_quads
from tessera.viewer.scenes.base import (
    ActorSpec,
    Pose,
    Scene,
    TraceReplay,
    ease,
    hex_rgb,
    quads_mesh,
    text_mesh,
    translation,
)

HALF = 0.47  # half the edge of a die: a small gap between stacked dice
STRIP_GAP = 1.6  # from the tower's axis to the first strip
STRIP_PITCH = 1.25  # between strip columns
FLAT = 0.04  # how thin a strip square is squashed
DROP = 1.5  # how far above the finished tower a die starts its fall
CURSOR_COLOR = "#ff8c1a"
VIEW = (1.0, -1.6, 1.2)

# Outward normal of each face position: 0 top, 1 front, 2 right, 3 back, 4 left, 5 bottom
# (models.dice's order). The camera looks from the front right, so front is -y, right +x.
NORMALS = np.array([[0, 0, 1], [0, -1, 0], [1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, 0, -1]], float)


def orientation_matrix(k: int) -> np.ndarray:
    """The rotation that carries face ORIENTATIONS[k][pos] of a die to position pos."""
    p = ORIENTATIONS[k]
    r = sum(np.outer(NORMALS[pos], NORMALS[p[pos]]) for pos in (0, 1, 2))
    m = np.eye(4)
    m[:3, :3] = r
    return m


def _rz(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def die_mesh(die: list[str], colors: dict[str, str]) -> pv.PolyData:
    """A cube whose six faces carry the die's colours in its own (unturned) frame."""
    vertices, quads = cell_quads(np.zeros((1, 3), int))
    mesh = quads_mesh(vertices * (2 * HALF), quads)
    centres = vertices[quads].mean(axis=1) * 2  # unit outward normal of each quad
    face = [int(np.argmax(NORMALS @ c)) for c in centres]
    mesh.cell_data["rgb"] = np.array([hex_rgb(colors[die[i]]) for i in face], np.uint8)
    return mesh


def _wire_box(half: float) -> pv.PolyData:
    """The twelve edges of a cube: the cursor around the die that moves."""
    return pv.Box(bounds=(-half, half) * 3).extract_feature_edges(
        boundary_edges=False, feature_edges=True, manifold_edges=False, non_manifold_edges=False
    )


class _Layout:
    """Where the tower and the strips stand; strips face the camera's side of the tower."""

    def __init__(self, n: int) -> None:
        self.n = n
        toward = np.array(VIEW[:2], float)
        toward /= np.linalg.norm(toward)
        # the panel's front (-y before turning) faces the camera; columns run to its right
        self.face_angle = math.atan2(toward[1], toward[0]) + math.pi / 2
        self.right = np.array([-toward[1], toward[0], 0.0])
        self.panel = _rz(self.face_angle)
        # Q_s: turn side s to the front (-y), about the vertical axis
        self.to_front = [
            _rz(math.atan2(-1, 0) - math.atan2(NORMALS[s][1], NORMALS[s][0])) for s in SIDES
        ]

    def level(self, d: int) -> np.ndarray:
        return translation((0.0, 0.0, d + 0.5))

    def column(self, i: int) -> np.ndarray:
        return self.right * (STRIP_GAP + HALF + i * STRIP_PITCH)

    def strip(self, i: int, d: int, k: int) -> np.ndarray:
        """Die d in orientation k as the square of side SIDES[i] in strip i."""
        squash = np.diag([1.0, FLAT, 1.0, 1.0])
        place = translation(self.column(i) + (0.0, 0.0, d + 0.5))
        return place @ self.panel @ squash @ self.to_front[i] @ orientation_matrix(k)

    def bounds(self) -> tuple[float, ...]:
        pts = [(-HALF, -HALF, -0.6), (HALF, HALF, self.n + 0.2)]
        for i in (0, 3):
            c = self.column(i)
            pts += [c + (-HALF, -HALF, -0.6), c + (HALF, HALF, self.n)]
        pts = np.array(pts)
        lo, hi = pts.min(axis=0) - 0.2, pts.max(axis=0) + 0.2
        return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def _static_actors(layout: _Layout) -> list[ActorSpec]:
    """Floor, strip labels and the two cursors (die and strip row)."""
    floor = pv.Disc(center=(0, 0, -0.01), inner=0, outer=1.0, c_res=48)
    actors = [ActorSpec("floor", floor, color="#cfd6e0", role="guide")]
    labels = []
    for i in range(len(SIDES)):
        text = text_mesh(SIDE_NAMES[i], 0.26, depth=0.03)
        # stand the text up (facing -y), turn it with the panel, put it under its column
        up = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], float)
        m = translation(layout.column(i) + (0.0, 0.0, -0.32)) @ layout.panel @ up
        labels.append(text.transform(m, inplace=False))
    actors.append(ActorSpec("side-labels", pv.merge(labels), color="#2b3440", role="label"))
    actors.append(
        ActorSpec(
            "cursor", _wire_box(HALF + 0.05), color=CURSOR_COLOR, line_width=3.0, role="guide"
        )
    )
    # the strip row of the moving die: a frame round its four squares
    a = layout.column(0) - layout.right * (HALF + 0.08)
    b = layout.column(3) + layout.right * (HALF + 0.08)
    z0, z1 = -HALF - 0.06, HALF + 0.06
    ring = np.array([a + (0, 0, z0), b + (0, 0, z0), b + (0, 0, z1), a + (0, 0, z1)])
    frame = pv.PolyData(ring, lines=[5, 0, 1, 2, 3, 0])
    actors.append(ActorSpec("row-cursor", frame, color=CURSOR_COLOR, line_width=3.0, role="guide"))
    return actors


def build(
    puzzle: DicePuzzle, solution: tuple[int, ...] | None, mode: str = "solution", trace=None
) -> Scene:
    """The tower of one solution (dice dropped in one by one), or the search trace replayed."""
    n = puzzle.n
    layout = _Layout(n)
    actors: list[ActorSpec] = []
    for d, die in enumerate(puzzle.dice):
        mesh = die_mesh(die, puzzle.colors)
        actors.append(
            ActorSpec(
                f"die-{d}", mesh, rgb=True, show_edges=True, pickable=True, name=f"die {d + 1}"
            )
        )
        for i in range(len(SIDES)):
            actors.append(
                ActorSpec(f"strip-{i}-{d}", mesh, rgb=True, show_edges=True, role="board")
            )
    actors += _static_actors(layout)
    bounds = layout.bounds()
    if mode == "search":
        if trace is None:
            raise ValueError("search mode needs a trace")
        return _search_scene(puzzle, layout, actors, trace, bounds)
    if solution is None:
        return Scene(actors, 0, lambda step: _hidden(n), bounds, view=VIEW)
    return _solution_scene(puzzle, layout, actors, tuple(solution), bounds)


def _hidden(n: int) -> dict[str, Pose]:
    out = {f"die-{d}": Pose(visible=False) for d in range(n)}
    out.update({f"strip-{i}-{d}": Pose(visible=False) for d in range(n) for i in range(4)})
    out["cursor"] = Pose(visible=False)
    out["row-cursor"] = Pose(visible=False)
    return out


def _show_die(out: dict[str, Pose], layout: _Layout, d: int, k: int, matrix=None) -> None:
    out[f"die-{d}"] = Pose(layout.level(d) @ orientation_matrix(k) if matrix is None else matrix)
    if matrix is None:  # strips show a die once it has landed
        for i in range(len(SIDES)):
            out[f"strip-{i}-{d}"] = Pose(layout.strip(i, d, k))


def _cursor(out: dict[str, Pose], layout: _Layout, d: int, matrix: np.ndarray) -> None:
    out["cursor"] = Pose(translation(matrix[:3, 3]))
    out["row-cursor"] = Pose(translation((0.0, 0.0, d + 0.5)))


def _sides_text(puzzle: DicePuzzle, d: int, k: int) -> str:
    faces = orient(puzzle.dice[d], k)
    return ", ".join(f"{SIDE_NAMES[i]} {faces[s]}" for i, s in enumerate(SIDES))


def _solution_scene(puzzle, layout, actors, stack, bounds) -> Scene:
    n = puzzle.n

    def falling(d: int, t: float) -> np.ndarray:
        e = ease(t)
        lift = (n - d + DROP) * (1.0 - e)
        spin = _rz(-math.pi / 2 * (1.0 - e))
        return translation((0.0, 0.0, d + 0.5 + lift)) @ spin @ orientation_matrix(stack[d])

    def pose(step: float) -> dict[str, Pose]:
        step = min(max(step, 0.0), n)
        whole = math.floor(step)
        frac = step - whole
        out = _hidden(n)
        for d in range(min(whole, n)):
            _show_die(out, layout, d, stack[d])
        if whole < n and frac > 0:
            m = falling(whole, frac)
            _show_die(out, layout, whole, stack[whole], m)
            _cursor(out, layout, whole, m)
        elif 0 < step < n:  # between steps: frame the die that just landed
            _cursor(out, layout, whole - 1, layout.level(whole - 1))
        return out

    def describe(step: float) -> str:
        d = math.ceil(min(max(step, 0.0), n)) - 1
        if d < 0:
            return "no dice yet"
        return f"die {d + 1} drops in turned {stack[d]}: {_sides_text(puzzle, d, stack[d])}"

    return Scene(actors, n, pose, bounds, view=VIEW, describe=describe)


def _search_scene(puzzle, layout, actors, trace, bounds) -> Scene:
    n = puzzle.n
    replay = TraceReplay(trace.events, trace.describe)
    decode = trace.decoder

    def pose(step: float) -> dict[str, Pose]:
        out = _hidden(n)
        for choice in replay.stack(step):
            d, k = decode(choice)
            _show_die(out, layout, d, k)
        last = replay.last(step)
        if last is not None and last.kind is EventKind.PLACE:
            d, _ = decode(last.choice)
            _cursor(out, layout, d, layout.level(d))
        return out

    return Scene(
        actors, len(replay.events), pose, bounds, view=VIEW,
        describe=replay.describe, depth=replay.depth, timeline=replay.timeline(),
    )  # fmt: skip
