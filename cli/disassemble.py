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
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
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
    """Disassemble every assembly: (assemblies seen, solutions, gave up, interrupted).

    The assemblies are taken apart on the other cores while the search finds the next ones
    (the compiled disassembler lets go of the GIL): Dracula's 84 assemblies cost 0.10 s of
    disassembly on one core. Results are taken in the search's order, so what is seen,
    found and cut short by `limit` or a cancel is what a one-core run reports."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    from tessera.solvers.polycube.disassemble import disassemble
    from tessera.solvers.polycube.symmetry import available_cores

    grid = grid_of(puzzle)
    seen = 0
    gave_up = 0
    found: list[Analysed] = []
    workers = available_cores()
    pool = ThreadPoolExecutor(workers, thread_name_prefix="tessera-disassemble")
    pending: deque = deque()

    def take_one() -> bool:
        """The oldest assembly's result; False once no more are wanted."""
        nonlocal seen, gave_up
        assembly, future = pending.popleft()
        result = future.result()
        seen += 1
        gave_up += result.gave_up
        if result.complete:
            found.append(Analysed(assembly, result))
        if bar is not None:
            bar.update(0.0, f"{seen} assemblies, {len(found)} come apart")
        return limit is None or len(found) < limit

    try:
        wanted = True
        for assembly in assemblies:
            if job is not None and job.cancelled:
                break
            cells = [p.cells for p in assembly.pieces]
            groups_here = [groups[p.piece] for p in assembly.pieces]
            future = pool.submit(disassemble, cells, groups_here, node_limit, grid)
            pending.append((assembly, future))
            while wanted and pending and (len(pending) > 2 * workers or pending[0][1].done()):
                wanted = take_one()
            if not wanted:
                break
        while wanted and pending and not (job is not None and job.cancelled):
            wanted = take_one()
    except BaseException:  # Ctrl-C: leave what runs to finish on its own
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    # no thread may outlive this: a batch forks its workers next, and a fork while another
    # thread holds a lock leaves the child waiting on it for ever
    pool.shutdown(wait=True, cancel_futures=True)
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


def analyse_one(
    path,
    problem: int,
    node_limit: int,
    bar: ProgressBar,
    done: str,
    warn: Callable[[str], None] | None = None,
    stop: _Stop | None = None,
) -> dict:
    """One line of a batch: a file's problem loaded, its assemblies listed (BurrTools' way:
    one per class, mirrors too) and each taken apart. Raises KeyboardInterrupt with the
    partial line as its argument when Ctrl-C stops it (in a pool worker: when `stop` was
    asked). `warn` takes the loader's warnings (default: printed on stderr)."""
    from tessera.solvers.polycube.disassemble import disassemble
    from tessera.solvers.polycube.symmetry import ClassSearch
    from tessera.solvers.registry import load_puzzle

    start = time.perf_counter()
    puzzle = load_puzzle(str(path), "polycube", problem=problem)
    for warning in puzzle.warnings:
        if warn is None:
            print(f"tessera: warning: {warning}", file=sys.stderr)
        else:
            warn(f"tessera: warning: {warning}")
    doc: dict = {"file": str(path), "problem": problem, "puzzle": puzzle.name}
    reason = puzzle.volume_problem()
    seen, found, gave_up = 0, [], 0
    if not reason:
        groups = piece_groups(puzzle, problem)
        job = ClassSearch(puzzle, mirrors=True)
        if stop is not None:
            stop.watch(job)
        try:
            if job.cancelled:  # `stop` was asked before there was a search to stop
                raise KeyboardInterrupt
            grid = grid_of(puzzle)
            for assembly in job.solutions():
                seen += 1
                result = disassemble(
                    [p.cells for p in assembly.pieces],
                    [groups[p.piece] for p in assembly.pieces],
                    node_limit,
                    grid,
                )
                gave_up += result.gave_up
                if result.complete:
                    found.append(result.level)
                if bar.enabled:
                    bar.update(
                        0.0, f"{done} {path.name}: {seen} assemblies, {len(found)} come apart"
                    )
            if job.cancelled:  # `stop` cut the listing short
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            job.cancel()
            doc |= {"assemblies": seen, "solutions": len(found), "levels": found}
            doc |= {"partial": True, "seconds": round(time.perf_counter() - start, 3)}
            raise KeyboardInterrupt(doc) from None
        finally:
            if stop is not None:
                stop.watch(None)
    doc |= {"assemblies": seen, "solutions": len(found), "levels": found}
    if gave_up:
        doc["gave_up"] = gave_up
    doc["seconds"] = round(time.perf_counter() - start, 3)
    return doc


def run_many(args: argparse.Namespace, paths: Sequence) -> int:
    """`tessera solve FILES... --disassemble --count`: every problem of every file, one line
    each, in the order given; a bad file is its one-line error and the batch goes on (exit 2);
    Ctrl-C prints the line of the file it stopped in, marked partial, and exits 130.

    Start-up and the compiled kernels are paid once. The files are taken in this process, one
    after another, each line as it finishes, until what is left looks worth a pool
    (`_pool_pays`): then the rest go to workers forked from this warm process, one per core
    (`_run_forked`). A few small files never start one."""
    if not args.count:
        raise PuzzleError("several puzzles with --disassemble go with --count (and --json)")
    node_limit = getattr(args, "node_limit", DEFAULT_NODE_LIMIT)
    if node_limit is None or node_limit < 1:
        raise PuzzleError("--node-limit must be at least 1")
    from tessera.solvers.polycube.symmetry import available_cores

    workers = min(available_cores(), len(paths))
    bar = ProgressBar("disassembling")
    bad = False
    try:
        for number, path in enumerate(paths, 1):
            done = f"[{number}/{len(paths)}]"
            start = time.perf_counter()
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
            rest = paths[number:]
            if workers > 1 and _pool_pays(number, time.perf_counter() - start, len(rest)):
                code = _run_forked(args, rest, number, node_limit, workers)
                return 2 if bad and code == 0 else code
    except KeyboardInterrupt as stop:
        bar.close()
        if stop.args and isinstance(stop.args[0], dict):
            _print_line(stop.args[0], args.json)
        print("interrupted (partial)", file=sys.stderr)
        return 130
    return 2 if bad else 0


#: What the files left must cost, by the last one's time, for a pool to pay: forking two
#: workers, their first calls and ending them take about 20 ms, and two of them halve the
#: rest. Measured with generated cases of 3-4 ms each, a pool after the first file: 4 files
#: 20 ms slower than here, 8-12 even, 16-24 10-15 ms faster.
POOL_WORTH_SECONDS = 0.06
#: Fewer files than this left never go to a pool: two workers would have one or two each.
MIN_POOL_FILES = 4
#: What the first file of a process costs besides its work (the solvers' imports, tables
#: built on first use): about 30 ms here.
FIRST_CALLS_SECONDS = 0.05


def _pool_pays(done: int, last: float, left: int) -> bool:
    """Whether to hand the `left` files to a pool, after `done` files here of which the last
    took `last` seconds."""
    if left < MIN_POOL_FILES:
        return False
    if done == 1:
        last -= FIRST_CALLS_SECONDS
    return last * left > POOL_WORTH_SECONDS


class _Stop:
    """A pool worker's Ctrl-C (pressed at the terminal, or passed on by the parent): stops the
    search under way, whose file ends as a partial line, and every file after it unstarted.
    The signal handler only sets flags: a worker raising KeyboardInterrupt could die inside
    the pool's own code."""

    def __init__(self) -> None:
        self.asked = False
        self._job = None

    def watch(self, job) -> None:
        """The search to cancel now (None: none under way)."""
        self._job = job
        if job is not None and self.asked:
            job.cancel()

    def __call__(self, signum=None, frame=None) -> None:
        self.asked = True
        job = self._job
        if job is not None:
            job.cancel()


_stop = _Stop()


Task = tuple[int, str, int]  # (index in the batch, file, node limit)


@dataclass
class _FileResult:
    """What a worker sends back for one file: its lines (the last one partial if stopped),
    the warnings to print before them and its error; nothing for a file never started."""

    index: int
    docs: list[dict]
    warnings: list[str]
    error: str | None = None


def _worker_init() -> None:
    import signal

    from tessera.solvers.polycube.batch import reset_in_worker

    reset_in_worker()
    signal.signal(signal.SIGINT, _stop)


def _analyse_file(task: Task) -> _FileResult:
    """In a worker: one file of the batch, every problem of it as `run_many` does them."""
    from pathlib import Path

    index, name, node_limit = task
    result = _FileResult(index, [], [])
    if _stop.asked:
        return result
    path, bar = Path(name), ProgressBar("disassembling")
    bar.enabled = False  # the parent draws the one bar
    try:
        for problem in range(1, _problems(path) + 1):
            doc = analyse_one(path, problem, node_limit, bar, "", result.warnings.append, _stop)
            result.docs.append(doc)
    except KeyboardInterrupt as stopped:  # raised by `analyse_one` alone, for `_stop`
        if stopped.args and isinstance(stopped.args[0], dict):
            result.docs.append(stopped.args[0])
    except PuzzleError as exc:
        result.error = str(exc)
    return result


def _warm() -> None:
    """Load, before forking, what every worker needs: the solver's modules and both compiled
    kernels. Forked workers then start with them ready (spawned ones load them as they go)."""
    import numpy as np

    from tessera.models.grids import CUBES
    from tessera.solvers.polycube.batch import warm_kernel
    from tessera.solvers.polycube.disassemble import disassemble

    warm_kernel()
    bar = np.array([[0, 0, 0], [1, 0, 0]])
    disassemble([bar, bar + [0, 1, 0]], [0, 0], 1000, CUBES)


def _run_forked(
    args: argparse.Namespace, paths: Sequence, offset: int, node_limit: int, workers: int
) -> int:
    """The rest of a batch (`paths`, the files from number `offset` on) over `workers` forked
    processes, one file per task, largest files first, so that a long one does not start last
    and leave the other workers idle. Lines are printed in the order given as soon as every
    file before them is done; the bar counts the files done. Ctrl-C is passed on to the
    workers, which end the files they are in as partial lines and start no other; those lines
    are printed, and a second Ctrl-C leaves at once."""
    import gc
    import signal

    from tessera.solvers.polycube.batch import fork_pool

    tasks = [(offset + k, str(path), node_limit) for k, path in enumerate(paths)]
    _warm()
    gc.freeze()  # the parent's objects, shared with the workers, are never walked by their gc
    bar = ProgressBar("disassembling")
    total = offset + len(paths)
    ctrl_c = _PassOn(bar)
    previous = signal.signal(signal.SIGINT, ctrl_c)
    results: dict[int, _FileResult] = {}  # the files done and not printed yet
    printed = finished = offset
    bad = False
    try:
        ctrl_c.pool = fork_pool(min(workers, len(tasks)), _worker_init)
        work = ctrl_c.pool.imap_unordered(_analyse_file, _largest_first(tasks), chunksize=1)
        for result in work:
            results[result.index] = result
            finished += 1
            bar.update(finished / total, f"{finished}/{total} files")
            while not ctrl_c.pressed and printed in results:
                bar.close()
                bad |= _print_file(results.pop(printed), args.json)
                printed += 1
        ctrl_c.pool.close()
    finally:
        if ctrl_c.pool is not None:
            ctrl_c.pool.terminate()
            ctrl_c.pool.join()
        signal.signal(signal.SIGINT, previous)
        gc.unfreeze()  # a caller that goes on (a test run, a script) collects them again
        bar.close()
    if ctrl_c.pressed:
        for k in sorted(results):  # the files started and not printed, the stopped ones partial
            _print_file(results[k], args.json)
        print("interrupted (partial)", file=sys.stderr)
        return 130
    return 2 if bad else 0


class _PassOn:
    """The parent's Ctrl-C while a pool works: the bar says the batch is stopping and the
    workers are told (a terminal has told them too; `kill -INT` of the parent has not). A
    second press ends the workers and leaves at once."""

    def __init__(self, bar: ProgressBar) -> None:
        self.bar = bar
        self.pool = None
        self.pressed = False

    def __call__(self, signum, frame) -> None:
        import signal

        from tessera.cli.progress import leave_now

        if self.pressed:
            self._tell(signal.SIGTERM)
            leave_now()
        self.pressed = True
        self.bar.stopping()
        self._tell(signal.SIGINT)

    def _tell(self, signum: int) -> None:
        for process in list(getattr(self.pool, "_pool", ())):
            if process.pid is not None:
                try:
                    os.kill(process.pid, signum)
                except OSError:  # gone already
                    pass


def _largest_first(tasks: list[Task]) -> list[Task]:
    """The files in the order the workers take them: largest first, the size standing for the
    work (more pieces, more assemblies). A long file started last would leave the other
    workers idle until it ends; started first, the small ones fill in around it."""

    def size(task: Task) -> int:
        try:
            return os.path.getsize(task[1])
        except OSError:  # its error comes soon enough
            return 0

    return sorted(tasks, key=size, reverse=True)


def _print_file(result: _FileResult, as_json: bool) -> bool:
    """A file's warnings, lines and error, as `run_many` prints them; True if it had an
    error."""
    for warning in result.warnings:
        print(warning, file=sys.stderr)
    for doc in result.docs:
        _print_line(doc, as_json)
    if result.error is not None:
        print(f"tessera: error: {result.error}", file=sys.stderr, flush=True)
    return result.error is not None


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
