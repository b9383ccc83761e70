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

A small matrix (a Soma figure, Bedlam, pentominoes: up to some thousands of options) is searched
by the same machine with the live options held as one bitset instead of the items' sparse sets
(`build_bits`): choosing an option clears, word by word, the bitsets of the items it covers (a few
hundred word operations), where the sparse sets swap every hidden option out of each of its
items' lists (Bedlam: about 900 swaps a node, scattered over half a megabyte). An item's live
options are then its bitset ANDed with the live set, so the item with the fewest is found by
popcounts that stop as soon as an item cannot beat the best so far, and a level's state is its
live words (only the words still nonzero are kept, in a list per level). The levels, the option
stack, the budget, the trace and the multi-item rules are the same; only an item with no option
left is found one node later, when the next level looks for the item to branch on (measured on
Bedlam: 2.6 times fewer CPU seconds; on 6x10 pentominoes, 3 times).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from tessera.solvers._cells_layout import (
    BACKTRACK,
    COVERED,
    DEAD,
    DONE,
    E_PLACE,
    E_REMOVE,
    E_SOLUTION,
    ENTER,
    EXACT,
    MULTI,
    NEXT,
    R_BUDGET,
    R_DONE,
    R_OVERFLOW,
    R_SOLUTION,
    R_TRACE_FULL,
    S_ACTIVE,
    S_DEPTH,
    S_FOUND,
    S_NODES,
    S_OSP,
    S_STATE,
    S_TPOS,
    TRY,
)

# every index in the hot loops is unsigned, which spares numba's negative-index check on each
# array access (measured: about a fifth of the kernel's time)
U1 = np.uint32(1)

# `_nrt=False` on the compiled entry points: numba's reference counting would incref and decref
# every array handed to a helper, inlined or not, on every node; the kernel allocates nothing, so
# it needs none (measured: run split into helpers was 10-90% slower with it, as fast as one big
# function without it)


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
def _too_rare(n_primary, mult, count, low, where, n_active):
    """Whether a capacity (secondary) item was used fewer than `low` times: an item of
    capacity k > 1 counts its uses down from k; one of capacity 1 was used once it left the
    active set (nothing else takes a secondary item out)."""
    for i in range(n_primary, mult.shape[0]):
        used = mult[i] - count[i] if mult[i] > 1 else (1 if where[i] >= n_active else 0)
        if used < low[i]:
            return True
    return False


@njit(cache=True, inline="always")
def _pick(active, where, n_active, n_primary, size, mult, count, low, has_low):
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
    if has_low and _too_rare(n_primary, mult, count, low, where, n_active):
        # every primary item is covered: a capacity item used too rarely is no solution
        return best, DEAD
    return best, COVERED


@njit(cache=True, inline="always")
def _log(tracing, ev_kind, ev_row, ev_depth, tpos, what, row, depth):
    """Append one trace event when tracing; returns the next free slot."""
    if not tracing:
        return tpos
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


# -- the live options as one bitset (small matrices) ------------------------------------------


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of a uint64 (LLVM's ctpop: one instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)], fnty)
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def _lowest_bit(typingctx, x):
    """The index of the lowest set bit of a nonzero uint64 (LLVM's cttz)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
        fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64)], fnty)
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@njit(cache=True, inline="always")
def _live_words(depth, live, words, n_words_at):
    """The level's word list: the words of the one above it that still hold a live option
    (without a branch: whether a word is empty is a coin toss for the branch predictor, and
    Bedlam spent a sixth of its time on those mispredictions)."""
    n = 0
    for q in range(n_words_at[depth]):
        w = words[depth, q]
        words[depth, n] = w
        n += live[w] != 0
    n_words_at[depth] = n


@njit(cache=True, inline="always")
def _live_count(i, cutoff, depth, live, item_bits, words, n_words_at):
    """How many live options item i has, counted only up to `cutoff` (the count is exact
    when below it). Four words between two looks at the cutoff: most items pass it within a
    few words, and a look after every word cost a mispredicted branch per item (a Soma figure's
    whole search: 15% faster)."""
    n = np.uint64(0)
    limit = np.uint64(cutoff)
    m = n_words_at[depth]
    q = 0
    while q + 3 < m:
        a = words[depth, q]
        b = words[depth, q + 1]
        c = words[depth, q + 2]
        d = words[depth, q + 3]
        n += _popcount(live[a] & item_bits[i, a]) + _popcount(live[b] & item_bits[i, b])
        n += _popcount(live[c] & item_bits[i, c]) + _popcount(live[d] & item_bits[i, d])
        q += 4
        if n >= limit:
            return np.int64(n)
    while q < m:
        w = words[depth, q]
        n += _popcount(live[w] & item_bits[i, w])
        q += 1
    return np.int64(n)


@njit(cache=True, inline="always")
def _pick_bits(depth, n_active, n_primary, items, low, has_low, bits):
    """`_pick` on bitsets: (item, verdict, its number of live options), after the level's word
    list is made. An item's options are counted only while it can still beat the best."""
    active, where, mult, count = items
    item_bits, live, _, words, n_words_at = bits
    _live_words(depth, live, words, n_words_at)
    best = -1
    best_len = 1 << 62
    multi = -1
    multi_len = 1 << 62
    for a in range(n_active):
        i = active[a]
        if i >= n_primary:
            continue
        if mult[i] == 1:
            n = _live_count(i, best_len, depth, live, item_bits, words, n_words_at)
            if n < best_len:
                best_len = n
                best = i
                if n == 0:
                    return best, DEAD, 0
                if n == 1:
                    return best, EXACT, 1
        else:
            n = _live_count(i, max(count[i], multi_len), depth, live, item_bits, words,
                            n_words_at)  # fmt: skip
            if n < count[i]:
                return best, DEAD, 0
            if n < multi_len:
                multi_len = n
                multi = i
    if best != -1:
        return best, EXACT, best_len
    if multi != -1:
        return multi, MULTI, multi_len
    if has_low and _too_rare(n_primary, mult, count, low, where, n_active):
        return best, DEAD, 0
    return best, COVERED, 0


@njit(cache=True, inline="always")
def _open_level_bits(i, verdict, n, depth, osp, n_active, items, levels, has_multi, bits):
    """`_open_level` on bitsets: an exactly-once item leaves the active set (its options die
    with the option chosen, which covers it); its n live options go on the option stack."""
    active, where, _, count = items
    item_at, kind, ostart, oend, oidx, ostack, saved_count, saved_active = levels
    item_bits, live, saved_live, words, n_words_at = bits
    kind[depth] = verdict
    item_at[depth] = i
    if verdict == EXACT:
        n_active = _deactivate(i, active, where, n_active)
    p = osp
    for q in range(n_words_at[depth]):
        w = words[depth, q]
        x = live[w] & item_bits[i, w]
        while x:
            ostack[p] = (np.int64(w) << 6) + np.int64(_lowest_bit(x))
            p += 1
            x &= x - np.uint64(1)
    ostart[depth] = osp
    oend[depth] = osp + n
    oidx[depth] = osp
    if n > 1 or verdict == MULTI:
        for q in range(n_words_at[depth]):
            w = words[depth, q]
            saved_live[depth, w] = live[w]
        if has_multi:
            _copy(saved_count[depth], count)
        saved_active[depth] = n_active
    return n_active, osp + n


@njit(cache=True, inline="always")
def _restore_bits(depth, count, saved_count, saved_active, has_multi, bits):
    """Back to the level's saved live words (and counts); returns its number of active items."""
    _, live, saved_live, words, n_words_at = bits
    for q in range(n_words_at[depth]):
        w = words[depth, q]
        live[w] = saved_live[depth, w]
    if has_multi:
        _copy(count, saved_count[depth])
    return saved_active[depth]


@njit(cache=True, inline="always")
def _kill(j, depth, live, item_bits, words, n_words_at):
    """Every option of item j dies."""
    for q in range(n_words_at[depth]):
        w = words[depth, q]
        live[w] &= ~item_bits[j, w]


@njit(cache=True, inline="always")
def _place_bits(o, verdict, depth, n_active, opt_ptr, opt_items, items, bits):
    """`_place` on bitsets: the items option o fills up leave the active set and every option
    on them dies (the level's branching item, already inactive, included). An item left with
    no option is found by the next level's pick, so this never fails: (n_active, True)."""
    active, where, mult, count = items
    item_bits, live, _, words, n_words_at = bits
    if verdict == MULTI:
        live[o >> 6] &= ~(np.uint64(1) << np.uint64(o & 63))
    for k in range(opt_ptr[o], opt_ptr[o + 1]):
        j = opt_items[k]
        if mult[j] > 1:
            count[j] -= 1
            if count[j] > 0:
                continue
        if where[j] < n_active:
            n_active = _deactivate(j, active, where, n_active)
        _kill(j, depth, live, item_bits, words, n_words_at)
    n = n_words_at[depth]
    for q in range(n):
        words[depth + 1, q] = words[depth, q]
    n_words_at[depth + 1] = n
    return n_active, True


# -- the state machine's steps, one of each per way of holding the live options: `run` calls
# the bitset steps when `sets` is None, so numba drops the sparse-set ones from that compile
# (a branch on whether an argument is None is decided before typing, and before the steps are
# inlined): a fresh install compiles the bitset machine alone in 1.8 s of CPU, where both ways
# in one took 3.2 s. With sparse sets, `bits` holds placeholders and both ways are compiled.
# `items` is (active, where, mult, count); `levels` is (item_at, kind, ostart, oend, oidx,
# ostack, saved_count, saved_active).


@njit(cache=True, inline="always")
def _choose_sets(n_active, n_primary, items, low, has_low, sets):
    active, where, mult, count = items
    size = sets[1]
    i, verdict = _pick(active, where, n_active, n_primary, size, mult, count, low, has_low)
    return i, verdict, size[i] if i >= 0 else 0


@njit(cache=True, inline="always")
def _open_sets(i, verdict, depth, osp, n_active, opt_ptr, opt_items, n_primary, items, levels,
               has_multi, sets):  # fmt: skip
    active, where, _, count = items
    item_at, kind, ostart, oend, oidx, ostack, saved_count, saved_active = levels
    node_opt, size, start, members, loc, saved_size = sets
    return _open_level(i, verdict, depth, osp, n_active, opt_ptr, opt_items, n_primary,
                       node_opt, size, start, members, loc, active, where, count, item_at, kind,
                       ostart, oend, oidx, ostack, saved_size, saved_count, saved_active,
                       has_multi)  # fmt: skip


@njit(cache=True, inline="always")
def _left_bits(i, depth, count, bits):
    """How many live options a multi item still has (counted up to its count)."""
    item_bits, live, _, words, n_words_at = bits
    return _live_count(i, count[i], depth, live, item_bits, words, n_words_at)


@njit(cache=True, inline="always")
def _place_sets(o, verdict, n_active, opt_ptr, opt_items, n_primary, items, sets):
    active, where, mult, count = items
    node_opt, size, start, members, loc, _ = sets
    return _place(o, verdict, n_active, opt_ptr, opt_items, n_primary, node_opt, size, start,
                  members, loc, active, where, count, mult)  # fmt: skip


@njit(cache=True, inline="always")
def _exclude_bits(o, depth, count, saved_count, saved_active, has_multi, bits):
    """After option o of a multi item's level: its later siblings must not use o again, so o
    leaves the level's saved state. Returns the level's number of active items."""
    n_active = _restore_bits(depth, count, saved_count, saved_active, has_multi, bits)
    live, saved_live = bits[1], bits[2]
    bit = ~(np.uint64(1) << np.uint64(o & 63))
    live[o >> 6] &= bit
    saved_live[depth, o >> 6] &= bit
    return n_active


@njit(cache=True, inline="always")
def _exclude_sets(o, depth, opt_ptr, opt_items, where, count, saved_count, saved_active,
                  has_multi, sets):  # fmt: skip
    node_opt, size, start, members, loc, saved_size = sets
    return _tweak(o, depth, opt_ptr, opt_items, size, start, members, loc, where, count,
                  saved_size, saved_count, saved_active, has_multi)  # fmt: skip


@njit(cache=True, inline="always")
def _load(st):
    """The machine's scalars: state, depth, option stack top, trace position, active items."""
    return st[S_STATE], st[S_DEPTH], st[S_OSP], st[S_TPOS], st[S_ACTIVE]


@njit(cache=True, inline="always")
def _store(st, state, depth, osp, tpos, n_active):
    st[S_STATE] = state
    st[S_DEPTH] = depth
    st[S_OSP] = osp
    st[S_TPOS] = tpos
    st[S_ACTIVE] = n_active


@njit(cache=True, nogil=True, _nrt=False)
def run(
    opt_ptr, opt_items, n_primary, active, where, count, mult, low, st, item_at, kind, ostart,
    oend, oidx, chosen, saved_count, saved_active, ostack, ev_kind, ev_row, ev_depth, max_nodes,
    count_only, tracing, has_multi, has_low, sets, bits,
):  # fmt: skip
    """Advance the search until a solution (unless counting), the node budget, the trace
    buffer filling up, or the end. Returns one of the R_* codes. The live options are the
    sparse sets (`sets`, from `build`) or, when `sets` is None, the bitsets (`bits`, from
    `build_bits`; placeholders otherwise): see the steps above."""
    state, depth, osp, tpos, n_active = _load(st)
    budget = max_nodes
    cap = ev_kind.shape[0]
    result = R_DONE
    items = (active, where, mult, count)
    levels = (item_at, kind, ostart, oend, oidx, ostack, saved_count, saved_active)
    while True:
        if tracing and tpos + 3 >= cap:
            result = R_TRACE_FULL
            break
        if state == ENTER:
            if budget <= 0:
                result = R_BUDGET
                break
            budget -= 1
            if sets is None:
                i, verdict, n = _pick_bits(depth, n_active, n_primary, items, low, has_low, bits)
            else:
                i, verdict, n = _choose_sets(n_active, n_primary, items, low, has_low, sets)
            if verdict == DEAD:
                state = BACKTRACK
            elif verdict == COVERED:
                st[S_FOUND] += 1
                tpos = _log(tracing, ev_kind, ev_row, ev_depth, tpos, E_SOLUTION, -1, depth)
                state = BACKTRACK
                if not count_only:
                    result = R_SOLUTION
                    break
            elif osp + n > ostack.shape[0]:
                result = R_OVERFLOW
                break
            elif sets is None:
                n_active, osp = _open_level_bits(i, verdict, n, depth, osp, n_active, items,
                                                 levels, has_multi, bits)  # fmt: skip
                state = TRY
            else:
                n_active, osp = _open_sets(i, verdict, depth, osp, n_active, opt_ptr, opt_items,
                                           n_primary, items, levels, has_multi, sets)  # fmt: skip
                state = TRY
        elif state == TRY:
            if oidx[depth] == oend[depth]:
                osp = ostart[depth]
                state = BACKTRACK
                continue
            if oidx[depth] != ostart[depth] or kind[depth] == MULTI:  # the first finds it as is
                if sets is None:
                    n_active = _restore_bits(depth, count, saved_count, saved_active, has_multi,
                                             bits)  # fmt: skip
                else:
                    n_active = _restore(depth, sets[1], count, sets[5], saved_count,
                                        saved_active, has_multi)  # fmt: skip
            i = item_at[depth]
            if kind[depth] == MULTI:
                left = _left_bits(i, depth, count, bits) if sets is None else sets[1][i]
                if left < count[i]:
                    oidx[depth] = oend[depth]
                    continue
            o = ostack[oidx[depth]]
            chosen[depth] = o
            tpos = _log(tracing, ev_kind, ev_row, ev_depth, tpos, E_PLACE, o, depth)
            if sets is None:
                n_active, ok = _place_bits(o, kind[depth], depth, n_active, opt_ptr, opt_items,
                                           items, bits)  # fmt: skip
            else:
                n_active, ok = _place_sets(o, kind[depth], n_active, opt_ptr, opt_items,
                                           n_primary, items, sets)  # fmt: skip
            depth, state = (depth + 1, ENTER) if ok else (depth, NEXT)
        elif state == NEXT:
            o = chosen[depth]
            tpos = _log(tracing, ev_kind, ev_row, ev_depth, tpos, E_REMOVE, o, depth)
            if kind[depth] == MULTI:
                if sets is None:
                    n_active = _exclude_bits(o, depth, count, saved_count, saved_active,
                                             has_multi, bits)  # fmt: skip
                else:
                    n_active = _exclude_sets(o, depth, opt_ptr, opt_items, where, count,
                                             saved_count, saved_active, has_multi,
                                             sets)  # fmt: skip
            oidx[depth] += 1
            state = TRY
        elif state == BACKTRACK:
            depth -= 1
            if depth < 0:
                state, depth = DONE, 0
                break
            state = NEXT
        else:  # DONE
            break
    _store(st, state, depth, osp, tpos, n_active)
    st[S_NODES] += max_nodes - budget
    return result
