"""Instant Insanity: the graph method against the depth-first search it is checked against.

Both list every raw solution of the same generated sets (n dice, n colours, one distinct
solution, fixed seeds) and fold them into distinct solutions; the search is the reference.
Goal: the graph method solves n = 12 in under a second. The search is run where it finishes
in reasonable time; larger n are timed for the graph method alone.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tessera.solvers.dice import solve  # noqa: E402
from tessera.solvers.dice_generate import generate  # noqa: E402

GOAL_N, GOAL_SECONDS = 12, 1.0
SEARCH_UP_TO = 12  # the reference search takes 5-20 s at 12 and grows ~15x per 2 dice
SEEDS = (1, 2, 3)


def timed(puzzle, method):
    start = time.perf_counter()
    result = solve(puzzle, method)
    return time.perf_counter() - start, result


def main() -> int:
    print(f"{'n':>3} {'seed':>4} {'raw':>5} {'distinct':>8} {'graph s':>9} {'search s':>9} "
          f"{'search/graph':>12}")  # fmt: skip
    worst = 0.0
    for n in (8, 10, 12, 16, 20):
        for seed in SEEDS:
            puzzle = generate(n, seed=seed)
            t_graph, result = timed(puzzle, "graph")
            if n == GOAL_N:
                worst = max(worst, t_graph)
            if n < SEARCH_UP_TO or (n == SEARCH_UP_TO and seed == SEEDS[0]):
                t_search, ref = timed(puzzle, "search")
                assert (ref.raw, ref.distinct) == (result.raw, result.distinct), (n, seed)
                ratio = f"{t_search / t_graph:12.0f}"
                search = f"{t_search:9.3f}"
            else:
                search, ratio = f"{'-':>9}", f"{'-':>12}"
            print(
                f"{n:>3} {seed:>4} {result.raw:>5} {len(result.distinct):>8} "
                f"{t_graph:9.4f} {search} {ratio}",
                flush=True,
            )
    verdict = "met" if worst < GOAL_SECONDS else "MISSED"
    print(f"goal: graph method on n = {GOAL_N} under {GOAL_SECONDS} s: {verdict} "
          f"(slowest {worst:.4f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    main()
