"""The exact-cover kernel's arrays and codes, apart from the compiled code that runs on them.

`solvers.exact_cover` builds the arrays and reads the codes here; the kernel itself
(`_cells_kernel`, compiled by numba) imports them too. Nothing here imports numba, so a search
whose kernel was compiled ahead of time (`solvers.native`) starts without loading numba at all.
"""

from __future__ import annotations

import numpy as np

# scalar slots in the `st` array
S_STATE, S_DEPTH, S_OSP, S_NODES, S_FOUND, S_TPOS, S_ACTIVE = 0, 1, 2, 3, 4, 5, 6
N_SLOTS = 8

# machine states
ENTER, TRY, NEXT, BACKTRACK, DONE = 0, 1, 2, 3, 4

# what a level branches on (its `kind`), or why no level opens
EXACT, MULTI, DEAD, COVERED = 0, 1, 2, 3

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


#: A matrix is searched with bitsets when its bitsets (one word per 64 options, per
#: item) stay this small: above that the sparse sets touch less memory per node.
BITS_MAX_WORDS = 1024
BITS_MAX_BYTES = 8 << 20


def build_bits(n_items, opt_ptr, opt_items, depth_cap):
    """Each item's options as a bitset over the options (one row per item), the live set (all
    options) and the per-level word lists. Plain numpy, like `build`."""
    n_opts = opt_ptr.shape[0] - 1
    n_words = max((n_opts + 63) // 64, 1)
    item_bits = np.zeros((n_items, n_words), np.uint64)
    node_opt = np.repeat(np.arange(n_opts, dtype=np.int64), np.diff(opt_ptr).astype(np.int64))
    bit = np.left_shift(np.uint64(1), (node_opt & 63).astype(np.uint64))
    np.bitwise_or.at(item_bits, (opt_items.astype(np.int64), node_opt >> 6), bit)
    live = np.zeros(n_words, np.uint64)
    full, rest = divmod(n_opts, 64)
    live[:full] = np.uint64(0xFFFFFFFFFFFFFFFF)
    if rest:
        live[full] = np.uint64((1 << rest) - 1)
    saved_live = np.zeros((depth_cap, n_words), np.uint64)
    words = np.zeros((depth_cap + 1, n_words), np.uint32)
    words[0] = np.arange(n_words, dtype=np.uint32)
    n_words_at = np.zeros(depth_cap + 1, np.int64)
    n_words_at[0] = n_words
    return item_bits, live, saved_live, words, n_words_at
