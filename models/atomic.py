"""Writing files and folders so that a reader never sees half of one: the one mechanism.

Everything Tessera saves (PNG, GIF, MP4, STL, HTML, `--out` text) is written under a hidden
temporary name in the destination's own folder, flushed to disk, and only then renamed over the
final name. A crash, a SIGKILL or Ctrl-C therefore leaves either the previous good file or
nothing at the final path, never a truncated one. The temporary name keeps the final extension
(`.soma.tmp-<pid>-<random>.mp4`) because encoders such as imageio choose the format from it.

The process id in the temporary name lets a later write to the same path clear away the leftovers
of a writer that was killed (a dead pid's temporary files and folders), so kills do not
accumulate junk next to the user's files.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_TMP = ".tmp-"
_OLD = ".old-"


def _hidden_name(final: Path, tag: str, suffix: str) -> str:
    """A hidden sibling name: dot first so file browsers and globs skip it, our pid so a later
    writer can tell a dead writer's leftover from a live one's work, the suffix for encoders."""
    return (
        f".{final.stem if suffix else final.name}{tag}{os.getpid()}-{os.urandom(4).hex()}{suffix}"
    )


def _pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a reused id only means a leftover stays)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _leftover_pid(name: str, final: Path, tag: str, suffix: str) -> int | None:
    """The pid in a leftover's name when it belongs to `final`, else None."""
    head = f".{final.stem if suffix else final.name}{tag}"
    if not (name.startswith(head) and name.endswith(suffix)):
        return None
    middle = name[len(head) : len(name) - len(suffix) if suffix else None]
    pid, _, token = middle.partition("-")
    if not (pid.isdigit() and len(token) == 8):
        return None
    return int(pid)


def _remove(path: Path) -> None:
    """Best-effort cleanup: never let tidying up hide the error that made it necessary."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:
        pass


def sweep_leftovers(final: str | Path) -> None:
    """Remove temporary files of dead writers to `final`; put back a folder moved aside by a
    writer killed between its two renames (see `atomic_dir`)."""
    final = Path(final)
    suffix = "" if final.is_dir() else final.suffix
    try:
        names = os.listdir(final.parent)
    except OSError:
        return
    for name in names:
        for tag, sfx in ((_TMP, suffix), (_TMP, ""), (_OLD, "")):
            pid = _leftover_pid(name, final, tag, sfx)
            if pid is None or pid == os.getpid() or _pid_alive(pid):
                continue
            path = final.parent / name
            if tag == _OLD and not os.path.lexists(final):
                try:
                    os.rename(path, final)
                except OSError:
                    pass
            else:
                _remove(path)
            break


def fsync_path(path: str | Path, directory: bool = False) -> None:
    """Flush a file's (or a folder's entries') data to the disk."""
    if directory:  # durability of the rename only: the data is in place either way
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:  # some file systems cannot fsync a folder
            pass
        finally:
            os.close(fd)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _resolve(final: str | Path) -> Path:
    """A symlink's target is what gets replaced: the link itself stays, still pointing there."""
    path = Path(final)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _check_target(final: Path, want_dir: bool) -> None:
    """Fail before any work when the final path can never be replaced by the result."""
    if final.is_dir() and not want_dir:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(final))
    if want_dir and final.exists() and not final.is_dir():
        raise FileExistsError(errno.EEXIST, "exists and is not a folder", str(final))


class _Atomic:
    """A temporary sibling of `final` that becomes `final` on `commit`, or vanishes on
    `discard`: what a file and a folder written atomically share."""

    def __init__(self, final: str | Path) -> None:
        self.final = _resolve(final)
        self.tmp: Path | None = None

    def open(self) -> Path:
        raise NotImplementedError

    def _flush(self, tmp: Path) -> None:
        raise NotImplementedError

    def _swap_in(self) -> None:
        raise NotImplementedError

    def commit(self) -> None:
        """Flush the finished temporary sibling to disk and put it in place of `final`."""
        if self.tmp is None:
            raise RuntimeError("commit before open")
        try:
            self._flush(self.tmp)
            self._swap_in()
        except BaseException:
            self.discard()
            raise
        self.tmp = None
        fsync_path(self.final.parent, directory=True)

    def discard(self) -> None:
        if self.tmp is not None:
            _remove(self.tmp)
            self.tmp = None

    def __enter__(self) -> Path:
        return self.open()

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


class AtomicFile(_Atomic):
    """A file written whole or not at all.

    `open()` creates the (empty) temporary file at once, so a missing folder, a folder that is
    a file or a read-only folder fails there, before anything is computed."""

    def open(self) -> Path:
        _check_target(self.final, want_dir=False)
        sweep_leftovers(self.final)
        tmp = self.final.parent / _hidden_name(self.final, _TMP, self.final.suffix)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        os.close(fd)
        try:  # a replaced file keeps its permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(self.final).st_mode))
        except OSError:
            pass
        self.tmp = tmp
        return tmp

    def _flush(self, tmp: Path) -> None:
        fsync_path(tmp)

    def _swap_in(self) -> None:
        assert self.tmp is not None
        os.replace(self.tmp, self.final)


def atomic_path(final: str | Path) -> AtomicFile:
    """`with atomic_path(final) as tmp:` write to `tmp`; `final` appears only if the block
    completes (and the previous `final`, if any, stays untouched otherwise)."""
    return AtomicFile(final)


def _fsync_tree(folder: Path) -> None:
    for root, _, files in os.walk(folder):
        for name in files:
            fsync_path(Path(root) / name)
        fsync_path(root, directory=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step (Linux `renameat2(RENAME_EXCHANGE)`), so there is no
    moment with neither at `b`. False where the system or file system cannot; then the caller
    falls back to two renames."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here, not at the top: every command imports this module, few write a file

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc 2.28+ (or musl 1.2.5+)
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


class AtomicDir(_Atomic):
    """A temporary sibling folder that replaces `final` as a whole on `commit`.

    With no folder at `final`, one rename puts the new folder in place. With an old one, it is
    swapped with the new one in one step where Linux allows (`exchange`) and then deleted.
    Elsewhere it is renamed aside, the new one renamed in, and the old one deleted: a kill
    between those two renames leaves no folder at `final` (never a mix), and the next write puts
    the old one back if nothing replaced it (`sweep_leftovers`)."""

    def open(self) -> Path:
        _check_target(self.final, want_dir=True)
        sweep_leftovers(self.final)
        tmp = self.final.parent / _hidden_name(self.final, _TMP, "")
        os.mkdir(tmp)
        self.tmp = tmp
        return tmp

    def _flush(self, tmp: Path) -> None:
        _fsync_tree(tmp)

    def _swap_in(self) -> None:
        assert self.tmp is not None
        if not self.final.is_dir():
            os.rename(self.tmp, self.final)
            return
        if exchange(self.tmp, self.final):
            _remove(self.tmp)  # now the old folder; a kill here leaves a dead pid's leftover
            return
        old = self.final.parent / _hidden_name(self.final, _OLD, "")
        os.rename(self.final, old)
        try:
            os.rename(self.tmp, self.final)
        except BaseException:
            os.rename(old, self.final)
            raise
        _remove(old)


def atomic_dir(final: str | Path) -> AtomicDir:
    """`with atomic_dir(final) as tmp:` fill the folder `tmp`; it becomes `final` whole, or
    is removed if the block fails (an existing `final` then stays as it was)."""
    return AtomicDir(final)


@contextmanager
def atomic_write(final: str | Path, mode: str = "w", **kwargs) -> Iterator:
    """An open file object on the temporary path (text by default), committed on success."""
    with atomic_path(final) as tmp, open(tmp, mode, **kwargs) as fh:
        yield fh
        fh.flush()
