"""Instant Insanity: the graph method against the depth-first search it is checked against.

Both list every raw solution of the same generated sets (n dice, n colours, one distinct
solution, fixed seeds) and fold them into distinct solutions; the search is the reference,
run in the same process on the same sets. Goal: the graph method solves n = 12 in under a
second. The search is run where it finishes in reasonable time (every set below 12 dice, the
first set of 12); a ratio only ever compares the two methods on the same sets, and the larger
sets are timed for the graph method alone, their rows saying so.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import print_rows, row  # noqa: E402

from tessera.solvers.dice import solve  # noqa: E402
from tessera.solvers.dice_generate import generate  # noqa: E402

GOAL_N, GOAL_SECONDS = 12, 1.0
SEARCH_UP_TO = 12  # the reference search takes 5-20 s at 12 and grows ~15x per 2 dice
SEEDS = (1, 2, 3)


def timed(puzzle, method):
    start = time.perf_counter()
    result = solve(puzzle, method)
    return time.perf_counter() - start, result


def main() -> list[dict]:
    print(f"{'n':>3} {'seed':>4} {'raw':>5} {'distinct':>8} {'graph s':>9} {'search s':>9} "
          f"{'graph/search':>12}")  # fmt: skip
    rows = []
    for n in (8, 10, 12, 16, 20):
        graph, search = {}, {}
        for seed in SEEDS:
            puzzle = generate(n, seed=seed)
            graph[seed], result = timed(puzzle, "graph")
            shown = f"{'-':>9} {'-':>12}"
            if n < SEARCH_UP_TO or (n == SEARCH_UP_TO and seed == SEEDS[0]):
                search[seed], ref = timed(puzzle, "search")
                assert (ref.raw, ref.distinct) == (result.raw, result.distinct), (n, seed)
                shown = f"{search[seed]:9.3f} {graph[seed] / search[seed]:12.4f}"
            print(
                f"{n:>3} {seed:>4} {result.raw:>5} {len(result.distinct):>8} "
                f"{graph[seed]:9.4f} {shown}",
                flush=True,
            )
        rows.extend(_rows(n, graph, search))
    print_rows(rows)
    return rows


def _rows(n: int, graph: dict[int, float], search: dict[int, float]) -> list[dict]:
    """Medians over the sets both methods ran on; the graph method alone on the others."""
    both = sorted(search)
    rows = []
    if both:
        sets = f"set {both[0]}" if len(both) == 1 else f"median of {len(both)} sets"
        rows.append(
            row(f"{n} dice: graph method, {sets}", statistics.median(graph[s] for s in both),
                "depth-first search, same sets", statistics.median(search.values()))
        )  # fmt: skip
    if n == GOAL_N or not both:
        worst = max(graph.values())
        note = "no reference: the search would take minutes"
        if n == GOAL_N:
            verdict = "met" if worst < GOAL_SECONDS else "MISSED"
            note = f"goal < {GOAL_SECONDS:g} s: {verdict}; search run on set {SEEDS[0]} only"
        rows.append(row(f"{n} dice: graph method, slowest of {len(graph)} sets", worst,
                        note=note))  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
