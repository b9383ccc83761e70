"""Writing a command's result to a path the user named: one place for the one-line error.

Every output goes through `models/atomic.py` (a temporary sibling renamed into place), and every
`OSError` on the way becomes `PATH: cannot write: <reason>` (exit 2): a user who mistyped a
folder or lacks permission sees one line, never a traceback. `check_writable` tries the path
before a long computation, so the mistake shows at once instead of after minutes of rendering.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tessera.models.atomic import AtomicDir, AtomicFile
from tessera.models.errors import PuzzleError


def cannot_write(path: str | Path, exc: OSError) -> PuzzleError:
    """The user-facing error for an `OSError` met while writing `path`."""
    return PuzzleError(f"cannot write: {exc.strerror or exc}", path)


@contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Turn any `OSError` raised inside the block into `cannot_write(path)`."""
    try:
        yield
    except OSError as exc:
        raise cannot_write(path, exc) from None


def check_writable(path: str | Path, folder: bool = False) -> None:
    """Fail now, with the one-line error, if `path` (a file, or a folder with `folder=True`)
    could not be written: its folder is missing, is a file or is read-only, or the path is a
    folder where a file is wanted (or the other way round). Creates and removes the same
    temporary sibling the real write will use."""
    target = AtomicDir(path) if folder else AtomicFile(path)
    with writing(path):
        target.open()
    target.discard()


def write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path` atomically; a failure (missing folder, no permission) is bad
    input, exit 2."""
    with writing(path), AtomicFile(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
