"""`tessera dice`: solve an Instant Insanity set, or generate a new one.

`solve` prints every distinct solution (a person's notion of "different": see
`solvers/dice.py`) with the raw count beside it, so the two numbers in the conformance file can
be checked from the shell; `--json` gives the same for scripts. `generate` writes a puzzle file
that `solve` reads back.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from tessera.cli.output import write_text
from tessera.cli.progress import Interruptible
from tessera.models.dice import (
    BACK,
    BOTTOM,
    FRONT,
    LEFT,
    RIGHT,
    SIDE_NAMES,
    SIDES,
    TOP,
    DicePuzzle,
    dump_dice,
)
from tessera.models.errors import NoSolution
from tessera.solvers.dice import METHODS, DiceResult, DiceSearch, fold
from tessera.solvers.dice_generate import MAX_DICE, generate
from tessera.solvers.registry import load_puzzle


def register(sub: argparse._SubParsersAction) -> None:
    """Add `tessera dice solve` and `tessera dice generate`."""
    dice = sub.add_parser(
        "dice",
        help="Instant Insanity: stack n dice so each side shows n colours",
        description="Instant Insanity dice: solve a set or generate a new one.",
    )
    actions = dice.add_subparsers(dest="dice_command", metavar="ACTION")

    solve = actions.add_parser(
        "solve",
        help="print every distinct solution and the counts",
        description="Print each distinct solution (classes under turning the tower about its "
        "axis and turning every die upside down) and the raw count (every orientation "
        "assignment).",
    )
    solve.add_argument("puzzle", metavar="PUZZLE", help="a dice puzzle file or built-in name")
    solve.add_argument("--json", action="store_true", help="print one JSON object instead")
    solve.add_argument(
        "--method",
        choices=METHODS,
        default="graph",
        help="graph: opposite-face pair subgraphs (fast); search: depth-first over "
        "orientations (the traced reference). Default: graph",
    )
    solve.add_argument(
        "--show", action="store_true", help="also draw the tower's sides and the dice nets"
    )
    solve.set_defaults(func=run_solve)

    gen = actions.add_parser(
        "generate",
        help="write a random set with exactly one distinct solution",
        description="Write a random set of N dice in N colours that has exactly one distinct "
        "solution. The same --seed always gives the same file.",
    )
    gen.add_argument("--dice", type=_dice_count, required=True, metavar="N", help=f"1..{MAX_DICE}")
    gen.add_argument("--seed", type=int, help="random seed (default: a fresh one, recorded)")
    gen.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    gen.set_defaults(func=run_generate)

    dice.set_defaults(func=lambda args: _help(dice))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _dice_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= n <= MAX_DICE:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_DICE}, not {n}")
    return n


# -- solve ------------------------------------------------------------------------------------


def run_solve(args: argparse.Namespace) -> int:
    puzzle = load_puzzle(args.puzzle, "dice")
    result = _solve(puzzle, args.method)
    if args.json:
        print(format_json(as_json(puzzle, result, args.method)))
    else:
        print(describe(puzzle, result, show=args.show))
    if not result.distinct:
        raise NoSolution("no solution")
    return 0


def _solve(puzzle: DicePuzzle, method: str) -> DiceResult:
    if method != "search":
        return _solve_graph(puzzle, method)
    search = DiceSearch(puzzle)
    with Interruptible(search, f"searching {puzzle.n} dice") as run:
        result = fold(puzzle, search.solutions(run.progress))
    if run.interrupted:
        raise KeyboardInterrupt  # a partial fold would list wrong classes: say so, exit 130
    return result


def _solve_graph(puzzle: DicePuzzle, method: str) -> DiceResult:
    """The graph method with a progress line (raw solutions so far) and Ctrl-C: it stops
    the search, says how far it got, and exits 130 (a partial fold could name a class by a
    stack that is not its smallest, so no list is printed)."""
    import threading

    from tessera.solvers import dice as dice_solver
    from tessera.solvers.search_control import Cancellable

    event = threading.Event()
    stop = Cancellable(event)
    seen = 0

    def counted():
        nonlocal seen
        for stack in dice_solver.solutions(puzzle, method, cancel=event):
            seen += 1
            run.bar.update(0.0, f"{seen} raw solutions so far")
            yield stack

    with Interruptible(stop, f"solving {puzzle.n} dice") as run:
        result = fold(puzzle, counted())
    if stop.cancelled:
        print(
            f"interrupted: {seen} raw solutions, {len(result.distinct)} distinct so far (partial)",
            file=sys.stderr,
        )
        raise KeyboardInterrupt
    return result


def as_json(puzzle: DicePuzzle, result: DiceResult, method: str) -> dict:
    return {
        "name": puzzle.name,
        "file": str(puzzle.path) if puzzle.path else None,
        "dice": puzzle.n,
        "method": method,
        "raw": result.raw,
        "distinct": len(result.distinct),
        # Each solution: the dice bottom to top, each as its six colours in face order
        # (top, front, right, back, left, bottom) as it stands in the tower.
        "solutions": [puzzle.oriented(stack) for stack in result.distinct],
        "orientations": [list(stack) for stack in result.distinct],
    }


def format_json(obj: dict) -> str:
    """Indented JSON with one line per solution (the default indentation would put every
    colour on its own line)."""
    lines = []
    for key, value in obj.items():
        if isinstance(value, list) and value:
            inner = ",\n".join("    " + json.dumps(v) for v in value)
            lines.append(f"  {json.dumps(key)}: [\n{inner}\n  ]")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


def describe(puzzle: DicePuzzle, result: DiceResult, *, show: bool = False) -> str:
    """The text report: counts, then per distinct solution each side of the tower read
    from the bottom die up (and with `show`, the tower and the dice nets)."""
    raw = f"{result.raw} raw solution{'s' * (result.raw != 1)}"
    lines = [f"{puzzle.name}: {puzzle.n} dice, {raw}, {len(result.distinct)} distinct"]
    width = max(len(c) for c in puzzle.colour_names)
    for i, stack in enumerate(result.distinct, start=1):
        shown = puzzle.oriented(stack)
        lines.append("")
        lines.append(
            f"solution {i} (orientations {' '.join(map(str, stack))}), sides from the bottom up:"
        )
        for name, side in zip(SIDE_NAMES, SIDES, strict=True):
            strip = " ".join(face[side].ljust(width) for face in shown).rstrip()
            lines.append(f"  {name:<6} {strip}")
        if show:
            lines += [""] + _tower(shown, width) + [""] + _nets(shown, width)
    return "\n".join(lines)


def _tower(shown: list[list[str]], width: int) -> list[str]:
    """The tower as it stands, top die first: one row per die, the four sides, top, bottom."""
    cols = [*SIDE_NAMES, "top", "bottom"]
    w = max(width, *(len(c) for c in cols))
    lines = ["  die  " + " ".join(c.ljust(w) for c in cols).rstrip()]
    for level in range(len(shown), 0, -1):
        face = shown[level - 1]
        cells = [face[p] for p in (FRONT, RIGHT, BACK, LEFT, TOP, BOTTOM)]
        lines.append(f"  {level:<4} " + " ".join(c.ljust(w) for c in cells).rstrip())
    return lines


def _nets(shown: list[list[str]], width: int, per_row: int = 4) -> list[str]:
    """Each die unfolded as it stands: top above the front, the ring left-front-right-back,
    bottom below the front."""
    w = width + 1
    cell = 4 * w + 2
    lines: list[str] = []
    for start in range(0, len(shown), per_row):
        chunk = list(enumerate(shown, start=1))[start : start + per_row]
        rows = ["", "", "", ""]
        for level, face in chunk:
            rows[0] += f"die {level}".ljust(cell)
            rows[1] += (" " * w + face[TOP].ljust(w)).ljust(cell)
            ring = [face[p].ljust(w) for p in (LEFT, FRONT, RIGHT, BACK)]
            rows[2] += "".join(ring).ljust(cell)
            rows[3] += (" " * w + face[BOTTOM].ljust(w)).ljust(cell)
        lines += ["  " + r.rstrip() for r in rows]
    return lines


# -- generate ---------------------------------------------------------------------------------


def run_generate(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    puzzle = generate(args.dice, seed)
    comment = (
        f"Generated by `tessera dice generate --dice {args.dice} --seed {seed}`:\n"
        f"{args.dice} dice, {args.dice} colours, exactly one distinct solution.\n"
        "Faces: top, the four sides in ring order, bottom."
    )
    text = dump_dice(puzzle, comment)
    if args.out:
        write_text(args.out, text)
        print(f"wrote {args.out}: {args.dice} dice, seed {seed}")
    else:
        sys.stdout.write(text)
    return 0
