"""New Instant Insanity sets: n dice, n colours, exactly one distinct solution.

Random dice almost never have a solution once n grows, so a set is built around one: two
random Hamiltonian cycles through the colours, one for the front/back pairs and one for the
right/left pairs, each cycle's edges dealt to the dice in a random order; the top/bottom pair
of every die is random. Every die is then turned to a random orientation so the file does not
give the answer away. A single cycle per subgraph is what uniqueness needs (each extra cycle
could be turned round on its own, giving another solution), but the random top/bottom pairs
can still open other solutions, so the graph solver checks each candidate and we draw again
until exactly one distinct solution remains. Everything comes from one `random.Random(seed)`,
so a seed always gives the same file.
"""

from __future__ import annotations

import random

from tessera.models.dice import DEFAULT_COLORS, DicePuzzle, canonical_look, orient
from tessera.solvers.dice_graph import graph_solutions

# Single-letter names: the ten with default display colours first, then the other letters.
COLOUR_NAMES = tuple(DEFAULT_COLORS) + tuple("adefhijlnqstuvxz")
# One letter per colour; the check for uniqueness also grows quickly past 20 dice.
MAX_DICE = len(COLOUR_NAMES)


def colour_names(n: int) -> list[str]:
    return list(COLOUR_NAMES[:n])


def planted(n: int, rng: random.Random) -> list[list[str]]:
    """n dice with a solution built in (see the module docstring), randomly oriented."""
    names = colour_names(n)
    ring1 = rng.sample(names, n)
    ring2 = rng.sample(names, n)
    deal1 = rng.sample(range(n), n)
    deal2 = rng.sample(range(n), n)
    dice = []
    for d in range(n):
        j1, j2 = deal1[d], deal2[d]
        front, back = ring1[j1], ring1[(j1 + 1) % n]
        right, left = ring2[j2], ring2[(j2 + 1) % n]
        top, bottom = rng.choice(names), rng.choice(names)
        die = (top, front, right, back, left, bottom)
        dice.append(list(orient(die, rng.randrange(24))))
    return dice


def distinct_count(dice: list[list[str]], limit: int = 2) -> int:
    """Distinct solutions of a set, counted only up to `limit` (enough to reject a set)."""
    puzzle = DicePuzzle("candidate", dice)
    seen = set()
    for stack in graph_solutions(puzzle):
        seen.add(canonical_look(dice, stack))
        if len(seen) >= limit:
            break
    return len(seen)


def generate(n: int, seed: int | None = None, *, max_tries: int = 100_000) -> DicePuzzle:
    """A set of `n` dice in `n` colours with exactly one distinct solution."""
    if not 1 <= n <= MAX_DICE:
        raise ValueError(f"the number of dice must be between 1 and {MAX_DICE}")
    rng = random.Random(seed)
    for _ in range(max_tries):
        dice = planted(n, rng)
        if distinct_count(dice) == 1:
            name = f"Generated, seed {seed}" if seed is not None else "Generated"
            return DicePuzzle(name, dice)
    raise RuntimeError(f"no uniquely solvable set of {n} dice after {max_tries} tries")
