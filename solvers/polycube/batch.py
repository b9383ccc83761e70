"""Counting many polycube puzzles in one process: a figure library in seconds.

A Soma figure's count is a few milliseconds of work, so what a library of 300 figures costs is
start-up and per-puzzle overhead: interpreter and numpy, loading the compiled kernel, threads.
Here the kernel is loaded once, before the workers start, and the puzzles are spread over the
cores one whole puzzle per task (`ClassSearch.tally(workers=1)`: no thread inside a puzzle).

Processes, not threads, by default. A Soma figure costs about 5 ms of CPU, of which the
compiled kernel (which releases the GIL) is under a third; the rest is numpy on small arrays
and Python, which hold it. So threads cannot give much more than 1.4 times one core, while
forked workers scale with the cores: over the 218 yass figures the two workers used 1.08 s of
CPU in all against 0.96 s for one thread alone (+12%: each worker's first-call costs), i.e.
about 0.55 s of wall time on 2 idle cores against at least 0.67 s for threads. (Measured on a
machine with a load average of 7 from other work, wall times were 1.6 s for processes, 1.35 s
for threads and 1.4 s inline: under that contention nothing gets more than about one core.)
The workers are forked from a process whose kernel is already loaded, so they start in
milliseconds; where fork is not available they are spawned and load it themselves.

`count_files()` yields one `BatchResult` per file as each finishes, bad files included (their
`PuzzleError` as a one-line `error`): a bad file never stops the batch.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tessera.models.errors import NoSolution, PuzzleError
from tessera.models.polycube import PolycubePuzzle

#: What a folder on the command line expands to: every file with one of these suffixes.
BATCH_SUFFIXES = (".soma", ".toml", ".json", ".xmpuzzle")

Mode = Literal["auto", "process", "thread", "inline"]

#: Below this many puzzles a pool costs more than it saves (its start is ~20-50 ms).
MIN_POOL_PUZZLES = 4


@dataclass
class BatchResult:
    """One file's count, or why it could not be counted."""

    file: str
    fixed: int | None = None
    up_to_rotation: int | None = None
    up_to_symmetry: int | None = None
    seconds: float = 0.0
    error: str | None = None
    #: True when the error is a bug in Tessera, not a problem with the file.
    internal: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_dict(self) -> dict[str, Any]:
        """The `--json` line: `{"file", "fixed", "up_to_rotation", "up_to_symmetry",
        "seconds"}`, or `{"file", "error"}`."""
        if self.error is not None:
            return {"file": self.file, "error": self.error}
        return {
            "file": self.file,
            "fixed": self.fixed,
            "up_to_rotation": self.up_to_rotation,
            "up_to_symmetry": self.up_to_symmetry,
            "seconds": round(self.seconds, 4),
        }


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files to count: each argument as given, a folder as its puzzle files (sorted by name,
    not recursive). A name that is neither stays in the list, so its error is reported in
    order with the others (or it is a built-in name the loader knows)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            is_dir = path.is_dir()
        except (OSError, ValueError):
            is_dir = False
        if is_dir:
            out.extend(
                sorted(
                    p for p in path.iterdir() if p.suffix.lower() in BATCH_SUFFIXES and p.is_file()
                )
            )
        else:
            out.append(path)
    return out


def load_for_batch(path: str | Path) -> PolycubePuzzle:
    """A polycube puzzle from any file the batch takes (or a built-in name): `.soma` figures
    through `models.soma_figure`, everything else through the family registry."""
    if str(path).lower().endswith(".soma"):
        from tessera.models.soma_figure import load_soma

        return load_soma(path)
    from tessera.solvers.registry import load_puzzle

    return load_puzzle(str(path), "polycube")


def count_one(
    path: str | Path, load: Callable[[str | Path], PolycubePuzzle] | None = None
) -> BatchResult:
    """Load and count one file in this thread, with no thread of its own; never raises for a
    bad file."""
    from tessera.solvers.polycube.symmetry import ClassSearch

    start = time.perf_counter()
    name = str(path)
    try:
        puzzle = (load or load_for_batch)(path)
        counts = ClassSearch(puzzle).tally(workers=1)
    except (PuzzleError, NoSolution) as exc:
        return BatchResult(name, seconds=time.perf_counter() - start, error=_one_line(exc))
    except Exception as exc:  # a bug must not stop the other files; the caller reports it
        return BatchResult(
            name,
            seconds=time.perf_counter() - start,
            error=_one_line(f"internal error: {type(exc).__name__}: {exc}"),
            internal=True,
        )
    return _counted(name, puzzle, counts, start)


def _counted(name: str, puzzle: PolycubePuzzle, counts, start: float) -> BatchResult:
    """A file's result from its counts (`ClassSearch.tally`), timed from `start`."""
    return BatchResult(
        name,
        counts.fixed,
        counts.up_to_rotation,
        counts.up_to_symmetry,
        time.perf_counter() - start,
        warnings=list(puzzle.warnings),
    )


def _one_line(error: object) -> str:
    text = str(error)
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def warm_kernel() -> None:
    """Load the compiled exact-cover kernel (from numba's cache) now, once: every search
    after this starts without the load. Most of the cost is numba initialising its typing
    and target registries (about 0.15 s on an idle machine of this kind), not our code."""
    from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch

    ExactCoverSearch(ExactCoverProblem([[0, 1], [0], [1]], 2, 2)).count()


def _warm_soma_pieces() -> None:
    """The seven Soma pieces, their orientations and keys, made once before the workers are
    forked, so no worker makes them again."""
    from tessera.models.soma_figure import _orientation_keys, soma_pieces
    from tessera.solvers.polycube.packing import piece_keys, piece_orientations

    for piece in soma_pieces():
        piece_orientations(piece)
        piece_keys(piece)
        _orientation_keys(piece.name)


def fork_pool(processes: int, initializer: Callable[[], None]) -> multiprocessing.pool.Pool:
    """A pool of worker processes forked from this one, so they start with its modules and
    kernels loaded (in milliseconds); spawned where fork is not available. `initializer`
    should begin with `reset_in_worker()`."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method).Pool(processes, initializer=initializer)


def reset_in_worker() -> None:
    """What a pool process must not keep from its parent: the command's SIGTERM handler, and
    the shared thread pool (its threads did not survive the fork)."""
    import signal

    from tessera.solvers.polycube import symmetry as polycube_symmetry

    # SIGTERM, which `Pool.terminate` sends, must end a worker at once: the command's handler
    # (inherited by fork) unwound it as an exit instead, which could stop inside the pool's
    # queue lock and leave the worker and the batch waiting for ever
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    polycube_symmetry._pool = None


def _worker_init() -> None:
    """In each pool process: the kernel (already there when forked from a warm parent), and
    Ctrl-C left to the parent, which stops the batch and terminates the pool, rather than
    every worker printing its own KeyboardInterrupt."""
    import signal

    reset_in_worker()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_kernel()


def _count_in_worker(path: str) -> BatchResult:
    return count_one(path)


def count_files(
    paths: Sequence[str | Path],
    *,
    workers: int | None = None,
    mode: Mode = "auto",
    load: Callable[[str | Path], PolycubePuzzle] | None = None,
) -> Iterator[BatchResult]:
    """Count every file, spread over `workers` (default: every core), yielding each result as
    it finishes (so not in argument order). Folders are not expanded here (`expand_paths`).

    `mode`: "process" (a forked pool; the default for 4 files or more), "thread" (a thread
    pool: the kernel releases the GIL, the rest does not), or "inline" (this thread, in
    order; the default below 4 files, where a pool is not worth starting). A custom `load`
    forces threads or inline: a pool process would need it importable by name."""
    from tessera.solvers.polycube.symmetry import available_cores

    files = [str(p) for p in paths]
    workers = max(1, workers or available_cores())
    if mode == "auto":
        if len(files) < MIN_POOL_PUZZLES or workers == 1:
            mode = "inline"
        else:
            mode = "thread" if load is not None else "process"
    if mode == "process" and load is not None:
        mode = "thread"
    if mode == "inline" or not files:
        if len(files) == 1 and load is None:
            yield _count_single(files[0])
            return
        for path in files:
            yield count_one(path, load)
        return
    warm_kernel()  # before fork or threads: loaded once, shared by every worker
    if any(f.lower().endswith(".soma") for f in files):
        _warm_soma_pieces()
    if mode == "thread":
        yield from _threaded(files, workers, load)
    else:
        yield from _forked(files, workers)


def _count_single(path: str) -> BatchResult:
    """One file alone: its own orbit searches may use every core (a big puzzle)."""
    from tessera.solvers.polycube.symmetry import ClassSearch

    start = time.perf_counter()
    try:
        puzzle = load_for_batch(path)
        counts = ClassSearch(puzzle).tally()
    except (PuzzleError, NoSolution) as exc:
        return BatchResult(path, seconds=time.perf_counter() - start, error=_one_line(exc))
    return _counted(path, puzzle, counts, start)


def _threaded(
    files: list[str], workers: int, load: Callable[[str | Path], PolycubePuzzle] | None
) -> Iterator[BatchResult]:
    with ThreadPoolExecutor(workers, thread_name_prefix="tessera-batch") as pool:
        pending = {pool.submit(count_one, path, load) for path in files}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()


def _forked(files: list[str], workers: int) -> Iterator[BatchResult]:
    # a few files per message: fewer round trips, still results as they come
    chunk = max(1, min(8, len(files) // (workers * 8)))
    pool = fork_pool(min(workers, len(files)), _worker_init)
    try:
        yield from pool.imap_unordered(_count_in_worker, files, chunksize=chunk)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
