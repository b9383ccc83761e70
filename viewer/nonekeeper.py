"""A guard against a PySide6 bug: void methods that drop a reference to None (Python < 3.12).

Measured here with PySide6 6.12.0 on CPython 3.11: every call of a void Qt method from Python
(`QLabel.setText`, `QSlider.setValue`, `QCoreApplication.processEvents`, ...) lowers None's
reference count by one. None is not immortal before 3.12, so after a few thousand calls the
interpreter aborts with "Fatal Python error: none_dealloc". Stepping the viewer makes ~20 such
calls; a minute of orbiting would kill it.

The fix belongs in PySide6 (or in pinning a version without the bug); until then the app keeps
a reserve of references to None and tops it up from a timer. `install()` measures first and
does nothing where the bug is absent (Python ≥ 3.12, other PySide6 versions).
"""

from __future__ import annotations

import sys

RESERVE = 1_000_000  # references held at a time (8 MB); refilled when below half
_reserve: list[list[None]] = []
_affected: bool | None = None


def affected() -> bool:
    """Whether void PySide6 calls leak None references in this interpreter (measured once)."""
    global _affected
    if _affected is None:
        if sys.version_info >= (3, 12):
            _affected = False
        else:
            from PySide6.QtCore import QObject

            probe = QObject()
            before = sys.getrefcount(None)
            for _ in range(64):
                probe.setObjectName("probe")  # a void method
            _affected = sys.getrefcount(None) < before - 32
            top_up()  # give back what the probe took
    return _affected


def top_up() -> None:
    """Hold at least RESERVE/2 spare references to None (cheap to call often)."""
    if sys.getrefcount(None) < RESERVE // 2:
        _reserve.append([None] * RESERVE)  # never freed: leaked references may live in it


def install(parent=None, interval_ms: int = 2000):
    """Keep the reserve topped up while the Qt event loop runs; returns the timer (or None)."""
    if not affected():
        return None
    from PySide6.QtCore import QTimer

    top_up()
    timer = QTimer(parent)
    timer.setInterval(interval_ms)
    timer.timeout.connect(top_up)
    timer.start()
    return timer
