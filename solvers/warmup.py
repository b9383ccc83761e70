"""Each compiled kernel, ready or not, and all of them compiled at once.

Apart from `solvers.kernels` (the compile notices, which the kernels' own modules import):
this module imports those modules, so it sits above them.
"""

from __future__ import annotations

from tessera.solvers.kernels import is_compiled


def exact_cover_ready() -> bool:
    from tessera.solvers._cells_kernel import run

    return is_compiled(run)


def disassembler_ready() -> bool:
    from tessera.solvers.polycube.disassemble import _search

    return is_compiled(_search)


def warm_up() -> None:
    """Compile (or load from the cache) every kernel once, on tiny inputs: a test run does this
    before its workers start, so they load the kernels instead of each compiling them."""
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
