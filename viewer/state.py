"""The viewer's state, free of Qt: which puzzle, which solution, which step, which mode.

napari-style: the state owns the facts and emits events; the window's widgets listen and
change the state only through its methods. Tests and scripts can drive it without a window, and
the hands-on viewer can add its own facts (selection, play mode) beside these.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tessera.viewer.families import Family, Trace
from tessera.viewer.scenes.base import Scene

MODES = ("solution", "search")


class Signal:
    """A minimal event: `connect(callback)`, `emit(*args)`."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):
            callback(*args)


class Events:
    def __init__(self) -> None:
        self.puzzle = Signal()  # a new puzzle was loaded (solutions cleared)
        self.solutions = Signal()  # solutions were added: emit(count)
        self.scene = Signal()  # a new scene (other solution or mode): emit(scene)
        self.step = Signal()  # emit(step)
        self.mode = Signal()  # emit(mode)


class ViewerState:
    def __init__(self) -> None:
        self.events = Events()
        self.family: Family | None = None
        self.solutions: list[Any] = []
        self.solution_index = -1
        self.mode = "solution"
        self.step = 0.0
        self.scene: Scene | None = None
        self._trace: Trace | None = None
        self.start_at_end = True  # a newly shown solution opens assembled

    # -- puzzle and solutions ----------------------------------------------------------------
    def set_family(self, family: Family) -> None:
        self.family = family
        self.solutions = []
        self.solution_index = -1
        self._trace = None
        self.step = 0.0
        self.events.puzzle.emit(family)
        self._rebuild(at_end=False)

    def add_solutions(self, solutions: list[Any]) -> None:
        if not solutions:
            return
        first = not self.solutions
        self.solutions.extend(solutions)
        self.events.solutions.emit(len(self.solutions))
        if first and self.solution_index < 0:
            self.set_solution(0)

    def set_solution(self, index: int) -> None:
        if not self.solutions:
            return
        index = min(max(index, 0), len(self.solutions) - 1)
        if index == self.solution_index:
            return
        self.solution_index = index
        if self.mode == "solution":
            self._rebuild(at_end=self.start_at_end)

    def next_solution(self) -> None:
        self.set_solution(self.solution_index + 1)

    def previous_solution(self) -> None:
        self.set_solution(self.solution_index - 1)

    @property
    def solution(self) -> Any:
        return self.solutions[self.solution_index] if self.solution_index >= 0 else None

    @property
    def trace(self) -> Trace | None:
        """The recorded search, made on first use (bounded: see families.MAX_TRACE_EVENTS)."""
        if self._trace is None and self.family is not None:
            self._trace = self.family.trace()
        return self._trace

    # -- mode and step ---------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode is one of {MODES}")
        if mode == self.mode:
            return
        self.mode = mode
        self.events.mode.emit(mode)
        self._rebuild(at_end=mode == "solution" and self.start_at_end)

    @property
    def n_steps(self) -> int:
        return self.scene.n_steps if self.scene else 0

    def set_step(self, step: float) -> None:
        step = min(max(float(step), 0.0), float(self.n_steps))
        if step == self.step:
            return
        self.step = step
        self.events.step.emit(step)

    def forward(self) -> None:
        self.set_step(math.floor(self.step) + 1)

    def back(self) -> None:
        self.set_step(math.ceil(self.step) - 1)

    def first(self) -> None:
        self.set_step(0)

    def last(self) -> None:
        self.set_step(self.n_steps)

    @property
    def at_end(self) -> bool:
        return self.step >= self.n_steps

    def _rebuild(self, at_end: bool) -> None:
        from tessera.viewer.scenes import build_scene

        if self.family is None:
            return
        if self.mode == "search":
            self.scene = build_scene(self.family, None, "search", self.trace)
        else:
            self.scene = build_scene(self.family, self.solution, "solution")
        self.step = float(self.scene.n_steps) if at_end else 0.0
        self.events.scene.emit(self.scene)
        self.events.step.emit(self.step)
