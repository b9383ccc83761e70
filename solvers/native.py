"""The two kernels every command line run needs, compiled ahead of time so a process never loads
numba for them.

Numba compiles each kernel on its first use and caches it, but even loading a cached kernel
imports numba and readies its type system: about 0.3 s of CPU in every process, more than a
small BurrTools file takes to assemble and take apart, and most of a 300-figure batch's set-up.
`build()` compiles the same sources ahead of time with numba's `pycc`: the exact-cover search
(`_cells_kernel.run`, in both of its ways of holding the live options) and the disassembler
(`_disassembly_kernel._disassemble`) become two small extension modules, which a
process imports in about a millisecond. They release the GIL as the JIT versions do, so the
window's worker and the count's threads behave the same.

One engine, two ways of loading it: the sources are the kernel modules themselves; a built
module is used only when its name carries the hash of those sources, of numba's and numpy's
versions and of the Python ABI (`key()`), so an edit, an upgrade or another interpreter falls
back to numba's JIT cache until the next build. `TESSERA_NATIVE=0` always uses the JIT.

The modules are built by `make` (`python -m tessera.solvers.native`) next to numba's own cache
(the package's `__pycache__`, or `$NUMBA_CACHE_DIR/tessera-native` on a read-only install).
Building needs a C compiler and Python's headers; without them the JIT serves, as before. On
x86-64 the code targets x86-64-v2 (SSE4.2 and POPCNT, every x86-64 CPU since about 2009), so
a shared cache folder works on any of them; other machines use the JIT.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from tessera.solvers.kernels import before_first_use

SOLVERS = Path(__file__).resolve().parent
#: Every file whose code or constants the compiled kernels contain (and this one: the
#: signatures): an edit to any of them makes a built module stale.
SOURCES = (
    SOLVERS / "_cells_layout.py",
    SOLVERS / "_cells_kernel.py",
    SOLVERS / "polycube" / "_movement_codes.py",
    SOLVERS / "polycube" / "_disassembly_kernel.py",
    Path(__file__).resolve(),
)
#: The exact-cover search, live options as bitsets (every matrix up to some thousands of
#: options) and as sparse sets (larger ones): one module each, since pycc fails to type one
#: function exported twice. Neither needs numba's reference counting (they allocate nothing).
CELLS, CELLS_SETS = "_tessera_cells", "_tessera_cells_sets"
MOVES = "_tessera_moves"  # the disassembler; allocates its state, so numba's runtime too
MODULES = (CELLS, CELLS_SETS, MOVES)
TARGET_CPU = {"x86_64": "x86-64-v2", "AMD64": "x86-64-v2"}.get(platform.machine())
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

_lock = threading.Lock()
_loaded: dict[str, ModuleType | None] = {}


def enabled() -> bool:
    return TARGET_CPU is not None and os.environ.get("TESSERA_NATIVE", "1") != "0"


def folder() -> Path:
    """Where built modules live: beside numba's cache, so one setting moves both
    (`TESSERA_NATIVE_DIR` moves them alone)."""
    chosen = os.environ.get("TESSERA_NATIVE_DIR")
    if chosen:
        return Path(chosen)
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if cache:
        return Path(cache) / "tessera-native"
    return SOLVERS / "__pycache__" / "native"


def _numba_version() -> bytes:
    """numba's version file, read without importing numba (that import is what we avoid)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b"no numba"
    try:
        return (Path(spec.origin).parent / "_version.py").read_bytes()
    except OSError:
        return spec.origin.encode()


def key() -> str:
    """The hash a built module's file name carries: the kernels' sources, numba's and numpy's
    versions, the Python ABI and the target CPU."""
    return _key(SOURCES)


@functools.cache
def _key(sources: tuple[Path, ...]) -> str:
    """Worked out once per process (every module's path asks for it: three reads and hashes
    of the sources otherwise, on every command's start)."""
    import numpy

    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.read_bytes())
    for part in (_numba_version(), numpy.__version__, sys.version, SUFFIX, str(TARGET_CPU)):
        digest.update(part.encode() if isinstance(part, str) else part)
    return digest.hexdigest()[:16]


def path_of(module: str, where: Path | None = None) -> Path:
    return (where or folder()) / f"{module}-{key()}{SUFFIX}"


def _load(module: str) -> ModuleType | None:
    if not enabled():
        return None
    path = path_of(module)
    if not path.is_file():
        return None
    try:
        spec = importlib.util.spec_from_file_location(module, path)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
    except Exception:  # a damaged or foreign file: the JIT serves
        return None
    return loaded


def loaded(module: str) -> ModuleType | None:
    """The built module, imported once per process; None when it is not built (or stale)."""
    with _lock:
        if module not in _loaded:
            _loaded[module] = _load(module)
        return _loaded[module]


def forget() -> None:
    """Look for built modules again on the next use (after a build, in tests)."""
    with _lock:
        _loaded.clear()


def cells_run() -> Callable[..., int]:
    """The exact-cover kernel's `run`, with numba's signature: the built one when there is one,
    else numba's (announcing its compile on first use, if it has to compile)."""
    bits, sets = loaded(CELLS), loaded(CELLS_SETS)
    if bits is None or sets is None:
        from tessera.solvers._cells_kernel import run

        before_first_use("exact-cover search", run)
        return run
    run_bits, run_sets = bits.run, sets.run

    def run_built(*args: Any) -> int:
        # numba compiles `run` once per way of holding the live options (sets None or not);
        # the built module exports both
        return run_bits(*args) if args[-2] is None else run_sets(*args)

    return run_built


def disassembly() -> Callable[..., tuple]:
    """The disassembler (`_disassembly_kernel._disassemble`): the built one, else numba's."""
    built = loaded(MOVES)
    if built is None:
        from tessera.solvers.polycube._disassembly_kernel import _disassemble

        before_first_use("disassembler", _disassemble)
        return _disassemble
    return built.disassemble


# -- building --------------------------------------------------------------------------------


def _signatures() -> dict[str, dict[str, Any]]:
    """Each module's exports and their numba signatures: exactly the types the Python side
    passes (C-contiguous arrays of these dtypes); tests/test_native.py checks them against
    the signatures numba's JIT compiles for real calls."""
    from numba import types as T

    def arr(dtype: Any, ndim: int = 1, layout: str = "C") -> Any:
        return T.Array(dtype, ndim, layout)

    u32, i64, u64 = T.uint32, T.int64, T.uint64
    bits = T.Tuple((arr(u64, 2), arr(u64), arr(u64, 2), arr(u32, 2), arr(i64)))
    sets = T.Tuple((arr(u32), arr(u32), arr(u32), arr(u32), arr(u32), arr(u32, 2)))
    head = (
        arr(u32), arr(u32), i64, arr(u32), arr(i64), arr(i64), arr(i64), arr(i64), arr(i64),
        arr(i64), arr(i64), arr(i64), arr(i64), arr(i64), arr(i64), arr(i64, 2), arr(i64),
        arr(u32), arr(i64), arr(i64), arr(i64), i64, T.boolean, T.boolean, T.boolean, T.boolean,
    )  # fmt: skip
    lat = T.Tuple((arr(i64, 2), arr(i64), arr(i64, 2), i64, arr(i64, 2)))
    shapes = T.Tuple((arr(i64), arr(i64, 2)))
    pairs = T.Tuple((arr(i64), arr(T.int32, 2), i64))
    taken_apart = T.Tuple((i64, i64, i64, arr(i64, 2), arr(i64, 2), arr(i64), pairs))
    disassemble = taken_apart(
        arr(T.int32, 2), arr(i64), arr(i64), arr(i64), i64, lat, shapes, pairs
    )
    return {
        CELLS: {"run": i64(*head, T.none, bits)},
        CELLS_SETS: {"run": i64(*head, sets, bits)},
        MOVES: {"disassemble": disassemble},
    }


def _functions() -> dict[str, Any]:
    from tessera.solvers._cells_kernel import run
    from tessera.solvers.polycube._disassembly_kernel import _disassemble

    return {"run": run.py_func, "disassemble": _disassemble.py_func}


def _compile(module: str, exports: dict[str, Any], out: Path) -> None:
    import warnings

    from numba.core.compiler import Flags

    with warnings.catch_warnings():  # pycc's pending deprecation: see the module's docstring
        warnings.simplefilter("ignore")
        import numba.pycc.compiler as pycc_compiler
        from numba.pycc import CC

    class GilFree(Flags):
        """pycc's flags, releasing the GIL around each call as `nogil=True` does."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    functions = _functions()
    cc = CC(module)
    cc.output_dir = str(out)
    cc.target_cpu = TARGET_CPU
    cc.verbose = False
    cc.use_nrt = module == MOVES
    for name, signature in exports.items():
        cc.export(name, signature)(functions[name])
    plain = pycc_compiler.Flags
    pycc_compiler.Flags = GilFree
    try:
        cc.compile()
    finally:
        pycc_compiler.Flags = plain


def build(where: Path | None = None) -> list[Path]:
    """Compile both modules into `where` (the default folder unless told), atomically: each is
    written under a temporary name and renamed into place. Older builds there are removed."""
    import tempfile

    if TARGET_CPU is None:
        raise RuntimeError(f"no ahead-of-time target for this machine ({platform.machine()})")
    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    made = []
    for module, exports in _signatures().items():
        with tempfile.TemporaryDirectory(dir=where, prefix=".build-") as tmp:
            _compile(module, exports, Path(tmp))
            final = path_of(module, where)
            os.replace(Path(tmp) / f"{module}{SUFFIX}", final)
        for old in where.glob(f"{module}-*{SUFFIX}"):
            if old != final:
                old.unlink(missing_ok=True)
        made.append(final)
    forget()
    return made


def up_to_date(where: Path | None = None) -> bool:
    return all(path_of(module, where).is_file() for module in MODULES)


def main(argv: list[str] | None = None) -> int:
    """`python -m tessera.solvers.native [--force]`: build when missing or stale; one line."""
    import time

    argv = sys.argv[1:] if argv is None else argv
    if TARGET_CPU is None:
        print(f"native kernels: none for {platform.machine()}; numba's JIT cache serves")
        return 0
    if up_to_date() and "--force" not in argv:
        print(f"native kernels: up to date in {folder()}")
        return 0
    start = time.perf_counter()
    try:
        build()
    except Exception as err:  # no compiler, no headers, numba without pycc: the JIT serves
        reason = str(err).strip().splitlines()[-1:] or [type(err).__name__]
        print(f"native kernels: not built ({reason[0][:200]}); numba's JIT cache serves")
        return 0
    print(f"native kernels: built in {time.perf_counter() - start:.1f} s into {folder()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
