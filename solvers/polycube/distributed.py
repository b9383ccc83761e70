"""Counting on a Dask cluster: one count split into independent subproblems.

A count up to symmetry already splits by the anchor piece's orbits (`ClassSearch`). For a
cluster each orbit's problem is split further by *prefixes*: take the open target cell with the
fewest placements that fit, and give each of those placements its own subproblem (every
solution covers that cell exactly once, so the parts are disjoint and complete); repeat until
there are about `tasks_per_worker` subproblems per worker. A subproblem is named by numbers
only (the orbit and the placements of its prefix), so a worker rebuilds it from the puzzle
and a checkpoint can record it.

Classes are counted per solution, without a set shared across subproblems: a solution whose
stabiliser inside its orbit's stabiliser S has s elements stands for s/|S| of a class (its
class has |S|/s members in that orbit's search), so the fractions of one class add up to 1
wherever its members were found.

`dask.distributed` is an optional extra (`tessera[cluster]`), imported only here, only when a
cluster is asked for. Dask reruns the tasks of a worker that dies, so a lost worker loses no
count; `checkpoint` files record finished subproblems so that a stopped count resumes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from tessera.models.errors import PuzzleError
from tessera.models.grids import CUBES
from tessera.models.polycube import PolycubePuzzle
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.polycube.symmetry import ClassSearch, Counts
from tessera.solvers.search_control import Cancellable, Progress

#: About this many subproblems per worker: enough to balance uneven parts and to make a
#: checkpoint worth having, few enough that scheduling costs nothing next to counting.
TASKS_PER_WORKER = 100


@dataclass(frozen=True)
class Task:
    """A subproblem: the orbit (index into `ClassSearch.orbits`, or -1 when the puzzle has no
    anchor piece) and the prefix, as indices into that orbit's `PackingProblem.placements`."""

    orbit: int
    prefix: tuple[int, ...]

    @property
    def key(self) -> str:
        return f"{self.orbit}:{','.join(map(str, self.prefix))}"


@dataclass(frozen=True)
class TaskResult:
    """What one subproblem contributes: fixed solutions, and classes and rotation classes as
    exact fractions (their sums over all tasks are whole numbers)."""

    key: str
    fixed: int
    classes: Fraction
    rotation: Fraction

    def as_json(self) -> dict:
        return {
            "key": self.key,
            "fixed": self.fixed,
            "classes": str(self.classes),
            "rotation": str(self.rotation),
        }

    @classmethod
    def from_json(cls, doc: dict) -> TaskResult:
        """A checkpoint line, checked: a key, a whole count and two fractions, none negative
        (a damaged or edited file must not add -31520 to a count). ValueError otherwise."""
        if not isinstance(doc, dict) or set(doc) != {"key", "fixed", "classes", "rotation"}:
            raise ValueError("not a task line")
        key, fixed = doc["key"], doc["fixed"]
        if not isinstance(key, str) or type(fixed) is not int or fixed < 0:
            raise ValueError("bad key or count")
        if not all(isinstance(doc[k], str) and len(doc[k]) < 100 for k in ("classes", "rotation")):
            raise ValueError("bad fraction")
        classes, rotation = Fraction(doc["classes"]), Fraction(doc["rotation"])
        if classes < 0 or rotation < 0 or classes > rotation or rotation > fixed:
            raise ValueError("counts out of order")
        return cls(key, fixed, classes, rotation)


# -- splitting --------------------------------------------------------------------------------


def _orbit_problem(search: ClassSearch, orbit: int) -> PackingProblem:
    if orbit < 0:
        return PackingProblem(search.puzzle)
    rep = search.orbits[orbit].representative
    return PackingProblem(search.puzzle, only={search.anchor_piece: [rep]})


@dataclass(frozen=True)
class _Rows:
    """An orbit problem's placements as plain tuples: splitting reads them thousands of times."""

    puzzle: PolycubePuzzle
    piece: tuple[int, ...]
    cells: tuple[frozenset[int], ...]

    @classmethod
    def of(cls, problem: PackingProblem) -> _Rows:
        rows = [problem.placements[r] for r in range(len(problem.placements))]
        return cls(
            problem.puzzle, tuple(p.piece for p in rows), tuple(frozenset(p.cells) for p in rows)
        )


def _split(rows: _Rows, prefix: tuple[int, ...]) -> list[tuple[int, ...]] | None:
    """The prefixes one placement longer, branching on the most constrained column; None
    when nothing is left to branch on."""
    puzzle = rows.puzzle
    n_required = puzzle.target.n_required
    used: set[int] = set()
    remaining = [p.copies for p in puzzle.pieces]
    for r in prefix:
        used.update(rows.cells[r])
        remaining[rows.piece[r]] -= 1
    by_cell: dict[int, list[int]] = {}
    for r, (piece, cells) in enumerate(zip(rows.piece, rows.cells, strict=True)):
        if remaining[piece] <= 0 or not used.isdisjoint(cells) or r in prefix:
            continue
        for c in cells:
            if c < n_required:
                by_cell.setdefault(c, []).append(r)
    open_cells = [c for c in range(n_required) if c not in used]
    if not open_cells:
        return None
    # Like the engine's own choice: the most constrained column, a cell or a piece placed
    # once (each solution places it exactly once, so its placements partition too).
    options = [by_cell.get(c, []) for c in open_cells]
    by_piece: dict[int, list[int]] = {}
    for candidates in by_cell.values():
        for r in candidates:
            by_piece.setdefault(rows.piece[r], []).append(r)
    for piece, candidates in by_piece.items():
        if (
            remaining[piece] == 1
            and puzzle.pieces[piece].copies == 1
            and not puzzle.pieces[piece].ranged
        ):
            options.append(sorted(set(candidates)))
    best = min(options, key=len)
    return [prefix + (r,) for r in best]


def _anchor_prefix(search: ClassSearch, rows: _Rows) -> tuple[int, ...]:
    """Start an orbit's prefixes with its anchor placement (its only row for that piece), so
    no prefix ever covers the cells the anchor must take."""
    if search.anchor_piece is None:
        return ()
    anchor = [r for r, piece in enumerate(rows.piece) if piece == search.anchor_piece]
    return tuple(anchor) if len(anchor) == 1 else ()


def plan_tasks(puzzle: PolycubePuzzle, target: int) -> list[Task]:
    """Subproblems covering the whole count, about `target` of them (at least one per
    orbit), made breadth-first so that they are of similar depth."""
    search = ClassSearch(puzzle)
    orbits = range(len(search.orbits)) if search.anchor_piece is not None else [-1]
    problems = {k: _orbit_problem(search, k) for k in orbits}
    rows = {k: _Rows.of(problem) for k, problem in problems.items()}
    frontier = [Task(k, _anchor_prefix(search, rows[k])) for k in orbits]
    # Split the shallowest task first (a queue), one at a time, so the count of tasks ends
    # near `target` instead of jumping by a whole level's branching factor.
    done: list[Task] = []
    queue = deque(frontier)
    while queue and len(queue) + len(done) < target:
        task = queue.popleft()
        parts = _split(rows[task.orbit], task.prefix)
        if parts is None:
            done.append(task)
        else:
            queue.extend(Task(task.orbit, p) for p in parts)
    return done + list(queue)


# -- counting one subproblem ------------------------------------------------------------------

_CACHE: dict[str, tuple[ClassSearch, dict[int, PackingProblem]]] = {}
_CACHE_LOCK = threading.Lock()


def fingerprint(puzzle: PolycubePuzzle) -> str:
    """Names a puzzle's content, whatever its count depends on: pieces, copies and target
    cells, and the voxel colours, colour rules, piece ranges, grid and naming rule where a
    puzzle has them (not its file or name).

    It keys the workers' cache of prepared searches and a checkpoint's header, so two puzzles
    it mixes up would share one search or resume each other's count. What only some puzzles
    have is added only when they have it: a plain puzzle of cubes keeps the fingerprint it
    had, and its checkpoints still resume."""
    h = hashlib.sha256()
    for piece in puzzle.pieces:
        h.update(np.ascontiguousarray(piece.cells, np.int64).tobytes())
        h.update(f"|{piece.copies}|".encode())
        if piece.min_copies is not None:
            h.update(f"fewest {piece.min_copies}|".encode())
        if piece.coloured:
            h.update(_colour_bytes(piece.voxel_colours))
    target = puzzle.target
    h.update(np.ascontiguousarray(target.cells, np.int64).tobytes())
    h.update(f"|{target.n_required}".encode())
    if target.coloured:
        h.update(_colour_bytes(target.colours))
    if puzzle.coloured and puzzle.colour_rules is not None:
        h.update(f"|allow {sorted(puzzle.colour_rules.allow)}".encode())
    if puzzle.grid.name != CUBES.name:
        h.update(f"|grid {puzzle.grid.name}".encode())
    if not puzzle.equal_pieces_alike:
        h.update(b"|equal shapes apart")
    return h.hexdigest()[:16]


def _colour_bytes(colours: np.ndarray | None) -> bytes:
    """A colour per cell, tagged and sized so that it cannot read as the cells beside it."""
    values = np.ascontiguousarray(colours, np.int64)
    return f"colours {len(values)}|".encode() + values.tobytes()


def _prepared(puzzle: PolycubePuzzle) -> tuple[ClassSearch, dict[int, PackingProblem]]:
    """The symmetry analysis of a puzzle, made once per worker process."""
    key = fingerprint(puzzle)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = (ClassSearch(puzzle), {})
        return _CACHE[key]


def count_task(puzzle: PolycubePuzzle, task: Task) -> TaskResult:
    """Count one subproblem with the compiled engine (what a worker runs)."""
    search, problems = _prepared(puzzle)
    if task.orbit not in problems:
        problems[task.orbit] = _orbit_problem(search, task.orbit)
    base = problems[task.orbit]
    fixed_part = [base.placements[r] for r in task.prefix]
    only = None
    if task.orbit >= 0:
        only = {search.anchor_piece: [search.orbits[task.orbit].representative]}
    problem = PackingProblem(puzzle, only=only, fixed=fixed_part)
    group = search.group
    doubles = 1 if group.mirror_is_trivial else 2
    orbit = search.orbits[task.orbit] if task.orbit >= 0 else None
    size = orbit.size if orbit is not None else 1
    if orbit is not None and group.acts_freely_on(orbit.stabiliser):
        n = problem.search().count()
        return TaskResult(task.key, size * n, Fraction(n), Fraction(doubles * n))
    elements = list(orbit.stabiliser) if orbit is not None else list(group.elements)
    n = 0
    classes = rotation = Fraction(0)
    for rows in problem.search().solutions():
        n += 1
        stab = group.stabiliser(problem.solution(rows), elements)
        weight = Fraction(len(stab), len(elements))
        classes += weight
        rotation += weight * (1 if any(not g.proper for g in stab) else doubles)
    return TaskResult(task.key, size * n, classes, rotation)


def merge(puzzle: PolycubePuzzle, results: Iterable[TaskResult], partial: bool) -> Counts:
    fixed = 0
    classes = rotation = Fraction(0)
    for r in results:
        fixed += r.fixed
        classes += r.classes
        rotation += r.rotation
    if not partial and (classes.denominator != 1 or rotation.denominator != 1):
        raise RuntimeError(f"class counts do not add up: {classes}, {rotation}")
    search = _prepared(puzzle)[0]
    up_to_symmetry = int(classes)
    up_to_rotation = up_to_symmetry if search.group.mirror_is_trivial else int(rotation)
    return Counts(fixed, up_to_rotation, up_to_symmetry, partial)


# -- checkpoints ------------------------------------------------------------------------------


#: A task line is a key and three numbers; anything far longer is damage, not a result.
MAX_CHECKPOINT_LINE = 4096


class Checkpoint:
    """Finished subproblems, one JSON line each after a header naming the puzzle; appended
    and flushed as tasks finish, so a count stopped any way resumes where it was."""

    def __init__(self, path: str | Path, puzzle: PolycubePuzzle, n_tasks: int) -> None:
        self.path = Path(path)
        self.header = {"tessera_checkpoint": 1, "puzzle": fingerprint(puzzle), "tasks": n_tasks}
        self.done: dict[str, TaskResult] = {}
        if self.path.exists():
            self._read()
        else:
            self._write_line(self.header)

    def _read(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise PuzzleError(f"not a checkpoint (not UTF-8: {exc.reason})", self.path) from None
        try:
            if lines and len(lines[0]) > MAX_CHECKPOINT_LINE:
                raise ValueError("header too long")
            header = json.loads(lines[0]) if lines else {}
        except (ValueError, RecursionError):
            header = {}
        if header != self.header:
            raise PuzzleError(
                "this checkpoint belongs to another puzzle or split (delete it to start over)",
                self.path,
                1,
            )
        for number, line in enumerate(lines[1:], start=2):
            try:
                if len(line) > MAX_CHECKPOINT_LINE:  # also keeps json's recursion at bay
                    raise ValueError("line too long")
                result = TaskResult.from_json(json.loads(line))
            except (ValueError, KeyError, ZeroDivisionError, RecursionError):
                if number == len(lines):
                    break  # a line cut short by a kill: that task runs again
                raise PuzzleError("damaged checkpoint line", self.path, number) from None
            self.done[result.key] = result

    def _write_line(self, doc: dict) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(doc) + "\n")
            f.flush()

    def record(self, result: TaskResult) -> None:
        self.done[result.key] = result
        self._write_line(result.as_json())


# -- running on a cluster ---------------------------------------------------------------------


def dask_distributed():
    """The `dask.distributed` module, or the one-line error naming the command that installs
    it: dask or distributed missing (or failing to import) is the extra not installed."""
    try:
        import dask.distributed
    except ImportError as exc:
        missing = f" (no module {exc.name!r})" if exc.name else ""
        raise PuzzleError(
            f"counting on a cluster needs the 'cluster' extra{missing}: "
            "pip install 'tessera[cluster]'"
        ) from None
    return dask.distributed


class DistributedCount(Cancellable):
    """A count on a Dask cluster: `scheduler` (an address) or `workers` local processes."""

    def __init__(
        self,
        puzzle: PolycubePuzzle,
        *,
        scheduler: str | None = None,
        workers: int | None = None,
        checkpoint: str | Path | None = None,
        tasks_per_worker: int = TASKS_PER_WORKER,
    ) -> None:
        Cancellable.__init__(self)
        self.puzzle = puzzle
        self.scheduler = scheduler
        self.workers = workers
        self.checkpoint_path = checkpoint
        self.tasks_per_worker = tasks_per_worker
        self.done = False

    def _client(self):
        dask = dask_distributed()
        Client, LocalCluster = dask.Client, dask.LocalCluster
        if self.scheduler:
            try:
                return Client(self.scheduler, timeout="10s"), None
            except OSError as exc:
                raise PuzzleError(f"cannot reach the scheduler: {exc}", self.scheduler) from None
        # Ctrl-C on a terminal goes to the whole process group: the workers must leave it to
        # us (we stop the count and close the cluster in order), or each prints tracebacks.
        # A process started with SIGINT ignored keeps it ignored, Python included.
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            cluster = LocalCluster(
                n_workers=self.workers or 2,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                host="127.0.0.1",
                silence_logs=logging.CRITICAL,  # a worker lost and restarted is Dask's job
            )
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        return Client(cluster), cluster

    def run(
        self,
        on_progress: Progress | None = None,
        on_client: Callable[[object], None] | None = None,
    ) -> Counts:
        """Count; on cancel, the counts of the finished subproblems, marked partial."""
        as_completed = dask_distributed().as_completed
        client, cluster = self._client()
        try:
            if on_client is not None:
                on_client(client)
            n_workers = max(len(client.scheduler_info().get("workers", {})), 1)
            tasks = plan_tasks(self.puzzle, self.tasks_per_worker * n_workers)
            store = (
                Checkpoint(self.checkpoint_path, self.puzzle, len(tasks))
                if self.checkpoint_path
                else None
            )
            results = dict(store.done) if store else {}
            todo = [t for t in tasks if t.key not in results]
            puzzle_future = client.scatter(self.puzzle, broadcast=True)
            futures = client.map(
                count_task, [puzzle_future] * len(todo), todo, pure=False, retries=3
            )
            pending = as_completed(futures)
            for future in pending:
                if self.cancelled:
                    break
                result = future.result()
                results[result.key] = result
                if store:
                    store.record(result)
                if on_progress is not None:
                    on_progress(
                        len(results) / max(len(tasks), 1), sum(r.fixed for r in results.values())
                    )
            partial = len(results) < len(tasks)
            if partial:
                client.cancel(futures)
            self.done = not partial
            return merge(self.puzzle, results.values(), partial)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
