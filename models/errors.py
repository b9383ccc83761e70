"""The one error type users see: a problem with their input, located as precisely as we can.

Every loader raises `PuzzleError` with the file and, where known, the line; the command line
prints `str(error)` on one line and exits 2, so a user never sees a traceback for bad input.
Messages quote the user's own text, so `str` escapes control characters: a newline or an
escape sequence from a hostile file must not break the one line or repaint the terminal.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

#: Longest quoted value in a message; the rest becomes "...".
MAX_QUOTE = 60


def escape_controls(text: str) -> str:
    """`text` with control, format and line/paragraph-separator characters written as escapes
    (`\\n`, `\\x1b`, `\\u2028`), so it prints on one line and changes nothing on the screen."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (ch == " ") or unicodedata.category(ch) in ("Zs", "Mn", "Mc"):
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def printable(value: Any, limit: int = MAX_QUOTE) -> str:
    """A value from a user's file as a message quotes it: its repr, cut to `limit` characters
    (a 4,000-digit number or a nested list must not become a 4,000-character error)."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # a deep list, an int past the digit limit
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class PuzzleError(ValueError):
    """Bad puzzle input: `file:line: message`."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path or ""
        if where and self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {self.message}" if where else self.message
        return escape_controls(text)

    def located(self, path: str | Path | None = None, line: int | None = None) -> PuzzleError:
        """The same error with a file (and line) filled in where they were missing."""
        return PuzzleError(
            self.message,
            self.path or (str(path) if path is not None else None),
            self.line if self.line is not None else line,
        )


class NoSolution(Exception):
    """The input is fine but cannot be solved (exit 1, not 2)."""
