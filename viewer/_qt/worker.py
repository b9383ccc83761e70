"""The solver as a `background.Worker` job: solutions arrive in batches, progress is
throttled, Cancel works.

The window must never wait on a solver. The thread pulls the family's lazy solution listing
and posts batches at most ten times a second (thousands of one-item signals would flood the
event loop); the worker's `cancel()` reaches the search's own thread-safe cancel, which stops
it at its next slice boundary.

The first solve after an install compiles a numba kernel (a few seconds, then cached on disk):
the job listens for `solvers.kernels`' compile notices and reports `PREPARING`, so the window
can say "preparing the solver (once per install)" instead of "no solution" beside "solving…".

What the list shows of each thing the search finds is the family's `keep` capability: for
polycube puzzles an assembly no straight plan builds is taken apart by the disassembler here,
so the list can show its BurrTools level and the window never runs a disassembly itself; one
that does not come apart is no solution and is not listed (as with `tessera solve
--disassemble`). `assemblies` counts what the search found, `count` the solutions listed. The
disassembler's compiled search releases the GIL, and Cancel is checked after every assembly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tessera.solvers.kernels import compile_notices
from tessera.viewer._qt.background import Worker
from tessera.viewer.families import Family

#: Solutions kept for the list; the count goes on past this (Bedlam has 19 186 classes).
MAX_LISTED = 20_000
BATCH_SECONDS = 0.1


def kernel_ready() -> bool:
    """Whether the exact-cover kernel is compiled in this process or cached on disk."""
    from tessera.solvers.warmup import exact_cover_ready

    return exact_cover_ready()


def disassembler_ready() -> bool:
    """The same for the disassembler's search (a few seconds to compile, once per install)."""
    from tessera.solvers.warmup import disassembler_ready as ready

    return ready()


def prepare_disassembler() -> None:
    """Compile (or load) the disassembler now: take two touching cubes apart."""
    import numpy as np

    from tessera.solvers.polycube.disassemble import disassemble

    disassemble([np.zeros((1, 3), np.int64), np.array([[1, 0, 0]])])


def load_cached_kernels() -> None:
    """Load the compiled kernels a first solve uses, when they are already cached on disk,
    before the window shows: loading holds the interpreter for a few tenths of a second,
    which in the worker thread would freeze a window that is already up. Nothing is compiled
    here (a fresh install compiles in the worker, saying "preparing the solver")."""
    if kernel_ready():
        prepare_kernel()
    if disassembler_ready():
        import numpy as np

        from tessera.solvers.polycube.interlocking import plan_assembles

        plan_assembles([np.zeros((1, 3), np.int64), np.array([[1, 0, 0]])])


def prepare_kernel() -> None:
    """Compile (or load) the kernel now, in the calling thread."""
    from tessera.solvers.polycube.batch import warm_kernel

    warm_kernel()


@dataclass(frozen=True)
class Batch:
    """What the solve job reports: solutions new since the last batch (maybe none), the
    fraction of the search done and the solutions listed so far."""

    found: list
    fraction: float
    count: int


#: reported once when the solver's kernel is being compiled (first solve of an install)
PREPARING = "preparing"


class SolveJob:
    """The family's search as a `background.Worker` job: `Batch`es at most ten a second,
    `PREPARING` when a kernel compiles, the count listed as the result."""

    def __init__(self, family: Family) -> None:
        self.family = family
        self.count = 0  # solutions listed
        self.assemblies = 0  # what the search found (more than `count` when some lock)
        self._batch: list = []
        self._last = 0.0
        self._fraction = 0.0
        self._worker = None

    def __call__(self, worker) -> int:  # the worker thread
        self._worker = worker
        self._last = time.monotonic()
        keep = self.family.entry.keep
        try:
            with compile_notices(lambda _kernel: worker.report(PREPARING)):
                search = self.family.solve()
                worker.on_cancel(search.cancel)
                for found in search.solutions(self._on_progress):
                    self.assemblies += 1
                    if keep is not None:  # e.g. burrs: only the assemblies that come apart
                        found = keep(self.family.puzzle, found, self.assemblies)
                    if found is not None:
                        self._list(found)
                    if worker.cancelled:
                        break
        finally:
            self._flush(1.0 if not worker.cancelled else self._fraction)
        return self.count

    def _on_progress(self, fraction: float, n: int) -> None:
        self._fraction = fraction
        now = time.monotonic()
        if now - self._last >= BATCH_SECONDS:
            self._last = now
            self._flush(fraction)

    def _list(self, solution) -> None:
        """One more solution for the list, sent in batches (the first at once)."""
        self.count += 1
        if self.count <= MAX_LISTED:
            self._batch.append(solution)
        now = time.monotonic()
        if now - self._last >= BATCH_SECONDS or self.count == 1:
            self._last = now
            self._flush(self._fraction)

    def _flush(self, fraction: float) -> None:
        batch, self._batch = self._batch, []
        self._worker.report(Batch(batch, float(fraction), self.count))


def solve_worker(family: Family, parent=None) -> Worker:
    """A worker (not started) that solves `family`; `worker.job` is its `SolveJob`."""
    return Worker(SolveJob(family), parent)
