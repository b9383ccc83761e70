"""Which compiled kernels are ready, and a word before one is compiled.

A fresh install compiles each numba kernel on its first use (about 2 s for the exact-cover
search, 4-5 s for the disassembler); later runs load it from numba's cache (about 0.3 s with
numba's own start, none when `native` built it ahead of time). A
compile that runs in silence looks like a hang, so the solvers call `before_first_use` just
before a kernel's first call, and whoever shows things to the user (the command line on a
terminal, the window's status bar) registers a listener with `on_compile`. This module never
prints and never imports numba itself: it only reads the dispatchers the solvers hand it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: What a listener is told: a short name of the kernel about to compile.
CompileListener = Callable[[str], None]

_listeners: list[CompileListener] = []
_announced: set[str] = set()


def is_compiled(dispatcher: Any) -> bool:
    """Whether a `cache=True` numba function is compiled in this process or cached on disk;
    True when that cannot be told (never claim a compile that will not happen)."""
    try:
        if dispatcher.signatures:
            return True
        return Path(dispatcher._cache._cache_file._index_path).exists()
    except Exception:  # numba's private layout changed: say nothing rather than guess
        return True


def on_compile(listener: CompileListener) -> None:
    """Call `listener(kernel_name)` once per kernel that is about to be compiled."""
    if listener not in _listeners:
        _listeners.append(listener)


@contextmanager
def compile_notices(listener: CompileListener) -> Iterator[None]:
    """`on_compile(listener)` for the length of a `with` block (the window's solve worker)."""
    on_compile(listener)
    try:
        yield
    finally:
        if listener in _listeners:
            _listeners.remove(listener)


def before_first_use(name: str, dispatcher: Any) -> None:
    """Tell the listeners when `dispatcher` is about to compile (once per kernel and process)."""
    if name in _announced or not _listeners:
        return
    _announced.add(name)
    if not is_compiled(dispatcher):
        for listener in list(_listeners):
            listener(name)
