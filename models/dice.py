"""Instant Insanity dice: the puzzle data, the 24 orientations of a die and the file format.

A die is six face colours in a fixed order: top, the four sides in ring order, bottom, so the
opposite faces are the 1st/6th, 2nd/4th and 3rd/5th. A *stack* puts one orientation of every die
on top of the previous one, in the file's order (the first die is at the bottom); the puzzle is
solved when each of the four sides of the tower shows every colour exactly once.

The positions of a placed die use the same order as a die in a file: 0 top, 1 front, 2 right,
3 back, 4 left, 5 bottom. An orientation is a rotation of the die, stored as the permutation
`ORIENTATIONS[k]` with `orient(die, k)[pos] == die[ORIENTATIONS[k][pos]]` (which face of the
die ends up at each position). The 24 are sorted, so `k = 0` is the die as written and the
orientations with the same face on top are consecutive.

Everything here is geometry and data; the searches live in `solvers/dice.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tessera.models.errors import PuzzleError, printable
from tessera.models.fileformat import check_keys, check_kind, key_line, parse_document, read_text

TOP, FRONT, RIGHT, BACK, LEFT, BOTTOM = range(6)
SIDES = (FRONT, RIGHT, BACK, LEFT)
OPPOSITE = (BOTTOM, BACK, LEFT, FRONT, RIGHT, TOP)
# The three axes of a die as pairs of face indices; in a stack the first is vertical.
AXES = ((TOP, BOTTOM), (FRONT, BACK), (RIGHT, LEFT))
SIDE_NAMES = ("front", "right", "back", "left")

Die = tuple[str, ...]
Stack = tuple[int, ...]
"""One orientation index per die, bottom to top (the file's order)."""

DEFAULT_COLORS: dict[str, str] = {
    "r": "#d62728",
    "g": "#2ca02c",
    "b": "#1f77b4",
    "y": "#f2c80f",
    "c": "#17becf",
    "m": "#c51bc5",
    "o": "#ff7f0e",
    "w": "#f4f4f4",
    "k": "#222222",
    "p": "#f78fb3",
}
# Display colours for names that are neither defaults nor in the file's [colors] table, handed
# out in order of first appearance so the same file always looks the same.
FALLBACK_COLORS = (
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#9467bd",
    "#aec7e8",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#dbdb8d",
    "#9edae5",
    "#393b79",
)
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _compose(p: Sequence[int], q: Sequence[int]) -> tuple[int, ...]:
    """The orientation `q` applied to a die already oriented by `p`."""
    return tuple(p[q[i]] for i in range(6))


def _rotations() -> list[tuple[int, ...]]:
    # A quarter turn about the vertical axis moves each side to the next position in the ring;
    # a quarter turn about the front-back axis cycles top, right, bottom, left. Both keep the
    # handedness of the ring, so together they generate exactly the 24 rotations.
    spin = (TOP, LEFT, FRONT, RIGHT, BACK, BOTTOM)
    roll = (LEFT, FRONT, TOP, BACK, BOTTOM, RIGHT)
    seen = {tuple(range(6))}
    frontier = [tuple(range(6))]
    while frontier:
        p = frontier.pop()
        for g in (spin, roll):
            q = _compose(p, g)
            if q not in seen:
                seen.add(q)
                frontier.append(q)
    return sorted(seen)


ORIENTATIONS: tuple[tuple[int, ...], ...] = tuple(_rotations())
assert len(ORIENTATIONS) == 24 and ORIENTATIONS[0] == tuple(range(6))
_INDEX = {p: k for k, p in enumerate(ORIENTATIONS)}

# BY_FRONT_RIGHT[f][r]: the orientation that puts face f at the front and face r at the right
# (-1 when f and r are the same face or opposite): a rotation is fixed by two adjacent faces.
BY_FRONT_RIGHT: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        next((k for k, p in enumerate(ORIENTATIONS) if p[FRONT] == f and p[RIGHT] == r), -1)
        for r in range(6)
    )
    for f in range(6)
)

# The turns of a whole stack that keep it a tower standing in the same place: the quarter turns
# about the vertical axis, and the same with every die turned upside down (a half turn about
# the left-right axis). A solution and its images under these look like the same solution.
_HALF_TURN = (BOTTOM, BACK, RIGHT, FRONT, LEFT, TOP)
STACK_SYMMETRIES: tuple[tuple[int, ...], ...] = tuple(
    sorted(p for p in ORIENTATIONS if {p[TOP], p[BOTTOM]} == {TOP, BOTTOM})
)
assert len(STACK_SYMMETRIES) == 8 and _HALF_TURN in STACK_SYMMETRIES


def orient(die: Sequence[str], k: int) -> Die:
    """The six face colours of `die` turned to orientation `k` (0..23), in face order
    top, front, right, back, left, bottom: what the viewer paints on a placed die."""
    p = ORIENTATIONS[k]
    return tuple(die[p[i]] for i in range(6))


def orientation_of(k: int, g: Sequence[int]) -> int:
    """The orientation reached by turning a die in orientation `k` by the rotation `g`."""
    return _INDEX[_compose(ORIENTATIONS[k], g)]


def look(dice: Sequence[Sequence[str]], stack: Stack) -> tuple[Die, ...]:
    """What a stack shows: each die's six colours in place, bottom die first."""
    return tuple(orient(d, k) for d, k in zip(dice, stack, strict=True))


def canonical_look(dice: Sequence[Sequence[str]], stack: Stack) -> tuple[Die, ...]:
    """The same key for every stack that looks the same up to `STACK_SYMMETRIES`; solutions
    are told apart by this key (repeated colours can make different orientations look alike,
    and a tower turned round is the same tower)."""
    shown = look(dice, stack)
    return min(
        tuple(tuple(face[g[i]] for i in range(6)) for face in shown) for g in STACK_SYMMETRIES
    )


def is_solution(dice: Sequence[Sequence[str]], stack: Stack) -> bool:
    """Every side of the tower shows every colour exactly once."""
    shown = look(dice, stack)
    return all(len({face[s] for face in shown}) == len(dice) for s in SIDES)


@dataclass
class DicePuzzle:
    """An Instant Insanity set: `dice` (lists of six colour names in face order, bottom die
    first), a `name`, and `colors` mapping every colour name used to a '#rrggbb' display colour
    (file entries first, then the defaults for r g b y c m o w k p, then a fixed palette)."""

    name: str
    dice: list[list[str]]
    colors: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    def __post_init__(self) -> None:
        self.colors = display_colors(self.dice, self.colors)

    @property
    def n(self) -> int:
        return len(self.dice)

    @property
    def colour_names(self) -> list[str]:
        """The colours in order of first appearance."""
        return list(dict.fromkeys(c for die in self.dice for c in die))

    def oriented(self, stack: Stack) -> list[list[str]]:
        """Each die of a stack as six colours in face order (the JSON output's form)."""
        return [list(orient(d, k)) for d, k in zip(self.dice, stack, strict=True)]


def display_colors(dice: Sequence[Sequence[str]], given: dict[str, str]) -> dict[str, str]:
    colors = dict(given)
    spare = iter(c for c in FALLBACK_COLORS if c not in colors.values())
    for name in dict.fromkeys(c for die in dice for c in die):
        if name not in colors:
            colors[name] = DEFAULT_COLORS.get(name) or next(spare, "#808080")
    return colors


# -- file format ------------------------------------------------------------------------------

TOP_KEYS = {"kind", "name", "dice", "colors"}


def _inner_list_lines(text: str, start_line: int) -> list[int]:
    """Line numbers of the lists nested one level inside the array that opens on
    `start_line`: the line of each die, for errors that point at it."""
    lines = text.splitlines()
    out: list[int] = []
    depth = 0
    started = False
    for number in range(start_line, len(lines) + 1):
        line = lines[number - 1]
        i = 0
        if not started:
            i = line.find("=") + 1 if "=" in line else line.find(":") + 1
        quote = ""
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch == "[":
                started = True
                depth += 1
                if depth == 2:
                    out.append(number)
            elif ch == "]":
                depth -= 1
                if started and depth == 0:
                    return out
            i += 1
    return out


def parse_dice(data: dict[str, Any], text: str, path: str | Path) -> DicePuzzle:
    """Validate a parsed document: every error names the file and the line at fault."""
    check_keys(data, TOP_KEYS, "a dice puzzle", text, path)
    check_kind(data, "dice", text, path)
    name = data.get("name", Path(path).stem)
    if not isinstance(name, str):
        raise PuzzleError("name must be a string", path, key_line(text, "name"))
    if "dice" not in data:
        raise PuzzleError("missing key 'dice' (a list of dice, six colours each)", path, 1)
    dice_line = key_line(text, "dice")
    raw = data["dice"]
    if not isinstance(raw, list) or not raw:
        raise PuzzleError("'dice' must be a non-empty list of dice", path, dice_line)
    die_lines = _inner_list_lines(text, dice_line) if dice_line else []
    dice: list[list[str]] = []
    for i, die in enumerate(raw):
        where = die_lines[i] if i < len(die_lines) else dice_line
        if not isinstance(die, list):
            raise PuzzleError(f"die {i + 1} must be a list of six colour names", path, where)
        if len(die) != 6:
            raise PuzzleError(
                f"die {i + 1} has {len(die)} faces, expected 6 "
                "(top, four sides in ring order, bottom)",
                path,
                where,
            )
        for face in die:
            if not isinstance(face, str) or not face.strip():
                raise PuzzleError(
                    f"die {i + 1}: face {printable(face)} is not a colour name", path, where
                )
        dice.append([face.strip() for face in die])
    # n dice need exactly n colours (each side shows every colour once): a colour beyond the
    # n-th is a mistake in the file, reported at the die that brings it in.
    seen: list[str] = []
    for i, die in enumerate(dice):
        for face in die:
            if face not in seen:
                seen.append(face)
                if len(seen) > len(dice):
                    where = die_lines[i] if i < len(die_lines) else dice_line
                    raise PuzzleError(
                        f"die {i + 1} brings in colour '{face}', the {len(seen)}th: "
                        f"{len(dice)} dice need exactly {len(dice)} colours",
                        path,
                        where,
                    )
    colors = data.get("colors", {})
    colors_line = key_line(text, "colors")
    if not isinstance(colors, dict):
        raise PuzzleError("[colors] must be a table of name = '#rrggbb'", path, colors_line)
    for key, value in colors.items():
        if not isinstance(value, str) or not _HEX.match(value):
            raise PuzzleError(
                f"colour '{key}' must be '#rrggbb', not {printable(value)}",
                path,
                key_line(text, key, after=(colors_line or 1) - 1) or colors_line,
            )
    return DicePuzzle(name, dice, {k: v.lower() for k, v in colors.items()}, Path(path))


def load_dice(path: str | Path) -> DicePuzzle:
    """Read a dice puzzle (TOML, or JSON with the same keys); raises `PuzzleError` with the
    file and line for anything wrong."""
    text = read_text(path)
    return parse_dice(parse_document(text, path), text, path)


def dump_dice(puzzle: DicePuzzle, comment: str = "") -> str:
    """The puzzle as a TOML file that `load_dice` reads back unchanged."""

    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    out = [f"# {line}".rstrip() for line in comment.splitlines()]
    out += ['kind = "dice"', f"name = {q(puzzle.name)}", "dice = ["]
    out += ["  [" + ", ".join(q(c) for c in die) + "]," for die in puzzle.dice]
    out.append("]")
    custom = {k: v for k, v in puzzle.colors.items() if DEFAULT_COLORS.get(k) != v.lower()}
    if custom:
        out += ["", "[colors]"]
        out += [f"{q(k)} = {q(v)}" for k, v in custom.items()]
    return "\n".join(out) + "\n"
