"""The window's solver: one `background.Worker` running `worker.SolveJob` on the puzzle shown.

What the search finds goes to the state (`ViewerState.add_solutions`), its progress to the
solution panel and the status line; nothing here decides what the scene shows. A new puzzle
abandons the old search first (its queued batches are dropped: `sender() is self.worker`), so
two searches never share the cores, and a search that ignores Cancel is kept to be waited for
at close rather than blocking the window now.

The listed solutions are kept out of Python's full garbage collections (`gc.freeze` after each
batch, `gc.unfreeze` when the next puzzle's search replaces them): a full collection walks every
object, holding the interpreter, and Bedlam's listed solutions are some 800,000 of them, so the
collections the search's own allocations set off froze the window for 150-300 ms each. Frozen
objects are still freed when their last reference goes; only reference cycles among them wait
for the unfreeze.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from tessera.viewer._qt.background import Worker
from tessera.viewer._qt.controls import SolutionPanel
from tessera.viewer._qt.status import StatusLine
from tessera.viewer._qt.worker import PREPARING, Batch, solve_worker
from tessera.viewer.families import Family
from tessera.viewer.state import ViewerState


def impossible_reason(family: Family) -> str | None:
    """Why the puzzle cannot have a solution, when that is known before searching."""
    check = getattr(family.puzzle, "volume_problem", None)
    return check() if callable(check) else None


class Solving(QObject):
    """Starts, follows and stops the solve worker. `finished(cancelled, count)` when the
    current puzzle's search ended; `worker` is the current one (None before a puzzle)."""

    finished = Signal(bool, int)

    def __init__(
        self,
        state: ViewerState,
        panel: SolutionPanel,
        status: StatusLine,
        show_error: Callable[[str], None],
        parent=None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.panel = panel
        self.status = status
        self.show_error = show_error
        # Every row of the list is one line of text. Told so, the list lays out a batch of new
        # rows at once; otherwise it measures every row it holds after each batch (Bedlam's
        # 19,186: over 100 ms a batch by the end, ten batches a second, on the GUI thread).
        panel.list.setUniformItemSizes(True)
        self.worker: Worker | None = None
        self._family: Family | None = None  # what the current search was started on
        self._old: list[Worker] = []  # searches that ignored Cancel: waited for at close

    @property
    def solving(self) -> bool:
        return self.worker is not None and not self.worker.done

    def forget(self) -> None:
        """A new puzzle: the next `start` solves it even if it is the same object."""
        self._family = None

    def start(self) -> None:
        """The solver on the puzzle shown, unless it runs (or ran) on it already."""
        family = self.state.family
        if family is None or self._family is family:
            return
        self._family = family
        gc.unfreeze()
        self.worker = solve_worker(family, self)
        self.worker.progress.connect(self._on_progress)
        self.worker.failed.connect(self._on_failed)
        self.worker.ended.connect(self._on_ended)
        self.worker.start()

    def stop(self, wait_ms: int = 5000) -> None:
        """Abandon the running search and wait (a while) for its thread."""
        worker, self.worker = self.worker, None
        if worker is None:
            return
        gc.unfreeze()
        worker.abandon()
        if not worker.wait(wait_ms):  # pragma: no cover - a solver ignoring cancel
            self._old.append(worker)

    def cancel(self) -> None:
        """The user's Cancel: the search stops and says so (`finished(True, count)`)."""
        if self.worker is not None:
            self.worker.cancel()

    def shutdown(self) -> None:
        self.stop()
        for worker in self._old:
            worker.wait(2000)

    def _on_progress(self, report) -> None:
        if self.worker is None or self.sender() is not self.worker:
            return  # queued by the previous puzzle's worker
        if report == PREPARING:
            self.panel.preparing()
            self.status.show_preparing()
        elif isinstance(report, Batch):
            if report.found:
                self.state.add_solutions(report.found)
                gc.freeze()  # see the module's doc: no full collection walks them again
            self.panel.show_progress(report.fraction, report.count)

    def _on_failed(self, message: str) -> None:
        self.show_error(f"solver failed: {message}")

    def _on_ended(self) -> None:
        worker = self.sender()
        if worker is None or worker is not self.worker:
            return  # an abandoned search's end, queued before it was abandoned
        cancelled, count = worker.cancelled, worker.job.count
        self.panel.finish(cancelled or worker.error is not None, count)
        self.status.refresh()
        if worker.error is not None:  # what failed, never "no solution" (issue 21 F4)
            self.panel.count_label.setText(f"solver failed: {count} found")
            self.panel.reason.setText(f"solver failed: {worker.error}")
            self.panel.reason.setVisible(True)
            self.status.solution.setText("solver failed")
        self.finished.emit(cancelled, count)
