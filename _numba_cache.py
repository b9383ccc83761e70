"""Where numba keeps Tessera's compiled kernels when the install itself is read-only.

The exact-cover kernel is compiled with `cache=True`. Numba stores that cache in the package's
`__pycache__`, else in `~/.cache/numba`; when neither is writable (a system-wide read-only
install run by a user without a home, a container with HOME=/nonexistent) numba raises
"cannot cache function 'build': no locator available" while importing the solvers, and every
command fails. `configure()` runs from `tessera/__init__.py`, before numba is imported, and:

1. leaves everything alone when NUMBA_CACHE_DIR is set or the package's `__pycache__` is
   writable (the normal case: no cost beyond one `os.access`);
2. else points NUMBA_CACHE_DIR at `$XDG_CACHE_HOME/tessera/numba` (`~/.cache/...`), silently;
3. else at a private per-user folder in the temporary directory, with a note on stderr;
4. else turns caching off for numba functions that have no place to cache (they compile on
   every run, about 6 s), with a note on stderr. NUMBA_DISABLE_JIT would also "work" but runs
   the kernel as plain Python, hundreds of times slower, so it is not used.

Child processes inherit the choice through the environment and say nothing.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: Folders holding modules compiled with `cache=True` (numba caches next to each source file).
CACHED_SOURCES = ("solvers", "solvers/polycube")
_NO_CACHE_FLAG = "TESSERA_NUMBA_NO_CACHE"


def _writable_folder(folder: Path) -> bool:
    """Whether numba could create `folder` (if missing) and files in it."""
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def _in_tree_writable(package: Path) -> bool:
    return all(_writable_folder(package / name / "__pycache__") for name in CACHED_SOURCES)


def _usable(folder: Path, private: bool = False) -> bool:
    """Create `folder` and check that we can write there. A `private` folder (in a shared
    temporary directory) must be a real folder owned by us and closed to others: cached code is
    loaded and run, so nobody else may plant files in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if private and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return False
    import tempfile  # here: its import is 3 ms of every command, which mostly never gets here

    try:  # what numba itself tries; os.access can be wrong (ACLs, capabilities, setuid)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _user_cache(environ: dict[str, str]) -> Path | None:
    base = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = environ.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "tessera" / "numba"


def _temp_cache() -> Path | None:
    import tempfile

    try:
        return Path(tempfile.gettempdir()) / f"tessera-numba-{os.getuid()}"
    except (OSError, AttributeError):  # no usable temporary folder; no getuid on Windows
        return None


def choose(environ: dict[str, str], package: Path = PACKAGE) -> tuple[str | None, str]:
    """(cache folder or None for no cache, how it was chosen: "numba", "user", "temp", "none")."""
    if environ.get("NUMBA_CACHE_DIR"):
        return environ["NUMBA_CACHE_DIR"], "numba"
    if environ.get(_NO_CACHE_FLAG):
        return None, "none"
    if _in_tree_writable(package):
        return None, "numba"
    user = _user_cache(environ)
    if user is not None and _usable(user):
        return str(user), "user"
    temp = _temp_cache()
    if temp is not None and _usable(temp, private=True):
        return str(temp), "temp"
    return None, "none"


def writable_cache(name: str, environ=os.environ) -> Path | None:
    """A folder for another library's cache (Mesa's shaders, Matplotlib's fonts) by the same
    rules as numba's: the user's cache, else a private temporary folder, else None (then the
    caller turns that cache off, rather than let the library print about it)."""
    user = _user_cache(environ)
    if user is not None and _usable(user.parent / name):
        return user.parent / name
    temp = _temp_cache()
    if temp is not None and _usable(temp.with_name(f"{temp.name}-{name}"), private=True):
        return temp.with_name(f"{temp.name}-{name}")
    return None


def quiet_render_caches(environ=os.environ) -> None:
    """Point Mesa's shader cache and Matplotlib's config at writable folders before the first
    render: with a read-only HOME they print cache warnings on every run, though nothing
    failed. Settings the user made are kept."""
    if not (environ.get("MESA_SHADER_CACHE_DIR") or environ.get("MESA_SHADER_CACHE_DISABLE")):
        folder = writable_cache("mesa", environ)
        if folder is None:
            environ["MESA_SHADER_CACHE_DISABLE"] = "true"
        else:
            environ["MESA_SHADER_CACHE_DIR"] = str(folder)
    home = environ.get("HOME", "")
    own = [Path(home) / ".config" / "matplotlib", Path(home) / ".cache" / "matplotlib"]
    if not environ.get("MPLCONFIGDIR") and not (
        os.path.isabs(home) and all(_writable_folder(f) for f in own)
    ):
        folder = writable_cache("matplotlib", environ)
        if folder is not None:
            environ["MPLCONFIGDIR"] = str(folder)


def _cache_only_where_possible() -> None:
    """Let a `cache=True` function with no writable cache location compile uncached instead of
    failing: numba raises RuntimeError from `enable_caching` when no locator fits, and the
    dispatcher then still holds its in-memory null cache."""
    from numba.core import dispatcher

    original = dispatcher.Dispatcher.enable_caching
    if getattr(original, "_tessera_fallback", False):
        return

    def enable_caching(self) -> None:
        try:
            original(self)
        except RuntimeError as exc:
            if "no locator available" not in str(exc):
                raise

    enable_caching._tessera_fallback = True  # type: ignore[attr-defined]
    dispatcher.Dispatcher.enable_caching = enable_caching  # type: ignore[method-assign]


def configure(environ=os.environ, package: Path = PACKAGE) -> None:
    """Make sure importing the solvers cannot fail for want of a cache folder (see above)."""
    announced = bool(environ.get("NUMBA_CACHE_DIR") or environ.get(_NO_CACHE_FLAG))
    folder, how = choose(environ, package)
    if how in ("user", "temp"):
        environ["NUMBA_CACHE_DIR"] = folder  # type: ignore[index]
    if how == "temp" and not announced:
        print(
            f"tessera: note: the install folder and ~/.cache are read-only; numba caches compiled "
            f"code in {folder} (set NUMBA_CACHE_DIR to choose)",
            file=sys.stderr,
        )
    if how == "none":
        environ[_NO_CACHE_FLAG] = "1"  # type: ignore[index]
        if not announced:
            print(
                "tessera: note: no writable folder for numba's cache; compiling without one "
                "(every run compiles again; set NUMBA_CACHE_DIR to a writable folder)",
                file=sys.stderr,
            )
        _cache_only_where_possible()
