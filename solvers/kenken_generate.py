"""Making KenKen puzzles with exactly one solution, graded by the deductions they need.

Recipe: a random Latin square is the answer; random connected cages (1..5 cells) cover it;
each cage gets an operation that its digits satisfy. The solver then counts solutions up to
two. When there are two, the cages holding cells where the two answers differ get new
operations (a different clue is usually enough to tell the answers apart); after a few
failed repairs we start over with new cages. Everything draws from one `random.Random(seed)`,
so a seed always gives the same puzzle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tessera.models.errors import PuzzleError
from tessera.models.kenken import MAX_SIZE, MIN_SIZE, Cage, KenKenPuzzle, cage_value
from tessera.solvers.kenken import LEVELS, KenKenSearch, NodeLimit, grade

Grid = list[list[int]]
MAX_CAGE = 5
REPAIRS = 6
#: Search nodes allowed to decide whether a candidate is unique; candidates that need more
#: are dropped rather than decided, which keeps generation quick and the puzzles humane.
NODE_LIMIT = 400
#: How many cage layouts to try before giving up on a difficulty (3×3 is never "hard").
ATTEMPTS = 400


@dataclass(frozen=True)
class Generated:
    puzzle: KenKenPuzzle
    solution: Grid
    seed: int
    attempts: int


def latin_square(n: int, rng: random.Random) -> Grid:
    """A random Latin square, row by row: each row is a random perfect matching of columns to
    the digits still free in them (one always exists, by Hall's theorem)."""
    free = [set(range(1, n + 1)) for _ in range(n)]  # digits still free per column
    rows = []
    for _ in range(n):
        owner: dict[int, int] = {}  # digit -> column
        for col in rng.sample(range(n), n):
            _augment(col, free, owner, set(), rng)
        row = [0] * n
        for digit, col in owner.items():
            row[col] = digit
            free[col].discard(digit)
        rows.append(row)
    return rows


def _augment(col: int, free: list[set[int]], owner: dict[int, int], seen: set[int], rng) -> bool:
    digits = list(free[col])
    rng.shuffle(digits)
    for digit in digits:
        if digit in seen:
            continue
        seen.add(digit)
        if digit not in owner or _augment(owner[digit], free, owner, seen, rng):
            owner[digit] = col
            return True
    return False


def random_cages(n: int, rng: random.Random, givens: bool) -> list[list[tuple[int, int]]]:
    """Connected cages of 1..5 cells covering the grid (no one-cell cages unless `givens`)."""
    sizes = [1, 2, 3, 4, 5] if givens else [2, 3, 4, 5]
    weights = [1, 5, 4, 2, 1] if givens else [5, 4, 2, 1]
    while True:
        cage_of: dict[tuple[int, int], int] = {}
        cages: list[list[tuple[int, int]]] = []
        cells = [(r, c) for r in range(n) for c in range(n)]
        rng.shuffle(cells)
        for start in cells:
            if start in cage_of:
                continue
            want = rng.choices(sizes, weights)[0]
            cage = [start]
            cage_of[start] = len(cages)
            while len(cage) < want:
                frontier = sorted(
                    {nb for cell in cage for nb in _neighbours(cell, n) if nb not in cage_of}
                )
                if not frontier:
                    break
                nb = rng.choice(frontier)
                cage.append(nb)
                cage_of[nb] = len(cages)
            cages.append(cage)
        if not givens and not _absorb_singles(cages, cage_of, n, rng):
            continue
        return [sorted(cage) for cage in cages if cage]


def _neighbours(cell: tuple[int, int], n: int) -> list[tuple[int, int]]:
    r, c = cell
    return [
        (a, b)
        for a, b in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= a < n and 0 <= b < n
    ]


def _absorb_singles(cages, cage_of, n: int, rng: random.Random) -> bool:
    """Merge each one-cell cage into a neighbouring cage with room; False if one is stuck."""
    for k, cage in enumerate(cages):
        if len(cage) != 1:
            continue
        options = sorted(
            {cage_of[nb] for nb in _neighbours(cage[0], n)} - {k},
            key=lambda j: (len(cages[j]), j),
        )
        options = [j for j in options if 1 < len(cages[j]) < MAX_CAGE] or [
            j for j in options if len(cages[j]) == 1
        ]
        if not options:
            return False
        j = rng.choice(options)
        cages[j].extend(cage)
        cage_of[cage[0]] = j
        cages[k] = []
    return all(len(cage) != 1 for cage in cages)


def _pick_op(digits: list[int], rng: random.Random, mult_only: bool, avoid: str = "") -> str:
    """An operation these digits satisfy, favouring − and ÷ for pairs (they say the most)."""
    if len(digits) == 1:
        return ""
    if mult_only:
        return "*"
    if len(digits) == 2:
        hi, lo = max(digits), min(digits)
        options = {"-": 3, "+": 1, "*": 1}
        if hi % lo == 0:
            options["/"] = 4
    else:
        options = {"+": 1, "*": 1}
    if avoid in options and len(options) > 1:
        del options[avoid]
    ops = sorted(options)
    return rng.choices(ops, [options[o] for o in ops])[0]


def _puzzle(n, layout, ops, solution, mult_only) -> KenKenPuzzle:
    cages = []
    for cells, op in zip(layout, ops, strict=True):
        target = cage_value(op, [solution[r][c] for r, c in cells])
        cages.append(Cage(tuple(cells), target, op))
    cages.sort(key=lambda cage: cage.cells[0])
    return KenKenPuzzle(n, tuple(cages), "generated", multiplication_only=mult_only)


def _other_solution(puzzle: KenKenPuzzle, solution: Grid) -> Grid | None:
    """A solution other than `solution`, or None when it is the only one. Raises `NodeLimit`
    when that takes more than `NODE_LIMIT` nodes to decide."""
    for grid in KenKenSearch(puzzle, probe=False, node_limit=NODE_LIMIT).solutions():
        if grid != solution:
            return grid
    return None


def _repair(size, layout, digits, ops, solution, rng, mult_only) -> KenKenPuzzle | None:
    """Re-pick the operations of cages where a second solution differs, until the solution is
    unique (the puzzle) or repairs run out or the question gets too costly (None)."""
    for _ in range(REPAIRS):
        puzzle = _puzzle(size, layout, ops, solution, mult_only)
        try:
            other = _other_solution(puzzle, solution)
        except NodeLimit:
            return None
        if other is None:
            return puzzle
        changed = False
        for k, cells in enumerate(layout):
            if any(other[r][c] != solution[r][c] for r, c in cells):
                new = _pick_op(digits[k], rng, mult_only, avoid=ops[k])
                changed |= new != ops[k]
                ops[k] = new
        if not changed:
            return None
    return None


def generate(
    size: int,
    *,
    difficulty: str | None = None,
    seed: int | None = None,
    givens: bool = True,
    multiplication_only: bool = False,
) -> Generated:
    """A puzzle with exactly one solution (and, if asked, of that difficulty)."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"size must be {MIN_SIZE}..{MAX_SIZE}, not {size}")
    if difficulty is not None and difficulty not in LEVELS:
        raise PuzzleError(f"unknown difficulty '{difficulty}' (use {', '.join(LEVELS)})")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    for attempt in range(1, ATTEMPTS + 1):
        solution = latin_square(size, rng)
        layout = random_cages(size, rng, givens)
        digits = [[solution[r][c] for r, c in cells] for cells in layout]
        ops = [_pick_op(d, rng, multiplication_only) for d in digits]
        puzzle = _repair(size, layout, digits, ops, solution, rng, multiplication_only)
        if puzzle is None:
            continue
        level = grade(puzzle)
        if difficulty is not None and level != difficulty:
            continue
        puzzle = KenKenPuzzle(size, puzzle.cages, "generated", level, multiplication_only)
        return Generated(puzzle, solution, seed, attempt)
    what = f" of difficulty {difficulty}" if difficulty else ""
    raise PuzzleError(
        f"could not make a {size}x{size} puzzle{what} in {ATTEMPTS} tries (seed {seed})"
    )
