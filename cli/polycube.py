"""`tessera solve` and `tessera list`: polycube packing from the command line."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tessera.cli.progress import ProgressBar
from tessera.models.assets import builtin_puzzles, resolve_puzzle
from tessera.models.errors import NoSolution, PuzzleError
from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube import PackingProblem, PolycubeSolution
from tessera.solvers.polycube_plan import assembly_plan
from tessera.solvers.polycube_symmetry import ClassSearch


def register(sub: argparse._SubParsersAction) -> None:
    solve = sub.add_parser(
        "solve",
        help="solve or count a polycube packing puzzle",
        description="Solve a polycube puzzle: a .toml/.json file, a BurrTools .xmpuzzle, or a "
        "built-in name (see 'tessera list').",
    )
    solve.add_argument("puzzle", help="file or built-in name")
    solve.add_argument("--count", action="store_true", help="count solutions instead of listing")
    solve.add_argument("--limit", type=int, metavar="N", help="stop after N solutions")
    solve.add_argument(
        "--distinct",
        choices=("fixed", "rotation", "symmetry"),
        default="symmetry",
        help="which solutions count as different when listing (default: symmetry)",
    )
    solve.add_argument("--problem", type=int, default=1, metavar="K", help=".xmpuzzle problem")
    solve.add_argument("--json", action="store_true", help="machine-readable output")
    solve.add_argument("--show", action="store_true", help="draw each solution as layers")
    solve.add_argument("--plan", action="store_true", help="add an assembly order")
    solve.add_argument("--trace", action="store_true", help="print the search's events")
    solve.set_defaults(func=run_solve)

    listing = sub.add_parser("list", help="list the built-in puzzles")
    listing.set_defaults(func=run_list)


def load_any_polycube(name: str, problem: int = 1) -> PolycubePuzzle:
    """A polycube puzzle from a file of any supported format or a built-in name."""
    path = resolve_puzzle(name)
    if path.suffix.lower() == ".xmpuzzle":
        from tessera.models.burrtools import load_xmpuzzle

        return load_xmpuzzle(path, problem=problem)
    from tessera.models.fileformat import parse_document, read_text
    from tessera.models.polycube import polycube_from_dict

    text = read_text(path)
    data = parse_document(text, path)
    kind = data.get("kind", "polycube")
    if kind != "polycube":
        raise PuzzleError(f"this is a {kind} puzzle: use 'tessera {kind} solve'", path)
    return polycube_from_dict(data, text, path)


@contextmanager
def cancel_on_interrupt(job) -> Iterator[None]:
    """Ctrl-C asks the job to stop (so partial results survive) instead of killing us."""
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        job.cancel()

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_solve(args: argparse.Namespace) -> int:
    puzzle = load_any_polycube(args.puzzle, args.problem)
    for warning in puzzle.warnings:
        print(f"tessera: warning: {warning}", file=sys.stderr)
    if args.limit is not None and args.limit < 1:
        raise PuzzleError("--limit must be at least 1")
    reason = puzzle.volume_problem()
    if reason:
        raise NoSolution(reason)
    if args.count:
        return _count(puzzle, args)
    return _list(puzzle, args)


def _count(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    start = time.perf_counter()
    bar = ProgressBar("counting")
    if args.limit is not None:
        search = PackingProblem(puzzle).search()
        with cancel_on_interrupt(search):
            n = search.count(limit=args.limit) if not search.cancelled else 0
        result = {"fixed": n, "limit": args.limit, "partial": search.cancelled}
    else:
        job = ClassSearch(puzzle)
        with cancel_on_interrupt(job):
            counts = job.count(lambda f, n: bar.update(f, f"{n} found"))
        result = counts.as_dict()
        result["partial"] = counts.partial
    bar.close()
    result["seconds"] = round(time.perf_counter() - start, 3)
    if args.json:
        print(json.dumps(result))
    else:
        mark = " (partial: interrupted)" if result["partial"] else ""
        for key in ("fixed", "up_to_rotation", "up_to_symmetry"):
            if key in result:
                print(f"{key.replace('_', ' ')}: {result[key]}{mark}")
        print(f"seconds: {result['seconds']}")
    if result["partial"]:
        return 130
    return 0 if result["fixed"] else 1


def _solutions(puzzle: PolycubePuzzle, args: argparse.Namespace, bar: ProgressBar):
    """The solutions to print and the job that makes them (for Ctrl-C)."""
    if args.distinct == "fixed" or args.trace:
        problem = PackingProblem(puzzle)
        search = problem.search(trace=args.trace)
        gen = (
            problem.solution(rows) for rows in search.solutions(lambda s: bar.update(s.progress()))
        )
        return gen, search, problem
    job = ClassSearch(puzzle, mirrors=args.distinct == "symmetry")
    return job.representatives(lambda f, n: bar.update(f, f"{n} found")), job, None


def _list(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    bar = ProgressBar("solving")
    gen, job, problem = _solutions(puzzle, args, bar)
    found = 0
    out = []
    with cancel_on_interrupt(job):
        for solution in gen:
            found += 1
            bar.close()
            if args.json:
                out.append(_solution_json(puzzle, solution, args.plan))
            else:
                _print_solution(puzzle, solution, found, args)
            if args.limit is not None and found >= args.limit:
                break
    bar.close()
    interrupted = job.cancelled
    if args.trace and problem is not None:
        events = [
            {"event": e.kind.name.lower(), "depth": e.depth}
            | ({"placement": problem.describe(e.choice)} if e.choice >= 0 else {})
            for e in job.events
        ]
        if args.json:
            pass
        else:
            for e in events:
                what = e.get("placement", "")
                print(f"trace: {'  ' * e['depth']}{e['event']} {what}".rstrip())
    if args.json:
        doc = {"puzzle": puzzle.name, "distinct": args.distinct, "solutions": out}
        if args.trace and problem is not None:
            doc["trace"] = events
        if interrupted:
            doc["partial"] = True
        print(json.dumps(doc))
    elif interrupted:
        print(f"interrupted after {found} solutions (partial)", file=sys.stderr)
    if interrupted:
        return 130
    if found == 0:
        raise NoSolution("no solution")
    return 0


def _solution_json(puzzle: PolycubePuzzle, solution: PolycubeSolution, plan: bool) -> dict:
    pieces = [
        {"piece": puzzle.pieces[p.piece].name, "cells": p.cells.tolist()} for p in solution.pieces
    ]
    doc: dict = {"pieces": pieces}
    if plan:
        ap = assembly_plan(puzzle, solution)
        doc["plan"] = {
            "complete": ap.complete,
            "steps": [
                {"piece": puzzle.pieces[solution.pieces[s.piece_index].piece].name,
                 "direction": s.direction}
                for s in ap.steps
            ],
        }  # fmt: skip
    return doc


def piece_letters(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[str]:
    """One letter per placed piece: the piece's initial, alternating case between copies."""
    letters, seen = [], {}
    for placed in solution.pieces:
        name = puzzle.pieces[placed.piece].name
        k = seen.get(placed.piece, 0)
        seen[placed.piece] = k + 1
        ch = (name[:1] or "?").upper()
        letters.append(ch if k % 2 == 0 else ch.lower())
    return letters


def layer_diagram(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[str]:
    """Layers side by side, bottom (z = min) first; '.' empty, ' ' outside the target."""
    lo, hi = puzzle.target.bounds
    letters = piece_letters(puzzle, solution)
    where = {tuple(c): letters[k] for k, p in enumerate(solution.pieces) for c in p.cells.tolist()}
    inside = set(puzzle.target.index)
    lines = []
    for y in range(hi[1], lo[1] - 1, -1):
        row = []
        for z in range(lo[2], hi[2] + 1):
            cells = []
            for x in range(lo[0], hi[0] + 1):
                c = (x, y, z)
                cells.append(where.get(c, "." if c in inside else " "))
            row.append(" ".join(cells))
        lines.append("   ".join(row))
    return lines


def _print_solution(puzzle, solution, number, args) -> None:
    letters = piece_letters(puzzle, solution)
    parts = []
    for letter, placed in zip(letters, solution.pieces, strict=True):
        cells = " ".join(f"{x},{y},{z}" for x, y, z in placed.cells.tolist())
        parts.append(f"{letter}[{cells}]")
    print(f"solution {number}: " + "  ".join(parts))
    if args.show:
        for line in layer_diagram(puzzle, solution):
            print("  " + line)
    if args.plan:
        plan = assembly_plan(puzzle, solution)
        order = ", ".join(f"{letters[s.piece_index]} {s.direction}" for s in plan.steps)
        if plan.complete:
            print(f"  plan: {order}")
        else:
            stuck = ", ".join(letters[k] for k in plan.stuck)
            print(f"  plan: no single-piece order: {stuck} need multi-piece moves; then {order}")
    if args.show or args.plan:
        print()


def run_list(args: argparse.Namespace) -> int:
    from tessera.models.fileformat import peek_kind

    rows = []
    for name, path in builtin_puzzles().items():
        kind = "kenken" if path.suffix == ".kenken" else None
        if kind is None:
            try:
                kind = peek_kind(path) or "polycube"
            except PuzzleError:
                kind = "?"
        rows.append((kind, name, path))
    for kind, name, path in sorted(rows):
        print(f"{kind:10} {name:28} {Path(path).name}")
    return 0
