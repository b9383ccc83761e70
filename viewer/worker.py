"""The solver in a QThread: solutions arrive in batches, progress is throttled, Cancel works.

The window must never wait on a solver. The thread pulls the family's lazy solution listing
and posts batches at most ten times a second (thousands of one-item signals would flood the
event loop); `cancel()` reaches the search's own thread-safe cancel, which stops it at its next
slice boundary.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QThread, Signal

from tessera.viewer.families import Family

#: Solutions kept for the list; the count goes on past this (Bedlam has 19 186 classes).
MAX_LISTED = 20_000
BATCH_SECONDS = 0.1


class SolveWorker(QThread):
    found = Signal(list)  # a batch of new solutions
    progress = Signal(float, int)  # fraction of the search done, solutions so far
    failed = Signal(str)
    finished_search = Signal(bool, int)  # cancelled?, total found

    def __init__(self, family: Family, parent=None) -> None:
        super().__init__(parent)
        self.family = family
        self._job = None
        self._cancelled = False
        self.count = 0

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
            self._job = self.family.solve()
            if self._cancelled:
                self._job.cancel()
            for solution in self._job.solutions(on_progress):
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

    def _flush(self, batch: list, fraction: float) -> None:
        if batch:
            self.found.emit(list(batch))
            batch.clear()
        self.progress.emit(float(fraction), self.count)
