"""Compiled dancing-links kernel behind `solvers.exact_cover`.

The search is an explicit state machine rather than recursion so that it can stop after a
budget of nodes, return to Python (to hand over a solution, drain the trace buffer, report
progress or notice a cancel request) and later resume exactly where it was. All state lives in
numpy arrays owned by the Python side; nothing here allocates per node.

Columns carry a multiplicity: a piece with k identical copies is one column that must be hit
exactly k times. Such a column is never branched on while a cell column is open; when it must
be, its rows are tried in order and each tried row is hidden ("tweaked", as in Knuth's
Algorithm M) for its later siblings, so a multiset of placements is found once, never k! times.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# scalar slots in the `st` array
S_STATE, S_DEPTH, S_TSP, S_NODES, S_FOUND, S_TPOS = 0, 1, 2, 3, 4, 5
N_SLOTS = 8

# machine states
ENTER, TRY, NEXT, BACKTRACK, DONE = 0, 1, 2, 3, 4

# return codes
R_DONE, R_SOLUTION, R_BUDGET, R_TRACE_FULL = 0, 1, 2, 3

# trace event kinds (mirror solvers.trace.EventKind)
E_PLACE, E_REMOVE, E_SOLUTION = 0, 1, 2


@njit(cache=True)
def build(n_cols, n_primary, row_ptr, row_cols, mult):
    """Lay out the dancing-links arrays for a matrix given in CSR form."""
    n_rows = row_ptr.shape[0] - 1
    n_nodes = n_cols + 1 + row_cols.shape[0]
    L = np.empty(n_nodes, np.int64)
    R = np.empty(n_nodes, np.int64)
    U = np.empty(n_nodes, np.int64)
    D = np.empty(n_nodes, np.int64)
    C = np.empty(n_nodes, np.int64)
    ROW = np.full(n_nodes, -1, np.int64)
    LEN = np.zeros(n_cols + 1, np.int64)
    COUNT = np.ones(n_cols + 1, np.int64)
    MULT = np.ones(n_cols + 1, np.int64)
    # headers: node 0 is the root, column c is node c + 1
    for h in range(n_cols + 1):
        U[h] = h
        D[h] = h
        C[h] = h
    for c in range(n_cols):
        MULT[c + 1] = mult[c]
        COUNT[c + 1] = mult[c]
    # primary headers in the root ring; secondary headers ring on themselves
    prev = 0
    for c in range(n_primary):
        h = c + 1
        R[prev] = h
        L[h] = prev
        prev = h
    R[prev] = 0
    L[0] = prev
    for c in range(n_primary, n_cols):
        h = c + 1
        L[h] = h
        R[h] = h
    node = n_cols + 1
    for r in range(n_rows):
        first = node
        for k in range(row_ptr[r], row_ptr[r + 1]):
            h = row_cols[k] + 1
            C[node] = h
            ROW[node] = r
            U[node] = U[h]
            D[node] = h
            D[U[h]] = node
            U[h] = node
            LEN[h] += 1
            L[node] = node - 1
            R[node] = node + 1
            node += 1
        if node > first:
            L[first] = node - 1
            R[node - 1] = first
    return L, R, U, D, C, ROW, LEN, COUNT, MULT


@njit(cache=True)
def _cover(c, L, R, U, D, C, LEN):
    R[L[c]] = R[c]
    L[R[c]] = L[c]
    i = D[c]
    while i != c:
        j = R[i]
        while j != i:
            D[U[j]] = D[j]
            U[D[j]] = U[j]
            LEN[C[j]] -= 1
            j = R[j]
        i = D[i]


@njit(cache=True)
def _uncover(c, L, R, U, D, C, LEN):
    i = U[c]
    while i != c:
        j = L[i]
        while j != i:
            LEN[C[j]] += 1
            D[U[j]] = j
            U[D[j]] = j
            j = L[j]
        i = U[i]
    R[L[c]] = c
    L[R[c]] = c


@njit(cache=True)
def _use(c, L, R, U, D, C, LEN, COUNT):
    COUNT[c] -= 1
    if COUNT[c] == 0:
        _cover(c, L, R, U, D, C, LEN)


@njit(cache=True)
def _unuse(c, L, R, U, D, C, LEN, COUNT):
    if COUNT[c] == 0:
        _uncover(c, L, R, U, D, C, LEN)
    COUNT[c] += 1


@njit(cache=True)
def run(
    L, R, U, D, C, ROW, LEN, COUNT, MULT,
    st, col, node, kind, nchoice, idx, tstart, tstack,
    sol, ev_kind, ev_row, ev_depth,
    max_nodes, count_only, tracing,
):  # fmt: skip
    """Advance the search until a solution (unless counting), the node budget, the trace
    buffer filling up, or the end. Returns one of the R_* codes."""
    state = st[S_STATE]
    depth = st[S_DEPTH]
    tsp = st[S_TSP]
    tpos = st[S_TPOS]
    budget = max_nodes
    cap = ev_kind.shape[0]
    result = R_DONE
    while True:
        if tracing and tpos + 2 >= cap:
            result = R_TRACE_FULL
            break
        if state == ENTER:
            if budget <= 0:
                result = R_BUDGET
                break
            budget -= 1
            st[S_NODES] += 1
            # choose the open primary column with the fewest rows (MRV)
            best = -1
            best_len = 1 << 62
            multi_best = -1
            multi_len = 1 << 62
            dead = False
            c = R[0]
            while c != 0:
                n = LEN[c]
                if MULT[c] == 1:
                    if n < best_len:
                        best_len = n
                        best = c
                        if n == 0:
                            dead = True
                            break
                else:
                    if n < COUNT[c]:
                        dead = True
                        break
                    if n < multi_len:
                        multi_len = n
                        multi_best = c
                c = R[c]
            if dead:
                state = BACKTRACK
                continue
            if best == -1 and multi_best == -1:
                # every primary column satisfied: a solution
                for d in range(depth):
                    sol[d] = ROW[node[d]]
                st[S_FOUND] += 1
                if tracing:
                    ev_kind[tpos] = E_SOLUTION
                    ev_row[tpos] = -1
                    ev_depth[tpos] = depth
                    tpos += 1
                state = BACKTRACK
                if not count_only:
                    result = R_SOLUTION
                    break
                continue
            if best != -1:
                col[depth] = best
                kind[depth] = 0
                _cover(best, L, R, U, D, C, LEN)
            else:
                col[depth] = multi_best
                kind[depth] = 1
            c = col[depth]
            node[depth] = D[c]
            nchoice[depth] = LEN[c]
            idx[depth] = 0
            tstart[depth] = tsp
            state = TRY
        elif state == TRY:
            c = col[depth]
            i = node[depth]
            exhausted = i == c
            if kind[depth] == 1 and LEN[c] < COUNT[c]:
                exhausted = True
            if exhausted:
                if kind[depth] == 0:
                    _uncover(c, L, R, U, D, C, LEN)
                else:
                    # bring back the rows tweaked away at this level, newest first
                    while tsp > tstart[depth]:
                        tsp -= 1
                        j0 = tstack[tsp]
                        j = L[j0]
                        while True:
                            LEN[C[j]] += 1
                            D[U[j]] = j
                            U[D[j]] = j
                            if j == j0:
                                break
                            j = L[j]
                state = BACKTRACK
                continue
            if kind[depth] == 0:
                j = R[i]
                while j != i:
                    _use(C[j], L, R, U, D, C, LEN, COUNT)
                    j = R[j]
            else:
                # tweak: take the whole row out first, then use each of its columns
                j = i
                while True:
                    D[U[j]] = D[j]
                    U[D[j]] = U[j]
                    LEN[C[j]] -= 1
                    j = R[j]
                    if j == i:
                        break
                tstack[tsp] = i
                tsp += 1
                j = i
                while True:
                    _use(C[j], L, R, U, D, C, LEN, COUNT)
                    j = R[j]
                    if j == i:
                        break
            if tracing:
                ev_kind[tpos] = E_PLACE
                ev_row[tpos] = ROW[i]
                ev_depth[tpos] = depth
                tpos += 1
            depth += 1
            state = ENTER
        elif state == NEXT:
            i = node[depth]
            if kind[depth] == 0:
                j = L[i]
                while j != i:
                    _unuse(C[j], L, R, U, D, C, LEN, COUNT)
                    j = L[j]
            else:
                j = L[i]
                while True:
                    _unuse(C[j], L, R, U, D, C, LEN, COUNT)
                    if j == i:
                        break
                    j = L[j]
            if tracing:
                ev_kind[tpos] = E_REMOVE
                ev_row[tpos] = ROW[i]
                ev_depth[tpos] = depth
                tpos += 1
            node[depth] = D[i]
            idx[depth] += 1
            state = TRY
        elif state == BACKTRACK:
            depth -= 1
            if depth < 0:
                state = DONE
                depth = 0
                result = R_DONE
                break
            state = NEXT
        else:
            result = R_DONE
            break
    st[S_STATE] = state
    st[S_DEPTH] = depth
    st[S_TSP] = tsp
    st[S_TPOS] = tpos
    return result
