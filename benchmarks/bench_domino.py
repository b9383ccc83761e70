"""Domino generation speed on 8x7 (double-six) and 10x11 (double-nine) boards, unique mode
included, each beside a reference in the same process:

* tiling: our default (networkx Hopcroft-Karp on a shuffled grid graph, then flips) against the
  flip-chain tiling alone (`layout_flips`);
* uniqueness proof: our exact-cover engine (stop at the second solution) against xcover's
  Algorithm C on the very same matrix.

Whole-board generation (`generate`, with and without --unique) has no reference; its rows say
so.
"""

from __future__ import annotations

import random
import sys
import time
from itertools import islice
from pathlib import Path

import xcover

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import print_rows, row  # noqa: E402

from tessera.solvers.domino import exact_cover_problem, is_unique, placements
from tessera.solvers.domino_generate import generate, layout_flips, layout_matching, random_board

SIZES = ((8, 7, 7), (10, 11, 10))


def per_call(fn, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def xcover_unique(puzzle) -> bool:
    problem = exact_cover_problem(puzzle, placements(puzzle))
    options = [list(row) for row in problem.rows]
    primary = list(range(problem.n_primary))
    secondary = list(range(problem.n_primary, problem.n_columns))
    return len(list(islice(xcover.covers(options, primary=primary, secondary=secondary), 2))) == 1


def timings(cols: int, nrows: int, suits: int) -> list[tuple]:
    """The table rows for one board size."""
    size = f"{cols}x{nrows}"
    rng = random.Random(1)
    rows: list[tuple] = []
    ours = per_call(lambda: layout_matching(nrows, cols, rng), 200)
    ref = per_call(lambda: layout_flips(nrows, cols, rng), 200)
    rows.append((f"tiling {size}", "matching+flips", ours, "flips only", ref))

    boards = [random_board(cols, nrows, suits, rng, oriented_pips=False) for _ in range(150)]
    ours = per_call_each(is_unique, boards)
    ref = per_call_each(xcover_unique, boards)
    rows.append((f"unique? {size} plain", "exact_cover", ours, "xcover", ref))

    spent = per_call(lambda: generate(cols, nrows, suits, rng=rng), 100)
    rows.append((f"board {size}", "generate", spent, "", None))
    for oriented in (True, False):
        tries, grades = 0, {}
        n = 10
        start = time.perf_counter()
        for seed in range(n):
            puzzle = generate(cols, nrows, suits, unique=True, seed=seed, oriented_pips=oriented)
            tries += puzzle.meta["tries"]
            grades[puzzle.difficulty] = grades.get(puzzle.difficulty, 0) + 1
        spent = (time.perf_counter() - start) / n
        label = "oriented" if oriented else "plain"
        mix = ", ".join(f"{k} {v}" for k, v in sorted(grades.items()))
        rows.append(
            (f"--unique {size} {label}", f"{tries / n:.0f} tries avg; {mix}", spent, "", None)
        )
    return rows


def per_call_each(fn, items) -> float:
    start = time.perf_counter()
    for item in items:
        fn(item)
    return (time.perf_counter() - start) / len(items)


def main() -> list[dict]:
    generate(4, 3, unique=True, seed=0)  # compile the engine's kernel before timing
    rows = []
    for cols, nrows, suits in SIZES:
        for case, what, ours, ref_name, ref in timings(cols, nrows, suits):
            if ref is None:
                rows.append(row(case, ours, note=f"{what}; no reference"))
            else:
                rows.append(row(case, ours, ref_name, ref, f"ours: {what}"))
    print_rows(rows)
    return rows


if __name__ == "__main__":
    main()
