"""`tessera kenken solve|generate|id`: KenKen from files, built-ins and Keen game IDs."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from tessera.cli.output import check_writable, write_text
from tessera.cli.progress import Interruptible, partial_note
from tessera.models.errors import NoSolution
from tessera.solvers.registry import load_puzzle

#: `solvers.kenken.LEVELS`, written out so `--help` need not load the solver (numba);
#: tests/test_cli_startup.py checks that the two agree.
LEVELS = ("easy", "normal", "hard", "extreme")


def register(sub: argparse._SubParsersAction) -> None:
    """Add this family's subcommands."""
    parser = sub.add_parser(
        "kenken",
        help="solve, generate and convert KenKen puzzles",
        description="KenKen puzzles: .kenken files, built-ins (kenken-*) and Keen game IDs.",
    )
    family = parser.add_subparsers(dest="kenken_command", metavar="ACTION", required=True)

    solve = family.add_parser("solve", help="solve a puzzle and say whether it is unique")
    solve.add_argument("puzzle", metavar="PUZZLE", help="a .kenken file, a built-in or a Keen ID")
    solve.add_argument("--json", action="store_true", help="print the result as JSON")
    solve.add_argument(
        "--count", action="store_true", help="count every solution (default: stop at 2)"
    )
    solve.set_defaults(func=_solve)

    gen = family.add_parser("generate", help="make a puzzle with exactly one solution")
    gen.add_argument("--size", type=int, required=True, metavar="N", help="grid size, 3..9")
    gen.add_argument("--difficulty", choices=LEVELS, help="wanted grade (default: any)")
    gen.add_argument("--seed", type=int, help="random seed, for the same puzzle again")
    gen.add_argument("--no-givens", action="store_true", help="no one-cell cages")
    gen.add_argument(
        "--multiplication-only", action="store_true", help="every clue is × (Keen's mode)"
    )
    gen.add_argument("--out", metavar="FILE", help="write the .kenken here (default: stdout)")
    gen.set_defaults(func=_generate)

    ident = family.add_parser("id", help="print a puzzle's Keen game ID")
    ident.add_argument("puzzle", metavar="PUZZLE", help="a .kenken file, a built-in or a Keen ID")
    ident.set_defaults(func=_id)


def _solve(args: argparse.Namespace) -> int:
    from tessera.models.kenken import format_grid
    from tessera.solvers.kenken import KenKenSearch

    puzzle = load_puzzle(args.puzzle, "kenken")
    search = KenKenSearch(puzzle)
    first = None
    count = 0
    with Interruptible(search, "counting") as run:
        for grid in search.solutions(run.progress):
            count += 1
            if first is None:
                first = grid
            if not args.count and count >= 2:
                break
    if first is None:
        if run.interrupted:
            print(partial_note(0), file=sys.stderr)
            return 130
        raise NoSolution("no solution")
    if args.json:
        result = {"puzzle": puzzle.name, "size": puzzle.size, "solutions": count}
        result["solution"] = first
        if run.interrupted:
            result["partial"] = True
        print(json.dumps(result))
        return 130 if run.interrupted else 0
    print(f"{puzzle.name}: {puzzle.size}x{puzzle.size}, {len(puzzle.cages)} cages")
    print(format_grid(first))
    if run.interrupted:
        print(f"solutions: {count} (partial: interrupted)")
        print(partial_note(count), file=sys.stderr)
        return 130
    if args.count:
        print(f"solutions: {count}")
    elif count == 1:
        print("unique solution")
    else:
        print("more than one solution (showing the first; --count counts them)")
    return 0


def _generate(args: argparse.Namespace) -> int:
    from tessera.models.keen_id import encode_keen_id
    from tessera.models.kenken import format_kenken
    from tessera.solvers.kenken_generate import generate

    if args.out:
        check_writable(args.out)  # before the search, not after it
    made = generate(
        args.size,
        difficulty=args.difficulty,
        seed=args.seed,
        givens=not args.no_givens,
        multiplication_only=args.multiplication_only,
    )
    puzzle = made.puzzle
    command = ["tessera", "kenken", "generate", "--size", str(args.size), "--seed", str(made.seed)]
    if args.difficulty:
        command += ["--difficulty", args.difficulty]
    if args.no_givens:
        command.append("--no-givens")
    if args.multiplication_only:
        command.append("--multiplication-only")
    comments = [
        f"KenKen {puzzle.size}x{puzzle.size}, difficulty {puzzle.difficulty}, seed {made.seed}",
        f"made by: {shlex.join(command)}",
        f"keen: {encode_keen_id(puzzle)}",
    ]
    text = format_kenken(puzzle, comments)
    if args.out:
        write_text(args.out, text)
        print(f"wrote {args.out}: {comments[0]}")
    else:
        print(text, end="")
    return 0


def _id(args: argparse.Namespace) -> int:
    from tessera.models.keen_id import encode_keen_id

    print(encode_keen_id(load_puzzle(args.puzzle, "kenken")))
    return 0
