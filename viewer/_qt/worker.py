"""The solver in a QThread: solutions arrive in batches, progress is throttled, Cancel works.

The window must never wait on a solver. The thread pulls the family's lazy solution listing
and posts batches at most ten times a second (thousands of one-item signals would flood the
event loop); `cancel()` reaches the search's own thread-safe cancel, which stops it at its next
slice boundary.

The first solve after an install compiles a numba kernel (a few seconds, then cached on disk):
the worker listens for `solvers.kernels`' compile notices and says `preparing`, so the window
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

from PySide6.QtCore import QThread, Signal

from tessera.solvers.kernels import compile_notices
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


class SolveWorker(QThread):
    found = Signal(list)  # a batch of new solutions
    progress = Signal(float, int)  # fraction of the search done, solutions so far
    failed = Signal(str)
    finished_search = Signal(bool, int)  # cancelled?, total found
    preparing = Signal()  # the solver's kernel is being compiled (first solve of an install)

    def __init__(self, family: Family, parent=None) -> None:
        super().__init__(parent)
        self.family = family
        self._job = None
        self._cancelled = False
        self.count = 0  # solutions listed
        self.done = False  # the search has ended (finished or cancelled)
        self.assemblies = 0  # what the search found (more than `count` when some lock)

    def cancel(self) -> None:
        """Ask the search to stop (any thread); `finished_search` follows shortly."""
        self._cancelled = True
        if self._job is not None:
            self._job.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def run(self) -> None:  # the worker thread
        self._batch: list = []
        self._last = time.monotonic()
        self._fraction = 0.0
        keep = self.family.entry.keep
        try:
            with compile_notices(self._say_preparing):
                self._job = self.family.solve()
                if self._cancelled:
                    self._job.cancel()
                for found in self._job.solutions(self._on_progress):
                    self.assemblies += 1
                    if keep is not None:  # e.g. burrs: only the assemblies that come apart
                        found = keep(self.family.puzzle, found, self.assemblies)
                    if found is not None:
                        self._list(found)
                    if self._cancelled:
                        break
        except Exception as exc:  # a solver bug must not kill the app silently
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        self._flush(self._batch, 1.0 if not self._cancelled else self._fraction)
        # before the signal: its slots must see the search as over, though the thread is
        # still returning from run()
        self.done = True
        self.finished_search.emit(self._cancelled, self.count)

    def _say_preparing(self, kernel: str) -> None:
        self.preparing.emit()

    def _on_progress(self, fraction: float, n: int) -> None:
        self._fraction = fraction
        now = time.monotonic()
        if now - self._last >= BATCH_SECONDS:
            self._last = now
            self._flush(self._batch, fraction)

    def _list(self, solution) -> None:
        """One more solution for the list, sent in batches (the first at once)."""
        self.count += 1
        if self.count <= MAX_LISTED:
            self._batch.append(solution)
        now = time.monotonic()
        if now - self._last >= BATCH_SECONDS or self.count == 1:
            self._last = now
            self._flush(self._batch, self._fraction)

    def _flush(self, batch: list, fraction: float) -> None:
        if batch:
            self.found.emit(list(batch))
            batch.clear()
        self.progress.emit(float(fraction), self.count)
