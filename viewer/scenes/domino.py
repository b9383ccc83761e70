"""Domino scenes: the board of numbers, and ivory tiles with real pips laid on it.

The board (a felt slab, its cell grid and the numbers) is static. Every tile of the set that
can appear is one actor whose mesh is built once in the tile's own frame: the low half at
x < 0, the high half at x > 0, pips drawn as on `models.domino_html` (so a 2, 3 or 6 lies along
the tile the way the model's h/v marks mean: turning the tile a quarter turn turns its faces).
Laying a tile on two cells is then one rotation about the vertical axis plus a translation.

Solution mode lays the tiles one by one in reading order, each dropping onto its two cells;
Search mode replays the exact-cover trace (a choice is a row of `solvers.domino.DominoSolver`:
a tile on two cells), backtracks lifting tiles off again.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pyvista as pv

from tessera.models.domino import ORIENTED, Cell, DominoPuzzle, Pair, Tile
from tessera.models.domino_html import PAD, pip_positions
from tessera.solvers.trace import EventKind
from tessera.viewer.scenes.base import (
    ActorSpec,
    Pose,
    Scene,
    TraceReplay,
    boxes_mesh,
    ease,
    hex_rgb,
    merge_triangles,
    text_triangles,
    translation,
)

TILE_HALF = (0.96, 0.46)  # half length and half width of a tile (small gaps between tiles)
TILE_HEIGHT = 0.2
IVORY = "#cdc2a4"
PIP = "#1c1c1c"
FELT = "#2f6b4f"
FELT_LINE = "#24553e"
NUMBER = "#eef3ee"
CURSOR_COLOR = "#ff8c1a"
DROP = 1.6  # how high above the board a tile starts
VIEW = (0.0, 0.0, 1.0)  # straight down: a board is read like a printed page
#: A domino board is flat: top-down, parallel projection, no explode or layer cut.
FLAT = dict(flat=True, inspectable=False, up=(0.0, 1.0, 0.0))


def cell_centre(cell: Cell) -> np.ndarray:
    """Column to the right (+x), row 0 at the far side (+y), board top at z = 0."""
    r, c = cell
    return np.array([c + 0.5, -(r + 0.5), 0.0])


@cache
def _pip(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """One pip, a low dark disc standing just proud of the tile's top, as triangles."""
    disc = pv.Cylinder(
        center=(0, 0, TILE_HEIGHT + 0.004), direction=(0, 0, 1), radius=radius, height=0.012,
        resolution=20, capping=True,
    ).triangulate().clean()  # fmt: skip
    return np.asarray(disc.points), disc.regular_faces


def _pip_centres(number: int, x_centre: float) -> list[tuple[float, float, float]]:
    """Where the pips of one half go, laid out as Tatham's faces in the tile's own frame."""
    span = 1.0 - 2 * PAD
    return [
        (x_centre + (u - 0.5) * span, -(v - 0.5) * span, 0.0)
        for u, v in pip_positions(number, "h")  # x right, y down on the face
    ]


@cache
def tile_mesh(tile: Tile, suits: int) -> pv.PolyData:
    """An ivory tile in its own frame: `tile[0]` on the half at x < 0, a bar between halves.

    Assembled from arrays (pips are copies of one disc) rather than by merging meshes: a
    double-nine set has 55 tiles and up to 18 pips each. Cached: a mode switch reuses them."""
    hx, hy = TILE_HALF
    parts = [
        (boxes_mesh([(-hx, hx, -hy, hy, 0.0, TILE_HEIGHT)]).triangulate(), IVORY),
        (
            boxes_mesh(
                [(-0.015, 0.015, -hy + 0.1, hy - 0.1, TILE_HEIGHT, TILE_HEIGHT + 0.01)]
            ).triangulate(),
            PIP,
        ),
    ]
    points = [np.asarray(m.points) for m, _ in parts]
    faces = [m.regular_faces for m, _ in parts]
    colours = [np.tile(hex_rgb(c), (m.n_cells, 1)) for m, c in parts]
    disc_points, disc_faces = _pip(0.075 if suits <= 10 else 0.06)
    centres = _pip_centres(tile[0], -0.5) + _pip_centres(tile[1], 0.5)
    for centre in centres:
        points.append(disc_points + centre)
        faces.append(disc_faces)
        colours.append(np.tile(hex_rgb(PIP), (len(disc_faces), 1)))
    offsets = np.cumsum([0] + [len(p) for p in points[:-1]])
    tris = np.concatenate([f + o for f, o in zip(faces, offsets, strict=True)])
    mesh = pv.PolyData.from_regular_faces(np.concatenate(points), tris)
    mesh.cell_data["rgb"] = np.concatenate(colours).astype(np.uint8)
    return mesh


def tile_matrix(puzzle: DominoPuzzle, pair: Pair) -> np.ndarray:
    """Lay a tile on `pair`: its low half on the cell holding the lower number."""
    a, b = pair
    if puzzle.numbers[a[0]][a[1]] > puzzle.numbers[b[0]][b[1]]:
        a, b = b, a
    pa, pb = cell_centre(a), cell_centre(b)
    angle = math.atan2(pb[1] - pa[1], pb[0] - pa[0])
    m = translation((pa + pb) / 2)
    c, s = math.cos(angle), math.sin(angle)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def _board(puzzle: DominoPuzzle) -> list[ActorSpec]:
    rows, cols = puzzle.n_rows, puzzle.n_cols
    m = 0.2
    slab = boxes_mesh([(-m, cols + m, -rows - m, m, -0.25, 0.0)])
    lines = []
    w = 0.012
    for c in range(cols + 1):
        lines.append((c - w, c + w, -rows, 0, 0.0, 0.004))
    for r in range(rows + 1):
        lines.append((0, cols, -r - w, -r + w, 0.0, 0.004))
    numbers = []
    for r in range(rows):
        for c in range(cols):
            centre = cell_centre((r, c)) + (0.0, 0.0, 0.01)
            n = puzzle.numbers[r][c]
            points, triangles = text_triangles(str(n), 0.4)
            numbers.append((points + centre, triangles))
            mark = puzzle.marks[r][c]
            if mark and n in ORIENTED:  # the h/v clue, small, in the cell's corner
                points, triangles = text_triangles(mark, 0.2)
                numbers.append((points + centre + (0.3, -0.3, 0.0), triangles))
    return [
        ActorSpec("board", slab, color=FELT, role="board"),
        ActorSpec("grid", boxes_mesh(lines), color=FELT_LINE, role="board"),
        ActorSpec("numbers", merge_triangles(numbers), color=NUMBER, role="label"),
    ]


def _cursor() -> pv.PolyData:
    hx, hy = TILE_HALF[0] + 0.05, TILE_HALF[1] + 0.05
    z = TILE_HEIGHT + 0.02
    ring = np.array([(-hx, -hy, z), (hx, -hy, z), (hx, hy, z), (-hx, hy, z)])
    return pv.PolyData(ring, lines=[5, 0, 1, 2, 3, 0])


def _bounds(puzzle: DominoPuzzle) -> tuple[float, ...]:
    return (-0.4, puzzle.n_cols + 0.4, -puzzle.n_rows - 0.4, 0.4, -0.3, 0.6)


def build(
    puzzle: DominoPuzzle, solution: list[Pair] | None, mode: str = "solution", trace=None
) -> Scene:
    """Tiles laid one by one for a solution, or the search trace replayed."""
    bounds = _bounds(puzzle)
    static = _board(puzzle)
    static.append(ActorSpec("cursor", _cursor(), color=CURSOR_COLOR, line_width=3.0, role="guide"))
    if mode == "search":
        if trace is None:
            raise ValueError("search mode needs a trace")
        solver = trace.decoder
        tiles = sorted({solver.decode(row)[2] for row in range(len(solver.rows))})
        actors = _tiles(puzzle, tiles) + static
        return _search_scene(puzzle, actors, tiles, trace, bounds)
    if solution is None:
        return Scene(
            static, 0, lambda step: {"cursor": Pose(visible=False)}, bounds, view=VIEW, **FLAT
        )
    order = sorted(tuple(sorted(p)) for p in solution)
    tiles = sorted({puzzle.tile_at(p) for p in order})
    actors = _tiles(puzzle, tiles) + static
    return _solution_scene(puzzle, actors, tiles, order, bounds)


def _key(tile: Tile) -> str:
    return f"tile-{tile[0]}-{tile[1]}"


def _tiles(puzzle: DominoPuzzle, tiles: list[Tile]) -> list[ActorSpec]:
    return [
        ActorSpec(
            _key(t), tile_mesh(t, puzzle.suits), rgb=True, pickable=True, name=f"{t[0]}-{t[1]}"
        )
        for t in tiles
    ]


def _hidden(tiles: list[Tile]) -> dict[str, Pose]:
    out = {_key(t): Pose(visible=False) for t in tiles}
    out["cursor"] = Pose(visible=False)
    return out


def _solution_scene(puzzle, actors, tiles, order, bounds) -> Scene:
    n = len(order)
    final = [tile_matrix(puzzle, pair) for pair in order]
    keys = [_key(puzzle.tile_at(pair)) for pair in order]

    def pose(step: float) -> dict[str, Pose]:
        step = min(max(step, 0.0), n)
        whole = math.floor(step)
        frac = step - whole
        out = _hidden(tiles)
        for i in range(whole):
            out[keys[i]] = Pose(final[i])
        if whole < n and frac > 0:
            m = translation((0.0, 0.0, DROP * (1.0 - ease(frac)))) @ final[whole]
            out[keys[whole]] = Pose(m)
            out["cursor"] = Pose(m)
        elif 0 < step < n:
            out["cursor"] = Pose(final[whole - 1])
        return out

    def describe(step: float) -> str:
        i = math.ceil(min(max(step, 0.0), n)) - 1
        if i < 0:
            return "empty board"
        a, b = order[i]
        lo, hi = puzzle.tile_at(order[i])
        return f"tile {lo}-{hi} laid on {a} {b}"

    return Scene(actors, n, pose, bounds, view=VIEW, **FLAT, describe=describe)


def _search_scene(puzzle, actors, tiles, trace, bounds) -> Scene:
    solver = trace.decoder
    replay = TraceReplay(trace.events, trace.describe)
    matrices: dict[int, np.ndarray] = {}

    def matrix_of(row: int) -> np.ndarray:
        if row not in matrices:
            a, b, _ = solver.decode(row)
            matrices[row] = tile_matrix(puzzle, (a, b))
        return matrices[row]

    def pose(step: float) -> dict[str, Pose]:
        out = _hidden(tiles)
        for row in replay.stack(step):
            out[_key(solver.decode(row)[2])] = Pose(matrix_of(row))
        last = replay.last(step)
        if last is not None and last.kind is EventKind.PLACE:
            out["cursor"] = Pose(matrix_of(last.choice))
        return out

    return Scene(
        actors, len(replay.events), pose, bounds, view=VIEW, **FLAT,
        describe=replay.describe, depth=replay.depth, timeline=replay.timeline(),
    )  # fmt: skip
