"""Live analysis for Design mode: debounced, restarted after each edit, in a `background.Worker`.

Each edit (re)starts a short single-shot timer (`DEBOUNCE_MS`), so a burst of clicks costs one
analysis; when it fires, the running analysis is cancelled and a new one starts on the latest
snapshot. A cancelled worker finishes on its own (the search stops within a slice) and its
result is dropped: only the current generation reaches the badge. The GUI thread never waits on
a worker except at shutdown.

The badge reads "240 solutions", "no solution: pieces 26 cells, target 27" or
"counting… 1200+" (with Stop beside it); clicking it after a count asks to see the solutions.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QToolButton, QWidget

from tessera.models.design import DesignDocument
from tessera.solvers.polycube.design_analysis import Analysis, DesignAnalysis
from tessera.viewer._qt.background import Worker
from tessera.viewer._qt.worker import PREPARING

DEBOUNCE_MS = 120
PROGRESS_SECONDS = 0.1  # at most ten progress signals a second


def analyse(job: DesignAnalysis, worker: Worker) -> Analysis:
    """One analysis of one snapshot, as a `Worker` job: progress reported as (fraction,
    found) at most ten times a second, `PREPARING` while the kernel compiles; a solver bug
    is an "error" answer on the badge."""
    last = [0.0]

    def on_progress(fraction: float, found: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS:
            last[0] = now
            worker.report((fraction, found))

    try:
        from tessera.viewer._qt.worker import kernel_ready, prepare_kernel

        if not kernel_ready():
            worker.report(PREPARING)
            prepare_kernel()
        return job.run(on_progress)
    except Exception as exc:  # a solver bug must not kill the editor silently
        return Analysis("error", f"analysis failed: {type(exc).__name__}: {exc}")


_warm = False


def warm_up() -> None:
    """Count the Soma cube once per process, after the first answer (in its worker thread):
    the first count loads numba's cached kernels and builds the symmetry tables (0.4 s cold
    against 16 ms warm), and a designer should not pay that on the cube that completes a
    figure."""
    global _warm
    if _warm:
        return
    _warm = True
    from tessera.models.design import DesignDocument

    doc = DesignDocument()
    doc.new_soma_figure()
    doc.set_cells([(x, y, z) for x in range(3) for y in range(3) for z in range(3)])
    DesignAnalysis(doc.state).run()


class AnalysisRunner(QObject):
    """Follows the document: every change restarts the analysis after `DEBOUNCE_MS`."""

    started = Signal()
    progress = Signal(float, int)
    finished = Signal(object)  # the current snapshot's Analysis
    preparing = Signal()

    def __init__(self, doc: DesignDocument, parent=None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.doc = doc
        self.worker: Worker | None = None  # the current generation's
        self._retired: list[Worker] = []
        self.generation = 0
        self.last: Analysis | None = None
        self.started_at = 0.0
        self.restarts = 0  # analyses started (tests check an edit mid-count restarts one)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start)
        doc.events.changed.connect(self.schedule)

    @property
    def running(self) -> bool:
        return self.worker is not None or self._timer.isActive()

    def schedule(self, *_args) -> None:
        """An edit: stop what is running now (its answer is out of date) and start again soon."""
        self.generation += 1
        self._cancel_current()
        self._timer.start()
        self.started.emit()

    def _cancel_current(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.cancel()
            self._retired.append(worker)

    def _start(self) -> None:
        self._cancel_current()
        job = DesignAnalysis(self.doc.state)
        worker = Worker(lambda w: analyse(job, w), self, after=warm_up)
        worker.generation = self.generation
        worker.on_cancel(job.cancel)
        worker.progress.connect(self._on_progress)
        worker.returned.connect(self._on_result)
        worker.finished.connect(self._reap)
        self.worker = worker
        self.restarts += 1
        self.started_at = time.perf_counter()
        worker.start()

    def _on_progress(self, value) -> None:
        if value == PREPARING:
            self.preparing.emit()
        elif self.worker is not None and self.sender() is self.worker:
            self.progress.emit(*value)

    def _on_result(self, analysis: Analysis) -> None:
        worker = self.sender()
        if worker is None or worker is not self.worker or worker.generation != self.generation:
            return  # a cancelled run's partial answer about an older drawing
        self.worker = None
        self._retired.append(worker)
        self.last = analysis
        self.finished.emit(analysis)

    def _reap(self) -> None:
        self._retired = [w for w in self._retired if not w.isFinished()]

    def stop(self) -> None:
        """The user's Stop: cancel the count; its partial result is shown as 'stopped'."""
        self._timer.stop()
        if self.worker is not None:
            self.worker.cancel()

    def shutdown(self, wait_ms: int = 5000) -> None:
        self._timer.stop()
        self._cancel_current()
        for worker in self._retired:
            worker.cancel()
            worker.wait(wait_ms)
        self._retired.clear()


class Badge(QWidget):
    """The analysis badge and its Stop button, for the status bar."""

    open_requested = Signal()

    def __init__(self, runner: AnalysisRunner, parent=None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.button = QToolButton()
        self.button.setAutoRaise(True)
        self.button.setMinimumWidth(220)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.stop_button)
        self.button.clicked.connect(self._clicked)
        self.stop_button.clicked.connect(runner.stop)
        runner.started.connect(self._counting)
        runner.preparing.connect(lambda: self._show("preparing the solver (once per install)…"))
        runner.progress.connect(self._progress)
        runner.finished.connect(self._finished)
        self._show("")

    @property
    def text(self) -> str:
        return self.button.text()

    def _show(self, text: str, tip: str = "", colour: str = "#2b3038") -> None:
        self.button.setText(text)
        self.button.setToolTip(tip)
        self.button.setStyleSheet(f"QToolButton {{ font-weight: bold; color: {colour}; }}")

    def _counting(self) -> None:
        self._show("counting…")
        self.stop_button.setVisible(True)

    def _progress(self, fraction: float, found: int) -> None:
        self._show(f"counting… {found}+", f"{fraction:.0%} of the search done")

    def _finished(self, analysis: Analysis) -> None:
        self.stop_button.setVisible(False)
        if analysis.status == "counted" and (analysis.solutions or 0) > 0:
            c = analysis.counts
            tip = (
                f"{c.fixed} fixed, {c.up_to_rotation} up to rotation, {c.up_to_symmetry} up to "
                f"symmetry ({analysis.seconds:.2f} s). Click to see them in Solution mode."
            )
            self._show(analysis.badge, tip, "#1d7a33")
        elif analysis.status in ("counted", "impossible", "error"):
            self._show(analysis.badge, analysis.detail or analysis.reason, "#b3261e")
        else:
            self._show(analysis.badge, analysis.detail, "#5a6472")

    def _clicked(self) -> None:
        last = self.runner.last
        if last is not None and last.status == "counted" and (last.solutions or 0) > 0:
            self.open_requested.emit()
