"""Simon Tatham's Dominosa game IDs: `N:digits` for the full double-N set.

The board has N+2 columns and N+1 rows (so N+1 suits, every tile once) and no orientation
marks. The description lists the numbers in row-major order; numbers up to 9 are one digit and
larger ones are written in decimal inside square brackets (`[12]`). The parameter part may carry
a difficulty suffix (`6db:...`, `6dh:...`) or the legacy `a` (ambiguous); both are accepted and
ignored. As in Tatham's validator, every number must appear exactly N+2 times.
"""

from __future__ import annotations

import re

from tessera.models.domino import DominoPuzzle, make_puzzle
from tessera.models.errors import PuzzleError

ID_RE = re.compile(r"^([0-9]{1,6})(d[tbhea]|a)?:(.*)$", re.S)
_ASCII_NUMBER = re.compile(r"[0-9]{1,3}")
DIFFICULTIES = {"dt": "trivial", "db": "basic", "dh": "hard", "de": "extreme", "da": "ambiguous"}


def looks_like_id(text: str) -> bool:
    """Does `text` have the shape of a game ID (rather than a file name)?"""
    return bool(re.match(r"^[0-9]+(d[a-z]|a)?:", text))


def parse_dominosa_id(text: str) -> DominoPuzzle:
    """The puzzle a game ID describes (PuzzleError naming the ID when it is malformed)."""
    ident = text.strip()
    where = ident if len(ident) <= 40 else ident[:37] + "..."
    m = ID_RE.match(ident)
    if not m:
        raise PuzzleError("not a Dominosa game ID (expected N:digits, e.g. 1:011100)", where)
    n = int(m.group(1))
    if not 1 <= n <= 12:
        raise PuzzleError(
            f"Dominosa N must be 1..12 (the largest set here is double-12), got {n}", where
        )
    desc = m.group(3)
    w, h = n + 2, n + 1
    if len(desc) > 4 * w * h:  # every number is at most "[12]": refuse before reading on
        raise PuzzleError(
            f"a Dominosa ID with N={n} describes {w * h} numbers, at most {4 * w * h}"
            f" characters, but this description has {len(desc):,}",
            where,
        )
    numbers: list[int] = []
    i = 0
    while i < len(desc):
        ch = desc[i]
        if "0" <= ch <= "9":  # not str.isdigit(): that takes '²', which int() refuses
            numbers.append(int(ch))
            i += 1
        elif ch == "[":
            close = desc.find("]", i)
            inner = desc[i + 1 : close] if close >= 0 else ""
            if close < 0:
                raise PuzzleError(
                    f"missing ']' after '[' at position {i + 1} of the description", where
                )
            if not _ASCII_NUMBER.fullmatch(inner):
                raise PuzzleError(
                    f"'[{inner[:10]}]' at position {i + 1} of the description is not a"
                    " number 0..12",
                    where,
                )
            numbers.append(int(inner))
            i = close + 1
        else:
            raise PuzzleError(
                f"unexpected character '{ch}' at position {i + 1} of the description", where
            )
    if len(numbers) != w * h:
        raise PuzzleError(
            f"a Dominosa ID with N={n} describes a {w}x{h} board of {w * h} numbers,"
            f" but this one has {len(numbers)}",
            where,
        )
    for value in numbers:
        if value > n:
            raise PuzzleError(f"number {value} is out of range 0..{n}", where)
    for value in range(n + 1):
        seen = numbers.count(value)
        if seen != n + 2:
            raise PuzzleError(
                f"number {value} appears {seen} times; a double-{n} board has each {n + 2} times",
                where,
            )
    rows = [numbers[r * w : (r + 1) * w] for r in range(h)]
    puzzle = make_puzzle(rows, n + 1, oriented_pips=False, name=f"dominosa-{n}")
    if m.group(2) in DIFFICULTIES:
        puzzle.difficulty = DIFFICULTIES[m.group(2)]
    puzzle.meta["dominosa_id"] = ident
    return puzzle


def to_dominosa_id(puzzle: DominoPuzzle) -> str:
    """The game ID of a full-set board of Tatham's shape ((N+2) wide, (N+1) high)."""
    n = puzzle.suits - 1
    if n < 1 or puzzle.n_cols != n + 2 or puzzle.n_rows != n + 1:
        raise PuzzleError(
            f"a Dominosa ID needs a {n + 2}x{n + 1} board for {puzzle.suits} suits,"
            f" this one is {puzzle.n_cols}x{puzzle.n_rows}"
        )
    parts = [str(v) if v < 10 else f"[{v}]" for row in puzzle.numbers for v in row]
    return f"{n}:" + "".join(parts)


def dominosa_id_or_none(puzzle: DominoPuzzle) -> str | None:
    """The game ID when the board has Tatham's shape, else None. Orientation marks are dropped
    (Dominosa has none), so an oriented puzzle's ID describes a harder, possibly ambiguous one."""
    n = puzzle.suits - 1
    if n >= 1 and puzzle.n_cols == n + 2 and puzzle.n_rows == n + 1:
        return to_dominosa_id(puzzle)
    return None
