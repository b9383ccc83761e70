"""A progress bar on stderr that appears only for work that takes over a second."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """Call `update(fraction, text)` as often as you like; it redraws at most 10 times a second
    and only once a second has passed, and only when stderr is a terminal (or `force`)."""

    def __init__(self, label: str, *, delay: float = 1.0, force: bool = False) -> None:
        self.label = label
        self.start = time.monotonic()
        self.delay = delay
        self.enabled = force or sys.stderr.isatty()
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

    def close(self) -> None:
        if self._drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self._drawn = False
