"""What stops one step of a cell along a lattice direction, on any grid: the blocker sets.

A piece comes apart by steps along the grid's `directions`. One step of a cell along d sweeps
through space, and it collides with every other cell whose solid's interior the swept volume
meets, not only with the cell it lands on: a triangle sliding along a side passes through the
neighbour in front of it, a ball rolling to the next place of a close packing squeezes between
the balls they both touch. So for each direction d and each kind of cell (its `residue`, the
cell's place within the lattice cell: an upward or a downward prism), the set R of offsets r
such that a static cell at `cell + r` blocks one step of `cell` along d is worked out here,
from the geometry, once per grid:

- a convex cell P moving by s·d, s in (0, 1], sweeps the Minkowski sum of P and the segment
  [0, d] (less P itself, which no other cell meets); its interior meets a convex cell Q exactly
  when no plane separates the two, and the planes worth trying are spanned by pairs of their
  edge directions (the separating axis test, exact, with touching counted as apart);
- a ball moving from c to c + d hits ball b exactly when b's centre is nearer the segment than
  two radii.

The cube grid comes out R = {d} for every direction, which is what makes the cube-only
sweep-line shortcut right; the prism grid comes out as BurrTools' hand-made check lists
(movementcache_1.cpp), two cells for an in-layer step. The movement analysis and the
disassembler (solvers.polycube) read these sets, so one engine moves pieces on every grid.

Directions must come in opposite pairs, d and d ^ 1: a group moving along d is the rest moving
the other way, which the disassembler uses to keep its first piece still.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from tessera.models.grids.base import Grid, as_cells

#: touching (a shared face, edge or point) is not a collision: the gap a separating plane may
#: leave, in the units of `Grid.centres` (about one cell)
_TOUCH = 1e-9


@dataclass(frozen=True)
class Sweep:
    """A grid's blocker sets, packed for the compiled kernels.

    Directions are indexed as `grid.directions`; kinds as `residues`. The blockers of one step
    of a cell of kind k along direction d are `offsets[start[d * K + k] : start[d * K + k + 1]]`
    (K kinds), d itself always among them."""

    grid: Grid
    directions: np.ndarray  # (D, 3) int64
    residues: np.ndarray  # (K, 3) int64, sorted
    start: np.ndarray  # (D * K + 1,) int64
    offsets: np.ndarray  # (m, 3) int64
    #: the largest |coordinate| of any direction or blocker: how far a step reaches
    reach: int
    _codes: np.ndarray = field(repr=False)  # residue codes, sorted, for `kinds`
    _base: int = field(repr=False)

    @property
    def n_directions(self) -> int:
        return len(self.directions)

    @property
    def n_kinds(self) -> int:
        return len(self.residues)

    def kinds(self, cells) -> np.ndarray:
        """Each cell's kind: its index in `residues` (int64 `(n,)`)."""
        res = self.grid.residue(as_cells(cells))
        codes = (res[:, 0] * self._base + res[:, 1]) * self._base + res[:, 2]
        at = np.minimum(np.searchsorted(self._codes, codes), len(self._codes) - 1)
        if (self._codes[at] != codes).any():
            raise ValueError(f"cells that are not cells of the {self.grid.name} grid")
        return at.astype(np.int64)

    def blockers(self, d: int, kind: int) -> np.ndarray:
        k = d * self.n_kinds + kind
        return self.offsets[self.start[k] : self.start[k + 1]]

    def is_simple(self) -> bool:
        """Every blocker set is {d}: only the cell a step lands on can stop it (cubes)."""
        sizes = np.diff(self.start)
        if (sizes != 1).any():
            return False
        own = np.repeat(self.directions, self.n_kinds, axis=0)
        return bool((self.offsets == own).all())


def blockers(grid: Grid, d_index: int) -> dict[tuple[int, int, int], np.ndarray]:
    """Per kind of cell (its residue), the offsets of static cells that block one step along
    `grid.directions[d_index]`, sorted."""
    table = sweep(grid)
    return {
        tuple(int(v) for v in res): table.blockers(d_index, k)
        for k, res in enumerate(table.residues)
    }


@cache
def sweep(grid: Grid) -> Sweep:
    """The grid's blocker sets (worked out once per grid and process)."""
    dirs = np.array(grid.directions, np.int64).reshape(-1, 3)
    if len(dirs) == 0 or len(dirs) % 2:
        raise ValueError(f"the {grid.name} grid has no opposite pairs of directions")
    for d in range(0, len(dirs), 2):
        if (dirs[d] != -dirs[d + 1]).any():
            raise ValueError(f"{grid.name}: direction {d + 1} is not the opposite of {d}")
    if not grid.is_translation(dirs).all():
        raise ValueError(f"{grid.name}: a direction is no translation of the lattice")
    step = int(np.abs(dirs).max())
    residues = _residues(grid, step)
    neighbours = _Neighbourhood(grid, step + int(residues.max()) + 3, residues, dirs)
    sets: list[np.ndarray] = []
    for d in dirs:
        for res in residues:
            found = neighbours.blocking(res, d)
            if not any((found == d).all(axis=1)):
                raise AssertionError(f"{grid.name}: a step along {d} misses the cell it lands on")
            sets.append(found)
    start = np.zeros(len(sets) + 1, np.int64)
    start[1:] = np.cumsum([len(s) for s in sets])
    offsets = np.vstack(sets)
    base = int(residues.max()) + 1
    codes = (residues[:, 0] * base + residues[:, 1]) * base + residues[:, 2]
    return Sweep(grid, dirs, residues, start, offsets, int(np.abs(offsets).max()), codes, base)


def _residues(grid: Grid, step: int) -> np.ndarray:
    """Every kind of cell, as the residue cells themselves, sorted by their codes."""
    r = np.arange(-2 * step, 2 * step)
    cells = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    res, _ = unique_rows(grid.residue(cells[grid.valid(cells)]))
    if not grid.valid(res).all() or (grid.residue(res) != res).any():
        raise ValueError(f"{grid.name}: a residue is not a cell of its own kind")
    return res  # rows sorted lexicographically, so their codes are sorted too


class _Neighbourhood:
    """The cells around the origin's lattice cell, with their centres and solids, and the
    exact collision test of one swept cell against them."""

    def __init__(self, grid: Grid, span: int, residues: np.ndarray, dirs: np.ndarray) -> None:
        self.grid = grid
        r = np.arange(-span, span + 1)
        cells = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
        self.cells = cells[grid.valid(cells)]
        self.centres = grid.centres(self.cells)
        self.span = span
        self.round = grid.solid(residues[0].tolist()) is None
        if self.round:
            return
        self.axes = self._axes(residues, dirs)
        # a translated cell's solid is its kind's solid, translated as its centre is: each
        # cell's extent along every axis from its kind's, without building 2,000 solids
        kinds = np.array([tuple(v) for v in residues.tolist()])
        kind_of = {tuple(v): k for k, v in enumerate(kinds.tolist())}
        own = np.array([kind_of[tuple(v)] for v in grid.residue(self.cells).tolist()])
        self.solids = [np.asarray(grid.solid(v.tolist())[0], np.float64) for v in residues]
        rep_centres = grid.centres(residues)
        lo = np.array([(v @ self.axes.T).min(axis=0) for v in self.solids])
        hi = np.array([(v @ self.axes.T).max(axis=0) for v in self.solids])
        shift = (self.centres - rep_centres[own]) @ self.axes.T
        self.lo = lo[own] + shift
        self.hi = hi[own] + shift
        self.kind = own
        self.rep_centres = rep_centres

    def _axes(self, residues: np.ndarray, dirs: np.ndarray) -> np.ndarray:
        """Every plane normal the separating-axis test needs, for any pair of cells and any
        step: cross products of two edge directions (every cell's edges are some kind's, and
        a swept cell adds its step). Extra axes only ever prove a real separation."""
        edges = []
        for res in residues:
            vertices, faces = self.grid.solid(res.tolist())  # type: ignore[misc]
            for f in faces:
                for i in range(len(f)):
                    edges.append(vertices[f[(i + 1) % len(f)]] - vertices[f[i]])
        centre = self.grid.centres(residues[:1])[0]
        edges.extend(self.grid.centres(residues[:1] + dirs) - centre)
        unit = _unit_directions(np.array(edges))
        return _unit_directions(np.cross(unit[:, None, :], unit[None, :, :]))

    def blocking(self, cell: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The offsets of the cells one step of `cell` along d collides with, sorted."""
        here = int(np.flatnonzero((self.cells == cell).all(axis=1))[0])
        c0 = self.centres[here]
        move = self.grid.centres((cell + d)[None])[0] - c0
        if self.round:  # balls: nearer the centre's path than two radii
            rel = self.centres - c0
            t = np.clip(rel @ move / (move @ move), 0.0, 1.0)
            gap = np.linalg.norm(rel - t[:, None] * move, axis=1)
            hit = gap < 2 * self.grid.radius - _TOUCH
        else:
            k = self.kind[here]
            mine = self.solids[k] + (c0 - self.rep_centres[k])
            swept = np.vstack([mine, mine + move]) @ self.axes.T
            lo, hi = swept.min(axis=0), swept.max(axis=0)
            apart = (self.hi <= lo + _TOUCH) | (self.lo >= hi - _TOUCH)
            hit = ~apart.any(axis=1)
        hit[here] = False
        found = self.cells[hit] - cell
        if len(found) and np.abs(found).max() >= self.span - 1:
            raise AssertionError(f"{self.grid.name}: a blocker at the edge of the search")
        order = np.lexsort(found.T[::-1])
        return found[order]


def _unit_directions(vectors: np.ndarray) -> np.ndarray:
    """The distinct directions among `vectors` (zero ones dropped), as unit vectors up to
    sign: a plane normal and its opposite are one axis."""
    vectors = vectors.reshape(-1, 3)
    lengths = np.linalg.norm(vectors, axis=1)
    unit = vectors[lengths > 1e-9] / lengths[lengths > 1e-9, None]
    # the first non-zero coordinate positive
    first = np.argmax(np.abs(unit) > 1e-9, axis=1)
    unit *= np.sign(unit[np.arange(len(unit)), first])[:, None]
    _, keep = unique_rows(np.round(unit, 9))
    return unit[np.sort(keep)]


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(rows, axis=0, return_index=True)`: the distinct rows sorted lexicographically,
    and where each first occurs. Written out because `np.unique` imports `numpy.ma` on first
    use (about 10 ms of every command that takes a puzzle apart)."""
    order = np.lexsort(rows.T[::-1])  # stable: a run of equal rows starts at its first
    ranked = rows[order]
    new = np.ones(len(ranked), bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    return ranked[new], order[new]
