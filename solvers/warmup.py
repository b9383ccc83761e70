"""Each compiled kernel, ready or not, and all of them compiled at once.

Apart from `solvers.kernels` (the compile notices, which the kernels' own modules import):
this module imports those modules, so it sits above them.
"""

from __future__ import annotations

from tessera.solvers import native
from tessera.solvers.kernels import is_compiled


def exact_cover_ready() -> bool:
    if native.loaded(native.CELLS) and native.loaded(native.CELLS_SETS):
        return True
    from tessera.solvers._cells_kernel import run

    return is_compiled(run)


def disassembler_ready() -> bool:
    if native.loaded(native.MOVES) is not None:
        return True
    from tessera.solvers.polycube._disassembly_kernel import _disassemble

    return is_compiled(_disassemble)


def warm_up() -> None:
    """Compile (or load from the cache) every kernel once, on tiny inputs: a test run does this
    before its workers start, so they load the kernels instead of each compiling them. When the
    kernels were built ahead of time (`native`), numba's JIT versions are compiled too, for
    whatever asks for them (the tests comparing the two, `TESSERA_NATIVE=0`)."""
    import os

    _exercise()
    if native.loaded(native.CELLS) is None and native.loaded(native.MOVES) is None:
        return
    before = os.environ.get("TESSERA_NATIVE")
    os.environ["TESSERA_NATIVE"] = "0"
    native.forget()
    try:
        _exercise()
    finally:
        if before is None:
            del os.environ["TESSERA_NATIVE"]
        else:
            os.environ["TESSERA_NATIVE"] = before
        native.forget()


def _exercise() -> None:
    import numpy as np

    from tessera.solvers.polycube.batch import warm_kernel
    from tessera.solvers.polycube.disassemble import disassemble
    from tessera.solvers.polycube.interlocking import plan_assembles
    from tessera.solvers.polycube.movement import reach

    warm_kernel()
    # the exact-cover kernel's other way (sparse sets, for large matrices) is compiled apart
    from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch

    ExactCoverSearch(ExactCoverProblem([[0, 1], [0], [1]], 2, 2), bitsets=False).count()
    two_cubes = [np.zeros((1, 3), np.int64), np.array([[1, 0, 0]], np.int64)]
    disassemble(two_cubes)
    plan_assembles(two_cubes)
    reach(two_cubes, 1, max_steps=2)
