"""Writing a command's result to a file the user named: one place for the one-line error."""

from __future__ import annotations

from pathlib import Path

from tessera.models.errors import PuzzleError


def write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path`; a failure (missing folder, no permission) is bad input, exit 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise PuzzleError(f"cannot write: {exc.strerror or exc}", path) from None
