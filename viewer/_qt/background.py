"""The window's one way to run work off the GUI thread: a `Worker` runs a job in its own thread.

The solver, Design's live count, the gallery's batch and Play's hints all go through it, so
cancelling, progress, errors and the end of a job mean the same everywhere:

* the job is a function called in the thread as `job(worker)`; it reports along the way with
  `worker.report(value)` (the `progress` signal, queued to the GUI thread) and looks at
  `worker.cancelled` where it can stop;
* `cancel()` (any thread) sets `cancelled` and calls the hooks the job registered with
  `on_cancel` (a search's own thread-safe cancel), at once if it comes after the cancel;
* the job's return value goes out as `returned`, an exception as `failed("Type: message")`
  (a solver bug is a message, never a dead app); `ended` follows either, last of all;
* `done` is set before `returned`, `failed` and `ended` are emitted, so their slots (the
  window's `solving`) see the job as over although the thread is still returning;
* `after` runs in the thread once the answer is out: housekeeping the answer need not wait for.

A plain QThread per job rather than a pool: a pool as large as the cores (two, on small
machines) would queue a hint behind a long count, and tests and shutdown wait on one job.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

from PySide6.QtCore import QThread, Signal


class Worker(QThread):
    progress = Signal(object)  # what the job reported (`report`)
    returned = Signal(object)  # the job's result
    failed = Signal(str)  # the job raised: "Type: message"
    ended = Signal()  # after `returned` or `failed`: the job is over

    def __init__(
        self,
        job: Callable[[Worker], object],
        parent=None,
        after: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(parent)
        self.job = job
        self.after = after
        self.result: object = None
        self.error: str | None = None
        self.done = False  # the job has ended (returned, failed or cancelled)
        self._cancelled = False
        self._hooks: list[Callable[[], object]] = []
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Ask the job to stop (any thread); `ended` follows when it has."""
        with self._lock:
            self._cancelled = True
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    def on_cancel(self, hook: Callable[[], object]) -> None:
        """Call `hook` on `cancel()`; at once when the job was cancelled already."""
        with self._lock:
            self._hooks.append(hook)
            cancelled = self._cancelled
        if cancelled:
            hook()

    def report(self, value: object) -> None:
        """From the job: one piece of progress for the GUI thread."""
        self.progress.emit(value)

    def abandon(self) -> None:
        """Nothing more of this job reaches its listeners, and it is asked to stop (a newer
        job replaces it; the caller may still `wait()` for the thread)."""
        with warnings.catch_warnings():  # PySide warns about a signal nobody listened to
            warnings.simplefilter("ignore", RuntimeWarning)
            for signal in (self.progress, self.returned, self.failed, self.ended):
                try:
                    signal.disconnect()
                except (RuntimeError, TypeError):  # nothing was connected
                    pass
        self.cancel()

    def run(self) -> None:  # the worker thread
        try:
            self.result = self.job(self)
        except Exception as exc:  # noqa: BLE001 - a job's bug is reported, not fatal
            self.error = f"{type(exc).__name__}: {exc}"
        self.done = True
        if self.error is None:
            self.returned.emit(self.result)
        else:
            self.failed.emit(self.error)
        self.ended.emit()
        if self.after is not None:
            self.after()
