"""Writing a command's result to a path the user named: one place for the one-line error.

Every output goes through `models/atomic.py` (a temporary sibling renamed into place), and every
`OSError` on the way becomes `PATH: cannot write: <reason>` (exit 2): a user who mistyped a
folder or lacks permission sees one line, never a traceback. `check_writable` tries the path
before a long computation, so the mistake shows at once instead of after minutes of rendering.

One rule for folders, for every export (render, animate, convert, stl, the generators' `--out`,
screenshots, checkpoints): Tessera writes into a folder that exists and never creates missing
ones (a typo in a path must not grow a tree of folders); `check_parent` refuses the path with
one line naming the missing folder (exit 2).
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


def check_parent(path: str | Path) -> None:
    """Refuse `path`, naming the folder, when the folder it goes into is missing or is not a
    folder: the one rule for every output (missing folders are never created)."""
    parent = Path(path).parent
    if not parent.exists():
        raise PuzzleError("no such folder (create it first)", parent)
    if not parent.is_dir():
        raise PuzzleError("is not a folder", parent)


def check_writable(path: str | Path, folder: bool = False) -> None:
    """Fail now, with the one-line error, if `path` (a file, or a folder with `folder=True`)
    could not be written: its folder is missing (`check_parent`), is a file or is read-only, or
    the path is a folder where a file is wanted (or the other way round). Creates and removes
    the same temporary sibling the real write will use."""
    check_parent(path)
    target = AtomicDir(path) if folder else AtomicFile(path)
    with writing(path):
        target.open()
    target.discard()


def write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path` atomically; a failure (missing folder, no permission) is bad
    input, exit 2."""
    check_parent(path)
    with writing(path), AtomicFile(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
