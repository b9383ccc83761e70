"""Simon Tatham's Keen game IDs: `PARAMS:BLOCKS,CLUES`, decoded and encoded.

Keen (in his Portable Puzzle Collection) is KenKen; its game IDs are the easiest way to swap
puzzles with it. Written from a reading of keen.c's description format; the pieces:

* PARAMS: the size, then optionally `d` and a difficulty letter (e n h x u), then optionally
  `m` for *multiplication only* mode (every clue is ×, and Keen hides the sign).
  So `5de` is a 5×5 easy puzzle and `5dem` the same in multiplication-only mode.
* BLOCKS: the cage walls. Walk the 2·N·(N−1) inner grid lines: first the vertical lines
  between horizontally adjacent cells, in reading order (row by row); then the horizontal
  lines between vertically adjacent cells, column by column. Each wall is written as the
  number of open lines since the previous wall: `_` for none, `a`..`y` for 1..25. One virtual
  wall follows the last line. A letter repeated is run-length coded: `_3` is `___`.
  Quirk kept for compatibility: Keen's reader takes `y` as "25 open lines and *no* wall" and
  `z` as "26 open lines, then a wall", whereas its writer uses `z` for 25 without a wall. No
  real puzzle has 25 open lines in a row (a cage would need ~4 whole rows), and we write what
  Keen *reads*, so every ID we make means the same to Keen as to us.
* CLUES: one per cage, cages ordered by their first cell in reading order: a letter
  (`a` add, `s` subtract, `m` multiply, `d` divide) and the target.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tessera.models.errors import PuzzleError
from tessera.models.kenken import (
    MAX_SIZE,
    MAX_TARGET_DIGITS,
    MIN_SIZE,
    CageSpec,
    KenKenPuzzle,
    build_puzzle,
)

#: Keen's difficulty letters and the names our generator grades with.
DIFFICULTY_LETTERS = {"e": "easy", "n": "normal", "h": "hard", "x": "extreme", "u": "unreasonable"}
LETTER_OF_DIFFICULTY = {name: letter for letter, name in DIFFICULTY_LETTERS.items()}
_CLUE_OPS = {"a": "+", "s": "-", "m": "*", "d": "/"}
_OP_CLUES = {"+": "a", "-": "s", "*": "m", "/": "d"}

_PARAMS = re.compile(r"^([0-9]{1,6})(?:d(.?))?(m?)$")
_SHAPE = re.compile(r"^[0-9]+(d[a-z]?)?m?:")


def looks_like_keen_id(text: str) -> bool:
    """True for anything shaped `5de:...` (decoding may still find it malformed)."""
    return bool(_SHAPE.match(text.strip()))


def _inner_lines(n: int) -> list[tuple[int, int]]:
    """The inner grid lines in Keen's order, each as the two cells (flat index) it separates."""
    lines = [(y * n + x, y * n + x + 1) for y in range(n) for x in range(n - 1)]
    lines += [(y * n + x, (y + 1) * n + x) for x in range(n) for y in range(n - 1)]
    return lines


class _Sets:
    """Union-find over cells: open lines join cells into cages."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)  # the root stays the first cell


class _WallError(ValueError):
    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.at = at


def decode_walls(desc: str, n: int) -> tuple[list[list[int]], int]:
    """The cages (flat cell indices, each in reading order, cages by first cell) that the
    wall code at the start of `desc` draws on an n×n grid, and where the code ends (the
    index of the ',' or the end of `desc`)."""
    lines = _inner_lines(n)
    sets = _Sets(n * n)
    pos, i = 0, 0
    while i < len(desc) and desc[i] != ",":
        ch = desc[i]
        if ch != "_" and not "a" <= ch <= "z":
            raise _WallError(f"unexpected '{ch}' in the cage walls", i)
        start = i
        i += 1
        digits = re.match(r"[0-9]*", desc[i:]).group()
        i += len(digits)
        if len(digits) > 6:
            raise _WallError("a repeat count is too large", start)
        repeat = int(digits) if digits else 1
        if repeat < 1:
            raise _WallError("a repeat count must be at least 1", start)
        run = 0 if ch == "_" else ord(ch) - ord("a") + 1
        for _ in range(repeat):
            for _ in range(run):
                if pos >= len(lines):
                    raise _WallError("too many cage walls for the grid", start)
                sets.union(*lines[pos])
                pos += 1
            if run != 25:  # Keen's reader: 'y' is the one letter with no wall after it
                pos += 1
                if pos > len(lines) + 1:
                    raise _WallError("too many cage walls for the grid", start)
    if pos != len(lines) + 1:
        raise _WallError("not enough cage walls for the grid", i)
    groups: dict[int, list[int]] = {}
    for cell in range(n * n):
        groups.setdefault(sets.find(cell), []).append(cell)
    return [groups[root] for root in sorted(groups)], i


def encode_walls(cage_of: Sequence[int], n: int) -> str:
    """The wall code of a grid whose cell i (reading order) is in cage `cage_of[i]`."""
    symbols: list[str] = []  # one per wall: the open lines before it
    run = 0
    lines = _inner_lines(n)
    for index in range(len(lines) + 1):
        wall = index == len(lines) or cage_of[lines[index][0]] != cage_of[lines[index][1]]
        if not wall:
            run += 1
            continue
        while run >= 25 and run != 26:  # what Keen's reader takes for 25 open, no wall
            symbols.append("y")
            run -= 25
        symbols.append("_" if run == 0 else chr(ord("a") + run - 1))
        run = 0
    out = []
    i = 0
    while i < len(symbols):
        j = i
        while j < len(symbols) and symbols[j] == symbols[i]:
            j += 1
        count = j - i
        out.append(symbols[i] * count if count <= 2 else f"{symbols[i]}{count}")
        i = j
    return "".join(out)


def decode_keen_id(game_id: str) -> KenKenPuzzle:
    """Parse a Keen game ID; any flaw is a `PuzzleError` naming the ID and the character."""
    text = game_id.strip()

    def bad(message: str, at: int | None = None) -> PuzzleError:
        where = f" (at character {at + 1})" if at is not None else ""
        return PuzzleError(f"malformed Keen ID: {message}{where}", text)

    if ":" not in text:
        raise bad("expected PARAMS:DESCRIPTION, e.g. 5de:...")
    params, desc = text.split(":", 1)
    match = _PARAMS.match(params)
    if not match:
        raise bad(f"parameters '{params}' are not SIZE[dDIFFICULTY][m]", 0)
    n = int(match.group(1))
    if not MIN_SIZE <= n <= MAX_SIZE:
        raise bad(f"grid size {n} is outside {MIN_SIZE}..{MAX_SIZE}", 0)
    difficulty = None
    if match.group(2) is not None:
        if match.group(2) not in DIFFICULTY_LETTERS:
            raise bad(f"unknown difficulty letter '{match.group(2)}' (use e n h x u)", 0)
        difficulty = DIFFICULTY_LETTERS[match.group(2)]
    mult_only = bool(match.group(3))
    offset = len(params) + 1

    try:
        cages, i = decode_walls(desc, n)
    except _WallError as exc:
        raise bad(exc.args[0], offset + exc.at) from None
    if i >= len(desc):
        raise bad("expected ',' and the clues after the cage walls", offset + i)
    i += 1

    specs = []
    for group in cages:
        if i >= len(desc):
            raise bad(f"too few clues for the {len(cages)} cages", offset + i)
        letter = desc[i]
        if letter not in _CLUE_OPS:
            raise bad(f"unknown clue type '{letter}' (use a s m d)", offset + i)
        digits = re.match(r"[0-9]*", desc[i + 1 :]).group()
        if not digits:
            raise bad(f"clue '{letter}' has no number", offset + i)
        if len(digits) > MAX_TARGET_DIGITS:
            raise bad(f"clue '{letter}' has a number of {len(digits)} digits", offset + i)
        cells = [(c // n, c % n) for c in group]
        op = _CLUE_OPS[letter]
        if len(cells) == 1 and letter == ("m" if mult_only else "a"):
            op = ""  # a one-cell cage under the mode's usual clue is a plain given
        if op in ("-", "/") and len(cells) != 2:
            raise bad("subtraction and division cages must have 2 cells", offset + i)
        specs.append(CageSpec(cells, int(digits), op, None))
        i += 1 + len(digits)
    if i < len(desc):
        raise bad(f"too many clues: the walls make {len(cages)} cages", offset + i)
    try:
        return build_puzzle(
            n, specs, text, name="keen", difficulty=difficulty, multiplication_only=mult_only
        )
    except PuzzleError as exc:
        raise bad(exc.message) from None


def encode_keen_id(puzzle: KenKenPuzzle) -> str:
    """The Keen game ID of a puzzle; `decode_keen_id` gives the same puzzle back.

    One-cell givens become `a` clues (`m` in multiplication-only mode): Keen has no plain
    given, and a one-cell sum is its digit. The decoder reads them back as givens."""
    n = puzzle.size
    params = str(n)
    if puzzle.difficulty is not None:
        params += "d" + LETTER_OF_DIFFICULTY[puzzle.difficulty]
    if puzzle.multiplication_only:
        params += "m"
    cage_of = [0] * (n * n)
    for k, cage in enumerate(puzzle.cages):
        for r, c in cage.cells:
            cage_of[r * n + c] = k

    walls = encode_walls(cage_of, n)
    clues = []
    for cage in sorted(puzzle.cages, key=lambda cage: min(cage.cells)):
        op = cage.op or ("*" if puzzle.multiplication_only else "+")
        clues.append(f"{_OP_CLUES[op]}{cage.target}")
    return f"{params}:{walls},{''.join(clues)}"
