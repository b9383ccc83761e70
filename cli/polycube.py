"""`tessera solve` and `tessera list`: polycube packing from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tessera.cli import disassemble as disassembly_cli
from tessera.cli.output import check_parent, check_writable, writing
from tessera.cli.progress import Interruptible, partial_note
from tessera.models.assets import existing_file
from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.registry import builtin_groups, load_puzzle

if TYPE_CHECKING:  # numpy and numba load with the command that needs them, not for --help
    from tessera.models.polycube import PolycubePuzzle
    from tessera.solvers.polycube.packing import PolycubeSolution


def register(sub: argparse._SubParsersAction) -> None:
    solve = sub.add_parser(
        "solve",
        help="solve or count a polycube packing puzzle",
        description="Solve a polycube puzzle: a .toml/.json file, a BurrTools .xmpuzzle, or a "
        "built-in name (see 'tessera list').",
    )
    solve.add_argument(
        "puzzle",
        nargs="+",
        help="file, folder or built-in name; several files or a folder with --count: a batch",
    )
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
    solve.add_argument(
        "--trace",
        action="store_true",
        help="also print the search's events up to its first solution (what Search mode shows)",
    )
    cluster = solve.add_argument_group("counting on a Dask cluster (the 'cluster' extra)")
    cluster.add_argument("--scheduler", metavar="ADDRESS", help="count on this cluster")
    cluster.add_argument(
        "--workers", type=int, metavar="N", help="count on a local cluster of N processes"
    )
    cluster.add_argument(
        "--checkpoint", metavar="FILE", help="record finished parts here; resume from them"
    )
    disassembly_cli.add_arguments(solve)
    solve.set_defaults(func=run_solve)

    listing = sub.add_parser("list", help="list the built-in puzzles")
    listing.set_defaults(func=run_list)

    convert = sub.add_parser(
        "convert",
        help="write a polycube puzzle as BurrTools .xmpuzzle or format 1 .toml",
        description="Convert a polycube puzzle (file or built-in name) to a BurrTools .xmpuzzle "
        "or a format 1 .toml, by OUT's extension. The grid (cubes or another of BurrTools' "
        "five), shapes, variable cells, piece ranges, groups, voxel colours and colour "
        "constraints all survive the trip.",
    )
    convert.add_argument("puzzle", help="file or built-in name")
    convert.add_argument("out", help="FILE.xmpuzzle or FILE.toml")
    convert.add_argument("--problem", type=int, default=1, metavar="K", help=".xmpuzzle problem")
    convert.set_defaults(func=run_convert)


def run_convert(args: argparse.Namespace) -> int:
    """Write the puzzle in the format OUT's extension names, atomically."""
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in (".xmpuzzle", ".toml"):
        raise PuzzleError("the output must end in .xmpuzzle or .toml", out)
    check_writable(out)
    from tessera.models.atomic import AtomicFile
    from tessera.models.puzzle_writers import to_format1, to_xmpuzzle

    puzzle = load_puzzle(args.puzzle, "polycube", problem=args.problem)
    if getattr(puzzle, "preplaced", None):
        raise PuzzleError("a figure with pre-placed pieces cannot be converted yet", args.puzzle)
    data = to_xmpuzzle(puzzle) if suffix == ".xmpuzzle" else to_format1(puzzle).encode()
    with writing(out), AtomicFile(out) as tmp:
        tmp.write_bytes(data)
    grid = "" if puzzle.grid.is_cubic else f" on the {puzzle.grid.title} grid"
    print(
        f"{out}: {puzzle.name}, {len(puzzle.pieces)} pieces, {len(puzzle.target.cells)} cells"
        + grid
    )
    return 0


def run_solve(args: argparse.Namespace) -> int:
    if len(args.puzzle) > 1 or _is_folder(args.puzzle[0]):
        return _count_many(args)
    args.puzzle = args.puzzle[0]
    puzzle = load_puzzle(args.puzzle, "polycube", problem=args.problem)
    for warning in puzzle.warnings:
        print(f"tessera: warning: {warning}", file=sys.stderr)
    if args.limit is not None and args.limit < 1:
        raise PuzzleError("--limit must be at least 1")
    reason = puzzle.volume_problem()
    if reason:
        raise NoSolution(reason)
    if args.disassemble:
        return _disassemble(puzzle, args)
    if args.sort:
        raise PuzzleError("--sort needs --disassemble")
    if args.scheduler or args.workers or args.checkpoint:
        if not args.count or args.limit is not None:
            raise PuzzleError("--scheduler, --workers and --checkpoint go with --count")
        return _count_on_cluster(puzzle, args)
    if args.count:
        return _count(puzzle, args)
    return _list(puzzle, args)


def _is_folder(name: str) -> bool:
    path = existing_file(name)
    return path is not None and path.is_dir()


def _count_many(args: argparse.Namespace) -> int:
    """A batch: one line per file as each finishes, spread over the cores; a bad file is its
    one-line error on stderr and the batch goes on (exit 2 at the end)."""
    from tessera.solvers.polycube.batch import count_files, expand_paths

    for option in ("limit", "scheduler", "workers", "checkpoint"):
        if getattr(args, option):
            raise PuzzleError(f"--{option} is for one puzzle, not a batch")
    if args.disassemble and not (args.show or args.plan or args.trace):
        return disassembly_cli.run_many(args, expand_paths(args.puzzle))
    if not args.count or args.show or args.plan or args.trace or args.disassemble:
        if len(args.puzzle) == 1:
            raise PuzzleError("is a folder: count its puzzles with --count", args.puzzle[0])
        raise PuzzleError("several puzzles go with --count (and --json) only")
    bad = False
    for result in count_files(expand_paths(args.puzzle)):
        for warning in result.warnings:
            print(f"tessera: warning: {warning}", file=sys.stderr)
        if not result.ok:
            bad = True
            print(f"tessera: error: {result.error}", file=sys.stderr, flush=True)
        elif args.json:
            print(json.dumps(result.as_dict()), flush=True)
        else:
            print(
                f"{result.file}: fixed {result.fixed}, up to rotation {result.up_to_rotation}, "
                f"up to symmetry {result.up_to_symmetry}, {result.seconds:.3f} s",
                flush=True,
            )
    _quiet_exit_after_batch()
    return 2 if bad else 0


def _quiet_exit_after_batch() -> None:
    """A Ctrl-C that comes once every file is counted finds Python shutting down (joining
    the pool's helpers, unloading modules) with the default handler back, and killed the
    process by the signal with no word (issue 21 F14: 29 runs in 30 with the signal 0-80 ms
    after the last line). The batch is done and printed by then, so the exit ignores it: an
    atexit hook, registered last so that it runs first (before the pool's and weakref's
    finalizers), and in a test process only when that process ends."""
    import atexit
    import signal

    global _exit_guarded
    if not _exit_guarded:
        _exit_guarded = True
        atexit.register(signal.signal, signal.SIGINT, signal.SIG_IGN)


_exit_guarded = False


def _disassemble(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    start = time.perf_counter()
    job, problem = _search(puzzle, args)
    with Interruptible(job, "disassembling") as run:
        gen = job.solutions(run.progress)
        if problem is not None:
            gen = (problem.solution(rows) for rows in gen)
        return disassembly_cli.run(args, puzzle, gen, job=job, start=start)


def _count_on_cluster(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    from tessera.solvers.polycube.distributed import DistributedCount

    if args.workers is not None and args.workers < 1:
        raise PuzzleError("--workers must be at least 1")
    if args.checkpoint:
        check_parent(args.checkpoint)
    start = time.perf_counter()
    job = DistributedCount(
        puzzle, scheduler=args.scheduler, workers=args.workers, checkpoint=args.checkpoint
    )
    with Interruptible(job, "counting") as run:
        counts = job.run(run.progress)
    return _print_counts(counts.as_dict() | {"partial": counts.partial}, start, args)


def _count(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    from tessera.solvers.polycube.batch import warm_kernel
    from tessera.solvers.polycube.packing import PackingProblem
    from tessera.solvers.polycube.symmetry import ClassSearch

    warm_kernel()  # the compiled kernel's one-time load is start-up, not the count's time
    start = time.perf_counter()
    if args.limit is not None:
        search = PackingProblem(puzzle).search()
        with Interruptible(search, "counting") as run:
            n = run.count(args.limit)
        result = {"fixed": n, "limit": args.limit, "partial": run.interrupted}
    else:
        job = ClassSearch(puzzle)
        with Interruptible(job, "counting") as run:
            counts = job.tally(run.progress)
        result = counts.as_dict()
        result["partial"] = counts.partial
    return _print_counts(result, start, args)


def _print_counts(result: dict, start: float, args: argparse.Namespace) -> int:
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


def _search(puzzle: PolycubePuzzle, args: argparse.Namespace):
    """The search whose solutions are printed, and the packing problem when its solutions are
    rows of it (the fixed listing). Only `--distinct` picks it: `--trace` records its events
    apart (`_trace`), so solution k is the same solution with or without it."""
    from tessera.solvers.polycube.packing import PackingProblem
    from tessera.solvers.polycube.symmetry import ClassSearch

    if args.distinct == "fixed":
        problem = PackingProblem(puzzle)
        return problem.search(), problem
    return ClassSearch(puzzle, mirrors=args.distinct == "symmetry"), None


def _trace(puzzle: PolycubePuzzle, args: argparse.Namespace) -> tuple[list[dict], bool]:
    """`--trace`: the events the viewer's Search mode replays (the exact-cover search up to
    its first solution, at most `MAX_TRACE_EVENTS`), as dicts; and whether they were cut."""
    from tessera.solvers.registry import FAMILIES, MAX_TRACE_EVENTS

    trace = FAMILIES["polycube"].trace(puzzle, MAX_TRACE_EVENTS)
    events = [
        {"event": e.kind.name.lower(), "depth": e.depth}
        | ({"placement": trace.describe(e.choice)} if e.choice >= 0 else {})
        for e in trace.events
    ]
    return events, trace.truncated


def _list(puzzle: PolycubePuzzle, args: argparse.Namespace) -> int:
    job, problem = _search(puzzle, args)
    found = 0
    out = []
    with Interruptible(job, "solving") as run:
        for solution in job.solutions(run.progress):
            if problem is not None:
                solution = problem.solution(solution)
            found += 1
            run.bar.close()
            if args.json:
                out.append(_solution_json(puzzle, solution, args.plan))
            else:
                _print_solution(puzzle, solution, found, args)
            if args.limit is not None and found >= args.limit:
                break
    interrupted = run.interrupted
    if args.trace and not interrupted:
        events, truncated = _trace(puzzle, args)
        if not args.json:
            for e in events:
                what = e.get("placement", "")
                print(f"trace: {'  ' * e['depth']}{e['event']} {what}".rstrip())
            if truncated:
                print(f"trace: (cut after {len(events)} events)")
    if args.json:
        doc = {"puzzle": puzzle.name, "distinct": args.distinct, "solutions": out}
        if args.trace and not interrupted:
            doc["trace"] = events
            if truncated:
                doc["trace_truncated"] = True
        if interrupted:
            doc["partial"] = True
        print(json.dumps(doc))
    elif interrupted:
        print(partial_note(found), file=sys.stderr)
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
        from tessera.solvers.polycube.plan import assembly_plan

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


def _print_solution(puzzle, solution, number, args) -> None:
    from tessera.cli.layers import layer_diagram, piece_letters, symbol_legend
    from tessera.solvers.polycube.plan import assembly_plan

    letters = piece_letters(puzzle, solution)
    parts = []
    for letter, placed in zip(letters, solution.pieces, strict=True):
        cells = " ".join(f"{x},{y},{z}" for x, y, z in placed.cells.tolist())
        parts.append(f"{letter}[{cells}]")
    print(f"solution {number}: " + "  ".join(parts))
    if args.show:
        legend = symbol_legend(puzzle)
        if legend and number == 1:
            print(f"  legend: {legend}")
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
    from tessera.models.assets import PUZZLES

    # a library folder (soma-figures/) lists as one block after its family's other built-ins
    rows = []
    for kind, items in builtin_groups().items():
        for name, path in items:
            where = Path(path).relative_to(PUZZLES) if Path(path).is_relative_to(PUZZLES) else path
            rows.append((kind, Path(where).parent.as_posix(), name, Path(where).as_posix()))
    for kind, _, name, where in sorted(rows):
        print(f"{kind:10} {name:28} {where}")
    return 0
