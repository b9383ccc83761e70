"""The movement analysis's compiled kernels (numba): distances, pushing closures, slides and
one piece's reach.

`solvers.polycube.movement` is the Python side and loads these on first use, so importing it
(as the disassembler, the command line and the window all do) never imports numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tessera.solvers.polycube._movement_codes import FREE


@njit(cache=True, nogil=True)
def _box(cells, starts, offsets, skip):
    """(lo, hi) corners of the bounding box of every piece but `skip` (-1: none) at
    `offsets`; an empty box (lo > hi) when there is no such piece."""
    lo = np.full(3, 1 << 40, np.int64)
    hi = np.full(3, -(1 << 40), np.int64)
    for p in range(starts.shape[0] - 1):
        if p == skip:
            continue
        for k in range(starts[p], starts[p + 1]):
            for a in range(3):
                v = cells[k, a] + offsets[p, a]
                if v < lo[a]:
                    lo[a] = v
                if v > hi[a]:
                    hi[a] = v
    return lo, hi


@njit(cache=True, nogil=True)
def lattice_distances(cells, starts, offsets, kinds, lat):
    """dist[d, i, j] for pieces at `offsets` (see the module docstring); FREE when never.
    `kinds[k]`: the kind of cell k; `lat`: the grid's `Lattice.arrays`.

    The lines are walked along d only, for d and its opposite at once: the cells met walking
    one way are the cells that meet walking the other way (a blocker set seen from the other
    cell is the opposite direction's), and along every line each pair of consecutive occupied
    cells is found, which is all the group boundaries need. The occupancy grid has a border as
    wide as the farthest blocker, marked `outside`: a walk stops there (a line never comes back
    into the box), and only a line that starts in the border needs a closer look."""
    dirs, bstart, boff, nk, _ = lat
    n = starts.shape[0] - 1
    nd = dirs.shape[0]
    dist = np.full((nd, n, n), FREE, np.int32)
    pad = 0
    for b in range(boff.shape[0]):
        for a in range(3):
            pad = max(pad, abs(boff[b, a]))
    lo, hi = _box(cells, starts, offsets, -1)
    box = np.empty(3, np.int64)
    dim = np.empty(3, np.int64)
    for a in range(3):
        box[a] = hi[a] - lo[a] + 1
        dim[a] = box[a] + 2 * pad
        lo[a] -= pad
    sy = dim[0]
    sz = dim[0] * dim[1]
    outside = np.int16(-1)
    grid = np.full(dim[0] * dim[1] * dim[2], outside, np.int16)  # owner + 1, 0 empty
    for z in range(pad, pad + box[2]):
        for y in range(pad, pad + box[1]):
            row = y * sy + z * sz
            for x in range(pad, pad + box[0]):
                grid[row + x] = 0
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            x = cells[k, 0] + offsets[p, 0] - lo[0]
            y = cells[k, 1] + offsets[p, 1] - lo[1]
            z = cells[k, 2] + offsets[p, 2] - lo[2]
            grid[x + y * sy + z * sz] = p + 1
    dstep = np.empty(nd, np.int64)
    for d in range(nd):
        dstep[d] = dirs[d, 0] + dirs[d, 1] * sy + dirs[d, 2] * sz
    bstep = np.empty(boff.shape[0], np.int64)
    for b in range(boff.shape[0]):
        bstep[b] = boff[b, 0] + boff[b, 1] * sy + boff[b, 2] * sz
    for p in range(n):
        for k in range(starts[p], starts[p + 1]):
            x0 = cells[k, 0] + offsets[p, 0] - lo[0]
            y0 = cells[k, 1] + offsets[p, 1] - lo[1]
            z0 = cells[k, 2] + offsets[p, 2] - lo[2]
            here = x0 + y0 * sy + z0 * sz
            for d in range(0, nd, 2):  # d ^ 1 is the same lines walked the other way
                row = d * nk + kinds[k]
                for b in range(bstart[row], bstart[row + 1]):
                    # along the blocker's line, the first occupied cell is all that counts
                    idx = here + bstep[b]
                    step = np.int64(0)
                    if grid[idx] == outside:
                        # it starts in the border: a coordinate out of the box comes back in
                        # within `pad` steps if ever (one that leaves never does)
                        x = x0 + boff[b, 0]
                        y = y0 + boff[b, 1]
                        z = z0 + boff[b, 2]
                        while step < pad and not (
                            pad <= x < pad + box[0]
                            and pad <= y < pad + box[1]
                            and pad <= z < pad + box[2]
                        ):
                            x += dirs[d, 0]
                            y += dirs[d, 1]
                            z += dirs[d, 2]
                            step += 1
                        if not (
                            pad <= x < pad + box[0]
                            and pad <= y < pad + box[1]
                            and pad <= z < pad + box[2]
                        ):
                            continue
                        idx = x + y * sy + z * sz
                    while True:
                        o = grid[idx]
                        if o != 0:
                            if o > 0 and o != p + 1 and step < dist[d, p, o - 1]:
                                dist[d, p, o - 1] = step
                                dist[d ^ 1, o - 1, p] = step
                            break
                        idx += dstep[d]
                        step += 1
    return dist


@njit(cache=True, nogil=True)
def closures(dist, d, n):
    """For each piece, the bit mask of pieces that must move with it along d (itself too)."""
    push = np.zeros(n, np.int64)
    for i in range(n):
        m = np.int64(1) << i
        for j in range(n):
            if dist[d, i, j] == 0:
                m |= np.int64(1) << j
        push[i] = m
    out = np.empty(n, np.int64)
    for i in range(n):
        m = np.int64(1) << i
        while True:
            grown = m
            for j in range(n):
                if (m >> j) & 1:
                    grown |= push[j]
            if grown == m:
                break
            m = grown
        out[i] = m
    return out


@njit(cache=True, nogil=True)
def group_slide(dist, d, mask, n):
    """How far the pieces in `mask` can slide together along d (FREE: they come free)."""
    best = FREE
    for i in range(n):
        if not (mask >> i) & 1:
            continue
        for j in range(n):
            if (mask >> j) & 1:
                continue
            v = dist[d, i, j]
            if v < best:
                best = v
    return best


@njit(cache=True, nogil=True)
def movable_groups(clos, n, fixed, out):
    """Every group that can move (a union of closures) avoiding the pieces in `fixed`.

    Written into `out` (grown by the caller when too small); returns the count, or -1 when
    `out` overflowed. A depth-first walk decides piece by piece "in" (its closure joins) or
    "out"; every leaf is a different group, and branches whose closure would take a piece
    already ruled out end at once, so the work follows the number of groups, not 2^n.
    """
    start_excl = fixed
    for i in range(n):
        if clos[i] & fixed:
            start_excl |= np.int64(1) << i
    stack_in = np.empty(n + 2, np.int64)
    stack_ex = np.empty(n + 2, np.int64)
    top = 0
    stack_in[0] = 0
    stack_ex[0] = start_excl
    top = 1
    count = 0
    full = (np.int64(1) << n) - 1 if n < 63 else np.int64(-1)
    while top > 0:
        top -= 1
        inc = stack_in[top]
        exc = stack_ex[top]
        undecided = full & ~(inc | exc)
        if undecided == 0:
            if inc != 0:
                if count >= out.shape[0]:
                    return -1
                out[count] = inc
                count += 1
            continue
        i = 0
        while not (undecided >> i) & 1:
            i += 1
        # "out" branch first on the stack, so "in" is explored first (order is cosmetic)
        stack_in[top] = inc
        stack_ex[top] = exc | (np.int64(1) << i)
        top += 1
        if clos[i] & exc == 0:
            stack_in[top] = inc | clos[i]
            stack_ex[top] = exc
            top += 1
    return count


# ---------------------------------------------------------------------------------------------
# the Python API


@njit(cache=True, nogil=True)
def translation_reach(
    cells, starts, offsets, piece, lo, dims, max_steps, goal, stop_at_goal, kinds, lat
):
    """Breadth-first search over translations of `piece` with the other pieces fixed.

    Translations s (added to the piece's offset) range over the box `lo` .. `lo + dims - 1`;
    the search starts at s = 0. Returns (steps, parent): per translation the fewest one-step
    slides that reach it without the piece ever passing through another (no cell of another
    piece among the blockers of any of its cells' steps; -1: not reached), and the direction
    index of the last of them. It stops after `max_steps` slides (< 0: no limit) or once the
    translation `goal` is reached (with `stop_at_goal`). `kinds`: per cell of `cells`; `lat`:
    the grid's `Lattice.arrays`.
    """
    dirs, bstart, boff, nk, _ = lat
    n = starts.shape[0] - 1
    # the others' occupancy over their bounding box
    olo, ohi = _box(cells, starts, offsets, piece)
    have_others = olo[0] <= ohi[0]
    odim = np.ones(3, np.int64)
    if have_others:
        for a in range(3):
            odim[a] = ohi[a] - olo[a] + 1
    grid = np.zeros(odim[0] * odim[1] * odim[2], np.bool_)
    for p in range(n):
        if p == piece:
            continue
        for k in range(starts[p], starts[p + 1]):
            idx = (cells[k, 0] + offsets[p, 0] - olo[0]) + odim[0] * (
                (cells[k, 1] + offsets[p, 1] - olo[1])
                + odim[1] * (cells[k, 2] + offsets[p, 2] - olo[2])
            )
            grid[idx] = True
    m = starts[piece + 1] - starts[piece]
    own = np.empty((m, 3), np.int64)
    own_kind = np.empty(m, np.int64)
    for k in range(m):
        own_kind[k] = kinds[starts[piece] + k]
        for a in range(3):
            own[k, a] = cells[starts[piece] + k, a] + offsets[piece, a]
    total = dims[0] * dims[1] * dims[2]
    steps = np.full(total, -1, np.int32)
    parent = np.full(total, -1, np.int8)
    queue = np.empty(total, np.int64)
    start = (0 - lo[0]) + dims[0] * ((0 - lo[1]) + dims[1] * (0 - lo[2]))
    target = -1
    if stop_at_goal:
        target = (goal[0] - lo[0]) + dims[0] * ((goal[1] - lo[1]) + dims[1] * (goal[2] - lo[2]))
    steps[start] = 0
    queue[0] = start
    head, tail = 0, 1
    s = np.empty(3, np.int64)
    while head < tail:
        cur = queue[head]
        head += 1
        if cur == target:
            break
        if max_steps >= 0 and steps[cur] >= max_steps:
            continue
        s[0] = cur % dims[0] + lo[0]
        s[1] = (cur // dims[0]) % dims[1] + lo[1]
        s[2] = cur // (dims[0] * dims[1]) + lo[2]
        for d in range(dirs.shape[0]):
            inside = True
            for a in range(3):
                t = s[a] + dirs[d, a]
                if not lo[a] <= t < lo[a] + dims[a]:
                    inside = False
            if not inside:
                continue
            nxt = (s[0] + dirs[d, 0] - lo[0]) + dims[0] * (
                (s[1] + dirs[d, 1] - lo[1]) + dims[1] * (s[2] + dirs[d, 2] - lo[2])
            )
            if steps[nxt] >= 0:
                continue
            free = True
            if have_others:
                for k in range(m):
                    row = d * nk + own_kind[k]
                    for b in range(bstart[row], bstart[row + 1]):
                        x = own[k, 0] + s[0] + boff[b, 0] - olo[0]
                        y = own[k, 1] + s[1] + boff[b, 1] - olo[1]
                        z = own[k, 2] + s[2] + boff[b, 2] - olo[2]
                        if 0 <= x < odim[0] and 0 <= y < odim[1] and 0 <= z < odim[2]:
                            if grid[x + odim[0] * (y + odim[1] * z)]:
                                free = False
                                break
                    if not free:
                        break
            if free:
                steps[nxt] = steps[cur] + 1
                parent[nxt] = d
                queue[tail] = nxt
                tail += 1
    return steps, parent
