"""A progress bar on stderr that appears only for work that takes over a second, and the one
way every command turns Ctrl-C into a partial result."""

from __future__ import annotations

import os
import signal
import sys
import time

from tessera.cli.interrupt import interrupted
from tessera.solvers.search_control import Cancellable, Cancelled


class ProgressBar:
    """Call `update(fraction, text)` as often as you like; it redraws at most 10 times a second
    and only once a second has passed, and only when stderr is a terminal, or `force`, or
    TESSERA_PROGRESS=1 in the environment (for logs, and for tests that wait on it)."""

    def __init__(self, label: str, *, delay: float = 1.0, force: bool = False) -> None:
        self.label = label
        self.start = time.monotonic()
        self.delay = delay
        self.enabled = force or os.environ.get("TESSERA_PROGRESS") == "1" or sys.stderr.isatty()
        self._last = 0.0
        self._drawn = False

    def update(self, fraction: float, text: str = "") -> None:
        now = time.monotonic()
        if not self.enabled or now - self.start < self.delay or now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = int(round(max(0.0, min(1.0, fraction)) * width))
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {fraction:6.1%} {text}\x1b[K")
        sys.stderr.flush()
        self._drawn = True

    def stopping(self) -> None:
        """After the first Ctrl-C: the bar's line says the search is winding down, and how to
        leave at once (a long search can take a moment to reach a point where it stops)."""
        if self.enabled:
            sys.stderr.write(f"\r{self.label}: stopping (Ctrl-C again to leave at once)\x1b[K")
            sys.stderr.flush()
            self._drawn = True
            self._last = float("inf")  # no redraw over it

    def close(self) -> None:
        if self._drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self._drawn = False


def leave_now() -> None:
    """Exit 130 this instant, after flushing what was printed, with the one interrupted line."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    interrupted()
    sys.stderr.flush()
    os._exit(130)


class Interruptible:
    """How every command runs a search: a progress bar on stderr, and Ctrl-C asks the search
    to stop so the command can still print what it found, marked partial (exit 130).

    A second Ctrl-C exits at once (130), keeping what was already printed: the search may
    be deep in compiled code on other threads, which Python cannot interrupt, and the
    interpreter would wait for those threads at exit (issue 21 F15: one run in six hung).

        with Interruptible(search, "counting") as run:
            n = run.count(limit)
        if run.interrupted: ...
    """

    def __init__(self, search: Cancellable, label: str) -> None:
        self.search = search
        self.bar = ProgressBar(label)
        self._previous = None

    def __enter__(self) -> Interruptible:
        def handler(signum, frame) -> None:
            if self.search.cancelled:
                leave_now()
            self.search.cancel()
            self.bar.stopping()

        try:
            self._previous = signal.signal(signal.SIGINT, handler)
        except ValueError:  # not the main thread: nobody can press Ctrl-C at us anyway
            self._previous = None
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def progress(self, fraction: float, found: int) -> None:
        """The search protocol's `on_progress`: drives the bar."""
        self.bar.update(fraction, f"{found} found")

    def count(self, limit: int | None = None) -> int:
        """The search's count, or the partial count when Ctrl-C stopped it."""
        try:
            return self.search.count(limit, self.progress)
        except Cancelled as exc:
            return exc.partial

    @property
    def interrupted(self) -> bool:
        return self.search.cancelled and not getattr(self.search, "done", False)


def partial_note(found: int, what: str = "solutions") -> str:
    """The one line every command prints on stderr after Ctrl-C."""
    return f"interrupted after {found} {what} (partial)"
