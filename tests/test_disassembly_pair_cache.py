"""The disassembler's pair distances, kept from one assembly to the next on a thread: the
answers are those of a fresh cache, an assembly seen before costs no new pair, and a shape is
its cells with their kinds (an upward and a downward prism are two shapes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.grids import grid_named
from tessera.solvers.polycube import disassemble as D
from tessera.solvers.polycube.movement import lattice
from tessera.solvers.polycube.symmetry import ClassSearch

CASES = Path(__file__).parent / "fixtures"


def assemblies(path: Path):
    puzzle = load_xmpuzzle(path)
    found = [[np.asarray(p.cells) for p in a.pieces] for a in ClassSearch(puzzle).representatives()]
    return puzzle.grid, found


def answer(result):
    return result.complete, result.level, result.nodes, result.moves, result.left_together


def test_a_kept_cache_answers_as_a_fresh_one(monkeypatch):
    for name in ("burrtools/box03.xmpuzzle", "burrtools_grids/rhombic02.xmpuzzle"):
        grid, found = assemblies(CASES / name)
        kept = [answer(D.disassemble(cells, grid=grid)) for cells in found]
        fresh = []
        for cells in found:
            monkeypatch.setattr(D._caches, "by_grid", {})
            fresh.append(answer(D.disassemble(cells, grid=grid)))
        assert kept == fresh
        assert any(complete for complete, *_ in kept)


def test_an_assembly_seen_before_costs_no_new_pair(monkeypatch):
    grid, found = assemblies(CASES / "burrtools/box03.xmpuzzle")
    monkeypatch.setattr(D._caches, "by_grid", {})
    D.disassemble(found[0], grid=grid)
    cache = D._pair_cache(grid, len(lattice(grid).dirs))
    known = int(cache.table[2])
    assert known > 0
    D.disassemble(found[0], grid=grid)
    assert int(cache.table[2]) == known
    D.disassemble(found[-1], grid=grid)  # another assembly of the same pieces: some pairs new
    assert int(cache.table[2]) >= known


def test_a_shape_is_its_cells_with_their_kinds():
    grid = grid_named("prisms")
    lat = lattice(grid)
    up, down = np.array([[0, 0, 0]]), np.array([[1, 0, 0]])  # the two kinds of prism
    kinds = lat.kinds(np.vstack([up, down]))
    assert kinds[0] != kinds[1]
    ids, bases = D._PairCache(len(lat.dirs)).shapes([up, down], kinds)
    assert ids[0] != ids[1]
    same_kind = D._PairCache(len(lat.dirs))
    ids2, _ = same_kind.shapes([up, up + [0, 0, 1]], lat.kinds(np.vstack([up, up + [0, 0, 1]])))
    assert ids2[0] == ids2[1]


def test_a_grown_table_is_kept_in_numpys_memory(monkeypatch):
    """The kernel grows a full table into arrays of its own runtime; the cache keeps copies,
    so no array of the compiled module's lives on in a thread's cache."""
    grid, found = assemblies(CASES / "burrtools/box03.xmpuzzle")
    monkeypatch.setattr(D._caches, "by_grid", {})
    cache = D._pair_cache(grid, len(lattice(grid).dirs))
    small = (np.full(16, -1, np.int64), np.empty((16, cache.n_directions), np.int32), 0)
    cache.table = small
    for cells in found:
        D.disassemble(cells, grid=grid)
    keys, values, count = cache.table
    assert len(keys) > 16 and count > 8  # it grew
    assert keys.base is None and values.base is None
    assert keys.flags.owndata and values.flags.owndata
