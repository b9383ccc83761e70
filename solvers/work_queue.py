"""Independent searches run on several threads, every thread kept busy to the end.

A count split into a fixed set of searches (one per orbit of a symmetry) leaves cores idle: the
searches differ in size by factors of four or more, so the last one runs alone. Here the threads
share one queue, and a thread that finds it empty says so (`hungry`); a running search notices
between two slices of its compiled kernel, splits off part of the work still ahead of it
(`ExactCoverSearch.split`) and `give`s it to the queue. So the threads finish together, and no
Python runs inside the kernel's loop: a split is a few array operations every tens of
milliseconds.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, Executor, wait
from typing import Generic, TypeVar

T = TypeVar("T")


class WorkQueue(Generic[T]):
    """Tasks waiting for a thread; a task may add tasks while it runs (`give`)."""

    def __init__(self, tasks: Iterable[T]) -> None:
        self._tasks: deque[T] = deque(tasks)
        self._cond = threading.Condition()
        self._busy = 0  # threads running a task
        self._waiting = 0  # threads waiting for one

    def take(self) -> T | None:
        """The next task; waits while none is queued but running tasks may still give one.
        None once every task is done and none can come."""
        with self._cond:
            while not self._tasks:
                if self._busy == 0:
                    self._cond.notify_all()
                    return None
                self._waiting += 1
                try:
                    self._cond.wait()
                finally:
                    self._waiting -= 1
            self._busy += 1
            return self._tasks.popleft()

    def finished(self) -> None:
        """A thread is done with the task it took."""
        with self._cond:
            self._busy -= 1
            if self._busy == 0 and not self._tasks:
                self._cond.notify_all()

    def hungry(self) -> bool:
        """Whether a thread waits with nothing queued: a running task should give some work.
        Read without the lock: a stale answer only delays or adds one split."""
        return self._waiting > len(self._tasks)

    def give(self, task: T) -> None:
        with self._cond:
            self._tasks.append(task)
            self._cond.notify()


def run_on_threads(
    pool: Executor,
    queue: WorkQueue[T],
    workers: int,
    run: Callable[[T], None],
    tick: Callable[[], None] | None = None,
    interval: float = 0.1,
) -> None:
    """`run(task)` for every task of the queue, including those given while it runs, on
    `workers` threads of `pool`; `tick()` every `interval` seconds in the calling thread. An
    exception in a task is raised here once the other threads have stopped."""

    def work() -> None:
        while (task := queue.take()) is not None:
            try:
                run(task)
            finally:
                queue.finished()

    futures = [pool.submit(work) for _ in range(max(1, workers))]
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=interval, return_when=FIRST_EXCEPTION)
        if tick is not None:
            tick()
        for future in done:
            if future.exception() is not None:
                wait(pending)
                future.result()
