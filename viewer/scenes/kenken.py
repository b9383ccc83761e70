"""KenKen scenes: a board with thick cage borders and clues, digits filled in step by step.

A scene never rebuilds a mesh, yet any cell may show any digit: each cell's digits sit on an
odometer wheel hidden inside the board block. The wheel carries the glyphs 1..N round an axis
under the cell, one per face; its `user_matrix` turns the wanted digit to the top, where it
rests just above the board's surface, while every other glyph stays inside the (opaque) block.
So a step is only rotations and visibility, N×N actors in all (one mesh shared by every cell),
where one actor per (cell, digit) would cost N³ actors and seconds to add.

Solution mode fills cells one by one, cage by cage (each digit grows in place); Search mode
replays `solvers.kenken.KenKenSearch`'s trace: at each step the candidates the search had
(`solvers.kenken.candidates_at`), a cell with one left shows it as a digit (guesses in ink,
deductions paler, the cell just guessed marked) and every other cell shows its candidates as
pencil marks, small digits in a grid under the clue, as Simon Tatham's Keen draws them. The
pencil marks ride wheels too: one per row of the pencil grid, whose faces carry every
non-empty subset of that row's digits (7 for a row of three), so a 9×9 board adds 243 actors
and a step still only turns them.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pyvista as pv

from tessera.models.kenken import KenKenPuzzle
from tessera.solvers.kenken import candidates_at
from tessera.solvers.trace import EventKind
from tessera.viewer.scenes.base import (
    ActorSpec,
    Pose,
    Scene,
    TraceReplay,
    boxes_mesh,
    ease,
    merge_triangles,
    text_triangles,
    translation,
)

DIGIT_HEIGHT = 0.46
CLUE_WIDTH = 0.8  # the widest a clue may be, in cells
CLUE_HEIGHT = 0.3  # 17 px on a 9×9 board in a 1200×760 window, seen top-down
GLYPH_DEPTH = 0.03
LIFT = 0.006  # a digit's underside above the board
DIGIT_DROP = 0.12  # digits sit a little low in their cell, clear of the clue
GRID_WIDTH, CAGE_WIDTH = 0.012, 0.045  # half widths of thin grid lines and cage borders
BOARD = "#fbf8f1"
GRID = "#9aa3ad"
CAGE = "#1d232b"
INK = "#1f3a93"
CURSOR = "#ffe08a"
PENCIL = "#2f55a4"
PENCIL_TOP = 0.4  # pencil marks start this far below a cell's top edge, clear of the clue
PENCIL_BOTTOM = 0.94
PENCIL_PITCH = 0.26  # between the columns of the pencil grid
VIEW = (0.0, 0.0, 1.0)  # straight down: the board is read like a printed page


def _flat(puzzle: KenKenPuzzle) -> dict:
    """A KenKen board is flat: seen top-down with a parallel projection (every clue the same
    true size), no explode or layer cut, and the Inside list shows the cages."""
    cages = [
        (f"{str(c.target) if puzzle.multiplication_only else c.clue}  ({len(c.cells)} cells)", CAGE)
        for c in puzzle.cages
    ]
    return dict(flat=True, inspectable=False, up=(0.0, 1.0, 0.0), listing=cages)


class Wheel:
    """The odometer of one cell: geometry shared by all cells of an N×N board.

    By default its faces carry the digits 1..N at `DIGIT_HEIGHT`; `labels` gives other
    faces, each (points, triangles) centred on the origin (a row of pencil marks)."""

    def __init__(self, n: int, labels=None, height: float = DIGIT_HEIGHT) -> None:
        if labels is None:
            labels = [flat_triangles(str(d), height) for d in range(1, n + 1)]
        self.n = len(labels)
        self.step = 2 * math.pi / self.n
        # The glyphs next to the top one must stay under the surface: their highest corner,
        # half a glyph out along the face and a glyph's depth up, lies below the top face.
        s, c = math.sin(self.step), math.cos(self.step)
        if self.n > 1:
            need = ((height / 2 + 0.03) * s + (GLYPH_DEPTH + LIFT) * max(c, 0.0)) / (1 - c)
        else:
            need = 0.0
        self.radius = max(0.3, 1.1 * need)
        self.outer = math.hypot(self.radius + GLYPH_DEPTH + LIFT, height / 2 + 0.03)
        self.top = np.array([0.0, 0.0, self.radius + LIFT + GLYPH_DEPTH / 2])

        self._mesh = self._build(labels)
        # While a digit grows (`matrix(grow=...)`), the shrunken wheel sits higher: below this
        # size the glyphs next to it would poke through the surface, so it is not shown yet.
        points = np.asarray(self._mesh.points)
        first = len(labels[0][0])
        highest_other = points[first:, 2].max() if len(points) > first else -self.radius
        self.min_grow = min(1.0, 1.15 * (self.top[2] - self.radius) / (self.top[2] - highest_other))

    def _build(self, labels) -> pv.PolyData:
        parts = []
        for face, (points, triangles) in enumerate(labels):
            turned = (np.asarray(points) + self.top) @ _rx(-face * self.step)[:3, :3].T
            parts.append((turned, triangles))
        return merge_triangles(parts)

    def mesh(self) -> pv.PolyData:
        """Glyph d on the face turned by -(d-1) steps: turning the wheel by +(d-1) shows it."""
        return self._mesh

    def matrix(self, centre: np.ndarray, digit: int, grow: float = 1.0) -> np.ndarray:
        """Show `digit` (face `digit` − 1) at the cell whose top centre is `centre`; `grow` < 1
        shrinks the glyph towards its resting point (the others shrink with it, still under
        the surface)."""
        m = _rx((digit - 1) * self.step)
        if grow < 1.0:
            m = (
                translation(self.top)
                @ np.diag([grow, grow, grow, 1.0])
                @ translation(-self.top)
                @ m
            )
        return translation(centre + (0.0, 0.0, -self.radius)) @ m


class Pencil:
    """Pencil marks of an N×N board: the grid they sit in and one wheel per row of it.

    The grid is ⌈√N⌉ wide, rows of digits 1 2 3 / 4 5 6 / 7 8 9 for N = 9, in the part of the
    cell below the clue. Face s − 1 of row j's wheel shows the digits of that row whose bits
    are set in s, each in its own column, so a row's candidates are one face."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.cols = math.ceil(math.sqrt(n))
        self.rows = math.ceil(n / self.cols)
        self.pitch = (PENCIL_BOTTOM - PENCIL_TOP) / self.rows  # between rows
        self.height = min(0.2, 0.78 * self.pitch)  # of a pencil digit
        self.wheels = []
        for j in range(self.rows):
            digits = list(range(j * self.cols + 1, min(n, (j + 1) * self.cols) + 1))
            faces = []
            for subset in range(1, 1 << len(digits)):
                glyphs = []
                for k, d in enumerate(digits):
                    if subset >> k & 1:
                        points, triangles = flat_triangles(str(d), self.height)
                        x = (k - (self.cols - 1) / 2) * PENCIL_PITCH
                        glyphs.append((np.asarray(points) + (x, 0.0, 0.0), triangles))
                mesh = merge_triangles(glyphs)
                faces.append((np.asarray(mesh.points), mesh.regular_faces))
            self.wheels.append(Wheel(len(faces), faces, self.height))

    def centre(self, r: int, c: int, j: int) -> np.ndarray:
        """Where row j of the pencil grid of cell (r, c) rests."""
        return np.array([c + 0.5, -r - PENCIL_TOP - (j + 0.5) * self.pitch, 0.0])

    def digit_at(self, r: int, c: int, digit: int) -> np.ndarray:
        """Where a pencil digit is drawn (its centre on the surface): for tests and probes."""
        j, k = divmod(digit - 1, self.cols)
        return self.centre(r, c, j) + ((k - (self.cols - 1) / 2) * PENCIL_PITCH, 0.0, 0.0)

    def subsets(self, mask: int) -> list[int]:
        """Per pencil row, the face showing a candidate mask's digits of that row (0: none)."""
        row = (1 << self.cols) - 1
        return [(mask >> (j * self.cols)) & row for j in range(self.rows)]

    def actors(self) -> list[ActorSpec]:
        return [
            ActorSpec(f"pencil-{r}-{c}-{j}", wheel.mesh(), color=PENCIL, role="label")
            for r in range(self.n)
            for c in range(self.n)
            for j, wheel in enumerate(self.wheels)
        ]


def flat_triangles(text: str, height: float) -> tuple[np.ndarray, np.ndarray]:
    """A label's top face only, at z = 0: a quarter of the extruded glyph's triangles, which
    matters for the thousands of pencil-mark glyphs on their wheels (seen from above, the
    sides never show)."""
    points, triangles = text_triangles(text, height, GLYPH_DEPTH)
    top = triangles[(points[triangles][:, :, 2] > 0).all(axis=1)]
    used, inverse = np.unique(top, return_inverse=True)
    flat = np.array(points[used])
    flat[:, 2] = 0.0
    return flat, inverse.reshape(-1, 3)


def _rx(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    m[1:3, 1:3] = [[c, -s], [s, c]]
    return m


def cell_centre(n: int, r: int, c: int) -> np.ndarray:
    """Where a digit rests: column to the right (+x), row 0 at the far side, top at z = 0."""
    return np.array([c + 0.5, -(r + 0.5) - DIGIT_DROP, 0.0])


def clue_triangles(text: str) -> tuple[np.ndarray, np.ndarray]:
    """A cage clue, left-aligned on the origin; ÷ is drawn as − and : overlaid (the vector
    font has no ÷), × as x, − as -."""
    pieces = []
    for ch in text:
        if ch == "÷":
            bar, dots = text_triangles("-", CLUE_HEIGHT), text_triangles(":", CLUE_HEIGHT)
            pieces.append(merge_triangles([bar, dots]))
        else:
            points, triangles = text_triangles(ch, CLUE_HEIGHT)
            pieces.append(pv.PolyData.from_regular_faces(points.copy(), triangles))
    parts, x = [], 0.0
    for piece in pieces:
        if piece.n_points == 0:  # a space
            x += CLUE_HEIGHT * 0.4
            continue
        lo, hi = piece.bounds[0], piece.bounds[1]
        parts.append((np.asarray(piece.points) + (x - lo, 0.0, 0.0), piece.regular_faces))
        x += hi - lo + CLUE_HEIGHT * 0.08
    mesh = merge_triangles(parts)
    return np.asarray(mesh.points), mesh.regular_faces


def _board(puzzle: KenKenPuzzle, wheel: Wheel) -> list[ActorSpec]:
    n = puzzle.size
    margin = max(0.3, wheel.outer - 0.5 + DIGIT_DROP + 0.08)  # the wheels sit low in a cell
    depth = wheel.radius + wheel.outer + 0.06
    block = boxes_mesh([(-margin, n + margin, -n - margin, margin, -depth, 0.0)])
    grid = []
    for k in range(1, n):
        grid.append((k - GRID_WIDTH, k + GRID_WIDTH, -n, 0, 0.0, 0.004))
        grid.append((0, n, -k - GRID_WIDTH, -k + GRID_WIDTH, 0.0, 0.004))
    owner = puzzle.cage_grid()
    w, h = CAGE_WIDTH, 0.012

    def cage(r: int, c: int) -> int:
        return owner[r][c] if 0 <= r < n and 0 <= c < n else -1

    borders = []
    for r in range(n):
        for c in range(n + 1):  # vertical edge left of (r, c)
            if cage(r, c - 1) != cage(r, c):
                borders.append((c - w, c + w, -r - 1 - w, -r + w, 0.0, h))
    for r in range(n + 1):
        for c in range(n):  # horizontal edge above (r, c)
            if cage(r - 1, c) != cage(r, c):
                borders.append((c - w, c + 1 + w, -r - w, -r + w, 0.0, h))
    clues = []
    for cage_ in puzzle.cages:
        text = str(cage_.target) if puzzle.multiplication_only else cage_.clue
        points, triangles = clue_triangles(text)
        width = np.ptp(points[:, 0]) if len(points) else 0.0
        if width > CLUE_WIDTH:  # a long clue ("432×") shrinks to stay clear of the digit
            points = points * np.array([CLUE_WIDTH / width, CLUE_WIDTH / width, 1.0])
        r, c = cage_.cells[0]  # the first cell in reading order: its top-left corner
        at = (c + 0.1, -r - 0.08 - CLUE_HEIGHT / 2, 0.014)
        clues.append((points + at, triangles))
    return [
        ActorSpec("board", block, color=BOARD, role="board"),
        ActorSpec("grid", boxes_mesh(grid), color=GRID, role="board"),
        ActorSpec("cages", boxes_mesh(borders), color=CAGE, role="board"),
        ActorSpec("clues", merge_triangles(clues), color=CAGE, role="label"),
    ]


def _cursor() -> pv.PolyData:
    """A pale square under the digit being filled (inside the grid lines)."""
    return boxes_mesh([(-0.44, 0.44, -0.44, 0.44, 0.0, 0.003)])


def build(
    puzzle: KenKenPuzzle, solution: list[list[int]] | None, mode: str = "solution", trace=None
) -> Scene:
    """Cells filled one by one for a solution, or the search trace replayed."""
    n = puzzle.size
    wheel = Wheel(n)
    digits = wheel.mesh()
    actors = [
        ActorSpec(f"digit-{r}-{c}", digits, color=INK, name=f"row {r + 1}, column {c + 1}")
        for r in range(n)
        for c in range(n)
    ]
    actors += _board(puzzle, wheel)
    actors.append(ActorSpec("cursor", _cursor(), color=CURSOR, role="guide"))
    bounds = (-0.3, n + 0.3, -n - 0.3, 0.3, -0.4, 0.4)
    if mode == "search":
        if trace is None:
            raise ValueError("search mode needs a trace")
        pencil = Pencil(n)
        actors += pencil.actors()
        return _search_scene(puzzle, wheel, pencil, actors, trace, bounds)
    if solution is None:
        return Scene(actors, 0, lambda step: _hidden(n), bounds, view=VIEW, **_flat(puzzle))
    return _solution_scene(puzzle, wheel, actors, solution, bounds)


_HIDDEN = Pose(visible=False)


def _hidden(n: int, pencil_rows: int = 0) -> dict[str, Pose]:
    out = {f"digit-{r}-{c}": _HIDDEN for r in range(n) for c in range(n)}
    for j in range(pencil_rows):
        out.update({f"pencil-{r}-{c}-{j}": _HIDDEN for r in range(n) for c in range(n)})
    out["cursor"] = _HIDDEN
    return out


def _cell_middle(r: int, c: int) -> np.ndarray:
    return translation((c + 0.5, -(r + 0.5), 0.0))


def _solution_scene(puzzle, wheel, actors, grid, bounds) -> Scene:
    n = puzzle.size
    order = [cell for cage in puzzle.cages for cell in cage.cells]
    clue_of = {cell: cage.clue for cage in puzzle.cages for cell in cage.cells}
    steps = len(order)

    def pose(step: float) -> dict[str, Pose]:
        step = min(max(step, 0.0), steps)
        whole = math.floor(step)
        frac = step - whole
        out = _hidden(n)
        for r, c in order[:whole]:
            out[f"digit-{r}-{c}"] = Pose(wheel.matrix(cell_centre(n, r, c), grid[r][c]))
        if whole < steps and frac > 0:
            r, c = order[whole]
            grow = ease(frac)
            if grow >= wheel.min_grow:  # smaller, the wheel's other glyphs would peek out
                m = wheel.matrix(cell_centre(n, r, c), grid[r][c], grow)
                out[f"digit-{r}-{c}"] = Pose(m, True, "active")
            out["cursor"] = Pose(_cell_middle(r, c))
        elif 0 < step < steps:
            r, c = order[whole - 1]
            out["cursor"] = Pose(_cell_middle(r, c))
            out[f"digit-{r}-{c}"] = Pose(out[f"digit-{r}-{c}"].matrix, True, "active")
        return out

    def describe(step: float) -> str:
        i = math.ceil(min(max(step, 0.0), steps)) - 1
        if i < 0:
            return "empty board"
        r, c = order[i]
        return f"{grid[r][c]} in row {r + 1}, column {c + 1} (cage {clue_of[(r, c)]})"

    return Scene(actors, steps, pose, bounds, view=VIEW, **_flat(puzzle), describe=describe)


def _search_scene(puzzle, wheel, pencil, actors, trace, bounds) -> Scene:
    n = puzzle.size
    replay = TraceReplay(trace.events, trace.describe)
    decode = trace.decoder

    @lru_cache(maxsize=64)  # bounded: a long trace replayed end to end keeps only recent steps
    def masks_at(step: int) -> tuple[int, ...]:
        return tuple(candidates_at(puzzle, replay.events, step))

    def pose(step: float) -> dict[str, Pose]:
        at = replay.at(step)
        masks = masks_at(at)
        guessed = {decode(choice)[:2] for choice in replay.stack(step)}
        last = replay.last(step)
        active = decode(last.choice)[:2] if last and last.kind is EventKind.PLACE else None
        solved = last is not None and last.kind is EventKind.SOLUTION
        out = _hidden(n, pencil.rows)
        for r in range(n):
            for c in range(n):
                mask = masks[r * n + c]
                if mask and not mask & (mask - 1):  # one candidate left: a digit
                    if (r, c) == active:
                        emphasis = "active"
                    elif solved or (r, c) in guessed:
                        emphasis = "normal"
                    else:
                        emphasis = "dim"
                    m = wheel.matrix(cell_centre(n, r, c), mask.bit_length())
                    out[f"digit-{r}-{c}"] = Pose(m, True, emphasis)
                    continue
                for j, subset in enumerate(pencil.subsets(mask)):
                    if subset:
                        m = pencil.wheels[j].matrix(pencil.centre(r, c, j), subset)
                        out[f"pencil-{r}-{c}-{j}"] = Pose(m)
        if active is not None:
            out["cursor"] = Pose(_cell_middle(*active))
        return out

    def describe(step: float) -> str:
        return replay.describe(
            step,
            start="search start: the digits propagation alone makes certain",
            verbs=("guess", "backtrack: take back"),
        )

    return Scene(
        actors,
        len(replay.events),
        pose,
        bounds,
        view=VIEW,
        **_flat(puzzle),
        describe=describe,
        depth=replay.depth,
        timeline=replay.timeline(),
    )
