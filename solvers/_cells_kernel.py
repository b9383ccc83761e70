"""Compiled exact-cover kernel behind `solvers.exact_cover`: Knuth's *dancing cells*.

Each item keeps its active options in a sparse set (a segment of one array plus a position
index), so removing an option from an item is a swap, and undoing a whole level is putting
back the items' sizes: one copy of a small array (cheaper than a trail, measured). Compared
with dancing links this touches memory in order and, while hiding, notices at once when an item
loses its last option.

The search is an explicit state machine, not recursion, so it can stop after a budget of nodes,
return to Python (to hand over a solution, drain the trace buffer, report progress, notice a
cancel request) and later resume exactly where it was. All state lives in arrays owned by the
Python side; nothing here allocates per node.

Items carry a multiplicity: a piece type with k identical copies is one item hit exactly k
times. Such an item is branched on only when no exactly-once item is open; its options are then
tried in order and each tried option is removed for its later siblings (Knuth's Algorithm M
"tweak"), so a multiset of placements is found once, never k! times.

Secondary items carry a multiplicity too, read as a capacity: hit at most that many times, and
at least `low[i]` times (checked when every primary item is covered). That is how a piece type
with a range of copies (BurrTools' `min`..`max`) is searched: the cells decide what goes where,
and the type only caps how often it is used, so no bookkeeping options are ever branched on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# scalar slots in the `st` array
S_STATE, S_DEPTH, S_OSP, S_NODES, S_FOUND, S_TPOS, S_ACTIVE = 0, 1, 2, 3, 4, 5, 6
N_SLOTS = 8

# machine states
ENTER, TRY, NEXT, BACKTRACK, DONE = 0, 1, 2, 3, 4

# what a level branches on (its `kind`), or why no level opens
EXACT, MULTI, DEAD, COVERED = 0, 1, 2, 3

# every index in the hot loops is unsigned, which spares numba's negative-index check on each
# array access (measured: about a fifth of the kernel's time)
U1 = np.uint32(1)

# `_nrt=False` on the compiled entry points: numba's reference counting would incref and decref
# every array handed to a helper, inlined or not, on every node; the kernel allocates nothing, so
# it needs none (measured: run split into helpers was 10-90% slower with it, as fast as one big
# function without it)

# return codes
R_DONE, R_SOLUTION, R_BUDGET, R_TRACE_FULL, R_OVERFLOW = 0, 1, 2, 3, 4

# trace event kinds (mirror solvers.trace.EventKind)
E_PLACE, E_REMOVE, E_SOLUTION = 0, 1, 2


def build(n_items, opt_ptr, opt_items, mult):
    """Sparse sets for a matrix in CSR form (options are rows of item numbers).

    Plain numpy, not compiled: it runs once per search, and compiling it cost more than a
    whole small solve on a fresh install."""
    n_opts = opt_ptr.shape[0] - 1
    node_opt = np.repeat(np.arange(n_opts, dtype=np.uint32), np.diff(opt_ptr).astype(np.int64))
    size = np.bincount(opt_items, minlength=n_items).astype(np.uint32)
    start = np.zeros(n_items + 1, np.uint32)
    np.cumsum(size, out=start[1:])
    # each item's segment lists its nodes in node order: a stable sort of nodes by item
    members = np.argsort(opt_items, kind="stable").astype(np.uint32)
    loc = np.empty(len(opt_items), np.uint32)
    loc[members] = np.arange(len(opt_items), dtype=np.uint32)
    active = np.arange(n_items, dtype=np.uint32)
    where = np.arange(n_items, dtype=np.int64)
    count = mult.astype(np.int64).copy()
    return node_opt, size, start, members, loc, active, where, count


@njit(cache=True, inline="always")
def _copy(dst, src):
    """dst[:] = src as a loop: numba's slice assignment brings its broadcasting checks and
    their error strings, which doubled the kernel's compile time on a fresh install."""
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit(cache=True, inline="always")
def _remove(k, item, size, start, members, loc):
    """Take node k out of its item's active segment (swap with the segment's last node)."""
    last_pos = start[item] + size[item] - U1
    last = members[last_pos]
    pos = loc[k]
    members[pos] = last
    loc[last] = pos
    members[last_pos] = k
    loc[k] = last_pos
    size[item] -= U1


@njit(cache=True, inline="always")
def _deactivate(item, active, where, n_active):
    last = active[n_active - 1]
    pos = where[item]
    active[pos] = last
    where[last] = pos
    active[n_active - 1] = item
    where[item] = n_active - 1
    return n_active - 1


@njit(cache=True, _nrt=False)
def _hide(item, opt_ptr, opt_items, node_opt, size, start, members, loc, where, count,
          n_primary, old_active, n_active, check):  # fmt: skip
    """Remove every active option of `item` from the other items that were active before
    this step. With `check`, stop and return False as soon as an open primary item can no
    longer be covered often enough."""
    p = start[item]
    end = p + size[item]
    while p < end:
        o = node_opt[members[p]]
        k = opt_ptr[o]
        k_end = opt_ptr[o + U1]
        while k < k_end:
            j = opt_items[k]
            if j != item and where[j] < old_active:
                _remove(k, j, size, start, members, loc)
                if check and size[j] == 0 and j < n_primary and where[j] < n_active:
                    return False
            k += U1
        p += U1
    return True


@njit(cache=True, inline="always")
def _pick(active, n_active, n_primary, size, mult, count, low, has_low):
    """(item, verdict) for the next level: the open exactly-once primary item with the fewest
    options (EXACT), else the open multi item with the fewest (MULTI); DEAD when some open item
    can no longer be covered often enough, COVERED when nothing is left to cover."""
    best = -1
    best_len = 1 << 62
    multi = -1
    multi_len = 1 << 62
    for a in range(n_active):
        i = active[a]
        if i >= n_primary:
            continue
        n = size[i]
        if mult[i] == 1:
            if n < best_len:
                best_len = n
                best = i
                if n == 0:
                    return best, DEAD
                if n == 1:
                    # forced: nothing can beat it
                    return best, EXACT
        elif n < count[i]:
            return best, DEAD
        elif n < multi_len:
            multi_len = n
            multi = i
    if best != -1:
        return best, EXACT
    if multi != -1:
        return multi, MULTI
    if has_low:
        # every primary item is covered: a capacity item used too rarely is no solution
        for i in range(n_primary, mult.shape[0]):
            if mult[i] - count[i] < low[i]:
                return best, DEAD
    return best, COVERED


@njit(cache=True, inline="always")
def _log(ev_kind, ev_row, ev_depth, tpos, what, row, depth):
    """Append one trace event; returns the next free slot."""
    ev_kind[tpos] = what
    ev_row[tpos] = row
    ev_depth[tpos] = depth
    return tpos + 1


@njit(cache=True, inline="always")
def _open_level(i, verdict, depth, osp, n_active, opt_ptr, opt_items, n_primary, node_opt,
                size, start, members, loc, active, where, count, item_at, kind, ostart, oend,
                oidx, ostack, saved_size, saved_count, saved_active, has_multi):  # fmt: skip
    """Branch on item i at `depth`: an exactly-once item leaves the active set now (its
    options' other items lose them); its options go on the option stack, and the level's
    state is saved for them. Returns the new (n_active, osp)."""
    kind[depth] = verdict
    item_at[depth] = i
    if verdict == EXACT:
        n_active = _deactivate(i, active, where, n_active)
        _hide(
            np.uint32(i), opt_ptr, opt_items, node_opt, size, start, members, loc,
            where, count, n_primary, n_active, n_active, False,
        )  # fmt: skip
    n = size[i]
    s = start[i]
    for p in range(n):
        ostack[osp + p] = node_opt[members[s + p]]
    ostart[depth] = osp
    oend[depth] = osp + n
    oidx[depth] = osp
    if n > 1 or verdict == MULTI:
        # a forced move (one option) never comes back to this state: skip the copy
        _save(depth, n_active, size, count, saved_size, saved_count, saved_active, has_multi)
    return n_active, osp + n


@njit(cache=True, inline="always")
def _save(depth, n_active, size, count, saved_size, saved_count, saved_active, has_multi):
    """Remember the level's state, for its later options to start from."""
    _copy(saved_size[depth], size)
    if has_multi:
        _copy(saved_count[depth], count)
    saved_active[depth] = n_active


@njit(cache=True, inline="always")
def _restore(depth, size, count, saved_size, saved_count, saved_active, has_multi):
    """Back to the level's saved state; returns its number of active items."""
    _copy(size, saved_size[depth])
    if has_multi:
        _copy(count, saved_count[depth])
    return saved_active[depth]


@njit(cache=True, inline="always")
def _take_out(o, n_active, opt_ptr, opt_items, size, start, members, loc, where):
    """Option o leaves the list of every active item it is in."""
    for k in range(opt_ptr[o], opt_ptr[o + 1]):
        j = opt_items[k]
        if where[j] < n_active:
            _remove(k, j, size, start, members, loc)


@njit(cache=True, inline="always")
def _place(o, verdict, n_active, opt_ptr, opt_items, n_primary, node_opt, size, start,
           members, loc, active, where, count, mult):  # fmt: skip
    """Choose option o: the items it fills up leave the active set and their other options
    are hidden. Returns (n_active, ok); not ok when an open item was left with too few
    options (the caller moves on to the next option)."""
    old_active = n_active
    if verdict == MULTI:
        # the option leaves every list it is in, the branching item's included
        _take_out(o, n_active, opt_ptr, opt_items, size, start, members, loc, where)
    for k in range(opt_ptr[o], opt_ptr[o + 1]):
        j = opt_items[k]
        if where[j] >= n_active:
            continue
        if mult[j] > 1:
            count[j] -= 1
            if count[j] > 0:
                continue
        n_active = _deactivate(j, active, where, n_active)
    for a in range(n_active, old_active):
        if not _hide(
            active[a], opt_ptr, opt_items, node_opt, size, start, members, loc,
            where, count, n_primary, old_active, n_active, True,
        ):  # fmt: skip
            return n_active, False
    return n_active, True


@njit(cache=True, inline="always")
def _tweak(o, depth, opt_ptr, opt_items, size, start, members, loc, where, count, saved_size,
           saved_count, saved_active, has_multi):  # fmt: skip
    """After option o of a multi item's level: its later siblings must not use o again, so
    o leaves the level's saved state. Returns the level's number of active items."""
    n_active = _restore(depth, size, count, saved_size, saved_count, saved_active, has_multi)
    _take_out(o, n_active, opt_ptr, opt_items, size, start, members, loc, where)
    _copy(saved_size[depth], size)
    return n_active


@njit(cache=True, nogil=True, _nrt=False)
def run(
    opt_ptr, opt_items, n_primary, node_opt, size, start, members, loc, active, where, count,
    mult, low, st, item_at, kind, ostart, oend, oidx, chosen, saved_size, saved_count,
    saved_active, ostack, ev_kind, ev_row, ev_depth, max_nodes, count_only, tracing, has_multi,
    has_low,
):  # fmt: skip
    """Advance the search until a solution (unless counting), the node budget, the trace
    buffer filling up, or the end. Returns one of the R_* codes."""
    state = st[S_STATE]
    depth = st[S_DEPTH]
    osp = st[S_OSP]
    tpos = st[S_TPOS]
    n_active = st[S_ACTIVE]
    budget = max_nodes
    cap = ev_kind.shape[0]
    result = R_DONE
    while True:
        if tracing and tpos + 3 >= cap:
            result = R_TRACE_FULL
            break
        if state == ENTER:
            if budget <= 0:
                result = R_BUDGET
                break
            budget -= 1
            i, verdict = _pick(active, n_active, n_primary, size, mult, count, low, has_low)
            if verdict == DEAD:
                state = BACKTRACK
            elif verdict == COVERED:
                st[S_FOUND] += 1
                if tracing:
                    tpos = _log(ev_kind, ev_row, ev_depth, tpos, E_SOLUTION, -1, depth)
                state = BACKTRACK
                if not count_only:
                    result = R_SOLUTION
                    break
            elif osp + size[i] > ostack.shape[0]:
                result = R_OVERFLOW
                break
            else:
                n_active, osp = _open_level(
                    i, verdict, depth, osp, n_active, opt_ptr, opt_items, n_primary, node_opt,
                    size, start, members, loc, active, where, count, item_at, kind, ostart,
                    oend, oidx, ostack, saved_size, saved_count, saved_active, has_multi,
                )  # fmt: skip
                state = TRY
        elif state == TRY:
            if oidx[depth] == oend[depth]:
                osp = ostart[depth]
                state = BACKTRACK
                continue
            if oidx[depth] != ostart[depth] or kind[depth] == MULTI:
                # back to the level's state (the first option finds it untouched)
                n_active = _restore(depth, size, count, saved_size, saved_count, saved_active,
                                    has_multi)  # fmt: skip
            i = item_at[depth]
            if kind[depth] == MULTI and size[i] < count[i]:
                oidx[depth] = oend[depth]
                continue
            o = ostack[oidx[depth]]
            chosen[depth] = o
            if tracing:
                tpos = _log(ev_kind, ev_row, ev_depth, tpos, E_PLACE, o, depth)
            n_active, ok = _place(
                o, kind[depth], n_active, opt_ptr, opt_items, n_primary, node_opt, size, start,
                members, loc, active, where, count, mult,
            )  # fmt: skip
            if ok:
                depth += 1
                state = ENTER
            else:
                state = NEXT
        elif state == NEXT:
            o = chosen[depth]
            if tracing:
                tpos = _log(ev_kind, ev_row, ev_depth, tpos, E_REMOVE, o, depth)
            if kind[depth] == MULTI:
                n_active = _tweak(
                    o, depth, opt_ptr, opt_items, size, start, members, loc, where, count,
                    saved_size, saved_count, saved_active, has_multi,
                )  # fmt: skip
            oidx[depth] += 1
            state = TRY
        elif state == BACKTRACK:
            depth -= 1
            if depth < 0:
                state = DONE
                depth = 0
                break
            state = NEXT
        else:  # DONE
            break
    st[S_STATE] = state
    st[S_DEPTH] = depth
    st[S_OSP] = osp
    st[S_TPOS] = tpos
    st[S_ACTIVE] = n_active
    st[S_NODES] += max_nodes - budget
    return result
