"""KenKen puzzles: an N×N Latin square split into cages, each with a target and an operation.

The model is shared by the solver, the generator, the command line and the viewer, so it keeps
to plain data (`KenKenPuzzle`, `Cage`) plus the two text forms users bring: the `.kenken` file
and Simon Tatham's Keen game ID (see `models/keen_id.py`). Every way in goes through
`build_puzzle`, which is where bad input is refused with a file and a line: a cage that is
not connected, a − or ÷ cage that is not two cells, a target no digits can reach.

`.kenken` text format::

    # comment
    a a b b          N rows of N cage labels (spaces optional when labels are one letter)
    c c b d
    e f f d
    g g f h
    a: 1-            one `LABEL: TARGET[OP]` line per cage; OP is + - x * / (or × ÷ −)
    e: 4             no OP: a one-cell given
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from math import factorial, prod
from pathlib import Path

from tessera.models.assets import resolve_puzzle
from tessera.models.errors import PuzzleError
from tessera.models.fileformat import read_text

MIN_SIZE, MAX_SIZE = 3, 9
#: The largest target any cage can reach is 9⁸¹ (78 digits); a longer number is refused as
#: text, before `int` (which stops at 4,300 digits anyway) and before any arithmetic on it.
MAX_TARGET_DIGITS = 80
#: The operations, as stored in `Cage.op`: "" is a one-cell given.
OPS = ("+", "-", "*", "/", "")
OP_SYMBOLS = {"+": "+", "-": "−", "*": "×", "/": "÷", "": ""}
_OP_ALIASES = {"+": "+", "-": "-", "−": "-", "x": "*", "X": "*", "*": "*", "×": "*"}
_OP_ALIASES |= {"/": "/", "÷": "/", "": ""}

Cell = tuple[int, int]


@dataclass(frozen=True)
class Cage:
    """A group of cells whose digits combine under `op` to `target`.

    `cells` are (row, col), 0-based, in reading order. `line` is where the cage's rule was
    written (None for puzzles that did not come from a file)."""

    cells: tuple[Cell, ...]
    target: int
    op: str
    line: int | None = field(default=None, compare=False)

    @property
    def clue(self) -> str:
        """The clue as printed in the corner of the cage: `12+`, `2÷`, `5`."""
        return f"{self.target}{OP_SYMBOLS[self.op]}"


@dataclass(frozen=True)
class KenKenPuzzle:
    """An N×N KenKen. Digits run 1..size; cages cover every cell exactly once.

    `difficulty` and `multiplication_only` matter only for Keen IDs (they are part of the
    ID's parameters, so keeping them lets an ID round-trip); `name` is the built-in name, the
    file stem or "keen"."""

    size: int
    cages: tuple[Cage, ...]
    name: str = ""
    difficulty: str | None = None
    multiplication_only: bool = False

    def cage_grid(self) -> list[list[int]]:
        """The index of the cage of every cell, row by row."""
        grid = [[-1] * self.size for _ in range(self.size)]
        for k, cage in enumerate(self.cages):
            for r, c in cage.cells:
                grid[r][c] = k
        return grid

    def is_solution(self, grid: Sequence[Sequence[int]]) -> bool:
        """True when `grid` is a Latin square that satisfies every cage."""
        n = self.size
        want = set(range(1, n + 1))
        if len(grid) != n or any(len(row) != n for row in grid):
            return False
        if any(set(row) != want for row in grid):
            return False
        if any({grid[r][c] for r in range(n)} != want for c in range(n)):
            return False
        return all(
            cage_value(cage.op, [grid[r][c] for r, c in cage.cells]) == cage.target
            for cage in self.cages
        )


def cage_value(op: str, digits: Sequence[int]) -> int | None:
    """What `digits` make under `op` (None when ÷ does not divide evenly)."""
    if op in ("", "+"):
        return sum(digits)
    if op == "*":
        product = 1
        for d in digits:
            product *= d
        return product
    hi, lo = max(digits), min(digits)
    if op == "-":
        return hi - lo
    return hi // lo if hi % lo == 0 else None


# -- candidate digit tuples ---------------------------------------------------------------


#: A cage with more candidate tuples than this is not enumerated: the solver propagates it by
#: bounds instead (a 36-cell `126+` cage has billions of tuples and once took 2.7 GB to list).
#: Normal cages have at most a few hundred; 9×9 puzzles keep well under this.
TUPLE_LIMIT = 10_000
#: Cages of this many cells or more first get a quick upper bound on their tuples (see
#: `_count_bound`); smaller ones (at most 9⁵ candidates) are listed directly, as they always
#: were, which is what keeps normal puzzles as fast as before.
BOUND_FROM = 6
#: Search steps spent looking for tuples before giving up on listing them (a large × cage can
#: have few tuples but a wide search to find them).
NODE_LIMIT = 40_000


def cage_tuples(
    cage: Cage, size: int, limit: int | None = TUPLE_LIMIT
) -> list[tuple[int, ...]] | None:
    """Every assignment of digits 1..size to the cage's cells (in order) that reaches the
    target, with no digit twice in a row or column of the cage; None when there are more than
    `limit` of them or finding them takes more than NODE_LIMIT steps (`limit=None`: no limit,
    for the exact-cover reference on puzzles known to be small). The solver starts from these;
    the loader uses them to refuse targets that cannot be reached."""
    if limit is not None and cage.op in ("+", "*") and len(cage.cells) >= BOUND_FROM:
        rows = tuple(sorted(Counter(r for r, _ in cage.cells).values()))
        cols = tuple(sorted(Counter(c for _, c in cage.cells).values()))
        most = min(_count_bound(cage.op, cage.target, size, g) for g in {rows, cols})
        if most > limit:
            return None
        if most == 0:  # the bound is exact about nothing fitting
            return []
    found = _tuples(cage.op, cage.target, size, _clashes(cage.cells), limit)
    return None if found is None else list(found)


@lru_cache(maxsize=4096)
def _count_bound(op: str, target: int, size: int, groups: tuple[int, ...]) -> int:
    """An upper bound on a cage's tuples, without listing them: the cells of each group (one
    row, or one column) hold distinct digits, other clashes are ignored. Counted by sums (or
    products dividing the target) over the groups, so a whole-grid cage costs microseconds."""
    adding = op == "+"
    reach: dict[int, int] = {0 if adding else 1: 1}
    for m in groups:
        ways = _distinct_values(m, size, adding)
        step: dict[int, int] = {}
        for value, count in reach.items():
            for part, n in ways.items():
                new = value + part if adding else value * part
                if new <= target and (adding or not target % new):
                    step[new] = step.get(new, 0) + count * n
        reach = step
        if not reach:
            return 0
    return reach.get(target, 0)


@lru_cache(maxsize=128)
def _distinct_values(m: int, size: int, adding: bool) -> dict[int, int]:
    """Ordered m-tuples of distinct digits 1..size, counted by their sum (or product)."""
    out: dict[int, int] = {}
    order = factorial(m)
    for subset in combinations(range(1, size + 1), m):
        value = sum(subset) if adding else prod(subset)
        out[value] = out.get(value, 0) + order
    return out


def _clashes(cells: Sequence[Cell]) -> tuple[tuple[int, ...], ...]:
    """For each cell, the earlier cells of the cage in its row or column."""
    return tuple(
        tuple(j for j in range(i) if cells[j][0] == cells[i][0] or cells[j][1] == cells[i][1])
        for i in range(len(cells))
    )


class _TooMany(Exception):
    pass


@lru_cache(maxsize=4096)
def _tuples(
    op: str,
    target: int,
    size: int,
    clashes: tuple[tuple[int, ...], ...],
    limit: int | None = TUPLE_LIMIT,
) -> tuple[tuple[int, ...], ...] | None:
    """Cached by shape: many cages share an op, a target and a pattern of clashing cells."""
    k = len(clashes)
    digits = range(1, size + 1)
    if op in ("-", "/"):
        if k != 2:
            return ()
        out = []
        for a in digits:
            for b in digits:
                if a != b and cage_value(op, (a, b)) == target:
                    out.append((a, b))
        return tuple(out)
    if op == "" and k != 1:
        return ()
    out: list[tuple[int, ...]] = []
    chosen = [0] * k
    add = op != "*"
    last = k - 1
    budget = [NODE_LIMIT if limit is not None else -1]

    def allowed(i: int, d: int) -> bool:
        for j in clashes[i]:
            if chosen[j] == d:
                return False
        return True

    def fill(i: int, rest: int) -> None:
        budget[0] -= 1
        if budget[0] == 0:
            raise _TooMany
        # the last cell's digit is forced by what is left of the target
        if i == last:
            if 1 <= rest <= size and allowed(i, rest):
                chosen[i] = rest
                out.append(tuple(chosen))
                if limit is not None and len(out) > limit:
                    raise _TooMany
            return
        if add:
            after = last - i  # cells still to fill after this one
            low, high = max(1, rest - size * after), min(size, rest - after)
            for d in range(low, high + 1):
                if allowed(i, d):
                    chosen[i] = d
                    fill(i + 1, rest - d)
        else:
            cap = size ** (last - i)
            for d in range(1, size + 1):
                if rest % d == 0 and rest // d <= cap and allowed(i, d):
                    chosen[i] = d
                    fill(i + 1, rest // d)

    try:
        fill(0, target)
    except _TooMany:
        return None
    return tuple(out)


def cage_reachable(cage: Cage, size: int) -> bool:
    """Can digits 1..size reach the cage's target? Exact for cages small enough to list; for
    larger ones the necessary bounds (k..k·N for a sum, prime factors ≤ N and at most N^k for a
    product), leaving the rest to the solver, which then finds no solution."""
    tuples = cage_tuples(cage, size)
    if tuples is not None:
        return bool(tuples)
    k, target = len(cage.cells), cage.target
    if cage.op == "+":
        return k <= target <= k * size
    if target < 1 or target > size**k:
        return False
    for p in range(2, size + 1):
        while target % p == 0:
            target //= p
    return target == 1


# -- building and checking ------------------------------------------------------------------


@dataclass
class CageSpec:
    """A cage as read, before checking: where its rule and its cells were written."""

    cells: list[Cell]
    target: int
    op: str
    line: int | None = None
    cell_lines: dict[Cell, int] = field(default_factory=dict)
    label: str = ""


def build_puzzle(
    size: int,
    specs: Iterable[CageSpec],
    path: str | Path | None = None,
    *,
    name: str = "",
    difficulty: str | None = None,
    multiplication_only: bool = False,
) -> KenKenPuzzle:
    """Check cages read from any source and make the puzzle; the one place rules are enforced."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"grid size {size} is outside {MIN_SIZE}..{MAX_SIZE}", path, 1)
    cages = []
    seen: set[Cell] = set()
    for spec in sorted(specs, key=lambda s: min(s.cells)):
        what = f"cage '{spec.label}'" if spec.label else f"cage at {_where(min(spec.cells))}"
        cells = tuple(sorted(spec.cells))
        for cell in cells:
            if not (0 <= cell[0] < size and 0 <= cell[1] < size):
                raise PuzzleError(f"{what}: cell {cell} is off the grid", path, spec.line)
            if cell in seen:
                raise PuzzleError(f"{what}: cell {_where(cell)} is in two cages", path, spec.line)
            seen.add(cell)
        if spec.op not in OPS:
            raise PuzzleError(f"{what}: unknown operation '{spec.op}'", path, spec.line)
        if spec.op in ("-", "/") and len(cells) != 2:
            sign = OP_SYMBOLS[spec.op]
            raise PuzzleError(
                f"{what}: a {sign} cage must have exactly 2 cells, not {len(cells)}",
                path,
                spec.line,
            )
        if spec.op == "" and len(cells) != 1:
            raise PuzzleError(
                f"{what}: {len(cells)} cells need an operation (+ - x /); only a one-cell "
                "cage may be a plain given",
                path,
                spec.line,
            )
        stray = _detached_cell(cells)
        if stray is not None:
            raise PuzzleError(
                f"{what} is not connected: {_where(stray)} does not touch the rest",
                path,
                spec.cell_lines.get(stray, spec.line),
            )
        cage = Cage(cells, spec.target, spec.op, spec.line)
        if not cage_reachable(cage, size):
            raise PuzzleError(
                f"{what}: target {cage.clue} cannot be reached with digits 1..{size} "
                f"in {len(cells)} cell{'s' if len(cells) > 1 else ''}",
                path,
                spec.line,
            )
        cages.append(cage)
    missing = [(r, c) for r in range(size) for c in range(size) if (r, c) not in seen]
    if missing:
        raise PuzzleError(f"cell {_where(missing[0])} is in no cage", path, 1)
    return KenKenPuzzle(size, tuple(cages), name, difficulty, multiplication_only)


def _where(cell: Cell) -> str:
    return f"row {cell[0] + 1} column {cell[1] + 1}"


def _detached_cell(cells: Sequence[Cell]) -> Cell | None:
    """A cell not reachable from the first one by steps inside the cage (None if connected)."""
    todo, reached = [cells[0]], {cells[0]}
    members = set(cells)
    while todo:
        r, c = todo.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in members and nb not in reached:
                reached.add(nb)
                todo.append(nb)
    return next((cell for cell in cells if cell not in reached), None)


# -- the .kenken text format ----------------------------------------------------------------

_RULE = re.compile(r"^(\S+?)\s*:\s*(.*?)\s*$")
_VALUE = re.compile(r"^([0-9]+)\s*([-+xX*/×÷−]?)$")


def parse_kenken(text: str, path: str | Path = "<text>") -> KenKenPuzzle:
    """Read the `.kenken` format (see the module docstring)."""
    rows: list[tuple[int, list[str]]] = []
    rules: dict[str, tuple[int, int, str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        rule = _RULE.match(line)
        if rule:
            label, value = rule.groups()
            match = _VALUE.match(value)
            if not match:
                raise PuzzleError(
                    f"cage '{label}': expected TARGET followed by + - x * / or nothing, "
                    f"got '{value}'",
                    path,
                    number,
                )
            if label in rules:
                raise PuzzleError(
                    f"cage '{label}' has a second rule (first on line {rules[label][0]})",
                    path,
                    number,
                )
            if len(match.group(1)) > MAX_TARGET_DIGITS:
                raise PuzzleError(
                    f"cage '{label}': a target of {len(match.group(1))} digits cannot be reached",
                    path,
                    number,
                )
            rules[label] = (number, int(match.group(1)), _OP_ALIASES[match.group(2)])
            continue
        if rules:
            raise PuzzleError("grid row after the cage rules", path, number)
        tokens = line.split()
        if len(tokens) == 1 and len(tokens[0]) > 1 and (not rows or len(rows[0][1]) > 1):
            tokens = list(tokens[0])
        rows.append((number, tokens))
    if not rows:
        raise PuzzleError("no grid: expected N rows of N cage letters", path, 1)
    size = len(rows[0][1])
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(
            f"grid is {size} wide; KenKen sizes run {MIN_SIZE}..{MAX_SIZE}", path, rows[0][0]
        )
    for number, tokens in rows:
        if len(tokens) != size:
            raise PuzzleError(f"grid row has {len(tokens)} cells, expected {size}", path, number)
    if len(rows) != size:
        where = rows[size][0] if len(rows) > size else rows[-1][0]
        raise PuzzleError(f"grid has {len(rows)} rows, expected {size}", path, where)

    specs: dict[str, CageSpec] = {}
    for r, (number, tokens) in enumerate(rows):
        for c, label in enumerate(tokens):
            if label not in rules:
                raise PuzzleError(
                    f"cage '{label}' has no rule (add '{label}: TARGET+')", path, number
                )
            if label not in specs:
                line, target, op = rules[label]
                specs[label] = CageSpec([], target, op, line, label=label)
            specs[label].cells.append((r, c))
            specs[label].cell_lines[(r, c)] = number
    for label, (line, _, _) in rules.items():
        if label not in specs:
            raise PuzzleError(f"rule for cage '{label}', which is not on the grid", path, line)
    return build_puzzle(size, specs.values(), path, name=Path(str(path)).stem)


def cage_labels(count: int) -> list[str]:
    """Labels for `count` cages: a..z, A..Z, then two letters."""
    letters = [chr(i) for i in range(ord("a"), ord("z") + 1)]
    letters += [chr(i) for i in range(ord("A"), ord("Z") + 1)]
    if count <= len(letters):
        return letters[:count]
    return [a + b for a in letters for b in letters][:count]


def format_kenken(puzzle: KenKenPuzzle, comments: Sequence[str] = ()) -> str:
    """The puzzle as `.kenken` text (loads back to an equal puzzle)."""
    labels = cage_labels(len(puzzle.cages))
    width = max(len(label) for label in labels)
    grid = puzzle.cage_grid()
    lines = [f"# {text}" if text else "#" for text in comments]
    for row in grid:
        lines.append(" ".join(labels[k].ljust(width) for k in row).rstrip())
    ascii_op = {"+": "+", "-": "-", "*": "x", "/": "/", "": ""}
    for label, cage in zip(labels, puzzle.cages, strict=True):
        lines.append(f"{label}: {cage.target}{ascii_op[cage.op]}")
    return "\n".join(lines) + "\n"


def format_grid(grid: Sequence[Sequence[int]]) -> str:
    """Digits row by row, as the command line prints a solution."""
    return "\n".join(" ".join(str(d) for d in row) for row in grid)


# -- loading ---------------------------------------------------------------------------------


def load_kenken(path_or_id: str | Path) -> KenKenPuzzle:
    """A puzzle from a `.kenken` file or a built-in name (`kenken-6x6`); Keen game IDs are read
    by `keen_id.decode_keen_id`, and `solvers.registry.load` tells the two apart."""
    path = resolve_puzzle(path_or_id)
    return parse_kenken(read_text(path), path)
