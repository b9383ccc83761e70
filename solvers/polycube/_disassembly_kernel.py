"""The disassembler's compiled kernels (numba): the breadth-first search for one separation
(`_search`), and the whole disassembly of an assembly, part after part (`_disassemble`).

`solvers.polycube.disassemble` is the Python side (the tree read back, the level string, the
moves); it loads `_disassemble` through `solvers.native`, compiled ahead of time when it was
built, else from numba's cache, so importing the disassembler never imports numba. The parts
were once taken apart by a recursion in Python: over BurrTools' small files that recursion
(packing each part's cells, the clearance of each removal) cost ten times the searches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tessera.solvers.polycube._movement_codes import FOUND, FREE, LIMIT, SHAPES, STUCK


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


@njit(cache=True, nogil=True)
def _fronts(cells, starts, kinds, lat, pgrids):
    """`front[d, a]`: whether cell a can be the first of its piece to meet another piece on a
    slide along d. Where the only cell a step along d sweeps through is the cell d ahead (the
    cube grid; a direction of another grid whose blockers are that cell alone), a cell whose
    next cell along d is its own piece's never is: every line from it runs on through that
    cell, one step behind. Skipping those cells in `_pair` (most of a solid piece's) leaves its
    answer as it was."""
    dirs, bstart, boff, nk, reach = lat
    pbox, occ, ostart = pgrids
    nd = dirs.shape[0]
    n = starts.shape[0] - 1
    front = np.ones((nd, cells.shape[0]), np.bool_)
    for d in range(nd):
        for p in range(n):
            for a in range(starts[p], starts[p + 1]):
                row = d * nk + kinds[a]
                if bstart[row + 1] - bstart[row] != 1:
                    continue
                q = bstart[row]
                if boff[q, 0] != dirs[d, 0] or boff[q, 1] != dirs[d, 1] or boff[q, 2] != dirs[d, 2]:
                    continue
                x = cells[a, 0] + dirs[d, 0] - pbox[p, 0]
                y = cells[a, 1] + dirs[d, 1] - pbox[p, 1]
                z = cells[a, 2] + dirs[d, 2] - pbox[p, 2]
                if 0 <= x < pbox[p, 3] and 0 <= y < pbox[p, 4] and 0 <= z < pbox[p, 5]:
                    if occ[ostart[p] + x + pbox[p, 3] * (y + pbox[p, 4] * z)]:
                        front[d, a] = False
    return front


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
def _pair(cells, starts, i, j, rx, ry, rz, out, kinds, lat, pgrids, front):
    """out[d]: how far piece i slides along d before touching piece j, j shifted by r
    relative to i (FREE: never). Exact for the pair, ignoring every other piece: from every
    cell of i, along the line of each blocker of its steps, the first cell of j (looked up in
    j's occupancy, `_piece_grids`, over the run of the line inside j's box: a box is convex).
    `lat`: the grid's `Lattice.arrays`; `front`: the cells worth a look, `_fronts`."""
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
            if not front[d, a]:
                continue
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
def _bigger_table(ckeys, cvals):
    """The pair cache's open-addressing table rehashed into four times the room."""
    size = ckeys.shape[0]
    nd = cvals.shape[1]
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
    return keys2, vals2


@njit(cache=True, nogil=True)
def _lattice_distances(
    cells, starts, offsets, dist, ckeys, cvals, ccount, pair, kinds, lat, pgrids, front, shapes
):
    """`movement.distances` for the search: pair by pair, each pair's distances along every
    direction cached by the pair's relative offset (rigid pieces: nothing else changes them).
    A state then costs n(n-1)/2 hash lookups instead of sweeping a grid. Returns the (maybe
    grown) cache and its fill count. `kinds`: per cell; `lat`: the grid's `Lattice.arrays`;
    `pgrids`: the pieces' `_piece_grids`; `shapes`: (ids, bases), each piece's shape number
    (its cells less `base`, and their kinds) and base: the cache is keyed by the two shapes
    and how far apart they stand, so it serves every part and every assembly of a puzzle."""
    ids, bases = shapes
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
            kx = rx + bases[j, 0] - bases[i, 0]
            ky = ry + bases[j, 1] - bases[i, 1]
            kz = rz + bases[j, 2] - bases[i, 2]
            if abs(kx) >= 1000 or abs(ky) >= 1000 or abs(kz) >= 1000:
                _pair(cells, starts, i, j, rx, ry, rz, pair, kinds, lat, pgrids, front)
                for d in range(nd):
                    dist[d, i, j] = pair[d]
                    dist[d ^ 1, j, i] = pair[d]
                continue
            key = (
                ((np.int64(ids[i]) * SHAPES + ids[j]) << 33)
                | (np.int64(kx + 1024) << 22)
                | (np.int64(ky + 1024) << 11)
                | np.int64(kz + 1024)
            )
            size = ckeys.shape[0]
            slot = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
            slot = slot & np.uint64(size - 1)
            while ckeys[slot] != -1 and ckeys[slot] != key:
                slot = (slot + np.uint64(1)) & np.uint64(size - 1)
            if ckeys[slot] == -1:
                _pair(cells, starts, i, j, rx, ry, rz, pair, kinds, lat, pgrids, front)
                ckeys[slot] = key
                for d in range(nd):
                    cvals[slot, d] = pair[d]
                ccount += 1
                if ccount * 2 > size:  # rehash into a table four times the size
                    ckeys, cvals = _bigger_table(ckeys, cvals)
                    for d in range(nd):
                        dist[d, i, j] = pair[d]
                        dist[d ^ 1, j, i] = pair[d]
                    continue
            for d in range(nd):
                v = cvals[slot, d]
                dist[d, i, j] = v
                dist[d ^ 1, j, i] = v
    return ckeys, cvals, ccount


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
def _search(cells, starts, init, node_limit, kinds, lat, shapes, cache):
    """Breadth-first search for the first separation, on the grid whose `Lattice.arrays` is
    `lat` (`kinds`: per cell of `cells`).

    Returns (code, states, parent, move mask, move direction, move distance, count, goal
    state, removed mask, removal direction, the pair cache `(keys, values, count)`, maybe
    grown). Piece 0 never moves: a move of a group holding it is stored as the rest's move the
    other way (the same relative positions, as BurrTools' states compare), so the queue's
    order and the first removal are BurrTools' own.
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
    ckeys, cvals, ccount = cache
    pgrids = _piece_grids(cells, starts)
    front = _fronts(cells, starts, kinds, lat, pgrids)
    code = STUCK
    goal = np.int64(-1)
    rmask = np.int64(0)
    rdir = np.int64(-1)
    head = np.int64(0)
    while head < count and code == STUCK:
        s = head
        head += 1
        for a in range(width):
            offsets[a // 3, a % 3] = states[s, a]
        ckeys, cvals, ccount = _lattice_distances(
            cells, starts, offsets, dist, ckeys, cvals, ccount, pair, kinds, lat, pgrids, front,
            shapes,
        )  # fmt: skip
        _closed(dist, n, clos)
        m, d = _removal(clos, n)
        if d >= 0:
            code = FOUND
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
                code = LIMIT
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
        rec[:count, _DIST], count, goal, rmask, rdir, (ckeys, cvals, ccount),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def _part(cells, starts, kinds, mask, n_all):
    """The cells, piece starts and cell kinds of the pieces in `mask`, packed in piece order."""
    total = 0
    n = 0
    for p in range(n_all):
        if (mask >> p) & 1:
            total += starts[p + 1] - starts[p]
            n += 1
    sub = np.empty((total, 3), np.int32)
    sub_starts = np.zeros(n + 1, np.int64)
    sub_kinds = np.empty(total, np.int64)
    at = 0
    q = 0
    for p in range(n_all):
        if (mask >> p) & 1:
            for c in range(starts[p], starts[p + 1]):
                for a in range(3):
                    sub[at, a] = cells[c, a]
                sub_kinds[at] = kinds[c]
                at += 1
            q += 1
            sub_starts[q] = at
    return sub, sub_starts, sub_kinds


@njit(cache=True, nogil=True)
def _clearance(cells, starts, offsets, inside, step):
    """The fewest steps (at least 1) after which the pieces in the local mask `inside` are
    clear of the rest's bounding box, beyond it along some coordinate the step changes: no
    cell of the two is then shared, so the group can be parked there (every step on the way is
    free: it is a removal)."""
    n = starts.shape[0] - 1
    big = np.int64(1) << 60
    lo_in = np.full(3, big, np.int64)
    hi_in = np.full(3, -big, np.int64)
    lo_out = np.full(3, big, np.int64)
    hi_out = np.full(3, -big, np.int64)
    for p in range(n):
        mine = (inside >> p) & 1
        for c in range(starts[p], starts[p + 1]):
            for a in range(3):
                v = np.int64(cells[c, a]) + offsets[p, a]
                if mine:
                    lo_in[a] = min(lo_in[a], v)
                    hi_in[a] = max(hi_in[a], v)
                else:
                    lo_out[a] = min(lo_out[a], v)
                    hi_out[a] = max(hi_out[a], v)
    best = big
    for a in range(3):
        s = np.int64(step[a])
        if s == 0:
            continue
        gap = hi_out[a] - lo_in[a] if s > 0 else hi_in[a] - lo_out[a]
        best = min(best, gap // abs(s) + 1)
    return max(np.int64(1), best)


@njit(cache=True, nogil=True)
def _joined(local, n, groups):
    """Whether the part's pieces (`local[:n]`) all share one non-zero group: it may stay
    joined."""
    first = groups[local[0]]
    if first == 0:
        return False
    for q in range(1, n):
        if groups[local[q]] != first:
            return False
    return True


@njit(cache=True, nogil=True)
def _path_moves(moves, n_moves, goal, parent_of, mmask, mdir, mdist, local, n):
    """The moves from the assembled state to `goal`, in order, written from row `n_moves` of
    `moves` with global piece masks (and room left for the removal after them). Returns
    (moves, maybe grown; how many)."""
    length = 0
    s = goal
    while s > 0:
        length += 1
        s = parent_of[s]
    while n_moves + length + 1 > moves.shape[0]:
        moves = _grow(moves, n_moves, moves.shape[0] * 2)
    s = goal
    k = length
    while s > 0:
        k -= 1
        g = np.int64(0)
        for q in range(n):
            if (mmask[s] >> q) & 1:
                g |= np.int64(1) << local[q]
        moves[n_moves + k, 0] = g
        moves[n_moves + k, 1] = mdir[s]
        moves[n_moves + k, 2] = mdist[s]
        moves[n_moves + k, 3] = 0
        s = parent_of[s]
    return moves, length


@njit(cache=True, nogil=True)
def _push(stack, top, me, side, part, final, shift, local, n):
    """Put the part `part` (global mask) of separation `me` on the stack, each of its pieces
    at its `final` offset moved by `shift`. Returns the new top."""
    stack_mask, stack_parent, stack_side, stack_offsets = stack
    stack_mask[top] = part
    stack_parent[top] = me
    stack_side[top] = side
    r = 0
    for q in range(n):
        if (part >> local[q]) & 1:
            for a in range(3):
                stack_offsets[top, r, a] = final[q, a] + shift[a]
            r += 1
    return top + 1


@njit(cache=True, nogil=True)
def _disassemble(cells, starts, kinds, groups, node_limit, lat, shapes, cache):
    """The whole disassembly of an assembly (every piece at offset 0), as `_Run` in Python
    did it part by part: depth first, the part left before the part removed, a part of one
    piece or of one non-zero group needing no separation (except the whole assembly).

    `shapes`: (ids, bases) per piece, and `cache` the pair distances already known, as
    `_lattice_distances` takes them. Returns (code, stuck mask, nodes, moves, separations,
    together, cache): `moves` rows are (global piece mask, direction, distance, removes) in
    replay order; `separations` rows are (part mask, first move, number of moves, left child,
    removed child, left mask, removed mask), children -1 when they need no separation;
    `together` the masks of parts left joined by their group. Stops at the first part that
    does not come apart (code STUCK, or LIMIT when the node limit stopped its search), naming
    it by `stuck mask`."""
    dirs = lat[0]
    n_all = starts.shape[0] - 1
    moves = np.empty((64, 4), np.int64)
    n_moves = 0
    seps = np.full((16, 7), -1, np.int64)
    n_seps = 0
    together = np.empty(n_all, np.int64)
    n_together = 0
    # the parts still to take apart: (mask, parent separation, side), their offsets apart
    stack_mask = np.empty(2 * n_all + 2, np.int64)
    stack_parent = np.full(2 * n_all + 2, -1, np.int64)
    stack_side = np.zeros(2 * n_all + 2, np.int64)
    stack_offsets = np.zeros((2 * n_all + 2, n_all, 3), np.int32)
    top = 1
    stack_mask[0] = (np.int64(1) << n_all) - 1
    nodes = np.int64(0)
    local = np.empty(n_all, np.int64)  # local index -> global piece
    while top > 0:
        top -= 1
        mask = stack_mask[top]
        parent = stack_parent[top]
        side = stack_side[top]
        n = 0
        for p in range(n_all):
            if (mask >> p) & 1:
                local[n] = p
                n += 1
        if parent >= 0:  # not the whole assembly: it must come apart at least once
            if n == 1:
                continue
            if _joined(local, n, groups):
                together[n_together] = mask
                n_together += 1
                continue
        init = np.empty((n, 3), np.int32)
        for q in range(n):
            for a in range(3):
                init[q, a] = stack_offsets[top, q, a]
        sub, sub_starts, sub_kinds = _part(cells, starts, kinds, mask, n_all)
        part_shapes = (shapes[0][local[:n]], shapes[1][local[:n]])
        code, states, parent_of, mmask, mdir, mdist, count, goal, rmask, rdir, cache = _search(
            sub, sub_starts, init, node_limit, sub_kinds, lat, part_shapes, cache
        )
        nodes += count
        if code != FOUND:
            return (code, mask, nodes, moves[:n_moves], seps[:n_seps], together[:n_together],
                    cache)  # fmt: skip
        if n_seps >= seps.shape[0]:
            seps = _grow(seps, n_seps, seps.shape[0] * 2)
            for r in range(n_seps, seps.shape[0]):
                for c in range(7):
                    seps[r, c] = -1
        me = n_seps
        n_seps += 1
        if parent >= 0:
            seps[parent, 3 + side] = me
        seps[me, 0] = mask
        seps[me, 1] = n_moves
        moves, length = _path_moves(moves, n_moves, goal, parent_of, mmask, mdir, mdist, local, n)
        seps[me, 2] = length + 1
        n_moves += length
        final = np.empty((n, 3), np.int64)
        for q in range(n):
            for a in range(3):
                final[q, a] = states[goal, q * 3 + a]
        clear = _clearance(sub, sub_starts, final, rmask, dirs[rdir])
        inside = np.int64(0)
        outside = np.int64(0)
        for q in range(n):
            if (rmask >> q) & 1:
                inside |= np.int64(1) << local[q]
            else:
                outside |= np.int64(1) << local[q]
        moves[n_moves, 0] = inside
        moves[n_moves, 1] = rdir
        moves[n_moves, 2] = clear
        moves[n_moves, 3] = 1
        n_moves += 1
        seps[me, 5] = outside
        seps[me, 6] = inside
        # the removed part goes on the stack first, so the part left is taken apart first
        stack = (stack_mask, stack_parent, stack_side, stack_offsets)
        top = _push(stack, top, me, 1, inside, final, clear * dirs[rdir], local, n)
        top = _push(stack, top, me, 0, outside, final, 0 * dirs[rdir], local, n)
    return (FOUND, np.int64(0), nodes, moves[:n_moves], seps[:n_seps], together[:n_together],
            cache)  # fmt: skip
