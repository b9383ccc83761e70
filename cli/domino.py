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
from tessera.cli.progress import Interruptible, partial_note
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


#: An HTML sheet holds every board in one page, so it is the one output that keeps them all.
MAX_HTML_BOARDS = 1000


def cmd_generate(args: argparse.Namespace) -> int:
    """Boards are printed and written as they are made, never gathered (memory stays flat
    however many are asked for); Ctrl-C keeps what is out, closes a JSON list, exits 130."""
    from tessera.solvers.domino_generate import generate

    cols, rows = parse_size(args.size)
    if args.count < 1:
        raise PuzzleError(f"--count must be at least 1, got {args.count}", "--count")
    if args.html and args.count > MAX_HTML_BOARDS:
        raise PuzzleError(
            f"--count {args.count} is too many for one HTML sheet (at most {MAX_HTML_BOARDS})",
            args.html,
        )
    if args.out:  # before generating, not after it (the numbered files share its folder)
        check_writable(_numbered(Path(args.out), 1, args.count))
    if args.html:
        check_writable(args.html)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    from tessera.solvers.search_control import Cancellable, Cancelled

    stop = Cancellable()  # Ctrl-C sets it; a board is never cut half-printed
    sheet: list[DominoPuzzle] = []
    made = 0
    emit = _Emitter(args)
    with Interruptible(stop, "generating") as run:

        def on_try(tries: int, i: int) -> None:
            if stop.cancelled:
                raise Cancelled(made)
            run.bar.update((i - 1) / args.count, f"board {i}: {tries} tried")

        try:
            for i in range(1, args.count + 1):
                puzzle = generate(
                    cols,
                    rows,
                    args.suits,
                    unique=args.unique,
                    rng=rng,
                    oriented_pips=args.oriented,
                    on_try=lambda t, i=i: on_try(t, i),
                )
                puzzle.meta["seed"] = seed if args.count == 1 else f"{seed}#{i}"
                run.bar.close()  # the board goes where the bar was; the bar comes back
                emit.board(puzzle, i)
                if args.html:
                    sheet.append(puzzle)
                made = i
                if stop.cancelled:
                    break
        except Cancelled:
            pass
    if stop.cancelled:
        emit.close()
        print(f"interrupted after {made} of {args.count} boards", file=sys.stderr)
        return 130
    emit.close()
    if args.html:
        from tessera.models.domino_html import render_html

        title = f"Domino puzzles {cols}\u00d7{rows}" if len(sheet) > 1 else "Domino puzzle"
        write_text(Path(args.html), render_html(sheet, title))
    if not args.json:
        if args.out:
            print(f"wrote {args.out}" + (f" ({made} files)" if made > 1 else ""))
        if args.html:
            print(f"wrote {args.html}")
    return 0


class _Emitter:
    """Prints (and writes) each generated board at once: text, or the items of a JSON list
    (one board: the object alone), flushed so a pipe or a Ctrl-C keeps every finished one."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.listed = args.json and args.count > 1
        self.opened = False

    def board(self, puzzle: DominoPuzzle, i: int) -> None:
        from tessera.models.domino import render_text, to_toml
        from tessera.models.domino_json import dumps, to_dict, to_json

        args = self.args
        if args.out:
            target = _numbered(Path(args.out), i, args.count)
            text = to_json(puzzle) + "\n" if target.suffix.lower() == ".json" else to_toml(puzzle)
            write_text(target, text)
        if args.json:
            item = dumps(to_dict(puzzle))
            if self.listed:
                item = ("[\n" if not self.opened else ",\n") + item
                self.opened = True
            print(item, end="" if self.listed else "\n", flush=True)
            return
        if i > 1:
            print()
        print(_summary(puzzle, i, args.count))
        print(render_text(puzzle))
        print("answer:")
        print(render_text(puzzle, puzzle.solution), flush=True)

    def close(self) -> None:
        """End a JSON list, so what was printed parses even after a Ctrl-C."""
        if self.listed and self.opened:
            print("\n]", flush=True)
            self.opened = False


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
