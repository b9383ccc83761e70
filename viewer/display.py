"""Whether there is a display to draw on: asked of libX11 directly, before Qt or VTK try and
complain (Qt aborts the process, VTK logs a coloured warning on every run). Light on purpose:
the command line asks it before anything heavy is imported."""

from __future__ import annotations

import ctypes
import os
from functools import cache


def load_library(library: str) -> ctypes.CDLL | None:
    """The shared library, or None where it is not installed."""
    try:
        return ctypes.CDLL(library)
    except OSError:
        return None


@cache
def x_display_usable() -> bool:
    """Whether $DISPLAY names an X server that accepts a connection."""
    if not os.environ.get("DISPLAY"):
        return False
    xlib = load_library("libX11.so.6")
    if xlib is None:
        return False
    xlib.XOpenDisplay.restype = ctypes.c_void_p
    xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
    xlib.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = xlib.XOpenDisplay(None)
    if not display:
        return False
    xlib.XCloseDisplay(display)
    return True
