"""`tessera domino generate|solve`: make boards (text, JSON, TOML, a web page) and solve them."""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tessera.cli.output import check_writable, write_text
from tessera.cli.progress import Interruptible, ProgressBar, partial_note
from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.registry import load_puzzle

if TYPE_CHECKING:  # the family loads with the command that needs it, not for --help
    from tessera.models.domino import DominoPuzzle

SIZE_RE = re.compile(r"^\s*([0-9]{1,9})\s*[xX\u00d7]\s*([0-9]{1,9})\s*$")


def register(sub: argparse._SubParsersAction) -> None:
    """Add this family's subcommands."""
    parser = sub.add_parser("domino", help="domino puzzles: generate and solve")
    dsub = parser.add_subparsers(dest="domino_command", metavar="ACTION")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    gen = dsub.add_parser("generate", help="make boards with a guaranteed solution")
    gen.add_argument("--size", required=True, metavar="XxY", help="columns x rows, e.g. 8x7")
    gen.add_argument(
        "--suits", type=int, metavar="K", help="pips 0..K-1 (default: smallest set that fits)"
    )
    gen.add_argument("--unique", action="store_true", help="only boards with exactly one solution")
    gen.add_argument(
        "--seed", type=int, metavar="S", help="reproduce a run (default: random, printed)"
    )
    gen.add_argument(
        "--count", type=int, default=1, metavar="N", help="how many boards (default 1)"
    )
    gen.add_argument(
        "--no-oriented-pips",
        dest="oriented",
        action="store_false",
        help="plain faces: 2, 3, 6 carry no orientation (as in Dominosa)",
    )
    gen.add_argument("--html", metavar="FILE", help="write a self-contained web page")
    gen.add_argument("--json", action="store_true", help="print JSON instead of text")
    gen.add_argument(
        "--out", metavar="FILE", help="write the puzzle file (TOML, or JSON for .json)"
    )
    gen.set_defaults(func=cmd_generate)

    solve = dsub.add_parser("solve", help="solve a board (file, built-in name or Dominosa ID)")
    solve.add_argument(
        "puzzle", metavar="PUZZLE", help="file, built-in name or Dominosa ID N:digits"
    )
    solve.add_argument("--json", action="store_true", help="print JSON instead of text")
    solve.add_argument("--count", action="store_true", help="count the solutions")
    solve.add_argument("--limit", type=int, metavar="N", help="stop counting at N")
    solve.set_defaults(func=cmd_solve)


def parse_size(text: str) -> tuple[int, int]:
    m = SIZE_RE.match(text)
    if not m:
        raise PuzzleError(f"expected XxY (columns x rows, e.g. 8x7), got '{text}'", "--size")
    return int(m.group(1)), int(m.group(2))


def _numbered(path: Path, i: int, count: int) -> Path:
    return path if count == 1 else path.with_name(f"{path.stem}-{i}{path.suffix}")


def cmd_generate(args: argparse.Namespace) -> int:
    from tessera.models.domino import render_text, to_toml
    from tessera.models.domino_html import render_html
    from tessera.models.domino_json import dumps, to_dict, to_json
    from tessera.solvers.domino_generate import generate

    cols, rows = parse_size(args.size)
    if args.count < 1:
        raise PuzzleError(f"--count must be at least 1, got {args.count}", "--count")
    if args.out:  # before generating, not after it (the numbered files share its folder)
        check_writable(_numbered(Path(args.out), 1, args.count))
    if args.html:
        check_writable(args.html)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    bar = ProgressBar("generating")
    puzzles: list[DominoPuzzle] = []
    try:
        for i in range(1, args.count + 1):
            puzzle = generate(
                cols,
                rows,
                args.suits,
                unique=args.unique,
                rng=rng,
                oriented_pips=args.oriented,
                on_try=lambda t, i=i: bar.update((i - 1) / args.count, f"board {i}: {t} tried"),
            )
            puzzle.meta["seed"] = seed if args.count == 1 else f"{seed}#{i}"
            puzzles.append(puzzle)
    finally:
        bar.close()

    if args.out:
        out = Path(args.out)
        for i, puzzle in enumerate(puzzles, start=1):
            target = _numbered(out, i, len(puzzles))
            text = to_json(puzzle) + "\n" if target.suffix.lower() == ".json" else to_toml(puzzle)
            write_text(target, text)
    if args.html:
        title = f"Domino puzzles {cols}\u00d7{rows}" if len(puzzles) > 1 else "Domino puzzle"
        write_text(Path(args.html), render_html(puzzles, title))

    if args.json:
        data = [to_dict(p) for p in puzzles]
        print(dumps(data[0] if len(data) == 1 else data))
        return 0
    for i, puzzle in enumerate(puzzles, start=1):
        if i > 1:
            print()
        print(_summary(puzzle, i, len(puzzles)))
        print(render_text(puzzle))
        print("answer:")
        print(render_text(puzzle, puzzle.solution))
    if args.out:
        print(f"wrote {args.out}" + (f" ({len(puzzles)} files)" if len(puzzles) > 1 else ""))
    if args.html:
        print(f"wrote {args.html}")
    return 0


def _summary(puzzle: DominoPuzzle, i: int, count: int) -> str:
    from tessera.models.domino import set_name

    head = f"puzzle {i}/{count}: " if count > 1 else ""
    text = f"{head}{puzzle.n_cols}x{puzzle.n_rows}, {set_name(puzzle.suits)} ({puzzle.suits} suits)"
    text += f", seed {puzzle.meta.get('seed')}"
    if puzzle.difficulty:
        text += f", unique after {_boards(puzzle.meta.get('tries', 0))} tried, {puzzle.difficulty}"
    return text


def cmd_solve(args: argparse.Namespace) -> int:
    from tessera.models.domino import render_text
    from tessera.models.domino_json import dumps, to_dict
    from tessera.solvers.domino import DominoSolver, grade

    puzzle = load_puzzle(args.puzzle, "domino")
    if args.count:
        solver = DominoSolver(puzzle)
        with Interruptible(solver, "counting") as run:
            n = run.count(args.limit)
        capped = args.limit is not None and n >= args.limit
        if args.json:
            doc = {"name": puzzle.name, "solutions": n, "limit_reached": capped}
            print(json.dumps(doc | ({"partial": True} if run.interrupted else {})))
        else:
            at_least = "at least " if capped or run.interrupted else ""
            print(f"{at_least}{n} solution{'s' if n != 1 else ''}")
        if run.interrupted:
            print(partial_note(n), file=sys.stderr)
            return 130
        return 0 if n else 1

    solver = DominoSolver(puzzle)
    found = []
    for pairs in solver.solutions():
        found.append(pairs)
        if len(found) == 2:
            break
    if not found:
        raise NoSolution("no solution: the board cannot be tiled with distinct tiles of the set")
    unique = len(found) == 1
    puzzle.solution = found[0]
    if unique:
        puzzle.difficulty = grade(puzzle)
    if args.json:
        data = to_dict(puzzle)
        data["unique"] = unique
        print(dumps(data))
        return 0
    print(render_text(puzzle, puzzle.solution))
    if unique:
        print(f"unique solution (difficulty: {puzzle.difficulty}), {solver.search.nodes} nodes")
    else:
        print("more than one solution; this is one of them ('--count' counts them)")
    return 0


def _boards(n: int) -> str:
    return f"{n} board" if n == 1 else f"{n} boards"
