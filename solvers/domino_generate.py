"""Making domino boards that are guaranteed to have a solution, and optionally only one.

A board is built from its answer: first a random domino tiling of the X×Y rectangle, then
distinct tiles of the set, shuffled, laid on the tiling's pairs (each either way round). The
tiling is a perfect matching of the grid graph, which is bipartite (cells split by the parity
of x + y, and every domino joins one of each), so networkx's Hopcroft–Karp finds one; the
graph is built in a random order so that the matching varies, and random *flips* (two parallel
dominoes filling a 2×2 square turned a quarter turn, the move that connects all tilings of a
rectangle) then stir it further. `layout_flips` gets a tiling from flips alone, starting from
rows of bricks; the benchmark compares the two.

`--unique` keeps drawing boards until the exact-cover search proves exactly one solution, then
grades it with the deduction solver. Every draw comes from one `random.Random(seed)`, so a seed
reproduces the whole run, tries included.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import networkx as nx

from tessera.models.domino import (
    MAX_SUITS,
    DominoPuzzle,
    Pair,
    all_tiles,
    check_board,
    make_puzzle,
    max_cells,
    set_name,
    suits_for,
)
from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.domino import grade, is_unique

METHODS = ("matching", "flips")


def _partner_to_pairs(partner: list[int], cols: int) -> list[Pair]:
    return [((i // cols, i % cols), (j // cols, j % cols)) for i, j in enumerate(partner) if i < j]


def flip(partner: list[int], rows: int, cols: int, rng: random.Random, times: int) -> None:
    """`times` random flip attempts: a 2×2 square holding two parallel dominoes is turned."""
    if rows < 2 or cols < 2:
        return
    for _ in range(times):
        r, c = rng.randrange(rows - 1), rng.randrange(cols - 1)
        a = r * cols + c
        b, d, e = a + 1, a + cols, a + cols + 1
        if partner[a] == b and partner[d] == e:
            partner[a], partner[d], partner[b], partner[e] = d, a, e, b
        elif partner[a] == d and partner[b] == e:
            partner[a], partner[b], partner[d], partner[e] = b, a, e, d


def layout_matching(
    rows: int, cols: int, rng: random.Random, flips: int | None = None
) -> list[Pair]:
    """A random perfect matching of the grid graph (Hopcroft–Karp on a shuffled graph), stirred
    by `flips` flip attempts (default 2 per cell)."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    rng.shuffle(cells)
    edges = [((r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    edges += [((r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    rng.shuffle(edges)
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from(edges)
    top = [cell for cell in cells if (cell[0] + cell[1]) % 2 == 0]
    matching = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=top)
    partner = [0] * (rows * cols)
    for (r1, c1), (r2, c2) in matching.items():
        partner[r1 * cols + c1] = r2 * cols + c2
    if len(matching) != rows * cols:  # cannot happen for an even rectangle; guard anyway
        raise PuzzleError(f"a {cols}x{rows} board has no domino tiling")
    flip(partner, rows, cols, rng, 2 * rows * cols if flips is None else flips)
    return _partner_to_pairs(partner, cols)


def layout_flips(rows: int, cols: int, rng: random.Random, flips: int | None = None) -> list[Pair]:
    """A random tiling from bricks (rows of horizontal dominoes, or columns of vertical ones
    when the width is odd) and `flips` flip attempts (default 20 per cell)."""
    partner = [0] * (rows * cols)
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            if cols % 2 == 0:
                partner[i] = i + 1 if c % 2 == 0 else i - 1
            else:
                partner[i] = i + cols if r % 2 == 0 else i - cols
    flip(partner, rows, cols, rng, 20 * rows * cols if flips is None else flips)
    return _partner_to_pairs(partner, cols)


def check_size(cols: int, rows: int, suits: int | None) -> int:
    """The suit count to use (the smallest set that fits when not given); PuzzleError when no
    set of that size can tile the board."""
    if cols < 1 or rows < 1:
        raise PuzzleError(f"board size must be positive, got {cols}x{rows}")
    # without --suits, the smallest set that fits, or the largest set (which check_board then
    # refuses with the cells it covers)
    k = suits if suits is not None else min(suits_for(cols * rows), MAX_SUITS)
    check_board(cols, rows, k)  # from the sizes: never build a board the set cannot tile
    return k


def random_board(
    cols: int,
    rows: int,
    suits: int,
    rng: random.Random,
    *,
    oriented_pips: bool = True,
    method: str = "matching",
) -> DominoPuzzle:
    """One board with a known solution (its `solution`): random tiling, shuffled distinct tiles."""
    if method == "matching":
        pairs = layout_matching(rows, cols, rng)
    elif method == "flips":
        pairs = layout_flips(rows, cols, rng)
    else:
        raise ValueError(f"unknown layout method {method!r} (known: {', '.join(METHODS)})")
    tiles = rng.sample(all_tiles(suits), len(pairs))
    numbers = [[0] * cols for _ in range(rows)]
    for (a, b), (lo, hi) in zip(pairs, tiles, strict=True):
        if rng.random() < 0.5:
            lo, hi = hi, lo
        numbers[a[0]][a[1]] = lo
        numbers[b[0]][b[1]] = hi
    return make_puzzle(numbers, suits, oriented_pips=oriented_pips, solution=pairs)


def generate(
    cols: int,
    rows: int,
    suits: int | None = None,
    *,
    unique: bool = False,
    seed: int | None = None,
    rng: random.Random | None = None,
    oriented_pips: bool = True,
    method: str = "matching",
    max_tries: int = 20_000,
    on_try: Callable[[int], None] | None = None,
) -> DominoPuzzle:
    """A board of `cols` × `rows` (X × Y) with its solution. With `unique`, the first drawn board
    with exactly one solution, graded; `meta["tries"]` says how many boards were drawn."""
    k = check_size(cols, rows, suits)
    if rng is None:
        rng = random.Random(seed)
    tries = 0
    while True:
        tries += 1
        puzzle = random_board(cols, rows, k, rng, oriented_pips=oriented_pips, method=method)
        if on_try is not None:
            on_try(tries)
        if not unique or is_unique(puzzle):
            break
        if tries >= max_tries:
            raise NoSolution(
                f"no board of {cols}x{rows} with a {set_name(k)} set had a unique solution"
                f" in {tries} tries"
            )
    puzzle.meta["tries"] = tries
    if seed is not None:
        puzzle.meta["seed"] = seed
    if unique:
        puzzle.difficulty = grade(puzzle)
    kind = "unique" if unique else "random"
    puzzle.name = f"{kind} {cols}x{rows} {set_name(k)}"
    if cols * rows == max_cells(k):
        puzzle.name += " (full set)"
    return puzzle
