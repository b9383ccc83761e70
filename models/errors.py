"""The one error type users see: a problem with their input, located as precisely as we can.

Every loader raises `PuzzleError` with the file and, where known, the line; the command line
prints `str(error)` on one line and exits 2, so a user never sees a traceback for bad input.
"""

from __future__ import annotations

from pathlib import Path


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
        return f"{where}: {self.message}" if where else self.message

    def located(self, path: str | Path | None = None, line: int | None = None) -> PuzzleError:
        """The same error with a file (and line) filled in where they were missing."""
        return PuzzleError(
            self.message,
            self.path or (str(path) if path is not None else None),
            self.line if self.line is not None else line,
        )


class NoSolution(Exception):
    """The input is fine but cannot be solved (exit 1, not 2)."""
