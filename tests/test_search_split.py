"""Splitting a search for another thread (`ExactCoverSearch.split`): the parts find exactly the
solutions of the whole, each once, and a tally spread over threads counts as one thread does."""

from __future__ import annotations

import pytest

from tessera.models.assets import resolve_puzzle
from tessera.models.polycube import load_polycube
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.polycube.symmetry import ClassSearch


def split_everywhere(search: ExactCoverSearch, nodes: int) -> tuple[int, float, int]:
    """Run the search and every part split off it, splitting after every `nodes` nodes:
    (solutions found by all the parts, their shares added up, how many splits). Only the
    numbers are kept: thousands of finished searches would hold their arrays."""
    queue, found, share, splits = [search], 0, 0.0, 0
    while queue:
        current = queue.pop()
        while not current.advance(nodes):
            part = current.split()
            if part is not None:
                splits += 1
                queue.append(part)
        assert current.done
        found += current.found
        share += current.share
    return found, share, splits


@pytest.mark.parametrize("name", ["soma", "pentominoes-3x20"])
def test_parts_count_the_whole(name):
    matrix = PackingProblem(load_polycube(resolve_puzzle(name))).exact_cover
    whole = ExactCoverSearch(matrix).count()
    found, share, splits = split_everywhere(ExactCoverSearch(matrix), 500)
    assert splits > 20
    assert found == whole
    assert share == pytest.approx(1.0)


def test_parts_list_each_solution_once_in_the_problems_rows():
    matrix = PackingProblem(load_polycube(resolve_puzzle("soma"))).exact_cover
    whole = sorted(tuple(sorted(rows)) for rows in ExactCoverSearch(matrix).solutions())
    queue, found = [ExactCoverSearch(matrix, slice_nodes=300)], []
    while queue:
        search = queue.pop()

        def give(_fraction: float, _found: int, search=search) -> None:
            part = search.split()
            if part is not None:
                queue.append(part)

        found += [tuple(sorted(rows)) for rows in search.solutions(give)]
    assert sorted(found) == whole


def test_a_multi_item_level_is_never_split():
    """Algorithm M's levels try a multi item's options in order, each excluding those before
    it: two parts of such a level would find one multiset twice."""
    cells = [(x, y) for y in range(2) for x in range(12)]
    index = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    rows = [
        [index[(x, y)], index[(x + dx, y + dy)], n]
        for x, y in cells
        for dx, dy in ((1, 0), (0, 1))
        if (x + dx, y + dy) in index
    ]
    domino = ExactCoverProblem(rows, n + 1, n + 1, [1] * n + [12])
    found, _, _ = split_everywhere(ExactCoverSearch(domino), 3)
    assert found == 233


def test_a_traced_search_keeps_its_work():
    matrix = PackingProblem(load_polycube(resolve_puzzle("soma"))).exact_cover
    search = ExactCoverSearch(matrix, trace=True)
    search.advance(50)
    assert search.split() is None


@pytest.mark.parametrize("name", ["pentominoes-6x10", "six-piece-cube"])
def test_a_tally_on_threads_counts_as_one_thread(name):
    puzzle = load_polycube(resolve_puzzle(name))
    alone = ClassSearch(puzzle).tally(workers=1)
    shared = ClassSearch(puzzle).tally(workers=2)
    assert shared == alone and not shared.partial
