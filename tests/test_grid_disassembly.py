"""Disassembly on BurrTools' other grids: the blocker sets (models.grids.sweep), the engine's
levels against burrTxt on prisms, and on every grid each move replayed step by step, checked
with the blocker sets and again with a geometry of its own (sample points inside the cells'
solids, ball centres' distances) that shares no code with the sweep."""

from __future__ import annotations

import itertools
import json
import tomllib
from functools import cache

import numpy as np
import pytest

from tessera.models.grids import CUBES, GRIDS, PRISMS, RHOMBIC, SPHERES, TETRA_OCTA, Grid
from tessera.models.grids.sweep import blockers, sweep
from tessera.solvers.polycube.disassemble import Disassembly, disassemble
from tessera.solvers.polycube.movement import max_slide, possible_moves, reach
from tests._paths import CONFORMANCE, FIXTURES, needs_conformance

GRID_FILES = CONFORMANCE / "burrtools-grids"
CASES = FIXTURES / "burrtools_grids"


# ---------------------------------------------------------------------------------------------
# an independent geometry: where the solids are, and whether two sets of them overlap


@cache
def _shapes(grid: Grid):
    """Per kind of cell (a dict from its residue to an index): sample points inside the cell
    (its vertices, edge and face middles and inner points, pulled 1 % towards its centroid)
    and its face planes, all relative to its centre. Every cell of a grid has as many faces as
    any other, so the kinds stack into arrays."""
    r = np.arange(-6, 6)
    cells = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    residues = sorted({tuple(v) for v in grid.residue(cells[grid.valid(cells)]).tolist()})
    points, normals, offsets = [], [], []
    for res in residues:
        vertices, faces = grid.solid(res)
        centre = grid.centres(np.array([res]))[0]
        v = np.asarray(vertices, float)
        mid = v.mean(axis=0)
        edges = [(v[f[i]] + v[f[(i + 1) % len(f)]]) / 2 for f in faces for i in range(len(f))]
        inner = np.random.default_rng(3).dirichlet(np.ones(len(v)), 12) @ v
        pts = np.vstack([v, edges, [v[list(f)].mean(axis=0) for f in faces], inner])
        points.append(mid + (pts - mid) * 0.99 - centre)
        n = []
        for f in faces:
            p = v[list(f)]
            m = np.cross(p[1] - p[0], p[2] - p[0])
            n.append(m / np.linalg.norm(m))
        normals.append(n)
        offsets.append([n[k] @ (v[f[0]] - centre) for k, f in enumerate(faces)])
    index = {res: k for k, res in enumerate(residues)}
    return index, np.array(points), np.array(normals), np.array(offsets)


class Geometry:
    """Cells of one grid as solids in space, for overlap tests without the blocker sets."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.round = grid.solid(tuple(_a_cell(grid).tolist())) is None

    def step(self, d: int) -> np.ndarray:
        """The space vector of one step along direction d."""
        cell = _a_cell(self.grid)
        vec = np.asarray(self.grid.directions[d])
        return self.grid.centres(np.array([cell + vec]))[0] - self.grid.centres(np.array([cell]))[0]

    def overlap(self, moving: np.ndarray, shifts: np.ndarray, static: np.ndarray) -> bool:
        """Whether any cell of `moving`, moved by any of the space vectors `shifts`, overlaps
        (interiors meet) any cell of `static`: a point inside one solid is inside the other
        (both ways round), or for balls two centres nearer than two radii."""
        if len(moving) == 0 or len(static) == 0:
            return False
        mc, sc = self.grid.centres(moving), self.grid.centres(static)
        if self.round:
            for shift in shifts:
                gap = np.linalg.norm(mc[:, None, :] + shift - sc[None, :, :], axis=2)
                if (gap < 2 * self.grid.radius - 1e-6).any():
                    return True
            return False
        index, points, normals, offsets = _shapes(self.grid)
        mk = np.array([index[tuple(v)] for v in self.grid.residue(moving).tolist()])
        sk = np.array([index[tuple(v)] for v in self.grid.residue(static).tolist()])
        # a cell can only meet cells nearer its centre's path than two of the widest cells'
        # half-widths (the shifts lie on one segment from the origin)
        reach = 2 * np.linalg.norm(points, axis=2).max() + 1e-6
        far = shifts[np.argmax(np.linalg.norm(shifts, axis=1))]
        for centre, kind in zip(mc, mk, strict=True):
            t = np.clip((sc - centre) @ far / (far @ far), 0.0, 1.0)
            gap = np.linalg.norm(sc - centre - t[:, None] * far, axis=1)
            near = np.flatnonzero(gap < reach)
            if len(near) == 0:
                continue
            path = centre + shifts  # (s, 3)
            mine = (path[:, None, :] + points[kind][None]).reshape(-1, 3)
            rel = mine[:, None, :] - sc[near][None]  # (points, near, 3)
            depth = np.einsum("pck,cfk->pcf", rel, normals[sk[near]])
            if (depth < offsets[sk[near]][None] - 1e-9).all(axis=2).any():
                return True
            theirs = (sc[near][:, None, :] + points[sk[near]]).reshape(-1, 3)
            rel = theirs[:, None, :] - path[None]  # (points, s, 3)
            if ((rel @ normals[kind].T) < offsets[kind] - 1e-9).all(axis=2).any():
                return True
        return False


def _a_cell(grid: Grid) -> np.ndarray:
    return sweep(grid).residues[0]


@pytest.mark.parametrize("grid", [g for g in GRIDS if g is not SPHERES], ids=lambda g: g.name)
def test_a_cell_is_its_kinds_solid_moved_as_its_centre(grid: Grid) -> None:
    """What `Geometry` (and the sweep's box test) rely on: a lattice translation moves a cell's
    solid rigidly, as it moves its centre."""
    rng = np.random.default_rng(11)
    cells = rng.integers(-12, 12, size=(400, 3))
    for cell in cells[grid.valid(cells)][:60]:
        res = grid.residue(cell[None])[0]
        here, _ = grid.solid(tuple(cell.tolist()))
        there, _ = grid.solid(tuple(res.tolist()))
        shift = grid.centres(cell[None])[0] - grid.centres(res[None])[0]
        assert np.allclose(here, there + shift)


# ---------------------------------------------------------------------------------------------
# replaying a disassembly, step by step, with the blocker sets and with the geometry


def replay(grid: Grid, cells_by_piece, result: Disassembly, geometric: bool = True) -> None:
    """Apply `result.moves` one lattice step at a time: no moving cell may step into a cell of
    the rest of its part or sweep through one (the blocker sets), and no moving solid may
    overlap a solid of the rest at any point of the step (the geometry, eight samples a step).
    A removal must have nothing ahead of it, ever. Every part ends as one piece."""
    table = sweep(grid)
    geo = Geometry(grid)
    where = [np.asarray(c, np.int64).reshape(-1, 3) for c in cells_by_piece]
    parts = [frozenset(range(len(where)))]
    for number, move in enumerate(result.moves):
        moving = frozenset(move.pieces)
        part = next(p for p in parts if moving <= p)
        assert moving and moving != part, f"move {number}: moves nothing or the whole part"
        rest = sorted(part - moving)
        static = np.vstack([where[j] for j in rest])
        occupied = {tuple(c) for c in static.tolist()}
        d = move.direction
        unit = np.asarray(grid.directions[d])
        assert tuple(np.asarray(move.by)) == tuple(unit * move.distance)
        space = geo.step(d)
        fractions = np.linspace(0.125, 1.0, 8)
        for _ in range(move.distance):
            cells = np.vstack([where[i] for i in sorted(moving)])
            for cell, kind in zip(cells, table.kinds(cells).tolist(), strict=True):
                for offset in table.blockers(d, kind):
                    assert tuple((cell + offset).tolist()) not in occupied, (
                        f"move {number}: {sorted(moving)} sweep into the rest"
                    )
            if geometric:
                assert not geo.overlap(cells, fractions[:, None] * space, static), (
                    f"move {number}: {sorted(moving)} overlap the rest on the way"
                )
            for i in moving:
                where[i] = where[i] + unit
        if move.removes:
            cells = np.vstack([where[i] for i in sorted(moving)])
            lo, hi = static.min(axis=0) - table.reach, static.max(axis=0) + table.reach
            for cell, kind in zip(cells, table.kinds(cells).tolist(), strict=True):
                for offset in table.blockers(d, kind):
                    p = cell + offset
                    while (p >= lo).all() and (p <= hi).all():
                        assert tuple(p.tolist()) not in occupied, f"move {number}: no way out"
                        p = p + unit
            parts.remove(part)
            parts += [moving, frozenset(rest)]
    assert all(len(p) == 1 for p in parts), "a part never came apart"


# ---------------------------------------------------------------------------------------------
# the blocker sets


def test_a_cube_is_stopped_only_by_the_cell_it_moves_into() -> None:
    for d, step in enumerate(CUBES.directions):
        assert {k: v.tolist() for k, v in blockers(CUBES, d).items()} == {(0, 0, 0): [list(step)]}
    assert sweep(CUBES).is_simple()


# BurrTools' movement cache for the prism grid (movementcache_1.cpp) lists, per direction and
# kind of triangle ((x + y) even: pointing up), the cells that must be empty for one step: the
# step's own cell, and for a step in the layer the triangle it slides across on the way.
BURRTOOLS_PRISM_CHECKS = {
    (0, 0, 1): {"up": [(0, 0, 1)], "down": [(0, 0, 1)]},
    (2, 0, 0): {"up": [(1, 0, 0), (2, 0, 0)], "down": [(1, 0, 0), (2, 0, 0)]},
    (1, 1, 0): {"up": [(1, 0, 0), (1, 1, 0)], "down": [(0, 1, 0), (1, 1, 0)]},
    (-1, 1, 0): {"up": [(-1, 0, 0), (-1, 1, 0)], "down": [(0, 1, 0), (-1, 1, 0)]},
}


def test_prism_blockers_are_burrtools_check_lists() -> None:
    kinds = {"up": (0, 0, 0), "down": (1, 0, 0)}  # residues: x + y even, odd
    assert PRISMS.directions[::2] == tuple(BURRTOOLS_PRISM_CHECKS)  # BurrTools' order
    for step, lists in BURRTOOLS_PRISM_CHECKS.items():
        d = PRISMS.directions.index(step)
        assert PRISMS.directions[d + 1] == tuple(-v for v in step)
        for kind, want in lists.items():
            got = blockers(PRISMS, d)[kinds[kind]]
            assert sorted(map(tuple, got.tolist())) == sorted(want), (step, kind)


def test_a_ball_squeezes_past_the_four_balls_both_places_touch() -> None:
    for d, step in enumerate(SPHERES.directions):
        got = {tuple(v) for v in blockers(SPHERES, d)[(0, 0, 0)].tolist()}
        both = {
            c
            for c in itertools.product((-1, 0, 1), repeat=3)
            if sorted(map(abs, c)) == [0, 1, 1]
            and sorted(map(abs, np.subtract(c, step))) == [0, 1, 1]
        }
        assert len(both) == 4
        assert got == both | {step}


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: g.name)
def test_blockers_are_the_same_collisions_seen_from_either_cell(grid: Grid) -> None:
    """Cell a stepping along d meets cell b exactly when b stepping the opposite way meets a."""
    table = sweep(grid)
    for d in range(len(grid.directions)):
        for kind, res in enumerate(table.residues):
            for offset in table.blockers(d, kind):
                other = res + offset
                back = table.blockers(d ^ 1, int(table.kinds(other[None])[0]))
                assert any((back == -offset).all(axis=1)), (grid.name, d, res, offset)


@cache
def _around(grid: Grid, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """The other cells within a step's reach (and a margin) of a kind's cell, and their
    centres."""
    table = sweep(grid)
    res = table.residues[kind]
    span = table.reach + 3
    r = np.arange(-span, span + 1)
    around = res + np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    around = around[grid.valid(around) & (np.abs(around - res).sum(axis=1) > 0)]
    return around, grid.centres(around)


@cache
def _sampled_blockers(grid: Grid, kind: int, d: int) -> set[tuple[int, int, int]]:
    """The cells a step meets, found by moving the cell's sample points (or its ball) along
    the step and locating them among the cells around, with the face planes (and the cells'
    points within the moving one)."""
    geo = Geometry(grid)
    res = sweep(grid).residues[kind]
    around, centres = _around(grid, kind)
    start = grid.centres(res[None])[0]
    path = start + np.linspace(1 / 48, 1.0, 48)[:, None] * geo.step(d)
    # only cells nearer the path than two of the largest cell's half-widths can be met
    t = np.clip((centres - start) @ geo.step(d) / (geo.step(d) @ geo.step(d)), 0, 1)
    gap = np.linalg.norm(centres - start - t[:, None] * geo.step(d), axis=1)
    reach = 2 * grid.radius if geo.round else 2.02 * np.linalg.norm(_shapes(grid)[1], axis=2).max()
    around, centres = around[gap < reach], centres[gap < reach]
    if geo.round:
        gap = np.linalg.norm(path[:, None, :] - centres[None], axis=2)
        hit = (gap < 2 * grid.radius - 1e-6).any(axis=0)
    else:
        index, points, normals, offsets = _shapes(grid)
        me = index[tuple(res.tolist())]
        kinds = np.array([index[tuple(v)] for v in grid.residue(around).tolist()])
        mine = (path[:, None, :] + points[me][None]).reshape(-1, 3)
        depth = np.einsum("pck,cfk->pcf", mine[:, None, :] - centres[None], normals[kinds])
        hit = (depth < offsets[kinds][None] - 1e-9).all(axis=2).any(axis=0)
        theirs = centres[:, None, :] + points[kinds]  # (cells, points, 3)
        rel = theirs[:, :, None, :] - path[None, None]  # (cells, points, s, 3)
        hit |= ((rel @ normals[me].T) < offsets[me] - 1e-9).all(axis=3).any(axis=(1, 2))
    return {tuple(v) for v in (around[hit] - res).tolist()}


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: g.name)
def test_blockers_agree_with_sampled_sweeps(grid: Grid) -> None:
    """Every kind of cell, every direction (a few kinds on the rhombic grid's 24): the exact
    separating-axis sets equal what sampling the moving solid finds."""
    table = sweep(grid)
    kinds = range(table.n_kinds) if table.n_kinds <= 10 else (0, 7, 13, 23)
    for kind in kinds:
        for d in range(len(grid.directions)):
            want = {tuple(v) for v in table.blockers(d, kind).tolist()}
            assert _sampled_blockers(grid, kind, d) == want, (grid.name, kind, d)


# ---------------------------------------------------------------------------------------------
# prisms: BurrTools' own grid for disassembly, so burrTxt -d is the reference


def shear(cells) -> list[tuple[int, int, int]]:
    """A cube puzzle on the prism grid: each cube (x, y, z) becomes the rhombus of the upward
    and downward prisms (2x + y, y, z) and (2x + y + 1, y, z). Steps along x, y and z become
    the prism grid's (2, 0, 0), (1, 1, 0) and (0, 0, 1), and (-1, 1, 0) is a new way out."""
    return [c for x, y, z in cells for c in ((2 * x + y, y, z), (2 * x + y + 1, y, z))]


def box(lo, hi) -> set[tuple[int, int, int]]:
    return set(itertools.product(*(range(a, b + 1) for a, b in zip(lo, hi, strict=True))))


def corridor() -> list[list[tuple[int, int, int]]]:
    """tests/test_disassembly.py's corridor: a cube that goes +x, then out through a hole."""
    cavity = {(1, 3, 1), (2, 3, 1), (3, 3, 1), (2, 4, 1)}
    return [sorted(box((0, 0, 0), (4, 4, 2)) - cavity), [(1, 3, 1)]]


def maze() -> list[list[tuple[int, int, int]]]:
    """tests/test_disassembly.py's maze: +x, +y, +x, then out."""
    cavity = {(x, y, 1) for x, y in [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (3, 4)]}
    return [sorted(box((0, 0, 0), (4, 4, 2)) - cavity), [(1, 1, 1)]]


# burrTxt -d on files holding exactly these cells (BurrTools 0.7.1): levels 2, 4, and 1.2.4
# (the cube grid says 1.4.2: the prism grid tries +z first, so the maze on top is the part
# taken out)
def test_prism_corridor_and_maze_have_burrtools_levels() -> None:
    frame, cube = corridor()
    result = disassemble([shear(frame), shear(cube)], grid=PRISMS)
    assert result.level == "2"
    assert [(m.name, m.distance, m.removes) for m in result.moves] == [
        ("+x", 1, False),
        ("+x+y", 2, True),
    ]
    replay(PRISMS, [shear(frame), shear(cube)], result)
    pieces = [shear(p) for p in maze()]
    result = disassemble(pieces, grid=PRISMS)
    assert result.level == "4"
    assert [m.name for m in result.moves] == ["+x", "+x+y", "+x", "+x+y"]
    replay(PRISMS, pieces, result)
    top = [[(x, y, z + 10) for x, y, z in p] for p in maze()]
    pieces = [shear(p) for p in [frame, cube, *top]]
    result = disassemble(pieces, grid=PRISMS)
    assert result.level == "1.2.4"
    assert result.moves[0].pieces == (2, 3) and result.moves[0].name == "+z"
    replay(PRISMS, pieces, result)


def _fixture(name: str) -> dict:
    return tomllib.loads((CASES / f"{name}.toml").read_text(encoding="utf-8"))


def _solve(path, problem: int = 1) -> tuple[object, list[tuple[list, Disassembly]]]:
    """Every assembly of a file's problem (BurrTools' way: one per class, mirrors too), taken
    apart on the file's grid."""
    from tessera.cli.disassemble import piece_groups
    from tessera.solvers.polycube.symmetry import ClassSearch
    from tessera.solvers.registry import load_puzzle

    puzzle = load_puzzle(str(path), "polycube", problem=problem)
    groups = piece_groups(puzzle, problem)
    out = []
    for assembly in ClassSearch(puzzle, mirrors=True).solutions():
        cells = [p.cells for p in assembly.pieces]
        group = [groups[p.piece] for p in assembly.pieces]
        out.append((cells, disassemble(cells, group, grid=puzzle.grid)))
    return puzzle, out


@pytest.mark.parametrize("name", [f"prism{k:02}" for k in range(1, 11)])
def test_prism_cases_agree_with_burrtxt(name: str) -> None:
    want = _fixture(name)
    puzzle, results = _solve(CASES / f"{name}.xmpuzzle")
    assert puzzle.grid is PRISMS
    levels = sorted(r.level for _, r in results if r.complete)
    assert (len(results), len(levels), levels) == (
        want["assemblies"],
        want["solutions"],
        sorted(want["levels"]),
    )
    for cells, result in results[:3]:
        if result.complete:
            replay(PRISMS, cells, result, geometric=False)


@needs_conformance
def test_bermuda_comes_apart_at_level_1() -> None:
    _, results = _solve(GRID_FILES / "Bermuda.xmpuzzle")
    assert [r.level for _, r in results] == ["1"]
    cells, result = results[0]
    assert all(m.removes for m in result.moves) and len(result.moves) == 11
    replay(PRISMS, cells, result)


def shear_other_way(cells) -> list[tuple[int, int, int]]:
    """`shear` with the other rhombus, upward prism (2x - y, y, z) and the downward one to its
    left: a step along y becomes the prism grid's (-1, 1, 0), its last direction tried."""
    return [c for x, y, z in cells for c in ((2 * x - y + 20, y, z), (2 * x - y + 19, y, z))]


@needs_conformance
@pytest.mark.parametrize(
    ("name", "axes", "other_way", "level"),
    # burrTxt -d on the sheared solution, its axes taken in the order given (written as a
    # one-assembly prism puzzle): Pelikan's 98 moves on cubes are 97 where a step along the
    # new diagonal saves one, and its last part may need one move only
    [
        ("PelikanBurr", (0, 1, 2), False, "97.2.4.2"),
        ("PelikanBurr", (0, 1, 2), True, "98.2.4"),
        ("PelikanBurr", (1, 0, 2), False, "97.2.4"),
        ("PelikanBurr", (2, 1, 0), True, "98.2.4.2"),
        ("DraculasDentalDesaster", (0, 1, 2), False, "3.5.16.6.4"),
    ],
)
def test_sheared_burrs_have_burrtools_prism_levels(name, axes, other_way, level) -> None:
    _, results = _solve(CONFORMANCE / "burrtools" / f"{name}.xmpuzzle")
    (cells,) = [c for c, r in results if r.complete]
    turn = shear_other_way if other_way else shear
    pieces = [turn([tuple(v[a] for a in axes) for v in c.tolist()]) for c in cells]
    result = disassemble(pieces, grid=PRISMS)
    assert result.level == level
    replay(PRISMS, pieces, result, geometric=False)


# ---------------------------------------------------------------------------------------------
# spheres, rhombic dodecahedra, tetrahedra-octahedra: no BurrTools reference, so the level of
# small built puzzles is checked by a breadth-first search of its own over the geometry


def _path_cells(grid: Grid, start, path) -> set[tuple[int, int, int]]:
    """The cells a single cell's solid meets sliding from `start` along `path` (direction,
    steps): the cavity a frame leaves for it (found with the sampled geometry, not the sweep)."""
    at = np.array(start)
    kind = int(sweep(grid).kinds(at[None])[0])  # a step keeps the kind
    out = {tuple(start)}
    for d, steps in path:
        met = np.array(sorted(_sampled_blockers(grid, kind, d)))
        for _ in range(steps):
            out |= {tuple(c) for c in (at + met).tolist()}
            at = at + np.asarray(grid.directions[d])
    return out


def channel(grid: Grid, size: int, start, path) -> list[list[tuple[int, int, int]]]:
    """A frame (every cell of a box `size` lattice steps wide) with a channel cut along `path`,
    and a one-cell slider at its start."""
    block = int(np.abs(np.asarray(grid.directions)).max())
    r = np.arange(0, size * block)
    cells = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    frame = {tuple(c) for c in cells[grid.valid(cells)].tolist()}
    frame -= _path_cells(grid, start, [(grid.directions.index(d), k) for d, k in path])
    return [sorted(frame), [tuple(start)]]


def geometric_level(grid: Grid, frame, slider, limit: int = 6) -> int:
    """The fewest straight slides (any length along one of the grid's directions) that free
    the slider from the fixed frame, the last one taking it away for ever: BurrTools' level of
    a two-piece puzzle, searched with the geometry alone."""
    geo = Geometry(grid)
    frame = np.asarray(frame)
    slider = np.asarray(slider)
    f_lo, f_hi = grid.centres(frame).min(axis=0) - 1, grid.centres(frame).max(axis=0) + 1
    steps = [np.asarray(d) for d in grid.directions]
    shifts = [np.linspace(0.125, 1.0, 8)[:, None] * geo.step(d) for d in range(len(steps))]

    @cache
    def free(at: tuple, d: int) -> bool:
        cells = slider + np.asarray(at)
        near = frame[np.abs(frame - cells.mean(axis=0)).max(axis=1) <= 4 * sweep(grid).reach]
        return not geo.overlap(cells, shifts[d], near)

    def clear(at: np.ndarray, d: int) -> bool:
        c = grid.centres(slider + at)
        space = geo.step(d)
        return any(
            (space[a] > 0 and c[:, a].min() > f_hi[a]) or (space[a] < 0 and c[:, a].max() < f_lo[a])
            for a in range(3)
        )

    seen = {(0, 0, 0)}
    layer = [np.zeros(3, np.int64)]
    for moves in range(1, limit + 1):
        nxt = []
        for at in layer:
            for d, step in enumerate(steps):
                here = at
                while free(tuple(here.tolist()), d):
                    here = here + step
                    if clear(here, d):
                        return moves
                    if tuple(here.tolist()) not in seen:
                        seen.add(tuple(here.tolist()))
                        nxt.append(here)
        layer = nxt
    raise AssertionError("no way out within the limit")


# a channel per grid, each with a known level: (grid, box size, start, path, level)
CHANNELS = [
    (SPHERES, 7, (3, 3, 2), [((1, 1, 0), 1), ((1, 0, 1), 1), ((1, 1, 0), 6)], "3"),
    (RHOMBIC, 3, (5, 12, 8), [((0, -5, 5), 1), ((5, 0, -5), 1), ((-5, 0, -5), 9)], "3"),
    (TETRA_OCTA, 3, (3, 5, 6), [((0, -3, -3), 1), ((3, 0, 3), 1), ((0, 6, 0), 9)], "3"),
]


@pytest.mark.parametrize(
    ("grid", "size", "start", "path", "level"), CHANNELS, ids=lambda v: getattr(v, "name", "")
)
def test_a_channel_takes_its_known_number_of_moves(grid, size, start, path, level) -> None:
    frame, slider = channel(grid, size, start, path)
    assert str(geometric_level(grid, frame, slider)) == level
    result = disassemble([frame, slider], grid=grid)
    assert result.complete and result.level == level
    replay(grid, [frame, slider], result)


@needs_conformance
@pytest.mark.parametrize(
    ("name", "problem", "levels"),
    [
        ("BallRoom", 1, ["1", "1"]),
        ("BallRoom", 2, ["1"]),
        ("BallRoom", 3, ["1", "1", "1"]),
        ("12PieceSeparation", 1, ["1.5.6.4.2.2"]),
        ("FourPieceTetrahedron", 1, ["1"]),
    ],
)
def test_burrtools_examples_on_other_grids_come_apart(name, problem, levels) -> None:
    puzzle, results = _solve(GRID_FILES / f"{name}.xmpuzzle", problem)
    assert [r.level for _, r in results if r.complete] == levels
    for cells, result in results:
        if result.complete:
            replay(puzzle.grid, cells, result)


@pytest.mark.parametrize(
    "name", ["sphere01", "sphere09", "rhombic01", "rhombic04", "tetra03", "tetra07"]
)
def test_generated_cases_come_apart_move_by_move(name: str) -> None:
    want = _fixture(name)
    puzzle, results = _solve(CASES / f"{name}.xmpuzzle")
    assert len(results) == want["assemblies"]  # burrTxt's count; it cannot disassemble here
    done = [(c, r) for c, r in results if r.complete]
    assert done
    for cells, result in done[:2]:
        replay(puzzle.grid, cells, result)


def test_a_locked_ball_pyramid_is_no_solution() -> None:
    """sphere04: a tetrahedron of balls in three pieces that no translation of any group
    starts to separate (every touching pair would have to part or slide, in 4,000 directions
    tried): the engine finds no move either."""
    puzzle, results = _solve(CASES / "sphere04.xmpuzzle")
    ((cells, result),) = results
    assert not result.complete and not result.gave_up
    assert possible_moves(cells, grid=SPHERES, fixed=()) == []
    centres = [SPHERES.centres(c) for c in cells]
    ways = np.random.default_rng(1).normal(size=(4000, 3))
    for r in range(1, len(cells)):
        for group in itertools.combinations(range(len(cells)), r):
            mine = np.vstack([centres[i] for i in group])
            rest = np.vstack([centres[i] for i in range(len(cells)) if i not in group])
            gap = mine[:, None] - rest[None]
            touching = gap[np.linalg.norm(gap, axis=2) < 1 + 1e-6]
            assert not ((touching @ ways.T) >= -1e-9).all(axis=0).any(), group


# ---------------------------------------------------------------------------------------------
# the movement analysis's other users on another grid, and the command line


def _stepped_slide(grid: Grid, pieces, offsets, group, d: int) -> int | None:
    """How far `group` slides along d, stepping one step at a time over the blocker sets."""
    table = sweep(grid)

    def codes(cells: np.ndarray) -> np.ndarray:
        return ((cells[..., 0] + 512) * 1024 + cells[..., 1] + 512) * 1024 + cells[..., 2] + 512

    rest = np.vstack([pieces[i] + offsets[i] for i in range(len(pieces)) if i not in group])
    cells = np.vstack([pieces[i] + offsets[i] for i in group])
    kinds = table.kinds(cells)
    ahead = np.concatenate(
        [
            (cells[kinds == k][:, None, :] + table.blockers(d, k)[None]).reshape(-1, 3)
            for k in set(kinds.tolist())
        ]
    )
    known = np.sort(codes(rest))
    step = table.directions[d]
    # past this many steps every cell ahead is beyond the rest's box along the step's axis
    a = int(np.argmax(np.abs(step)))
    span = max(rest[:, a].max() - ahead[:, a].min(), ahead[:, a].max() - rest[:, a].min())
    for k in range(int(span) // abs(int(step[a])) + 2):
        here = codes(ahead + k * step)
        at = np.minimum(np.searchsorted(known, here), len(known) - 1)
        if (known[at] == here).any():
            return k
    return None


@pytest.mark.parametrize("name", ["prism04", "sphere05", "rhombic03", "tetra06"])
def test_both_distance_tables_give_every_groups_slide(name: str) -> None:
    """The movement analysis's occupancy-grid table and the disassembler's pair table, with
    the pieces moved apart at random by lattice steps: every group's slide along every
    direction is the same in both, and single pieces and pairs slide as stepping says."""
    from tessera.solvers.polycube.disassemble import _cached_distances
    from tessera.solvers.polycube.movement import FREE, distances, group_slide, pack_cells

    puzzle, results = _solve(CASES / f"{name}.xmpuzzle")
    grid = puzzle.grid
    pieces = results[0][0]
    n, nd = len(pieces), len(grid.directions)
    cells, starts = pack_cells(pieces)
    rng = np.random.default_rng(5)
    for trial in range(3):
        while True:  # pieces moved apart by lattice steps, no two in one cell
            moves = rng.integers(-1, 2, size=(n, nd)) * (trial > 0)
            offsets = (moves @ np.asarray(grid.directions)).astype(np.int32)
            offsets -= offsets[0]
            placed = [tuple(c) for k in range(n) for c in (pieces[k] + offsets[k]).tolist()]
            if len(placed) == len(set(placed)):
                break
        grid_table = distances(cells, starts, offsets, grid)
        pair_table = np.empty((nd, n, n), np.int32)
        ckeys, cvals = np.full(8, -1, np.int64), np.empty((8, nd), np.int32)
        _cached_distances(
            cells, starts, offsets, pair_table, ckeys, cvals, 0, np.empty(nd, np.int32), grid
        )
        for size in range(1, n):
            for group in itertools.combinations(range(n), size):
                mask = np.int64(sum(1 << k for k in group))
                for d in range(nd):
                    slide = int(group_slide(grid_table, d, mask, n))
                    assert slide == int(group_slide(pair_table, d, mask, n))
                    if size <= 2:
                        stepped = _stepped_slide(grid, pieces, offsets, group, d)
                        assert slide == (FREE if stepped is None else stepped)


def test_max_slide_and_reach_on_the_prism_grid() -> None:
    frame, cube = corridor()
    pieces = [shear(frame), shear(cube)]
    assert max_slide(pieces, [1], "+x", grid=PRISMS) == 2  # the corridor is three long
    assert max_slide(pieces, [1], "-x", grid=PRISMS) == 0
    assert max_slide(pieces, [1], "+x+y", grid=PRISMS) == 0
    found = reach(pieces, 1, grid=PRISMS)
    out = found.path((2, 0, 0))
    assert [PRISMS.direction_names[d] for d in out] == ["+x"]
    # out through the hole: +x once, then up the hole and beyond the frame
    assert found.steps((4, 2, 0)) == 3
    path = found.path((4, 2, 0))
    assert [PRISMS.direction_names[d] for d in path] == ["+x", "+x+y", "+x+y"]


def test_cli_names_moves_by_the_grid(tmp_path, capsys) -> None:
    from tessera.cli.main import main

    case = CASES / "tetra05.xmpuzzle"
    assert main(["solve", str(case), "--disassemble", "--show"]) == 0
    text = capsys.readouterr().out
    moves = next(line for line in text.splitlines() if line.strip().startswith("moves:"))
    names = {m.split()[1] for m in moves.split(":", 1)[1].split(",")}
    assert names <= set(TETRA_OCTA.direction_names)
    assert main(["solve", str(case), "--disassemble", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for move in doc["solutions"][0]["disassembly"]["moves"]:
        by = np.asarray(move["by"])
        assert any(
            np.array_equal(by, k * np.asarray(d))
            for d in TETRA_OCTA.directions
            for k in range(1, 9)
        )
