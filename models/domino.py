"""Domino puzzles: a board of numbers to be tiled with distinct dominoes of one set.

A set with `k` suits has pips 0..k-1 and k(k+1)/2 distinct tiles (double-six is k = 7), so it
covers at most k(k+1) cells. Only the numbers are shown; the solver must find where the tiles
lie. With *oriented pips* (the default) the pip faces of 2, 3 and 6 are not symmetric under a
quarter turn, so such a cell shows whether its tile lies across (`h`) or along (`v`); the
model keeps that mark per cell because it constrains every solution.

File format (TOML, or the same keys in JSON)::

    kind = "domino"
    suits = 3                  # optional: default is the smallest set that fits
    oriented_pips = true       # optional, default true
    rows = ["0 1 2h 2h", "0 0 1 1"]
    [solution]                 # optional: [r1, c1, r2, c2] per tile
    pairs = [[0, 0, 1, 0], ...]

Cells are (row, column), row 0 at the top. A solution is a list of ((r1, c1), (r2, c2)) pairs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tessera.models.errors import PuzzleError
from tessera.models.fileformat import check_keys, check_kind, line_of, parse_document, read_text

Cell = tuple[int, int]
Pair = tuple[Cell, Cell]
Tile = tuple[int, int]

MAX_SUITS = 13
#: Digits a pip number may have: the largest set's numbers have two (leading zeros allowed).
MAX_DIGITS = 3
ORIENTED = frozenset({2, 3, 6})
"""Numbers whose pip face changes under a quarter turn, so their cell carries `h` or `v`."""

TOKEN = re.compile(r"^([0-9]+)([hv]?)$")
KEYS = {"kind", "suits", "oriented_pips", "rows", "solution", "name", "difficulty"}
# keys our own JSON export adds for readers; accepted on load and otherwise ignored
INFO_KEYS = {"size", "numbers", "orientations", "tiles", "dominosa_id", "tries", "seed"}


def tile_count(suits: int) -> int:
    """Distinct tiles in a set with `suits` suits: k(k+1)/2."""
    return suits * (suits + 1) // 2


def max_cells(suits: int) -> int:
    """Cells a whole set covers: k(k+1)."""
    return suits * (suits + 1)


def tile_index(a: int, b: int) -> int:
    """A tile's number 0..tile_count-1 (Tatham's DINDEX: triangular on the higher end)."""
    lo, hi = min(a, b), max(a, b)
    return hi * (hi + 1) // 2 + lo


def all_tiles(suits: int) -> list[Tile]:
    """Every tile (lo, hi) of the set, in `tile_index` order."""
    return [(lo, hi) for hi in range(suits) for lo in range(hi + 1)]


def suits_for(cells: int) -> int:
    """The smallest set whose tiles can cover `cells` cells."""
    k = 1
    while max_cells(k) < cells and k <= MAX_SUITS:  # past the largest set: check_board refuses
        k += 1
    return k


def set_name(suits: int) -> str:
    return f"double-{suits - 1}" if suits > 1 else "double-blank"


@dataclass
class DominoPuzzle:
    """One board. `numbers[r][c]` is the pip count shown in a cell; `marks[r][c]` is "h", "v" or
    "" (only 2, 3 and 6 carry a mark, and only when `oriented_pips`). `solution`, when known,
    lists the tiles as ((r1, c1), (r2, c2)) pairs."""

    numbers: list[list[int]]
    marks: list[list[str]]
    suits: int
    oriented_pips: bool = True
    solution: list[Pair] | None = None
    name: str = ""
    difficulty: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def n_rows(self) -> int:
        return len(self.numbers)

    @property
    def n_cols(self) -> int:
        return len(self.numbers[0]) if self.numbers else 0

    @property
    def n_cells(self) -> int:
        return self.n_rows * self.n_cols

    @property
    def full_set(self) -> bool:
        """True when the board needs every tile of the set (then each tile is used once)."""
        return self.n_cells == max_cells(self.suits)

    def cells(self) -> Iterable[Cell]:
        return ((r, c) for r in range(self.n_rows) for c in range(self.n_cols))

    def tile_at(self, pair: Pair) -> Tile:
        (r1, c1), (r2, c2) = pair
        a, b = self.numbers[r1][c1], self.numbers[r2][c2]
        return (min(a, b), max(a, b))

    def token(self, r: int, c: int) -> str:
        return f"{self.numbers[r][c]}{self.marks[r][c]}"

    def row_strings(self) -> list[str]:
        return [" ".join(self.token(r, c) for c in range(self.n_cols)) for r in range(self.n_rows)]


# -- checks ---------------------------------------------------------------------------------
def placement_allowed(puzzle: DominoPuzzle, a: Cell, b: Cell) -> bool:
    """May a tile lie on the adjacent cells a, b? Orientation marks forbid the other way."""
    direction = "h" if a[0] == b[0] else "v"
    for r, c in (a, b):
        mark = puzzle.marks[r][c]
        if mark and mark != direction:
            return False
    return True


def solution_problem(puzzle: DominoPuzzle, pairs: Sequence[Pair]) -> str | None:
    """Why `pairs` is not a solution of `puzzle` (None when it is one)."""
    seen: set[Cell] = set()
    tiles: set[Tile] = set()
    for pair in pairs:
        (r1, c1), (r2, c2) = pair
        for r, c in pair:
            if not (0 <= r < puzzle.n_rows and 0 <= c < puzzle.n_cols):
                return f"cell ({r}, {c}) is off the board"
            if (r, c) in seen:
                return f"cell ({r}, {c}) is covered twice"
            seen.add((r, c))
        if abs(r1 - r2) + abs(c1 - c2) != 1:
            return f"cells ({r1}, {c1}) and ({r2}, {c2}) are not neighbours"
        if not placement_allowed(puzzle, (r1, c1), (r2, c2)):
            return f"tile on ({r1}, {c1}), ({r2}, {c2}) lies against an orientation mark"
        tile = puzzle.tile_at(pair)
        if tile in tiles:
            return f"tile {tile[0]}-{tile[1]} is used twice"
        tiles.add(tile)
    if len(seen) != puzzle.n_cells:
        return f"{puzzle.n_cells - len(seen)} cells are not covered"
    return None


def normalise(pairs: Iterable[Pair]) -> list[Pair]:
    """Pairs in one canonical order (each pair sorted, then the list), for comparing tilings."""
    return sorted(tuple(sorted(p)) for p in pairs)  # type: ignore[misc]


# -- building and parsing ---------------------------------------------------------------------
def make_puzzle(
    numbers: Sequence[Sequence[int]],
    suits: int | None = None,
    *,
    oriented_pips: bool = True,
    solution: Sequence[Pair] | None = None,
    marks: Sequence[Sequence[str]] | None = None,
    name: str = "",
) -> DominoPuzzle:
    """A puzzle from numbers; marks come from `marks`, or from `solution` when oriented pips
    are on (the generator's way: the tiles decide which way each 2, 3, 6 faces)."""
    nums = [list(map(int, row)) for row in numbers]
    if marks is None:
        marks_l = [[""] * len(row) for row in nums]
        if oriented_pips and solution is not None:
            for (r1, c1), (r2, c2) in solution:
                direction = "h" if r1 == r2 else "v"
                for r, c in ((r1, c1), (r2, c2)):
                    if nums[r][c] in ORIENTED:
                        marks_l[r][c] = direction
    else:
        marks_l = [list(row) for row in marks]
    cells = sum(len(r) for r in nums)
    if suits is None:
        suits = max(suits_for(cells), 1 + max((max(r) for r in nums if r), default=0))
    sol = [((a[0], a[1]), (b[0], b[1])) for a, b in solution] if solution is not None else None
    return DominoPuzzle(nums, marks_l, suits, oriented_pips, sol, name)


def check_shape(puzzle: DominoPuzzle, path: str | Path | None = None, line: int | None = None):
    """Refuse boards no set can tile: an odd cell count or more cells than the set covers."""
    check_board(puzzle.n_cols, puzzle.n_rows, puzzle.suits, path, line)


def check_board(
    cols: int, rows: int, suits: int, path: str | Path | None = None, line: int | None = None
) -> None:
    """`check_shape` from the sizes alone, so a generator can refuse a 100000×100000 board
    before building it: X·Y must be even and at most k(k+1) for k suits."""
    if rows <= 0 or cols <= 0:
        raise PuzzleError("the board is empty", path, line)
    if not 1 <= suits <= MAX_SUITS:
        raise PuzzleError(f"suits must be 1..{MAX_SUITS}, got {suits}", path, line)
    if rows % 2 and cols % 2:
        raise PuzzleError(
            f"board is {cols}x{rows}: both sides are odd, so it has an odd number of cells"
            " and no domino tiling",
            path,
            line,
        )
    if cols * rows > max_cells(suits):
        raise PuzzleError(
            f"board is {cols}x{rows} = {cols * rows} cells but a {set_name(suits)}"
            f" set ({suits} suits, {tile_count(suits)} tiles) covers at most"
            f" {max_cells(suits)}",
            path,
            line,
        )


def parse_rows(
    rows: Sequence[str],
    suits: int | None,
    oriented_pips: bool,
    path: str | Path | None = None,
    lines: Sequence[int | None] | None = None,
) -> tuple[list[list[int]], list[list[str]]]:
    """Numbers and marks from row strings like "0 1 2h 6v"."""
    numbers: list[list[int]] = []
    marks: list[list[str]] = []
    for i, text in enumerate(rows):
        line = lines[i] if lines else None
        if not isinstance(text, str):
            raise PuzzleError(f'row {i + 1} must be a string like "0 1 2h"', path, line)
        nums, mks = [], []
        for token in text.split():
            m = TOKEN.match(token)
            if not m:
                raise PuzzleError(
                    f"unknown token '{token}' in row {i + 1} (expected a number, then h or v"
                    " for a 2, 3 or 6)",
                    path,
                    line,
                )
            if len(m.group(1)) > MAX_DIGITS:  # no set has such a number; int() may refuse
                raise PuzzleError(
                    f"number '{token[:12]}...' ({len(m.group(1))} digits) in row {i + 1} is"
                    f" outside every set (at most {MAX_SUITS - 1})",
                    path,
                    line,
                )
            n, mark = int(m.group(1)), m.group(2)
            if suits is not None and n >= suits:
                raise PuzzleError(
                    f"number {n} in row {i + 1} is outside the set"
                    f" (suits = {suits}: 0..{suits - 1})",
                    path,
                    line,
                )
            if mark and not oriented_pips:
                raise PuzzleError(
                    f"token '{token}' in row {i + 1} has an orientation mark but oriented_pips"
                    " is false",
                    path,
                    line,
                )
            if mark and n not in ORIENTED:
                raise PuzzleError(
                    f"token '{token}' in row {i + 1}: only 2, 3 and 6 carry an orientation mark",
                    path,
                    line,
                )
            if oriented_pips and n in ORIENTED and not mark:
                raise PuzzleError(
                    f"token '{token}' in row {i + 1} needs h or v (oriented_pips is on)",
                    path,
                    line,
                )
            nums.append(n)
            mks.append(mark)
        if not nums:
            raise PuzzleError(f"row {i + 1} is empty", path, line)
        if numbers and len(nums) != len(numbers[0]):
            raise PuzzleError(
                f"rows of unequal length: row {i + 1} has {len(nums)} numbers, row 1 has"
                f" {len(numbers[0])}",
                path,
                line,
            )
        numbers.append(nums)
        marks.append(mks)
    if not numbers:
        raise PuzzleError("'rows' is empty", path, lines[0] if lines else None)
    return numbers, marks


def _row_lines(text: str, rows: Sequence[Any]) -> list[int | None]:
    """The line of each row string: the next line, from the `rows` key on, that holds it quoted
    (rows written on one line all get that line)."""
    lines = text.splitlines()
    start, column = (line_of(text, "rows") or 1) - 1, 0
    found: list[int | None] = []
    for row in rows:
        line = None
        quoted = (json.dumps(row), f"'{row}'") if isinstance(row, str) else ()
        for number in range(start, len(lines)):
            rest = lines[number][column if number == start else 0 :]
            hits = [rest.find(q) + len(q) for q in quoted if q in rest]
            if hits:
                line = number + 1
                column = min(hits) + (column if number == start else 0)
                start = number
                break
        found.append(line)
    return found


def puzzle_from_document(data: dict[str, Any], text: str, path: str | Path) -> DominoPuzzle:
    """Validate a parsed puzzle file (TOML or JSON) and build the puzzle."""
    check_keys(data, KEYS | INFO_KEYS, "a domino puzzle", text, path)
    if "kind" not in data:
        raise PuzzleError('missing kind = "domino"', path, 1)
    check_kind(data, "domino", text, path)
    suits = data.get("suits")
    if suits is not None and (not isinstance(suits, int) or isinstance(suits, bool)):
        raise PuzzleError("suits must be an integer", path, line_of(text, "suits"))
    if suits is not None and not 1 <= suits <= MAX_SUITS:
        raise PuzzleError(
            f"suits must be 1..{MAX_SUITS}, got {suits}", path, line_of(text, "suits")
        )
    oriented = data.get("oriented_pips", True)
    if not isinstance(oriented, bool):
        raise PuzzleError(
            "oriented_pips must be true or false", path, line_of(text, "oriented_pips")
        )
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise PuzzleError("'rows' must be a list of strings", path, line_of(text, "rows"))
    if rows and isinstance(rows[0], str):
        # the size alone may rule the board out: say so before reading a million tokens
        cols = len(rows[0].split())
        if cols * len(rows) > max_cells(suits or MAX_SUITS):
            check_board(cols, len(rows), suits or MAX_SUITS, path, line_of(text, "rows"))
    row_lines = _row_lines(text, rows)
    numbers, marks = parse_rows(rows, suits, oriented, path, row_lines)
    puzzle = make_puzzle(numbers, suits, oriented_pips=oriented, marks=marks)
    puzzle.name = str(data.get("name") or Path(path).stem)
    if isinstance(data.get("difficulty"), str):
        puzzle.difficulty = data["difficulty"]
    check_shape(puzzle, path, line_of(text, "rows"))
    sol = data.get("solution")
    if sol is not None:
        sol_line = line_of(text, "pairs") or line_of(text, "solution")
        if not isinstance(sol, dict):
            raise PuzzleError("solution must be a table with 'pairs'", path, sol_line)
        check_keys(sol, {"pairs"}, "[solution]", text, path)
        pairs = sol.get("pairs")
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 4 and all(isinstance(x, int) for x in p)
            for p in pairs
        ):
            raise PuzzleError("solution.pairs must be a list of [r1, c1, r2, c2]", path, sol_line)
        as_pairs = [((p[0], p[1]), (p[2], p[3])) for p in pairs]
        problem = solution_problem(puzzle, as_pairs)
        if problem:
            raise PuzzleError(f"the solution is wrong: {problem}", path, sol_line)
        puzzle.solution = as_pairs
    return puzzle


def load_domino(path_or_id: str | Path) -> DominoPuzzle:
    """A puzzle from a file or a built-in name (`domino-...`); game IDs are read by
    `dominosa_id.parse_dominosa_id`, and `solvers.registry.load` tells the two apart."""
    from tessera.models.assets import resolve_puzzle

    path = resolve_puzzle(path_or_id)
    text = read_text(path)
    data = parse_document(text, path)
    return puzzle_from_document(data, text, path)


# -- writing ----------------------------------------------------------------------------------
def pairs_as_lists(pairs: Sequence[Pair]) -> list[list[int]]:
    return [[a[0], a[1], b[0], b[1]] for a, b in pairs]


def to_toml(puzzle: DominoPuzzle) -> str:
    """The puzzle file, with its solution when known."""
    lines = ['kind = "domino"']
    if puzzle.name:
        lines.append(f"name = {json.dumps(puzzle.name)}")
    if puzzle.difficulty:
        lines.append(f"difficulty = {json.dumps(puzzle.difficulty)}")
    lines.append(f"suits = {puzzle.suits}")
    lines.append(f"oriented_pips = {'true' if puzzle.oriented_pips else 'false'}")
    lines.append("rows = [")
    lines.extend(f'  "{row}",' for row in puzzle.row_strings())
    lines.append("]")
    if puzzle.solution is not None:
        lines.append("")
        lines.append("[solution]")
        lines.append("pairs = [")
        lines.extend(f"  {p}," for p in pairs_as_lists(puzzle.solution))
        lines.append("]")
    return "\n".join(lines) + "\n"


def render_text(puzzle: DominoPuzzle, solution: Sequence[Pair] | None = None) -> str:
    """The board in a box drawing; with `solution`, walls only between different tiles."""
    rows, cols = puzzle.n_rows, puzzle.n_cols
    width = max(3, max(len(puzzle.token(r, c)) for r, c in puzzle.cells()) + 2)
    partner: dict[Cell, Cell] = {}
    for a, b in solution or ():
        partner[a], partner[b] = b, a

    def joined(a: Cell, b: Cell) -> bool:
        return partner.get(a) == b

    out: list[str] = []
    for r in range(rows + 1):
        # horizontal wall line above row r
        line = ""
        for c in range(cols):
            line += "+"
            wall = r in (0, rows) or not joined((r - 1, c), (r, c)) or not solution
            line += ("-" if wall else " ") * width
        out.append(line + "+")
        if r == rows:
            break
        line = ""
        for c in range(cols):
            wall = c == 0 or not joined((r, c - 1), (r, c)) or not solution
            line += ("|" if wall else " ") + puzzle.token(r, c).center(width)
        out.append(line + "|")
    return "\n".join(out)
