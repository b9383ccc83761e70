"""The one exact-cover engine: Algorithm X on dancing cells, compiled with numba.

Polycube packing and domino tiling are both exact cover; so are hint queries (a partial
assembly is a smaller problem). This module is the only search engine for them. It is a
resumable machine: `Search` runs the compiled kernel in slices, so the same object serves

* lazy solutions (`for rows in search.solutions()`),
* fast counting (`search.count()`: no Python per node or per solution),
* progress reports and cancellation from another thread (`search.cancel()`),
* a trace of place/remove events for stepping through the search in the viewer,
* work for another thread: between slices a search can `split()` off part of what is still
  ahead of it, as a search of its own (`solvers.work_queue` keeps the cores busy with it).

Small matrices (up to 65,536 options) hold their live options as bitsets, larger ones as the
items' sparse sets (`_cells_kernel`); both find the same solutions. The kernel is loaded
through `native`: built ahead of time when it was, else from numba's cache.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from tessera.solvers import _cells_layout as K
from tessera.solvers import native
from tessera.solvers.search_control import Cancelled, Progress, Report, Search, tree_fraction
from tessera.solvers.trace import EventKind, TraceEvent


@dataclass(frozen=True)
class ExactCoverProblem:
    """A 0/1 matrix given by rows (lists of column numbers).

    Columns `0 .. n_primary-1` are primary: each must be covered exactly `multiplicity[c]`
    times (1 unless given). The others are secondary: covered at most `multiplicity[c]` times
    (1 unless given) and at least `lower[c]` times (0 unless given). Rows are the choices
    (placements); their numbers are what solutions and trace events report.
    """

    rows: Sequence[Sequence[int]]
    n_primary: int
    n_columns: int
    multiplicity: Sequence[int] | None = None
    lower: Sequence[int] | None = None
    column_names: Sequence[str] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.n_primary <= self.n_columns:
            raise ValueError("n_primary must lie between 0 and n_columns")
        for row in self.rows:
            for c in row:
                if not 0 <= c < self.n_columns:
                    raise ValueError(f"column {c} out of range")

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.fromiter((len(r) for r in self.rows), np.int64, len(self.rows))
        row_ptr = np.zeros(len(self.rows) + 1, np.int64)
        np.cumsum(lengths, out=row_ptr[1:])
        cols = np.fromiter((c for r in self.rows for c in r), np.int64, int(row_ptr[-1]))
        return row_ptr, cols

    def mult_array(self) -> np.ndarray:
        mult = np.ones(self.n_columns, np.int64)
        if self.multiplicity is not None:
            mult[: len(self.multiplicity)] = np.asarray(self.multiplicity, np.int64)
        return mult

    def lower_array(self) -> np.ndarray:
        """The least number of hits per column; only secondary columns may ask for any."""
        low = np.zeros(self.n_columns, np.int64)
        if self.lower is not None:
            low[: len(self.lower)] = np.asarray(self.lower, np.int64)
        low[: self.n_primary] = 0
        return low


__all__ = ["Cancelled", "ExactCoverProblem", "ExactCoverSearch", "Search", "solve"]


class ExactCoverSearch(Search):
    """One run of Algorithm X over a problem (the search protocol of `search_control`)."""

    def __init__(
        self,
        problem: ExactCoverProblem,
        *,
        trace: bool = False,
        slice_nodes: int = 50_000,
        trace_buffer: int = 1 << 16,
        max_bytes: int = 1 << 30,
        bitsets: bool | None = None,
    ) -> None:
        """`bitsets`: hold the live options as bitsets (True) or sparse sets (False); by
        default bitsets when they are small (`_cells_kernel.BITS_MAX_WORDS`). Both find the
        same solutions; the choice is for speed (and for tests and warm-up)."""
        self.problem = problem
        self._want_bits = bitsets
        self.tracing = trace
        self.slice_nodes = slice_nodes
        self.events: list[TraceEvent] = []
        Search.__init__(self)
        #: The share of the whole search tree this search stands for: 1 unless it was split
        #: off another search (`split`), or gave work away itself. An estimate, for progress.
        self.share = 1.0
        opt_ptr, opt_items = problem.csr()
        self._setup(opt_ptr, opt_items, None, trace_buffer, max_bytes)

    def _setup(
        self,
        opt_ptr: np.ndarray,
        opt_items: np.ndarray,
        rows: np.ndarray | None,
        trace_buffer: int,
        max_bytes: int,
    ) -> None:
        """Search state for the matrix (opt_ptr, opt_items): the problem's, or part of it
        whose row r is the problem's row `rows[r]` (a search split off another)."""
        problem = self.problem
        trace = self.tracing
        self._rows = rows
        mult = problem.mult_array()
        # Sizing. Every chosen option covers at least `least` units of the primary items'
        # multiplicities, so no path is deeper than units // least (+2 for the kernel's
        # look-ahead). The kernel keeps one copy of the item sizes (and of the counts, with
        # multiplicities) per depth: a dense depth × items block, refused before allocation
        # when it cannot fit. The option stack starts at two options per row and grows on
        # overflow: exactly-once levels (always above the multi-item ones on a path) never
        # push an option twice, so only multi-item levels can overflow, and they resume safely.
        n_primary = problem.n_primary
        units = int(mult[:n_primary].sum())
        n_rows = len(opt_ptr) - 1
        if n_rows and n_primary:
            row_of = np.repeat(np.arange(n_rows), np.diff(opt_ptr))
            primary_per_row = np.bincount(row_of[opt_items < n_primary], minlength=n_rows)
            useful = primary_per_row[primary_per_row > 0]
            least = int(useful.min()) if len(useful) else 1
        else:
            least = 1
        depth_cap = units // max(least, 1) + 2
        n_items = max(problem.n_columns, 1)
        has_multi = bool((mult > 1).any())
        per_level = n_items * (4 + (8 if has_multi else 0)) + 6 * 8
        need = depth_cap * per_level + 2 * max(n_rows, 1) * 4 + len(opt_items) * 16
        if need > max_bytes:
            from tessera.models.errors import PuzzleError

            raise PuzzleError(
                f"too big to search: {problem.n_columns:,} items over up to {depth_cap:,} "
                f"levels would need {need / (1 << 30):.1f} GiB of search state (the limit is "
                f"{max_bytes / (1 << 30):.1f} GiB)"
            )
        self._matrix = (opt_ptr.astype(np.uint32), opt_items.astype(np.uint32), problem.n_primary)
        self._trace_buffer, self._max_bytes = trace_buffer, max_bytes
        n_words = max((n_rows + 63) // 64, 1)
        self._bits = self._want_bits
        if self._bits is None:
            self._bits = (
                n_words <= K.BITS_MAX_WORDS
                and (n_items + 2 * depth_cap + 1) * n_words * 8 <= K.BITS_MAX_BYTES
            )
        # the kernel's two ways of holding the live options: sparse sets are None when the
        # bitsets are used, and bitsets placeholders when the sparse sets are
        if self._bits:
            self._sets = None
            self._bitsets = K.build_bits(n_items, *self._matrix[:2], depth_cap)
            self._active = (
                np.arange(problem.n_columns, dtype=np.uint32),
                np.arange(problem.n_columns, dtype=np.int64),
                mult.astype(np.int64).copy(),
            )
        else:
            sets = K.build(problem.n_columns, *self._matrix[:2], mult)
            self._sets = (*sets[:5], np.zeros((depth_cap, n_items), np.uint32))
            self._bitsets = K.build_bits(1, np.zeros(1, np.uint32), np.zeros(0, np.uint32), 1)
            self._active = sets[5:]
        self._run = native.cells_run()
        self._mult = mult
        self._low = problem.lower_array()
        self._has_low = bool(self._low.any())
        self._st = np.zeros(K.N_SLOTS, np.int64)
        self._st[K.S_ACTIVE] = problem.n_columns
        self._item = np.zeros(depth_cap, np.int64)
        self._kind = np.zeros(depth_cap, np.int64)
        self._ostart = np.zeros(depth_cap, np.int64)
        self._oend = np.zeros(depth_cap, np.int64)
        self._oidx = np.zeros(depth_cap, np.int64)
        self._chosen = np.zeros(depth_cap, np.int64)
        self._has_multi = has_multi
        self._saved_count = np.zeros((depth_cap if self._has_multi else 1, n_items), np.int64)
        self._saved_active = np.zeros(depth_cap, np.int64)
        self._ostack = np.zeros(max(n_rows, 1) * 2, np.uint32)
        cap = trace_buffer if trace else 4
        self._ev = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64))
        self.done = False

    # -- state readouts ------------------------------------------------------------------
    @property
    def nodes(self) -> int:
        return int(self._st[K.S_NODES])

    @property
    def found(self) -> int:
        return int(self._st[K.S_FOUND])

    @property
    def depth(self) -> int:
        return int(self._st[K.S_DEPTH])

    def progress(self) -> float:
        """Fraction of the search tree behind us, from the branch indices near the root."""
        if self.done:
            return 1.0
        top = range(min(self.depth, 12))
        return tree_fraction(
            (int(self._oidx[d] - self._ostart[d]), int(self._oend[d] - self._ostart[d]))
            for d in top
        )

    # -- running --------------------------------------------------------------------------
    def _step(self, count_only: bool) -> int:
        while True:
            code = self._run(
                *self._matrix, *self._active, self._mult, self._low, self._st, self._item,
                self._kind, self._ostart, self._oend, self._oidx, self._chosen,
                self._saved_count, self._saved_active, self._ostack, *self._ev,
                self.slice_nodes, count_only, self.tracing, self._has_multi, self._has_low,
                self._sets, self._bitsets,
            )  # fmt: skip
            if code != K.R_OVERFLOW:
                break
            self._ostack = np.concatenate([self._ostack, np.zeros_like(self._ostack)])
        if self.tracing:
            self._drain_trace()
        if code == K.R_DONE:
            self.done = True
        return code

    def _drain_trace(self) -> None:
        n = int(self._st[K.S_TPOS])
        kinds, rows, depths = (a[:n].tolist() for a in self._ev)
        self.events.extend(
            TraceEvent(EventKind(k), r, d) for k, r, d in zip(kinds, rows, depths, strict=True)
        )
        self._st[K.S_TPOS] = 0

    def check_often(self) -> None:
        self.slice_nodes = 256

    def advance(self, nodes: int) -> bool:
        """Count on for at most `nodes` more nodes (the caller's time slice: whether a count
        is quick enough to finish here); True once the search is done. `count()` goes on from
        where this stopped."""
        if not self.done and not self.cancelled:
            slice_nodes, self.slice_nodes = self.slice_nodes, max(1, nodes)
            try:
                self._step(count_only=True)
            finally:
                self.slice_nodes = slice_nodes
        return self.done

    def split(self) -> ExactCoverSearch | None:
        """Hand over part of the work still ahead, for another thread: a new search, over the
        same problem, that finds exactly the solutions this one now leaves out. None when there
        is nothing to give (or this search is traced, done or cancelled).

        Call it only between slices, from the thread running the search (from its progress
        callback). The donor gives the later half of the untried options at its shallowest
        level that has any; every level above must branch on an exactly-once item, since then
        a solution holds exactly one option of each item and the two searches' solutions can
        never overlap: the new one is the matrix without the other options of the items on
        the path (so the path is forced) and of the given level (so only the given ones are
        tried). A level of a multi item (Algorithm M's tweak: its options are tried in order
        and each excludes its predecessors) is never split or split below."""
        if self.tracing or self.done or self.cancelled:
            return None
        depth = self.depth
        level = -1
        for d in range(depth):
            if self._kind[d] != K.EXACT:
                return None
            if self._oend[d] - self._oidx[d] > 1:
                level = d
                break
        if level < 0:
            return None
        untried = int(self._oend[level] - self._oidx[level] - 1)
        give = untried - untried // 2
        end = int(self._oend[level])
        given = self._ostack[end - give : end].astype(np.int64)
        share = self.share * give / max(int(end - self._ostart[level]), 1)
        for d in range(level):
            share /= max(int(self._oend[d] - self._ostart[d]), 1)
        self._oend[level] = end - give
        opt_ptr, opt_items, _ = self._matrix
        node_opt = np.repeat(np.arange(len(opt_ptr) - 1), np.diff(opt_ptr.astype(np.int64)))
        keep = np.ones(len(opt_ptr) - 1, bool)
        for d in range(level + 1):
            keep[node_opt[opt_items == self._item[d]]] = False
            keep[given if d == level else int(self._chosen[d])] = True
        lengths = np.diff(opt_ptr.astype(np.int64))[keep]
        child_ptr = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=child_ptr[1:])
        child_items = opt_items[keep[node_opt]]
        local = np.flatnonzero(keep)
        child = ExactCoverSearch.__new__(ExactCoverSearch)
        child.problem = self.problem
        child._want_bits = self._want_bits
        child.tracing = False
        child.slice_nodes = self.slice_nodes
        child.events = []
        Search.__init__(child)
        child.share = share
        self.share -= share
        rows = local if self._rows is None else self._rows[local]
        child._setup(child_ptr, child_items, rows, self._trace_buffer, self._max_bytes)
        return child

    def _solutions(self, report: Report | None) -> Iterator[tuple[int, ...]]:
        """Each solution as a tuple of row numbers."""
        reported = self.nodes
        while not self.done and not self.cancelled:
            code = self._step(count_only=False)
            if code == K.R_SOLUTION:
                chosen = self._chosen[: self.depth]
                if self._rows is not None:
                    chosen = self._rows[chosen]
                yield tuple(int(r) for r in chosen)
            # A search dense in solutions never ends a slice without one: report by work done.
            if report is not None and (
                code != K.R_SOLUTION or self.nodes - reported >= self.slice_nodes
            ):
                reported = self.nodes
                report()

    def count(self, limit: int | None = None, on_progress: Progress | None = None) -> int:
        """Count solutions; with no limit the kernel counts without a Python call per
        solution. Raises `Cancelled` if cancelled."""
        if limit is not None:
            return Search.count(self, limit, on_progress)
        while not self.done and not self.cancelled:
            self._step(count_only=True)
            if on_progress is not None:
                on_progress(self.progress(), self.found)
        if self.cancelled and not self.done:
            raise Cancelled(self.found)
        return self.found


def solve(problem: ExactCoverProblem, limit: int | None = None) -> list[tuple[int, ...]]:
    """All solutions (or the first `limit`) as lists of row numbers."""
    out: list[tuple[int, ...]] = []
    for rows in ExactCoverSearch(problem).solutions():
        out.append(rows)
        if limit is not None and len(out) >= limit:
            break
    return out
