"""BurrTools-style disassembly: the fewest straight moves until the assembly comes apart.

A *state* is the offset of every piece of a part. A *move* slides a group of pieces along one of
the grid's directions (the cube grid's six axes, or another grid's, each step stopped by the
cells its sweep meets: `models.grids.sweep`); each slide is one move, however far and however
many pieces. The moves of a state are found in BurrTools' order (`_removal`, `_slides`, the
grid's directions in their order, BurrTools' own on the cube and prism grids): that order
decides which of several equally short separations comes first, and so every number of the
level after the first. A breadth-
first search from the assembled state stops at the first state where some group can slide away
for ever: that removal is the last move of the *separation*, and its count the separation's
number (98 for Pelikan Burr). Then both parts, each keeping the relative positions it has at
that moment, are taken apart the same way. A part made only of pieces of one BurrTools `group`
may stay joined; any other part that cannot come apart makes the assembly no solution.

The first piece of a part never moves: sliding a group one way is the same relative motion as
sliding the rest the other way, so the states need no normalising and half the groups are
never generated. The search is compiled (numba): the states live in one array with an
open-addressing hash table over it, and the work is bounded by a node limit, reported as
"gave up" instead of growing without end.

The level string is written as BurrTools writes it: the separation's move count, then, each
after a dot, the level of the part left behind and then of the part taken out, each only when
that part needs more than a single move to come apart completely (its own level is not "1").
Checked against BurrTools 0.7.1: Pelikan 98.2.4.2, Al Packino 1.1.1.1.1.2.1.3.1.2.1.2 (trailing
ones are dropped, inner ones kept: Draculas's separations 3, 5, 16, 6, 4, 1, 1, 1 read 3.5.16.6.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from tessera.models.grids import CUBES, Grid
from tessera.solvers.kernels import before_first_use
from tessera.solvers.polycube.movement import FREE, Move, lattice, pack_cells

DEFAULT_NODE_LIMIT = 1_000_000  # states per separation search (about 100 MB for 7 pieces)

# kernel return codes
_FOUND, _STUCK, _LIMIT = 0, 1, 2


class NodeLimitReached(RuntimeError):
    """The search for one separation visited more states than allowed."""


@dataclass
class Separation:
    """One node of the disassembly tree: the moves that split `pieces` into two parts."""

    pieces: tuple[int, ...]
    moves: list[Move]
    left: Separation | None = None  # the part that stayed (holds the part's first piece)
    removed: Separation | None = None  # the part that slid away
    left_pieces: tuple[int, ...] = ()
    removed_pieces: tuple[int, ...] = ()

    def level(self) -> str:
        text = str(len(self.moves))
        for child in (self.left, self.removed):
            if child is not None:
                sub = child.level()
                if sub != "1":
                    text += "." + sub
        return text

    def all_moves(self) -> list[Move]:
        """The moves in replay order: this separation, then the part left, then the other."""
        out = list(self.moves)
        for child in (self.left, self.removed):
            if child is not None:
                out.extend(child.all_moves())
        return out


@dataclass(frozen=True)
class Disassembly:
    """The outcome for one assembly.

    `complete`: it comes apart (into single pieces, or parts of one group each): a solution.
    `gave_up`: the node limit stopped a search, so nothing is known; `stuck` then or otherwise
    names the part that did not come apart.
    """

    level: str
    moves: tuple[Move, ...]
    left_together: tuple[tuple[int, ...], ...]
    complete: bool
    gave_up: bool = False
    stuck: tuple[int, ...] = ()
    nodes: int = 0
    tree: Separation | None = field(default=None, repr=False, compare=False)

    @property
    def first_separation(self) -> int:
        """Moves until the first piece or group comes out (the level's first number)."""
        return len(self.tree.moves) if self.tree is not None else 0

    @property
    def move_count(self) -> int:
        return len(self.moves)

    def level_key(self) -> tuple[int, ...]:
        """For sorting by level: hardest first is `sorted(..., key=..., reverse=True)`."""
        return tuple(int(v) for v in self.level.split(".")) if self.level else ()

    def frames(self, n_pieces: int) -> list[np.ndarray]:
        """Every piece's offset from its assembled place, before the first move and after
        each move: what a viewer plays (backwards, for an assembly). A removed group stays
        parked where its removal leaves it, clear of the rest of its part."""
        at = np.zeros((n_pieces, 3), np.int64)
        out = [at.copy()]
        for move in self.moves:
            at[list(move.pieces)] += np.asarray(move.by, np.int64)
            out.append(at.copy())
        return out

    def as_dict(self) -> dict:
        return {
            "level": self.level,
            "moves": [m.as_dict() for m in self.moves],
            "left_together": [list(g) for g in self.left_together],
        }


# ---------------------------------------------------------------------------------------------
# the compiled breadth-first search


@njit(cache=True, nogil=True)
def _hash(row):
    h = np.uint64(1469598103934665603)
    for v in row:
        h ^= np.uint64(v & 0xFFFFFFFF)
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True, nogil=True)
def _piece_grids(cells, starts):
    """Each piece's occupancy over its own bounding box, in its own frame: `pbox[p]` its low
    corner and size, `occ[ostart[p] + x + sx * (y + sy * z)]` whether it holds the cell."""
    n = starts.shape[0] - 1
    pbox = np.empty((n, 6), np.int64)
    ostart = np.zeros(n + 1, np.int64)
    for p in range(n):
        for a in range(3):
            lo = cells[starts[p], a]
            hi = lo
            for k in range(starts[p], starts[p + 1]):
                lo = min(lo, cells[k, a])
                hi = max(hi, cells[k, a])
            pbox[p, a] = lo
            pbox[p, 3 + a] = hi - lo + 1
        ostart[p + 1] = ostart[p] + pbox[p, 3] * pbox[p, 4] * pbox[p, 5]
    occ = np.zeros(ostart[n], np.bool_)
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            x = cells[k, 0] - pbox[p, 0]
            y = cells[k, 1] - pbox[p, 1]
            z = cells[k, 2] - pbox[p, 2]
            occ[ostart[p] + x + pbox[p, 3] * (y + pbox[p, 4] * z)] = True
    return pbox, occ, ostart


@njit(cache=True, nogil=True, inline="always")
def _axis_range(p, d, n, first, last):
    """The steps k in first..last of a line p + k d that keep one coordinate in 0..n-1 (unit
    steps without a division: the cube grid's lines are all of them). Inlined: `_pair` asks
    this three times for every line, and a call each time cost a tenth of its speed."""
    if d == 1:
        first = max(first, -p)
        last = min(last, n - 1 - p)
    elif d == -1:
        first = max(first, p - n + 1)
        last = min(last, p)
    elif d > 0:
        first = max(first, -(p // d))  # ceil(-p / d)
        last = min(last, (n - 1 - p) // d)
    elif d < 0:
        first = max(first, -((n - 1 - p) // -d))  # ceil((p - n + 1) / -d)
        last = min(last, p // -d)
    return first, last


@njit(cache=True, nogil=True)
def _pair(cells, starts, i, j, rx, ry, rz, out, kinds, lat, pgrids):
    """out[d]: how far piece i slides along d before touching piece j, j shifted by r
    relative to i (FREE: never). Exact for the pair, ignoring every other piece: from every
    cell of i, along the line of each blocker of its steps, the first cell of j (looked up in
    j's occupancy, `_piece_grids`, over the run of the line inside j's box: a box is convex).
    `lat`: the grid's `Lattice.arrays`."""
    dirs, bstart, boff, nk, reach = lat
    pbox, occ, ostart = pgrids
    nd = dirs.shape[0]
    nx, ny, nz = pbox[j, 3], pbox[j, 4], pbox[j, 5]
    base = ostart[j]
    # i's cells in j's frame
    sx = rx + pbox[j, 0]
    sy = ry + pbox[j, 1]
    sz = rz + pbox[j, 2]
    for d in range(nd):
        best = np.int64(FREE)
        out[d] = best
        # no line from i's box, shifted by any blocker, gets into j's box: nothing to look at
        missed = False
        for c in range(3):
            lo = pbox[i, c] - (sx, sy, sz)[c] + reach[d, c]
            hi = pbox[i, c] + pbox[i, 3 + c] - 1 - (sx, sy, sz)[c] + reach[d, 3 + c]
            if hi < 0 and dirs[d, c] <= 0 or lo >= pbox[j, 3 + c] and dirs[d, c] >= 0:
                missed = True
        if missed:
            continue
        dx, dy, dz = dirs[d, 0], dirs[d, 1], dirs[d, 2]
        for a in range(starts[i], starts[i + 1]):
            if best == 0:
                break
            row = d * nk + kinds[a]
            for q in range(bstart[row], bstart[row + 1]):
                x = cells[a, 0] - sx + boff[q, 0]
                # a coordinate the step does not change must be inside j's box already
                if dx == 0 and (x < 0 or x >= nx):
                    continue
                y = cells[a, 1] - sy + boff[q, 1]
                if dy == 0 and (y < 0 or y >= ny):
                    continue
                z = cells[a, 2] - sz + boff[q, 2]
                if dz == 0 and (z < 0 or z >= nz):
                    continue
                first, last = _axis_range(x, dx, nx, np.int64(0), best - 1)
                first, last = _axis_range(y, dy, ny, first, last)
                first, last = _axis_range(z, dz, nz, first, last)
                for k in range(first, last + 1):
                    if occ[base + (x + k * dx) + nx * ((y + k * dy) + ny * (z + k * dz))]:
                        best = k
                        break
        out[d] = best


@njit(cache=True, nogil=True)
def _lattice_distances(
    cells, starts, offsets, dist, ckeys, cvals, ccount, pair, kinds, lat, pgrids
):
    """`movement.distances` for the search: pair by pair, each pair's distances along every
    direction cached by the pair's relative offset (rigid pieces: nothing else changes them).
    A state then costs n(n-1)/2 hash lookups instead of sweeping a grid. Returns the (maybe
    grown) cache and its fill count. `kinds`: per cell; `lat`: the grid's `Lattice.arrays`;
    `pgrids`: the pieces' `_piece_grids`."""
    n = starts.shape[0] - 1
    nd = lat[0].shape[0]
    for i in range(n):
        for d in range(nd):
            dist[d, i, i] = FREE
    for i in range(n):
        for j in range(i + 1, n):
            rx = offsets[j, 0] - offsets[i, 0]
            ry = offsets[j, 1] - offsets[i, 1]
            rz = offsets[j, 2] - offsets[i, 2]
            if abs(rx) >= 1000 or abs(ry) >= 1000 or abs(rz) >= 1000:
                _pair(cells, starts, i, j, rx, ry, rz, pair, kinds, lat, pgrids)
                for d in range(nd):
                    dist[d, i, j] = pair[d]
                    dist[d ^ 1, j, i] = pair[d]
                continue
            key = (
                ((np.int64(i) * 64 + j) << 33)
                | (np.int64(rx + 1024) << 22)
                | (np.int64(ry + 1024) << 11)
                | np.int64(rz + 1024)
            )
            size = ckeys.shape[0]
            slot = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
            slot = slot & np.uint64(size - 1)
            while ckeys[slot] != -1 and ckeys[slot] != key:
                slot = (slot + np.uint64(1)) & np.uint64(size - 1)
            if ckeys[slot] == -1:
                _pair(cells, starts, i, j, rx, ry, rz, pair, kinds, lat, pgrids)
                ckeys[slot] = key
                for d in range(nd):
                    cvals[slot, d] = pair[d]
                ccount += 1
                if ccount * 2 > size:  # rehash into a table four times the size
                    keys2 = np.full(size * 4, -1, np.int64)
                    vals2 = np.empty((size * 4, nd), np.int32)
                    for t in range(size):
                        if ckeys[t] == -1:
                            continue
                        s2 = (np.uint64(ckeys[t]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
                        s2 = s2 & np.uint64(size * 4 - 1)
                        while keys2[s2] != -1:
                            s2 = (s2 + np.uint64(1)) & np.uint64(size * 4 - 1)
                        keys2[s2] = ckeys[t]
                        for d in range(nd):
                            vals2[s2, d] = cvals[t, d]
                    ckeys = keys2
                    cvals = vals2
                    for d in range(nd):
                        dist[d, i, j] = pair[d]
                        dist[d ^ 1, j, i] = pair[d]
                    continue
            for d in range(nd):
                v = cvals[slot, d]
                dist[d, i, j] = v
                dist[d ^ 1, j, i] = v
    return ckeys, cvals, ccount


def _cached_distances(cells, starts, offsets, dist, ckeys, cvals, ccount, pair, grid=CUBES):
    """`_lattice_distances` on `grid` (the cube grid unless told), for callers outside the
    search."""
    lat = lattice(grid)
    return _lattice_distances(
        cells, starts, offsets, dist, ckeys, cvals, ccount, pair, lat.kinds(cells), lat.arrays,
        _piece_grids(cells, starts),
    )  # fmt: skip


# One record per state: the state it came from and the move that made it.
_PARENT, _MASK, _DIR, _DIST = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _grow(rows, count, size):
    """A copy of `rows` (2-D) with room for `size` rows, the first `count` kept. Loops, not
    slice assignment: numba compiles slice assignment's broadcasting checks and their error
    strings, which tripled the search's compile time on a fresh install."""
    out = np.empty((size, rows.shape[1]), rows.dtype)
    for r in range(count):
        for c in range(rows.shape[1]):
            out[r, c] = rows[r, c]
    return out


@njit(cache=True, nogil=True)
def _table_slot(table, hashes, states, child, h):
    """Where `child` (hash h) sits in the open-addressing table: (slot, already seen)."""
    mask = np.uint64(table.shape[0] - 1)
    slot = h & mask
    while table[slot] >= 0:
        t = table[slot]
        if hashes[t, 0] == h:
            same = True
            for a in range(child.shape[0]):
                if states[t, a] != child[a]:
                    same = False
                    break
            if same:
                return slot, True
        slot = (slot + np.uint64(1)) & mask
    return slot, False


@njit(cache=True, nogil=True)
def _rehash(hashes, count, tsize):
    """A fresh table of `tsize` slots over the first `count` states."""
    table = np.full(tsize, -1, np.int64)
    mask = np.uint64(tsize - 1)
    for t in range(count):
        slot = hashes[t, 0] & mask
        while table[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        table[slot] = t
    return table


@njit(cache=True, nogil=True)
def _closed(dist, n, clos):
    """clos[d, i, j]: how far i may slide along d with j held, through chains of pieces i
    pushes (the min-plus closure of the pair distances, Bill Cutler's matrix)."""
    for d in range(dist.shape[0]):
        for i in range(n):
            for j in range(n):
                clos[d, i, j] = FREE if i == j else dist[d, i, j]
        for k in range(n):
            for i in range(n):
                cik = clos[d, i, k]
                if i == k or cik >= FREE:
                    continue
                for j in range(n):
                    if j == i or j == k:
                        continue
                    v = cik + clos[d, k, j]
                    if v < clos[d, i, j]:
                        clos[d, i, j] = v


@njit(cache=True, nogil=True, inline="always")
def _listed(masks, steps, known, mask, step):
    """Whether the group `mask` sliding `step` cells is among the first `known` moves."""
    for k in range(known):
        if masks[k] == mask and steps[k] == step:
            return True
    return False


@njit(cache=True, nogil=True)
def _pushed(clos, d, p, step, n, most):
    """The pieces that move when piece p slides `step` along d, pushing whatever it meets
    (FREE: slides away for ever); -1 when more than `most` pieces would move."""
    mask = np.int64(1) << p
    count = 1
    grown = True
    while grown:
        grown = False
        for i in range(n):
            if not (mask >> i) & 1:
                continue
            for j in range(n):
                if (mask >> j) & 1 or clos[d, i, j] >= step:
                    continue
                mask |= np.int64(1) << j
                count += 1
                if count > most:
                    return np.int64(-1)
                grown = True
    return mask


@njit(cache=True, nogil=True)
def _removal(clos, n):
    """BurrTools' order of looking for a removal: a single piece, direction by direction and
    piece by piece, then a group of at most half the pieces. (mask, direction) or (0, -1)."""
    for most in (1, n // 2):
        for d in range(clos.shape[0]):
            for p in range(n):
                m = _pushed(clos, d, p, FREE, n, most)
                if m > 0:
                    return m, d
    return np.int64(0), -1


@njit(cache=True, nogil=True)
def _slides(clos, n, cand):
    """The moves of a state in the order BurrTools' movement analysis finds them: direction by
    direction, piece by piece, each piece pushing what it meets for 1, 2, ... cells until more
    than half the pieces would move; after each new move, its union with every earlier move of
    the same length in that direction (newest first) that adds pieces to both. Rows of `cand`:
    mask, direction, length. Returns (cand, count); `cand` may have been grown."""
    total = np.int64(0)
    masks = np.empty(64, np.int64)
    steps = np.empty(64, np.int64)
    full = (np.int64(1) << n) - 1
    for d in range(clos.shape[0]):
        known = 0
        for p in range(n):
            step = 1
            while True:
                m = _pushed(clos, d, p, step, n, n // 2)
                if m < 0:
                    break
                if not _listed(masks, steps, known, m, step):
                    older = known
                    for u in range(older + 1):
                        if u == 0:
                            mm = m
                        else:
                            k = older - u
                            if steps[k] != step:
                                continue
                            other = masks[k]
                            if (other & ~m) == 0 or (m & ~other) == 0:
                                continue
                            mm = m | other
                            if mm == full:
                                continue
                            if _listed(masks, steps, known, mm, step):
                                continue
                        if known >= masks.shape[0]:
                            masks2 = np.empty(masks.shape[0] * 2, np.int64)
                            steps2 = np.empty(masks.shape[0] * 2, np.int64)
                            for q in range(known):
                                masks2[q] = masks[q]
                                steps2[q] = steps[q]
                            masks, steps = masks2, steps2
                        masks[known] = mm
                        steps[known] = step
                        known += 1
                        if total >= cand.shape[0]:
                            cand = _grow(cand, total, total * 2 + 8)
                        cand[total, 0] = mm
                        cand[total, 1] = d
                        cand[total, 2] = step
                        total += 1
                step += 1
    return cand, total


@njit(cache=True, nogil=True)
def _search(cells, starts, init, node_limit, kinds, lat):
    """Breadth-first search for the first separation, on the grid whose `Lattice.arrays` is
    `lat` (`kinds`: per cell of `cells`).

    Returns (code, states, parent, move mask, move direction, move distance, count, goal state,
    removed mask, removal direction). Piece 0 never moves: a move of a group holding it is
    stored as the rest's move the other way (the same relative positions, as BurrTools'
    states compare), so the queue's order and the first removal are BurrTools' own.
    """
    dirs = lat[0]
    n = starts.shape[0] - 1
    width = n * 3
    cap = min(1024, node_limit)
    states = np.empty((cap, width), np.int32)
    hashes = np.empty((cap, 1), np.uint64)
    rec = np.zeros((cap, 4), np.int64)
    for a in range(width):
        states[0, a] = init[a // 3, a % 3]
    hashes[0, 0] = _hash(states[0])
    rec[0, _PARENT] = -1
    # counters start as np.int64: a bare constant would make numba compile each callee twice,
    # once for the literal and once for int64
    count = np.int64(1)
    table = _rehash(hashes, count, np.int64(4096))
    cand = np.empty((256, 3), np.int64)
    nd = dirs.shape[0]
    clos = np.empty((nd, n, n), np.int64)
    full = (np.int64(1) << n) - 1
    child = np.empty(width, np.int32)
    offsets = np.empty((n, 3), np.int32)
    dist = np.empty((nd, n, n), np.int32)
    pair = np.empty(nd, np.int32)
    ckeys = np.full(1024, -1, np.int64)
    cvals = np.empty((1024, nd), np.int32)
    ccount = np.int64(0)
    pgrids = _piece_grids(cells, starts)
    code = _STUCK
    goal = np.int64(-1)
    rmask = np.int64(0)
    rdir = np.int64(-1)
    head = np.int64(0)
    while head < count and code == _STUCK:
        s = head
        head += 1
        for a in range(width):
            offsets[a // 3, a % 3] = states[s, a]
        ckeys, cvals, ccount = _lattice_distances(
            cells, starts, offsets, dist, ckeys, cvals, ccount, pair, kinds, lat, pgrids
        )
        _closed(dist, n, clos)
        m, d = _removal(clos, n)
        if d >= 0:
            code = _FOUND
            goal = np.int64(s)
            rmask = m
            rdir = np.int64(d)
            break
        cand, total = _slides(clos, n, cand)
        for g in range(total):
            m = cand[g, 0]
            d = cand[g, 1]
            step = cand[g, 2]
            if m & 1:
                m = full & ~m
                d = d ^ 1
            for a in range(width):
                child[a] = states[s, a]
            for i in range(n):
                if (m >> i) & 1:
                    for a in range(3):
                        child[i * 3 + a] += step * dirs[d, a]
            h = _hash(child)
            slot, seen = _table_slot(table, hashes, states, child, h)
            if seen:
                continue
            if count >= node_limit:
                code = _LIMIT
                break
            if count >= cap:
                cap = min(cap * 2, node_limit)
                states = _grow(states, count, cap)
                hashes = _grow(hashes, count, cap)
                rec = _grow(rec, count, cap)
            for a in range(width):
                states[count, a] = child[a]
            hashes[count, 0] = h
            rec[count, _PARENT] = s
            rec[count, _MASK] = m
            rec[count, _DIR] = d
            rec[count, _DIST] = step
            table[slot] = count
            count += 1
            if count * 2 > table.shape[0]:  # keep the table at most half full
                table = _rehash(hashes, count, table.shape[0] * 4)
    return (
        code, states[:count], rec[:count, _PARENT], rec[:count, _MASK], rec[:count, _DIR],
        rec[:count, _DIST], count, goal, rmask, rdir,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# the recursion in Python


class _Stuck(Exception):
    def __init__(self, pieces: tuple[int, ...], gave_up: bool) -> None:
        super().__init__(pieces)
        self.pieces = pieces
        self.gave_up = gave_up


class _Run:
    """One assembly's disassembly: every part's search, sharing the counters."""

    def __init__(
        self,
        cells: list[np.ndarray],
        groups: Sequence[int] | None,
        node_limit: int,
        grid: Grid = CUBES,
    ) -> None:
        self.cells = cells
        self.grid = grid
        self.lattice = lattice(grid)
        self.groups = list(groups) if groups is not None else [0] * len(cells)
        if len(self.groups) != len(cells):
            raise ValueError("one group number per piece")
        self.node_limit = node_limit
        self.nodes = 0
        self.left_together: list[tuple[int, ...]] = []

    def done_part(self, pieces: tuple[int, ...]) -> bool:
        """True when the part needs no separation: one piece, or pieces of one group."""
        if len(pieces) == 1:
            return True
        first = self.groups[pieces[0]]
        if first != 0 and all(self.groups[p] == first for p in pieces):
            self.left_together.append(pieces)
            return True
        return False

    def separate(
        self, pieces: tuple[int, ...], offsets: np.ndarray, top: bool = False
    ) -> Separation | None:
        """The separation tree of a part (None when it needs none). The whole assembly
        (`top`) must come apart at least once even when all its pieces share a group, as in
        BurrTools: a group excuses a part left after a separation, not the puzzle itself."""
        if not top and self.done_part(pieces):
            return None
        packed, starts = pack_cells([self.cells[p] for p in pieces])
        init = np.ascontiguousarray(offsets, np.int32)
        lat = self.lattice
        # offsets are lattice translations: a cell's kind is the kind it has assembled
        kinds = lat.kinds(packed.astype(np.int64))
        code, states, parent, mmask, mdir, mdist, count, goal, removed, rdir = _search(
            packed, starts, init, self.node_limit, kinds, lat.arrays
        )
        self.nodes += int(count)
        if code != _FOUND:
            raise _Stuck(pieces, gave_up=code == _LIMIT)
        path = []
        s = int(goal)
        while s > 0:
            path.append(s)
            s = int(parent[s])
        path.reverse()
        moves = []
        for s in path:
            m, d, k = int(mmask[s]), int(mdir[s]), int(mdist[s])
            moving = tuple(pieces[i] for i in range(len(pieces)) if m >> i & 1)
            moves.append(Move(moving, d, k, grid=self.grid))
        final = states[int(goal)].reshape(-1, 3).copy()
        mask = int(removed)
        inside = [i for i in range(len(pieces)) if mask >> i & 1]
        outside = [i for i in range(len(pieces)) if not mask >> i & 1]
        step = lat.dirs[int(rdir)]
        clear = _clearance(packed, starts, final, inside, outside, step)
        removal = Move(tuple(pieces[i] for i in inside), int(rdir), clear, True, self.grid)
        moves.append(removal)
        moved = final.copy()
        moved[inside] += step * clear
        left_pieces = tuple(pieces[i] for i in outside)
        removed_pieces = tuple(pieces[i] for i in inside)
        node = Separation(pieces, moves, left_pieces=left_pieces, removed_pieces=removed_pieces)
        node.left = self.separate(left_pieces, final[outside])
        node.removed = self.separate(removed_pieces, moved[inside])
        return node


def _clearance(cells, starts, offsets, inside, outside, step: np.ndarray) -> int:
    """The fewest steps (at least 1) after which the group is clear of the rest's bounding box,
    beyond it along some coordinate the step changes: no cell of the two is then shared, so the
    group can be parked there (every step on the way is free: it is a removal)."""

    def coords(group):
        return np.vstack([cells[starts[i] : starts[i + 1]] + offsets[i] for i in group])

    mine, rest = coords(inside), coords(outside)
    best = None
    for a in np.flatnonzero(step).tolist():
        if step[a] > 0:  # mine.min + k step > rest.max
            gap = int(rest[:, a].max() - mine[:, a].min())
        else:
            gap = int(mine[:, a].max() - rest[:, a].min())
        need = gap // abs(int(step[a])) + 1
        best = need if best is None else min(best, need)
    assert best is not None
    return max(1, best)


def disassemble(
    cells_by_piece: Sequence[Iterable],
    groups: Sequence[int] | None = None,
    node_limit: int = DEFAULT_NODE_LIMIT,
    grid: Grid = CUBES,
) -> Disassembly:
    """Take an assembly apart (pieces as cell lists, all in one frame, cells of `grid`).

    `groups`: one BurrTools group number per piece (0: none); a part made only of pieces of
    one non-zero group may stay joined. The result is `complete` when the assembly comes apart,
    otherwise `stuck` names the part that does not (with `gave_up` when the node limit, per
    separation search, stopped it rather than a proof).
    """
    cells = [np.asarray(c, np.int64).reshape(-1, 3) for c in cells_by_piece]
    if not cells:
        raise ValueError("no pieces")
    if node_limit < 1:
        raise ValueError("the node limit must be at least 1")
    every = np.vstack(cells)
    if len(np.unique(every, axis=0)) != len(every):
        raise ValueError("two pieces share a cell: not an assembly")
    pieces = tuple(range(len(cells)))
    if len(cells) == 1:  # nothing to take apart: BurrTools' assembly that is no solution
        return Disassembly("", (), (), complete=False, stuck=pieces)
    before_first_use("disassembler", _search)
    run = _Run(cells, groups, node_limit, grid)
    try:
        tree = run.separate(pieces, np.zeros((len(cells), 3), np.int32), top=True)
    except _Stuck as stuck:
        return Disassembly(
            "", (), (), complete=False, gave_up=stuck.gave_up, stuck=stuck.pieces, nodes=run.nodes
        )
    assert tree is not None
    return Disassembly(
        tree.level(),
        tuple(tree.all_moves()),
        tuple(run.left_together),
        complete=True,
        nodes=run.nodes,
        tree=tree,
    )


def require_complete(result: Disassembly) -> Disassembly:
    """`result`, or NodeLimitReached when the node limit stopped it (for callers that must
    not mistake "gave up" for "does not come apart")."""
    if result.gave_up:
        raise NodeLimitReached(
            f"gave up after {result.nodes} states while separating pieces "
            f"{list(result.stuck)}: raise the node limit to go on"
        )
    return result


# ---------------------------------------------------------------------------------------------
# BurrTools groups (models.burrtools does not keep them yet)


def xmpuzzle_groups(path: str | Path, problem: int = 1) -> list[int]:
    """The `group` number of each piece type of a BurrTools problem (1-based, as
    `models.burrtools.load_xmpuzzle` counts), in the order that loader lists the pieces
    (shapes with a count below 1 are skipped there and here). 0 means no group.

    A shape that lists several `<group>` children (it belongs to more than one group) gets
    the first one; BurrTools lets such pieces join any of them, which Tessera does not model.
    """
    import gzip

    from defusedxml import ElementTree as SafeET

    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    root = SafeET.fromstring(raw)
    problems = root.findall("./problems/problem")
    prob = problems[problem - 1]
    out = []
    for sh in prob.findall("./shapes/shape"):
        try:
            count = int(sh.get("count", "1"))
        except ValueError:
            count = 1
        if sh.get("count") is None and sh.get("max") is not None:
            count = int(sh.get("max"))
        if count < 1:
            continue
        group = sh.get("group")
        if group is None:
            child = sh.find("group")
            group = child.get("group") if child is not None else "0"
        out.append(int(group or 0))
    return out
