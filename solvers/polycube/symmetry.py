"""Solutions up to the target's symmetries, counted without listing every fixed solution.

The trick is the usual one (Knuth fixes the X pentomino in a quarter of the 6×10 box): pick a
piece p that is unique and that every symmetry g maps to itself, split p's placements into
orbits under the group G, and search once per orbit with p held at the orbit's first placement
q. Every class of solutions meets exactly one orbit, and inside it the solutions with p at q form
classes under q's stabiliser H. When H is trivial (the common case) those are all distinct
classes, each of |G| fixed solutions, and the compiled engine merely counts them; only the few
orbits with a symmetric placement need their solutions listed and compared.

Reflections act only when the mirror image of every piece is a piece of the set (Soma's B and P
swap); otherwise "up to symmetry" equals "up to rotation".

Pieces a figure file pre-places (`SomaFigure.preplaced`: any puzzle with a `preplaced` list of
objects with `.piece` and `.cells`) are not part of the puzzle, but they belong to the figure: a
symmetry counts only when it maps the whole figure onto itself and every pre-placed piece onto
a pre-placed piece of its image type. That is how yass counts figures with pre-placed pieces.

Counting a figure is mostly small: a Soma figure's searches take a few milliseconds in all, so
the group, the placements and the orbits are computed in numpy, and `tally()` runs the orbit
searches on other threads only once they prove long (one shared pool, never one per puzzle).
There, a counting search that runs while a thread waits splits off half its untried work for
it (`work_queue`), so the threads finish together however unequal the orbits (Bedlam's two:
8.2 s and 1.7 s of CPU). A puzzle no symmetry acts on (most random figures) has no anchor: its
one search counts its classes.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from tessera.models.polycube import Placement, PolycubePuzzle
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.polycube.packing import (
    PackingProblem,
    PolycubeSolution,
    check_size,
    equal_types,
    piece_keys,
    placement_table,
    row_keys,
)
from tessera.solvers.search_control import Cancelled, Progress, Report, Search
from tessera.solvers.work_queue import WorkQueue, run_on_threads

#: How long `tally()` runs orbit searches in the calling thread before it hands the rest to the
#: shared pool: below this a thread hand-over costs more than it can win (measured on Soma
#: figures: the whole count of most of them takes under 5 ms).
INLINE_SECONDS = 0.02
#: Nodes per slice of that first search (under a millisecond), between two looks at the clock.
PROBE_NODES = 2048
#: Nodes per slice of a pooled count: how long an idle thread may wait for a running search to
#: split off work for it (about 10 ms on Bedlam), against a Python call per slice (progress,
#: splitting: 8,192 made 500 calls a second).
POOL_SLICE_NODES = 65536


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def shared_pool() -> ThreadPoolExecutor:
    """One thread pool for every count in the process, made on first need: starting threads
    per puzzle cost more than a small figure's whole count."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(available_cores(), thread_name_prefix="tessera-count")
        return _pool


@dataclass(frozen=True)
class Counts:
    fixed: int
    up_to_rotation: int
    up_to_symmetry: int
    partial: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return {
            "fixed": self.fixed,
            "up_to_rotation": self.up_to_rotation,
            "up_to_symmetry": self.up_to_symmetry,
        }


@dataclass(frozen=True)
class GroupElement:
    transform: int  # index into the grid's `transform_all`
    proper: bool
    cell_map: np.ndarray  # target cell index -> index of its image
    type_map: tuple[int, ...]  # piece type -> type of its image


class TargetGroup:
    """The symmetries of a puzzle: those of the target that also map the piece set to itself
    (and, for a figure with pre-placed pieces, the pre-placed pieces onto themselves)."""

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        self.puzzle = puzzle
        # pieces of one shape are one type (`equal_types`): a symmetry's type map names the
        # first piece of each shape, so swapping equal pieces never tells solutions apart
        self.same = equal_types(puzzle)
        mirror_types = self._mirror_types(puzzle, self.same)
        identity_types = self.same
        use_mirrors = mirrors and mirror_types is not None
        transforms, cell_maps, proper = _symmetries(puzzle, use_mirrors)
        self.cell_maps = cell_maps  # (order, cells): row g is element g's cell map
        self.proper = proper
        self.elements = [
            GroupElement(
                int(g), bool(p), cell_map, identity_types if p else mirror_types or identity_types
            )
            for g, cell_map, p in zip(transforms, cell_maps, proper.tolist(), strict=True)
        ]
        self.type_maps = np.array([g.type_map for g in self.elements], np.int64).reshape(
            len(self.elements), len(puzzle.pieces)
        )

    @staticmethod
    def _mirror_types(puzzle: PolycubePuzzle, same: tuple[int, ...]) -> tuple[int, ...] | None:
        """Per piece type, the type its mirror image is, or None when some piece's mirror
        image is not in the set as often. When equal pieces are one type (`equal_types`),
        copies and minimums add up over the pieces of a shape, so two left-handed pieces
        match one right-handed piece with two copies; when they are told apart (BurrTools'
        files), the k-th piece of a shape pairs with the k-th of its mirror shape, and a
        piece equal to its own mirror image stays itself."""
        keys = [piece_keys(p) for p in puzzle.pieces]
        pieces = puzzle.pieces
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for t, (key, _) in enumerate(keys):
            by_shape.setdefault(key, []).append(t)

        merged = any(same[t] != t for t in range(len(same)))
        amounts = {
            key: [(sum(pieces[t].copies for t in ts), sum(pieces[t].fewest for t in ts))]
            if merged
            else [(pieces[t].copies, pieces[t].fewest) for t in ts]
            for key, ts in by_shape.items()
        }
        out = []
        for t, (key, mirror_key) in enumerate(keys):
            partners = by_shape.get(mirror_key)
            if partners is None or amounts[mirror_key] != amounts[key]:
                return None
            if merged:
                out.append(same[partners[0]])
            elif mirror_key == key:
                out.append(t)
            else:
                out.append(partners[by_shape[key].index(t)])
        return tuple(out)

    @property
    def order(self) -> int:
        return len(self.elements)

    @cached_property
    def is_kernel(self) -> np.ndarray:
        """Per element: it moves no cell and no piece type (the mirror through the plane of a
        flat puzzle), so it fixes every solution and never makes two solutions alike."""
        n_cells = self.cell_maps.shape[1]
        n_types = self.type_maps.shape[1]
        same = np.asarray(self.same, np.int64).reshape(n_types)
        cells_kept = (self.cell_maps == np.arange(n_cells)).all(axis=1)
        return cells_kept & (self.type_maps == same).all(axis=1)

    @cached_property
    def acts_trivially(self) -> bool:
        """Whether no element tells two solutions apart (an asymmetric target, as almost every
        random figure is): then every solution is a class of its own, merely counted."""
        return bool(self.is_kernel.all())

    @cached_property
    def kernel(self) -> frozenset[int]:
        """The kernel's elements, by id (see `is_kernel`)."""
        return frozenset(id(g) for g, k in zip(self.elements, self.is_kernel, strict=True) if k)

    @cached_property
    def mirror_is_trivial(self) -> bool:
        """True when mirror images are always the same solution (or no mirror acts)."""
        return not self.has_improper or bool((self.is_kernel & ~self.proper).any())

    def acts_freely_on(self, stabiliser) -> bool:
        return all(id(g) in self.kernel for g in stabiliser)

    @cached_property
    def has_improper(self) -> bool:
        return bool((~self.proper).any())

    @cached_property
    def _map_lists(self) -> dict[int, list[int]]:
        """Each element's cell map as a Python list, by element id: mapping a handful of cells
        through a list is several times cheaper than through numpy."""
        return {id(g): g.cell_map.tolist() for g in self.elements}

    def image(self, g: GroupElement, cells: tuple[int, ...]) -> tuple[int, ...]:
        cell_map = self._map_lists.get(id(g))
        if cell_map is None:
            return tuple(sorted(g.cell_map[list(cells)].tolist()))
        return tuple(sorted([cell_map[c] for c in cells]))

    def painted_image(
        self, g: GroupElement, cells: tuple[int, ...], colours: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The image of cells carrying colours (`Placement.colours`): each colour goes with
        its cell, and the cells come out sorted."""
        cell_map = self._map_lists.get(id(g)) or g.cell_map.tolist()
        moved = sorted(zip([cell_map[c] for c in cells], colours, strict=True))
        return tuple(c for c, _ in moved), tuple(k for _, k in moved)

    def _item(self, g: GroupElement | None, t: int, cells: tuple, colours=None) -> tuple:
        """(type, cells) of a placement's image under g, with the colours on those cells
        when they tell the placement from others."""
        if g is None:
            return (self.same[t], cells) if colours is None else (self.same[t], cells, colours)
        if colours is None:
            return g.type_map[t], self.image(g, cells)
        return (g.type_map[t], *self.painted_image(g, cells, colours))

    def classify(self, items: list[tuple], elements: Sequence[GroupElement]) -> tuple[tuple, bool]:
        """For a solution given as (piece type, cells) pairs, or (piece type, cells, colours)
        for pieces whose colours tell turns apart: its canonical form under `elements` (equal
        to `canonical()`), and whether an improper element fixes it (then it is its own mirror
        image). One pass instead of `canonical()` plus `stabiliser()`."""
        if all(len(item) == 2 for item in items):  # no colours to carry (the usual case)
            me = tuple(sorted((self.same[t], cells) for t, cells in items))
        else:
            me = tuple(sorted(self._item(None, *item) for item in items))
        best = None
        mirror_fixed = False
        for g in elements:
            encoded = tuple(sorted([self._item(g, *item) for item in items]))
            if best is None or encoded < best:
                best = encoded
            if not g.proper and encoded == me:
                mirror_fixed = True
        return (best if best is not None else me), mirror_fixed

    def encode(self, solution: PolycubeSolution, g: GroupElement | None = None):
        """A hashable form of the solution's image under g: sorted (type, cells) pairs, with
        the colours on the cells for a piece whose colours tell turns apart."""
        items = []
        for placed in solution.pieces:
            p = placed.placement
            if p.colours is not None:
                items.append(self._item(g, placed.piece, p.cells, p.colours))
            elif g is None:
                items.append((self.same[placed.piece], p.cells))
            else:
                items.append((g.type_map[placed.piece], self.image(g, p.cells)))
        return tuple(sorted(items))

    def canonical(self, solution: PolycubeSolution, elements=None):
        return min(self.encode(solution, g) for g in (elements or self.elements))

    def stabiliser(self, solution: PolycubeSolution, elements=None) -> list[GroupElement]:
        me = self.encode(solution)
        return [g for g in (elements or self.elements) if self.encode(solution, g) == me]


def _symmetries(puzzle: PolycubePuzzle, mirrors: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(transform numbers, cell maps, properness) of the symmetries of the figure: all the
    grid's rotations (and mirror images) tried at once in numpy. Required cells must map onto
    required cells, optional onto optional, and pre-placed pieces onto pre-placed pieces of
    the image type."""
    target = puzzle.target
    cells = target.cells
    n, n_req = len(cells), target.n_required
    preplaced = list(getattr(puzzle, "preplaced", ()) or ())
    frame = [np.asarray(p.cells, np.int64).reshape(-1, 3) for p in preplaced]
    whole = np.vstack([cells, *frame]) if frame else cells
    if len(whole) == 0 or n == 0:
        # nothing left to fill: one empty solution, and nothing a symmetry could tell apart
        return np.zeros(1, np.int64), np.zeros((1, n), np.int64), np.ones(1, bool)
    grid = puzzle.grid
    proper = grid.proper(mirrors)
    lo, hi = whole.min(axis=0), whole.max(axis=0)
    images, fits = grid.aligned_images(whole, mirrors)
    inside = fits & ((images >= lo) & (images <= hi)).all(axis=2).all(axis=1)
    # a cell label per figure cell: target index, then n + k for pre-placed piece k
    # looked up among the figure's sorted cell keys, never in a grid of its bounding box (a
    # figure of two cells far apart would make that grid huge)
    dims = hi - lo + 1

    def key(points: np.ndarray) -> np.ndarray:
        rel = points - lo
        return (rel[..., 0] * dims[1] + rel[..., 1]) * dims[2] + rel[..., 2]

    keys = key(whole)
    order = np.argsort(keys, kind="stable")
    where = np.flatnonzero(inside)
    probe = key(images[where])
    pos = np.minimum(np.searchsorted(keys[order], probe), len(keys) - 1)
    idx = np.where(keys[order][pos] == probe, order[pos], -1)  # (candidates, cells)
    ok = (idx >= 0).all(axis=1)
    ok &= (idx[:, :n_req] < n_req).all(axis=1)
    ok &= ((idx[:, n_req:n] >= n_req) & (idx[:, n_req:n] < n)).all(axis=1)
    if target.coloured:  # colours are part of the figure: a symmetry keeps every one
        colours = np.asarray(target.colours, np.int64)
        ok &= (colours[np.clip(idx[:, :n], 0, None)] == colours).all(axis=1)
    if frame:
        owner = np.concatenate([np.full(len(f), k, np.int64) for k, f in enumerate(frame)])
        partner = _mirror_partners(preplaced)
        img_owner = np.where(idx[:, n:] >= n, owner[np.clip(idx[:, n:] - n, 0, None)], -1)
        want_proper = np.broadcast_to(owner, img_owner.shape)
        want_mirror = np.broadcast_to(partner[owner], img_owner.shape)
        want = np.where(proper[where][:, None], want_proper, want_mirror)
        ok &= (img_owner == want).all(axis=1)
    keep = where[ok]
    return keep, idx[ok][:, :n].copy(), proper[keep]


def _mirror_partners(preplaced: Sequence[Any]) -> np.ndarray:
    """For each pre-placed piece, the pre-placed piece its mirror image must be (-2: none)."""
    names = [p.piece.name for p in preplaced]
    out = []
    for p in preplaced:
        mirror = p.piece.mirror_key
        match = [k for k, q in enumerate(preplaced) if q.piece.shape_key == mirror]
        if p.piece.shape_key == mirror:
            match = [names.index(p.piece.name)]
        out.append(match[0] if match else -2)
    return np.array(out, np.int64)


@dataclass(frozen=True)
class _Counting:
    """A search of free orbits that is merely counted (each solution a class of `size` fixed
    solutions), or part of one split off it; `weight`: how many orbits it stands for."""

    search: ExactCoverSearch
    size: int
    weight: int


@dataclass(frozen=True)
class Orbit:
    representative: Placement
    size: int
    stabiliser: tuple[GroupElement, ...]


@dataclass(frozen=True)
class _OrbitTable:
    """A piece's placements split into orbits: representative rows, sizes, and per element
    whether it fixes each representative."""

    reps: np.ndarray  # table rows of the representatives (first of each orbit)
    sizes: np.ndarray
    fixes: np.ndarray  # (order, orbits) bool: element g maps representative k to itself


def _orbit_tables(group: TargetGroup, pieces: Sequence[int]) -> dict[int, _OrbitTable]:
    """Orbits of the pieces' placements under the group, all in one numpy pass: the image of
    every placement under every element, matched back to placements by (piece, cells). The
    pieces must be ones every element maps to themselves."""
    table = placement_table(group.puzzle)
    pieces = [t for t in pieces if table.count(t)]
    if not pieces:
        return {}
    width = max(table.cells[t].shape[1] for t in pieces)
    counts = [table.count(t) for t in pieces]
    cell_maps, codes = _painted_codes(group, table, pieces)
    n_cells = cell_maps.shape[1]
    rows = np.full((sum(counts), width + 1), n_cells, np.int64)  # short rows padded high
    start = 0
    for t, n in zip(pieces, counts, strict=True):
        rows[start : start + n, 0] = t
        rows[start : start + n, 1 : 1 + table.cells[t].shape[1]] = codes(t)
        start += n
    maps = np.hstack([cell_maps, np.full((group.order, 1), n_cells, np.int64)])
    keys, images_of = _placement_hashes(rows, maps, n_cells, max(pieces).bit_length())
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]

    def matched(chosen: np.ndarray) -> np.ndarray:
        """Where every element sends the chosen rows, as row indices."""
        probe = images_of(chosen)
        pos = np.minimum(np.searchsorted(sorted_keys, probe), len(keys) - 1)
        assert (sorted_keys[pos] == probe).all(), "a symmetry moved a placement outside"
        return order[pos]

    image_index = _translated_images(group, table, pieces, matched)
    rep_of = image_index.min(axis=0)  # every orbit's first placement
    sizes = np.bincount(rep_of, minlength=len(rows))
    out = {}
    start = 0
    for t, n in zip(pieces, counts, strict=True):
        reps = start + np.flatnonzero(rep_of[start : start + n] == np.arange(start, start + n))
        out[t] = _OrbitTable(reps - start, sizes[reps], image_index[:, reps] == reps)
        start += n
    return out


def _salt(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    """Fixed pseudo-random 64-bit numbers (the splitmix64 sequence from `seed`), as int64:
    the same in every run, and without `numpy.random`, whose import costs every command 5 ms."""
    with np.errstate(over="ignore"):
        z = np.arange(1, int(np.prod(shape)) + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z += np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z.view(np.int64).reshape(shape)


def _placement_hashes(rows: np.ndarray, maps: np.ndarray, n_cells: int, type_bits: int):
    """A key per placement (row: its piece, then its cell codes padded with `n_cells`), and a
    function giving the keys of chosen rows' images under every element (`maps`)."""
    cells, piece = rows[:, 1:], rows[:, 0]
    if n_cells + type_bits <= 62:
        # a placement as one integer: its cells as bits, its piece above them (no sorting)
        bits = np.zeros(n_cells + 1, np.int64)
        bits[:n_cells] = np.left_shift(1, np.arange(n_cells, dtype=np.int64))
        keys = bits[cells].sum(axis=1) | piece << n_cells
        return (
            keys,
            lambda chosen: bits[maps[:, cells[chosen]]].sum(axis=2) | (piece[chosen] << n_cells),
        )
    # a placement as the sum of random 64-bit numbers of its cells, twice, and its piece:
    # order-free, so the images need no sorting; two full-width sums make a collision about as
    # likely as 2^-128
    salt = _salt(20261124, (2, n_cells + 1))
    salt[:, n_cells] = 0

    def hashed(cell_salt: np.ndarray, chosen) -> np.ndarray:
        sums = [cell_salt[k][cells[chosen]].sum(axis=1) for k in (0, 1)]
        return row_keys(np.stack([*sums, piece[chosen]], axis=1), wide=True)

    everything = slice(None)
    return hashed(salt, everything), lambda chosen: np.stack(
        [hashed(salt[:, m], chosen) for m in maps]
    )


def _translated_images(group: TargetGroup, table, pieces: Sequence[int], matched) -> np.ndarray:
    """(elements, placements): the row each element sends each placement to. Only the first
    placement of each orientation is matched by its cells (`matched`); every other one is a
    translate of it, and so is its image, a translate of that first one's image by as much as
    the element moves one of its cells relative to the same cell of the first: one cell looked
    up per placement and element, not all of them (a Pelikan Burr's 3,600 placements of 26
    cells, 24 times over, had cost a quarter of its start-up)."""
    coords = np.asarray(group.puzzle.target.cells, np.int64)
    lo = coords.min(axis=0)
    dims = coords.max(axis=0) - lo + 1
    piece_of, orient, offset, ref = [], [], [], []
    for t in pieces:
        cells = table.cells[t]
        rel = coords[cells] - lo
        rank = (rel[..., 0] * dims[1] + rel[..., 1]) * dims[2] + rel[..., 2]
        # the lowest cell in x, y, z order: the same cell of the shape in every translate
        ref.append(cells[np.arange(len(cells)), rank.argmin(axis=1)])
        piece_of.append(np.full(len(cells), t, np.int64))
        orient.append(np.asarray(table.orientation[t], np.int64))
        offset.append(np.asarray(table.offset[t], np.int64))
    piece_of, orient = np.concatenate(piece_of), np.concatenate(orient)
    offset, ref = np.concatenate(offset), np.concatenate(ref)
    shape_keys = row_keys(np.column_stack([piece_of, orient]), wide=True)
    by = np.argsort(shape_keys, kind="stable")
    first = np.ones(len(by), bool)
    first[1:] = shape_keys[by][1:] != shape_keys[by][:-1]
    shape_of = np.empty(len(by), np.int64)
    shape_of[by] = np.cumsum(first) - 1
    firsts = by[first]  # the first placement of each (piece, orientation)
    first_images = matched(firsts)[:, shape_of]  # (elements, placements)
    moved = coords[group.cell_maps[:, ref]]  # where each element takes each placement's cell
    image_offset = offset[first_images] + moved - moved[:, firsts[shape_of]]
    probe = row_keys(
        np.concatenate(
            [piece_of[first_images][..., None], orient[first_images][..., None], image_offset],
            axis=2,
        ),
        wide=True,
    )
    known = row_keys(np.column_stack([piece_of, orient, offset]), wide=True)
    order = np.argsort(known, kind="stable")
    pos = np.minimum(np.searchsorted(known[order], probe), len(known) - 1)
    assert (known[order][pos] == probe).all(), "a symmetry moved a placement outside"
    return order[pos]


def _painted_codes(group: TargetGroup, table, pieces: Sequence[int]):
    """(element maps, each piece's rows) to match placements by. Plainly the cells and the
    group's cell maps; when some piece's colours tell turns apart, a cell carrying colour k
    (numbered among the colours present) is code cell * n + k, and each element maps codes,
    moving the cell and keeping its colour."""
    painted = [table.colours[t] for t in pieces if table.colours[t] is not None]
    if not painted:
        return group.cell_maps, lambda t: table.cells[t]
    present = np.unique(np.concatenate([c.ravel() for c in painted] + [np.zeros(1, np.int64)]))
    n = len(present)
    maps = (group.cell_maps[:, :, None] * n + np.arange(n)).reshape(group.order, -1)

    def codes(t: int) -> np.ndarray:
        colours = table.colours[t]
        index = 0 if colours is None else np.searchsorted(present, colours)
        return table.cells[t] * n + index

    return maps, codes


def _orbits(group: TargetGroup, piece: int, found: _OrbitTable | None = None) -> list[Orbit]:
    table = placement_table(group.puzzle)
    if found is None:
        found = _orbit_tables(group, [piece]).get(piece)
    if found is None:
        return []
    elements = group.elements
    rows = found.reps
    cells = table.cells[piece][rows].tolist()
    painted = table.colours[piece]
    colours = [None] * len(rows) if painted is None else [tuple(c) for c in painted[rows].tolist()]
    orientation = table.orientation[piece][rows].tolist()
    offset = table.offset[piece][rows].tolist()
    stabilisers: dict[bytes, tuple[GroupElement, ...]] = {}  # most orbits share one
    out = []
    for k, size in enumerate(found.sizes.tolist()):
        column = found.fixes[:, k]
        key = column.tobytes()
        stab = stabilisers.get(key)
        if stab is None:
            stab = stabilisers[key] = tuple(elements[g] for g in np.flatnonzero(column).tolist())
        placement = Placement(piece, orientation[k], tuple(offset[k]), tuple(cells[k]), colours[k])
        out.append(Orbit(placement, size, stab))
    return out


def _anchor(group: TargetGroup) -> tuple[int, list[Orbit]] | None:
    """The piece to hold at one placement per orbit, or None if no piece qualifies.

    What is left to search is about (orbits / placements) of the whole tree; orbits whose
    solutions must be listed and compared, not merely counted, weigh extra. Among the pieces
    within 10% of the cheapest, the one with the fewest placements wins: fixing the most
    constrained piece first prunes hardest (Knuth's X pentomino; measured on 6x10 and 3x4x5:
    2-3 times fewer nodes than an unconstrained piece with the same share).
    """
    table = placement_table(group.puzzle)
    moving = ~group.is_kernel
    shapes = np.bincount(np.asarray(group.same, np.int64), minlength=len(group.same))
    eligible = [
        t
        for t, piece in enumerate(group.puzzle.pieces)
        if piece.copies == 1
        and not piece.ranged
        and shapes[t] == 1  # the only piece of its shape
        and not (group.type_maps[:, t] != t).any()
    ]
    # pieces of one shape (told apart, as BurrTools' are) have the same placements and so
    # the same orbits: weigh one of each, not 5,000 monocubes' 25 million placements at once
    one_each: dict[tuple[int, ...], int] = {}
    for t in eligible:
        one_each.setdefault(piece_keys(group.puzzle.pieces[t])[0], t)
    eligible = sorted(one_each.values())
    tables = _orbit_tables(group, eligible)
    scored = []
    for t, found in tables.items():
        if not len(found.reps):
            continue
        listed = int((found.fixes & moving[:, None]).any(axis=0).sum())
        n_placements = table.count(t)
        scored.append(((len(found.reps) + 0.5 * listed) / n_placements, n_placements, t))
    if not scored:
        return None
    cheapest = min(cost for cost, *_ in scored)
    _, _, t = min((s for s in scored if s[0] <= 1.1 * cheapest), key=lambda s: s[1])
    return t, _orbits(group, t, tables[t])


def column_map(problem: PackingProblem, h: GroupElement) -> np.ndarray:
    """Where the symmetry h sends each column of the problem's matrix (cells by h's cell map,
    piece types by its type map); columns h does not move map to themselves."""
    col_map = np.arange(problem.exact_cover.n_columns)
    cell_cols = problem.cell_columns
    open_cells = np.flatnonzero(cell_cols >= 0)
    col_map[cell_cols[open_cells]] = cell_cols[h.cell_map[open_cells]]
    for t, col in problem.type_columns.items():
        col_map[col] = problem.type_columns[h.type_map[t]]
    return col_map


class RowImages:
    """The symmetries of a puzzle acting on the rows (placements) of one matrix: row r's image
    under element k is `table[k, r]` (-1 when the image is not a row of this matrix, as for an
    anchor held at one placement).

    Comparing solutions up to symmetry is then sorting a few small integers per element, in
    numpy, instead of mapping and sorting every piece's cells in Python: a puzzle whose classes
    must be found by listing (piece ranges leave no anchor: 12,597 fixed solutions of the solid
    six-piece burrs) spent most of its time there."""

    def __init__(self, problem: PackingProblem, elements: Sequence[GroupElement]) -> None:
        self.elements = list(elements)
        self.improper = np.array([not g.proper for g in self.elements], bool)
        row_ptr, cols = problem.exact_cover.csr()
        n_rows = len(row_ptr) - 1
        self.table = np.full((len(self.elements), n_rows), -1, np.int64)
        lengths = np.diff(row_ptr)
        paint = problem.row_colours
        if paint is not None:
            # rows with the same columns, coloured differently: an entry is its column and the
            # colour on it (numbered among those present), which a symmetry carries along
            present, paint = np.unique(paint, return_inverse=True)
            n_paint = len(present)
            wide = problem.exact_cover.n_columns * n_paint >= 1 << 31
        for length in np.unique(lengths).tolist():
            rows = np.flatnonzero(lengths == length)
            entries = row_ptr[rows][:, None] + np.arange(length)
            block = cols[entries]
            if paint is not None:
                colour = paint[entries]
                keys = row_keys(np.sort(block * n_paint + colour, axis=1), wide)
            else:
                keys = row_keys(np.sort(block, axis=1))
            order = np.argsort(keys, kind="stable")
            sorted_keys = keys[order]
            for k, g in enumerate(self.elements):
                if paint is not None:
                    moved = column_map(problem, g)[block] * n_paint + colour
                    images = row_keys(np.sort(moved, axis=1), wide)
                else:
                    images = row_keys(np.sort(column_map(problem, g)[block], axis=1))
                pos = np.minimum(np.searchsorted(sorted_keys, images), len(rows) - 1)
                hit = sorted_keys[pos] == images
                self.table[k, rows[hit]] = rows[order[pos[hit]]]

        self._index = {id(g): k for k, g in enumerate(self.elements)}

    def classify(self, rows: Sequence[int], elements: Sequence[GroupElement]) -> tuple[bytes, bool]:
        """(canonical key under `elements`, whether a mirror among them fixes the solution)
        of a solution given as rows."""
        which = [self._index[id(g)] for g in elements]
        if not len(rows):  # everything pre-placed: one solution, fixed by every element
            return b"", bool(self.improper[which].any())
        images = self.table[np.ix_(which, list(rows))]
        assert (images >= 0).all(), "a symmetry moved a solution's row outside the matrix"
        images.sort(axis=1)
        best = images[np.lexsort(images.T[::-1])[0]]
        me = np.sort(np.asarray(rows, np.int64))
        fixed_by = (images == me).all(axis=1) & self.improper[which]
        return best.tobytes(), bool(fixed_by.any())


#: What `tally()` hands to the pool: orbits to search, or a counting search under way.
_Task = list[Orbit] | None | _Counting


class ClassSearch(Search):
    """Lists one representative per class under a puzzle's symmetry group (the search
    protocol: `solutions()` and `count()` are per class), and `tally()`s the three counts.

    The orbits of the anchor piece are independent exact-cover searches: listing runs them one
    after another; `tally()` runs them in the calling thread while they are quick and hands the
    rest to the shared pool, so long counts use every core and small ones start no thread.
    """

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        check_size(puzzle)
        self.puzzle = puzzle
        self.group = TargetGroup(puzzle, mirrors=mirrors)
        Search.__init__(self)
        self.events = []
        self.found = 0
        self.done = False
        self._listing_fraction = 0.0
        self._current: ExactCoverSearch | None = None
        #: searches under way (by `tally`), with the orbits each one stands for
        self._running: dict[ExactCoverSearch, int] = {}
        self._lock = threading.Lock()
        self._progress_done = 0.0
        # no anchor when no symmetry acts: one search counts the classes (its orbits would be
        # single placements, merged into that same search)
        anchor = None if self.group.acts_trivially else _anchor(self.group)
        self.anchor_piece, self.orbits = anchor if anchor else (None, [])

    def cancel(self) -> None:
        Search.cancel(self)
        with self._lock:
            running = list(self._running)
        for search in running:
            search.cancel()
        if self._current is not None:
            self._current.cancel()

    def progress(self) -> float:
        """While listing: the orbits done plus the running one's tree fraction; while tallying:
        the same over the orbit searches, finished or running."""
        if self.done:
            return 1.0
        if self._running:
            return self._live_progress(max(len(self.orbits), 1))
        return self._listing_fraction

    def _searches(self) -> Iterator[tuple[int, Orbit | None, PackingProblem, ExactCoverSearch]]:
        if self.anchor_piece is None:
            problem = self._problem(None)
            yield 0, None, problem, self._start(problem)
            return
        for k, orbit in enumerate(self.orbits):
            if self.cancelled:
                return
            problem = self._problem(orbit)
            yield k, orbit, problem, self._start(problem)

    def _start(self, problem: PackingProblem) -> ExactCoverSearch:
        self._current = problem.search()
        if self.cancelled:
            self._current.cancel()
        return self._current

    def _fraction(self, k: int, search: ExactCoverSearch) -> float:
        n = max(len(self.orbits), 1)
        return (k + search.progress()) / n

    def _problem(self, orbit: Orbit | None) -> PackingProblem:
        return self._task_problem([orbit] if orbit is not None else None)

    def _task_problem(self, orbits: Sequence[Orbit] | None) -> PackingProblem:
        if orbits is None:
            return PackingProblem(self.puzzle)
        reps = [o.representative for o in orbits]
        return PackingProblem(self.puzzle, only={self.anchor_piece: reps})  # type: ignore[dict-item]

    def _tally_task(
        self, orbits: Sequence[Orbit] | None, report: Progress | None = None
    ) -> tuple[int, int, int, bool]:
        """(fixed, classes, rotation classes, partial) for the solutions with the anchor piece
        at one of these orbits' representatives, in one search (or for all solutions when
        there is no anchor, `orbits=None`).

        Orbits whose stabiliser acts trivially all have |G|/|kernel| placements, and each of
        their solutions is a class of its own: the engine merely counts them. Other orbits'
        solutions are listed and compared in canonical form under their own stabiliser (the
        anchor's placement in a solution says which orbit it is in). `report` is called
        between slices of the search, for a caller that runs it in its own thread."""
        doubles = 1 if self.group.mirror_is_trivial else 2
        if orbits is None:
            free = self.group.acts_trivially
        else:
            free = bool(orbits) and all(self.group.acts_freely_on(o.stabiliser) for o in orbits)
        if orbits and not free and self._burnside_applies:
            total = [0, 0, 0, False]
            for orbit in orbits:
                result = self._tally_by_burnside(orbit, report)
                total = [a + b for a, b in zip(total[:3], result[:3], strict=True)] + [
                    total[3] or result[3]
                ]
            return total[0], total[1], total[2], bool(total[3])
        problem = self._task_problem(orbits)
        with self._tracked(problem, len(orbits or [None])) as search:
            if free:
                size = orbits[0].size if orbits else 1  # the same for every free orbit
                try:
                    n = search.count(on_progress=report)
                except Cancelled as exc:
                    return size * exc.partial, exc.partial, doubles * exc.partial, True
                return size * n, n, doubles * n, False
            by_cells = {o.representative.identity: o for o in orbits or ()}
            seen: set = set()
            fixed = classes = rot = 0
            placements = problem.placements
            images = RowImages(problem, self.group.elements)
            for rows in search.solutions(report):
                orbit = None
                if orbits is not None:
                    real = (r for r in rows if r < problem.n_placement_rows)
                    placed = [*problem.fixed, *(placements[r] for r in real)]
                    anchor = next(p.identity for p in placed if p.piece == self.anchor_piece)
                    orbit = by_cells[anchor]
                fixed += orbit.size if orbit is not None else 1
                elements = orbit.stabiliser if orbit else self.group.elements
                canon, mirror_fixed = images.classify(rows, elements)
                if (id(orbit), canon) in seen:
                    continue
                seen.add((id(orbit), canon))
                classes += 1
                rot += 1 if mirror_fixed else doubles
            return fixed, classes, rot, search.cancelled and not search.done

    @contextmanager
    def _tracked(self, problem: PackingProblem, weight: int) -> Iterator[ExactCoverSearch]:
        """The problem's search, stopped by `cancel()` while it runs; when it ends, its share
        of the progress (`weight` orbits' worth) counts as done."""
        search = problem.search()
        with self._lock:
            self._running[search] = weight
        if self.cancelled:
            search.cancel()
        try:
            yield search
        finally:
            with self._lock:
                self._running.pop(search, None)
                self._progress_done += (1.0 if search.done else search.progress()) * weight

    @cached_property
    def _burnside_applies(self) -> bool:
        """Whether symmetric orbits can be counted without listing (`_tally_by_burnside`):
        every piece unique (so a column is never hit twice by one symmetric option)."""
        puzzle = self.puzzle
        return all(p.copies == 1 and not p.ranged for p in puzzle.pieces) and len(
            set(self.group.same)
        ) == len(puzzle.pieces)

    def _tally_by_burnside(
        self, orbit: Orbit, report: Progress | None = None
    ) -> tuple[int, int, int, bool]:
        """An orbit with a symmetric representative, counted instead of listed.

        Its stabiliser H acts on the solutions with the anchor at the representative, and the
        classes meeting the orbit are H's orbits there: by Burnside's lemma, the average over
        h in H of the solutions h maps onto themselves. Those are counted by the engine as exact
        covers by h-invariant unions of placements (`_symmetric_count`), a far smaller search
        than listing every solution and comparing canonical forms. Rotation classes are the
        orbits of H's proper part when H has mirrors; otherwise each class and its mirror
        image (met in another placement of the orbit) are two."""
        doubles = 1 if self.group.mirror_is_trivial else 2
        problem = self._task_problem([orbit])
        with self._tracked(problem, 1) as search:
            try:
                n = search.count(on_progress=report)
            except Cancelled as exc:
                return orbit.size * exc.partial, exc.partial, doubles * exc.partial, True
        fixes = {
            id(h): n if id(h) in self.group.kernel else self._symmetric_count(problem, h)
            for h in orbit.stabiliser
        }
        stabiliser = orbit.stabiliser
        classes, rest = divmod(sum(fixes.values()), len(stabiliser))
        assert not rest, "Burnside's average must be whole"
        proper = [h for h in stabiliser if h.proper]
        if len(proper) < len(stabiliser):
            rot = sum(fixes[id(h)] for h in proper) // len(proper)
        else:
            rot = doubles * classes
        return orbit.size * n, classes, rot, False

    def _symmetric_count(self, problem: PackingProblem, h: GroupElement) -> int:
        """How many solutions of `problem` the symmetry h maps onto themselves: exact covers
        whose options are the cycles of h on the rows (placements), each the union of its
        placements' columns, kept only when those are disjoint (h cannot fix a solution that
        holds one placement of a cycle and not the others). Rows are matched to their images
        by `RowImages`, so a matrix of any number of columns (a rhombic puzzle's hundreds of
        cells) is counted, not listed solution by solution."""
        row_ptr, cols = problem.exact_cover.csr()
        n_rows = len(row_ptr) - 1
        n_columns = problem.exact_cover.n_columns
        if n_rows == 0:
            return 0
        image = RowImages(problem, [h]).table[0]
        assert (image >= 0).all(), "a symmetry moved a row outside"
        image_list = image.tolist()
        row_cols = [cols[row_ptr[r] : row_ptr[r + 1]].tolist() for r in range(n_rows)]
        seen = [False] * n_rows
        options: list[list[int]] = []
        for start in range(n_rows):
            if seen[start]:
                continue
            union: set[int] = set()
            total = 0
            r = start
            while not seen[r]:
                seen[r] = True
                union.update(row_cols[r])
                total += len(row_cols[r])
                r = image_list[r]
            if len(union) == total:
                options.append(sorted(union))
        symmetric = ExactCoverProblem(options, problem.exact_cover.n_primary, n_columns)
        return ExactCoverSearch(symmetric).count()

    def _live_progress(self, total: int) -> float:
        with self._lock:
            running = sum(s.progress() * s.share * w for s, w in self._running.items())
            return min((self._progress_done + running) / max(total, 1), 1.0)

    def _is_free(self, orbit: Orbit) -> bool:
        return self.group.acts_freely_on(orbit.stabiliser)

    def tally(self, on_progress: Progress | None = None, workers: int | None = None) -> Counts:
        """fixed / up to rotation / up to symmetry. On cancel, returns partial counts.

        Small counts (most figures: a few milliseconds) are cheapest as few, merged searches
        in the calling thread: all the orbits that are merely counted in one search, all
        those that are listed in another. Large ones are worth spreading: the orbits are
        independent searches and the compiled kernel releases the GIL. So one orbit is searched
        alone first, for at most `INLINE_SECONDS`; when it finishes and the rest promise less
        than that, they are searched here too. Otherwise the rest (and that orbit, going on
        from where it stopped) go to the shared pool, on up to `workers` threads (default:
        every core), where counting searches split off work for idle threads (`work_queue`).
        `workers=1` keeps everything in the calling thread, which is what a batch spreading
        whole puzzles over the cores wants."""
        if self.anchor_piece is None:
            plan: list[list[Orbit] | None] = [None]
        else:
            free = [o for o in self.orbits if self._is_free(o)]
            listed = [o for o in self.orbits if not self._is_free(o)]
            plan = [group for group in (free, listed) if group]
        n_units = max(len(self.orbits), 1)
        workers = max(1, workers or available_cores())
        self._progress_done = 0.0
        total = [0, 0, 0, False]  # fixed, classes, rotation classes, partial
        adding = threading.Lock()

        def add(result: tuple[int, int, int, bool]) -> None:
            with adding:
                total[0] += result[0]
                total[1] += result[1]
                total[2] += result[2]
                total[3] = total[3] or result[3]

        report = None
        if on_progress is not None:

            def report(_fraction: float = 0.0, _found: int = 0) -> None:
                on_progress(self._live_progress(n_units), total[0])

        pooled: list[_Task] = []
        if workers > 1 and (self.orbits or self.group.acts_trivially):
            plan, pooled = self._probe(plan, add, report)
        for task in plan:
            if self.cancelled:
                break
            add(self._tally_task(task, report))
            if report is not None:
                report()
        if pooled and not self.cancelled:
            queue: WorkQueue[_Task] = WorkQueue(pooled)
            run_on_threads(
                shared_pool(), queue, workers, lambda task: add(self._run(task, queue, report))
            )
        fixed, classes, rot, partial = total
        if self.group.mirror_is_trivial:
            rot = classes
        if partial or self.cancelled:
            # A listing counts a class, and its mirror image, at its first solution seen, so
            # cut short it can hold more classes than fixed solutions seen (16,950 rotation
            # classes beside 8,475 solutions): each figure stays a lower bound when clamped to
            # fixed ≥ up to rotation ≥ up to symmetry.
            rot = min(rot, fixed)
            classes = min(classes, rot)
        self.done = not (partial or self.cancelled)
        return Counts(fixed, rot, classes, bool(partial) or self.cancelled)

    def _probe(
        self, plan: list[list[Orbit] | None], add, report
    ) -> tuple[list[list[Orbit] | None], list[_Task]]:
        """Search one orbit alone, to see whether the rest is worth other threads: (what is
        left to search here, what goes to the pool). A counted orbit is searched for at most
        `INLINE_SECONDS` and, unfinished, goes to the pool as it is; a listed one to the end.
        With no anchor and no symmetry acting, the one search of the whole puzzle is probed."""
        if self.orbits:
            first = next((o for o in self.orbits if self._is_free(o)), self.orbits[0])
            rest = [o for o in self.orbits if o is not first]
            task: list[Orbit] | None = [first]
            counted = self._is_free(first)
        else:
            rest, task, counted = [], None, self.group.acts_trivially
        start = time.perf_counter()
        if counted:
            unit = self._counting(task)
            while not unit.search.advance(PROBE_NODES):
                if self.cancelled or time.perf_counter() - start > INLINE_SECONDS:
                    return [], [unit, *([o] for o in rest)]
            add(self._run(unit))
        elif rest:
            add(self._tally_task(task, report))
        else:
            return plan, []
        estimate = (time.perf_counter() - start) * len(rest)
        if estimate > INLINE_SECONDS:
            return [], [[o] for o in rest]
        free = [o for o in rest if self._is_free(o)]
        listed = [o for o in rest if not self._is_free(o)]
        return [group for group in (free, listed) if group], []

    def _counting(self, orbits: Sequence[Orbit] | None) -> _Counting:
        """A search of free orbits (or of the whole puzzle, when no symmetry acts), set up to
        be counted (and split) by `_run`."""
        search = self._task_problem(orbits).search()
        weight = len(orbits) if orbits else 1
        with self._lock:
            self._running[search] = weight
        if self.cancelled:
            search.cancel()
        return _Counting(search, orbits[0].size if orbits else 1, weight)

    def _run(
        self,
        task: _Task,
        queue: WorkQueue[_Task] | None = None,
        report: Progress | None = None,
    ) -> tuple[int, int, int, bool]:
        """One pooled task's counts. A counting search gives part of its work to `queue`
        whenever a thread there waits for some."""
        if not isinstance(task, _Counting):
            if self.cancelled:
                return 0, 0, 0, True
            if task and all(self._is_free(o) for o in task):
                task = self._counting(task)
            else:
                return self._tally_task(task, report)
        search = task.search
        doubles = 1 if self.group.mirror_is_trivial else 2

        def between_slices(_fraction: float, _found: int) -> None:
            if queue is not None and queue.hungry() and not self.cancelled:
                part = search.split()
                if part is not None:
                    with self._lock:
                        self._running[part] = task.weight
                    queue.give(_Counting(part, task.size, task.weight))
            if report is not None:
                report()

        if queue is not None:
            search.slice_nodes = POOL_SLICE_NODES
        try:
            n = search.count(on_progress=between_slices)
            partial = False
        except Cancelled as exc:
            n, partial = exc.partial, True
        finally:
            with self._lock:
                self._running.pop(search, None)
                done = 1.0 if search.done else search.progress()
                self._progress_done += done * search.share * task.weight
        return task.size * n, n, doubles * n, partial

    def representatives(self, on_progress: Progress | None = None) -> Iterator[PolycubeSolution]:
        """One solution per class, lazily (the same as `solutions()`)."""
        return self.solutions(on_progress)

    def _solutions(self, report: Report | None) -> Iterator[PolycubeSolution]:
        for k, orbit, problem, search in self._searches():

            def orbit_report(_fraction: float, _found: int, k=k, search=search) -> None:
                self._listing_fraction = self._fraction(k, search)
                if report is not None:
                    report()

            elements = list(orbit.stabiliser) if orbit else self.group.elements
            trivial = self.group.acts_trivially or (
                orbit is not None and self.group.acts_freely_on(elements)
            )
            images = None if trivial else RowImages(problem, elements)
            seen = set()
            for rows in search.solutions(orbit_report):
                if images is not None:
                    canon, _ = images.classify(rows, elements)
                    if canon in seen:
                        continue
                    seen.add(canon)
                self.found += 1
                yield problem.solution(rows)
            self._listing_fraction = self._fraction(k + 1, search) if orbit else 1.0
        self.done = not self.cancelled


def count_solutions(puzzle: PolycubePuzzle, on_progress: Progress | None = None) -> Counts:
    return ClassSearch(puzzle).tally(on_progress)
