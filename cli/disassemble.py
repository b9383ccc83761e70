"""`tessera solve PUZZLE --disassemble`: keep only the assemblies that really come apart, each
with its BurrTools level and moves.

Plugged into `tessera solve` by `cli.polycube` (which owns the command): `add_arguments(solve)`
adds the options, and when `args.disassemble` is set `run(args, puzzle, assemblies, job=...)`
prints everything and returns the exit code. The assemblies are what `tessera solve` lists
anyway (one per class, `--distinct symmetry` by default, which is BurrTools' way of counting:
rotated and mirrored duplicates dropped).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tessera.cli.layers import layer_diagram, piece_letters
from tessera.cli.progress import ProgressBar
from tessera.models.errors import NoSolution, PuzzleError

if TYPE_CHECKING:  # the solvers (numpy, numba) load when a command runs, not for --help
    from tessera.models.polycube import PolycubePuzzle
    from tessera.solvers.polycube.disassemble import Disassembly
    from tessera.solvers.polycube.packing import PolycubeSolution

#: `solvers.disassemble.DEFAULT_NODE_LIMIT`, written out so `--help` need not load the solver
#: (tests/test_cli_startup.py checks that the two agree).
DEFAULT_NODE_LIMIT = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `tessera solve` that belong to disassembly."""
    parser.add_argument(
        "--disassemble",
        action="store_true",
        help="list only assemblies that come apart, with BurrTools' level and the moves",
    )
    parser.add_argument(
        "--sort",
        choices=("level", "moves"),
        help="with --disassemble: hardest first, by level (98.2.4.2 before 12.3) or by the "
        "total number of moves",
    )
    parser.add_argument(
        "--node-limit",
        type=int,
        default=DEFAULT_NODE_LIMIT,
        metavar="N",
        help=f"with --disassemble: states per separation search (default {DEFAULT_NODE_LIMIT})",
    )


@dataclass(frozen=True)
class Analysed:
    assembly: PolycubeSolution
    result: Disassembly


def piece_groups(puzzle: PolycubePuzzle, problem: int = 1) -> list[int]:
    """Group number per piece type: from the pieces when the model keeps it (`Piece.group`),
    else read from the BurrTools file the puzzle came from, else none (all 0)."""
    if all(hasattr(p, "group") for p in puzzle.pieces):
        return [int(p.group or 0) for p in puzzle.pieces]
    source = getattr(puzzle, "source", None) or ""
    if str(source).lower().endswith(".xmpuzzle"):
        from tessera.solvers.polycube.disassemble import xmpuzzle_groups

        try:
            groups = xmpuzzle_groups(source, problem)
        except Exception:  # the loader already accepted the file; groups are a bonus
            groups = []
        if len(groups) == len(puzzle.pieces):
            return groups
    return [0] * len(puzzle.pieces)


def grid_of(puzzle):
    """The lattice the puzzle's cells are on (its moves are that grid's): the cube grid for a
    puzzle-like object that names none."""
    from tessera.models.grids import CUBES

    return getattr(puzzle, "grid", CUBES)


def analyse(
    puzzle: PolycubePuzzle,
    assemblies: Iterable[PolycubeSolution],
    groups: Sequence[int],
    node_limit: int = DEFAULT_NODE_LIMIT,
    job=None,
    bar: ProgressBar | None = None,
    limit: int | None = None,
) -> tuple[int, list[Analysed], int, bool]:
    """Disassemble every assembly: (assemblies seen, solutions, gave up, interrupted)."""
    from tessera.solvers.polycube.disassemble import disassemble

    seen = 0
    gave_up = 0
    found: list[Analysed] = []
    for assembly in assemblies:
        if job is not None and job.cancelled:
            break
        seen += 1
        cells = [p.cells for p in assembly.pieces]
        groups_here = [groups[p.piece] for p in assembly.pieces]
        result = disassemble(cells, groups_here, node_limit, grid_of(puzzle))
        gave_up += result.gave_up
        if result.complete:
            found.append(Analysed(assembly, result))
        if bar is not None:
            bar.update(0.0, f"{seen} assemblies, {len(found)} come apart")
        if limit is not None and len(found) >= limit:
            break
    interrupted = bool(job is not None and job.cancelled)
    return seen, found, gave_up, interrupted


def sort_solutions(found: list[Analysed], key: str | None) -> list[Analysed]:
    if key == "level":
        return sorted(found, key=lambda a: a.result.level_key(), reverse=True)
    if key == "moves":
        return sorted(
            found, key=lambda a: (a.result.move_count, a.result.level_key()), reverse=True
        )
    return list(found)


def move_text(move, letters: Sequence[str]) -> str:
    """E.g. "AB +x2", "C -z out": the direction as its grid names it, then how many steps."""
    who = "".join(letters[i] for i in move.pieces)
    return f"{who} {move.name}{' out' if move.removes else move.distance}"


def solution_json(puzzle: PolycubePuzzle, analysed: Analysed) -> dict:
    pieces = [
        {"piece": puzzle.pieces[p.piece].name, "cells": p.cells.tolist()}
        for p in analysed.assembly.pieces
    ]
    return {"pieces": pieces, "disassembly": analysed.result.as_dict()}


def run(
    args: argparse.Namespace,
    puzzle: PolycubePuzzle,
    assemblies: Iterable[PolycubeSolution],
    job=None,
    groups: Sequence[int] | None = None,
    start: float | None = None,
) -> int:
    """Print the solutions that come apart (or, with `--count`, how many and their levels).

    `job` is the search behind `assemblies` (its `.cancelled` turns Ctrl-C into a partial
    result, exit 130); `start` the time the solve began, for `seconds`.
    """
    start = time.perf_counter() if start is None else start
    limit = getattr(args, "limit", None)
    node_limit = getattr(args, "node_limit", DEFAULT_NODE_LIMIT)
    if node_limit is None or node_limit < 1:
        raise PuzzleError("--node-limit must be at least 1")
    if groups is None:
        groups = piece_groups(puzzle, getattr(args, "problem", 1))
    bar = ProgressBar("disassembling")
    seen, found, gave_up, interrupted = analyse(
        puzzle, assemblies, groups, node_limit, job, bar, None if args.count else limit
    )
    bar.close()
    found = sort_solutions(found, getattr(args, "sort", None))
    seconds = round(time.perf_counter() - start, 3)
    if gave_up:
        print(
            f"tessera: warning: gave up on {gave_up} assemblies after {node_limit} states "
            "(raise --node-limit); they are not counted as solutions",
            file=sys.stderr,
        )
    if args.count:
        doc: dict = {
            "assemblies": seen,
            "solutions": len(found),
            "levels": [a.result.level for a in found],
            "seconds": seconds,
        }
        if gave_up:
            doc["gave_up"] = gave_up
        if interrupted:
            doc["partial"] = True
        if args.json:
            print(json.dumps(doc))
        else:
            mark = " (partial: interrupted)" if interrupted else ""
            print(f"assemblies: {seen}{mark}")
            print(f"solutions: {len(found)}{mark}")
            if found:
                print(f"levels: {' '.join(doc['levels'])}")
            print(f"seconds: {seconds}")
        if interrupted:
            return 130
        return 0 if found else 1
    if args.json:
        doc = {
            "puzzle": puzzle.name,
            "assemblies": seen,
            "solutions": [solution_json(puzzle, a) for a in found],
        }
        if gave_up:
            doc["gave_up"] = gave_up
        if interrupted:
            doc["partial"] = True
        print(json.dumps(doc))
    else:
        for number, analysed in enumerate(found, 1):
            letters = piece_letters(puzzle, analysed.assembly)
            result = analysed.result
            parts = []
            for letter, placed in zip(letters, analysed.assembly.pieces, strict=True):
                cells = " ".join(f"{x},{y},{z}" for x, y, z in placed.cells.tolist())
                parts.append(f"{letter}[{cells}]")
            print(f"solution {number}: level {result.level}, {result.move_count} moves")
            print("  " + "  ".join(parts))
            if getattr(args, "show", False):
                for line in layer_diagram(puzzle, analysed.assembly):
                    print("  " + line)
                print("  moves: " + ", ".join(move_text(m, letters) for m in result.moves))
                if result.left_together:
                    together = ", ".join(
                        "".join(letters[i] for i in g) for g in result.left_together
                    )
                    print(f"  left together: {together}")
                print()
        print(f"{seen} assemblies, {len(found)} come apart")
        if interrupted:
            print(f"interrupted after {seen} assemblies (partial)", file=sys.stderr)
    if interrupted:
        return 130
    if not found:
        raise NoSolution(f"none of the {seen} assemblies comes apart")
    return 0


def _problems(path) -> int:
    """How many problems a file holds (1 for anything but a BurrTools file)."""
    if not str(path).lower().endswith(".xmpuzzle"):
        return 1
    from tessera.models.burrtools import problem_count

    return problem_count(path)


def analyse_one(path, problem: int, node_limit: int, bar: ProgressBar, done: str) -> dict:
    """One line of a batch: a file's problem loaded, its assemblies listed (BurrTools' way:
    one per class, mirrors too) and each taken apart. Raises KeyboardInterrupt with the
    partial line as its argument when Ctrl-C stops it."""
    from tessera.solvers.polycube.symmetry import ClassSearch
    from tessera.solvers.registry import load_puzzle

    start = time.perf_counter()
    puzzle = load_puzzle(str(path), "polycube", problem=problem)
    for warning in puzzle.warnings:
        print(f"tessera: warning: {warning}", file=sys.stderr)
    doc: dict = {"file": str(path), "problem": problem, "puzzle": puzzle.name}
    reason = puzzle.volume_problem()
    seen, found, gave_up = 0, [], 0
    if not reason:
        groups = piece_groups(puzzle, problem)
        job = ClassSearch(puzzle, mirrors=True)
        try:
            for assembly in job.solutions():
                seen += 1
                from tessera.solvers.polycube.disassemble import disassemble

                result = disassemble(
                    [p.cells for p in assembly.pieces],
                    [groups[p.piece] for p in assembly.pieces],
                    node_limit,
                    grid_of(puzzle),
                )
                gave_up += result.gave_up
                if result.complete:
                    found.append(result.level)
                bar.update(0.0, f"{done} {path.name}: {seen} assemblies, {len(found)} come apart")
        except KeyboardInterrupt:
            job.cancel()
            doc |= {"assemblies": seen, "solutions": len(found), "levels": found}
            doc |= {"partial": True, "seconds": round(time.perf_counter() - start, 3)}
            raise KeyboardInterrupt(doc) from None
    doc |= {"assemblies": seen, "solutions": len(found), "levels": found}
    if gave_up:
        doc["gave_up"] = gave_up
    doc["seconds"] = round(time.perf_counter() - start, 3)
    return doc


def run_many(args: argparse.Namespace, paths: Sequence) -> int:
    """`tessera solve FILES... --disassemble --count`: every problem of every file in this one
    process (start-up and compiled kernels paid once), one line each as it finishes; a bad
    file is its one-line error and the batch goes on (exit 2); Ctrl-C prints the line of the
    file it stopped in, marked partial, and exits 130."""
    if not args.count:
        raise PuzzleError("several puzzles with --disassemble go with --count (and --json)")
    node_limit = getattr(args, "node_limit", DEFAULT_NODE_LIMIT)
    if node_limit is None or node_limit < 1:
        raise PuzzleError("--node-limit must be at least 1")
    bar = ProgressBar("disassembling")
    bad = False
    try:
        for number, path in enumerate(paths, 1):
            done = f"[{number}/{len(paths)}]"
            try:
                problems = _problems(path)
                for problem in range(1, problems + 1):
                    doc = analyse_one(path, problem, node_limit, bar, done)
                    bar.close()
                    _print_line(doc, args.json)
            except PuzzleError as exc:
                bar.close()
                bad = True
                print(f"tessera: error: {exc}", file=sys.stderr, flush=True)
    except KeyboardInterrupt as stop:
        bar.close()
        if stop.args and isinstance(stop.args[0], dict):
            _print_line(stop.args[0], args.json)
        print("interrupted (partial)", file=sys.stderr)
        return 130
    return 2 if bad else 0


def _print_line(doc: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(doc), flush=True)
        return
    mark = " (partial: interrupted)" if doc.get("partial") else ""
    levels = f", levels {' '.join(doc['levels'])}" if doc["levels"] else ""
    print(
        f"{doc['file']} problem {doc['problem']}: {doc['assemblies']} assemblies, "
        f"{doc['solutions']} solutions{levels}, {doc['seconds']:.3f} s{mark}",
        flush=True,
    )
