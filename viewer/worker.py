"""The solver in a QThread: solutions arrive in batches, progress is throttled, Cancel works.

The window must never wait on a solver. The thread pulls the family's lazy solution listing
and posts batches at most ten times a second (thousands of one-item signals would flood the
event loop); `cancel()` reaches the search's own thread-safe cancel, which stops it at its next
slice boundary.

The first solve after an install compiles the numba exact-cover kernel (about 5 s, then cached
on disk). The worker checks for the compiled kernel first and, when it must be built, says so
(`preparing`) and builds it before the search, so the window can say "preparing the solver
(once per install)" instead of "no solution" beside "solving…".

For polycube puzzles the thread also sorts assemblies from solutions
(`solvers.interlocking`): an assembly no straight plan builds is taken apart by the
disassembler here, so the list can show its BurrTools level and the window never runs a
disassembly itself; one that does not come apart is no solution and is not listed (as with
`tessera solve --disassemble`). `assemblies` counts what the search found, `count` the
solutions listed. The disassembler's compiled search releases the GIL, and Cancel is checked
after every assembly. Its first use after an install compiles it (about 9 s): the worker says
`preparing` then too.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QThread, Signal

from tessera.viewer.families import Family

#: Solutions kept for the list; the count goes on past this (Bedlam has 19 186 classes).
MAX_LISTED = 20_000
BATCH_SECONDS = 0.1
#: Families whose search runs on the compiled exact-cover kernel.
KERNEL_FAMILIES = ("polycube", "domino")


def kernel_ready() -> bool:
    """Whether the exact-cover kernel is compiled in this process or cached on disk."""
    from tessera.solvers.kernels import exact_cover_ready

    return exact_cover_ready()


def disassembler_ready() -> bool:
    """The same for the disassembler's search (a few seconds to compile, once per install)."""
    from tessera.solvers.kernels import disassembler_ready as ready

    return ready()


def prepare_disassembler() -> None:
    """Compile (or load) the disassembler now: take two touching cubes apart."""
    import numpy as np

    from tessera.solvers.disassemble import disassemble

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

        from tessera.solvers.interlocking import plan_assembles

        plan_assembles([np.zeros((1, 3), np.int64), np.array([[1, 0, 0]])])


def prepare_kernel() -> None:
    """Compile (or load) the kernel now, in the calling thread."""
    from tessera.solvers.batch import warm_kernel

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
        self.assemblies = 0  # what the search found (more than `count` when some lock)
        self._disassembler_checked = False

    def cancel(self) -> None:
        """Ask the search to stop (any thread); `finished_search` follows shortly."""
        self._cancelled = True
        if self._job is not None:
            self._job.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def run(self) -> None:  # the worker thread
        batch: list = []
        last = time.monotonic()
        fraction = 0.0

        def on_progress(frac: float, n: int) -> None:
            nonlocal fraction, last
            fraction = frac
            now = time.monotonic()
            if now - last >= BATCH_SECONDS:
                last = now
                self._flush(batch, fraction)

        try:
            if self.family.family in KERNEL_FAMILIES and not kernel_ready():
                self.preparing.emit()
                prepare_kernel()
            self._job = self.family.solve()
            if self._cancelled:
                self._job.cancel()
            for found in self._job.solutions(on_progress):
                self.assemblies += 1
                solution = self._keep(found)
                if solution is None:  # an assembly that does not come apart
                    if self._cancelled:
                        break
                    continue
                self.count += 1
                if self.count <= MAX_LISTED:
                    batch.append(solution)
                now = time.monotonic()
                if now - last >= BATCH_SECONDS or self.count == 1:
                    last = now
                    self._flush(batch, fraction)
                if self._cancelled:
                    break
        except Exception as exc:  # a solver bug must not kill the app silently
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        self._flush(batch, 1.0 if not self._cancelled else fraction)
        self.finished_search.emit(self._cancelled, self.count)

    def _keep(self, found):
        """What the list shows of what the search found (None: not a solution)."""
        if self.family.family != "polycube":
            return found
        from tessera.solvers.interlocking import analyse, plan_assembles

        if not self._disassembler_checked and not plan_assembles([p.cells for p in found.pieces]):
            self._disassembler_checked = True  # the first interlocking assembly
            if not disassembler_ready():
                self.preparing.emit()
                prepare_disassembler()
        return analyse(self.family.puzzle, found, self.assemblies)

    def _flush(self, batch: list, fraction: float) -> None:
        if batch:
            self.found.emit(list(batch))
            batch.clear()
        self.progress.emit(float(fraction), self.count)
