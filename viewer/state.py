"""The viewer's state, free of Qt: which puzzle, which solution, which step, which mode.

napari-style: the state owns the facts and announces every change through psygnal signals
(`state.events`); the window's widgets listen and change the state only through its methods.
Tests and scripts can drive it without a window.

The mode is one of `MODES`. Solution and Search replay a scene step by step; **Play** is the
hands-on table (`models.play.PlayModel`, polycube puzzles only), owned here too, so the window
and the hands-on controller never keep a flag of their own: they follow `events.mode`.
**Design** is the editor (viewer/_qt/design/mode.py; polycube puzzles, or none yet: a new one).
Play and Design own the view (`ASIDE_MODES`): the replay scene is kept while they last, and
shown again when they are left for the mode it was built for. `message` is the one transient
status line (a fit report, "A selected", a hint); it is cleared whenever the puzzle or the mode
changes, so no status outlives what it was about.
"""

from __future__ import annotations

import math
from typing import Any

from psygnal import Signal, SignalGroup

from tessera.models.play import PlayModel
from tessera.viewer.drag import new_table
from tessera.viewer.families import Family, Trace
from tessera.viewer.scenes.base import Scene

MODES = ("solution", "search", "play", "design")
REPLAY_MODES = ("solution", "search")  # the modes that step through a scene
ASIDE_MODES = ("play", "design")  # the modes that put the replay aside and own the view


class ViewerEvents(SignalGroup):
    """Everything the widgets follow. Callbacks may take fewer arguments than emitted."""

    puzzle = Signal(object)  # a new puzzle (Family) was loaded: solutions cleared
    solutions = Signal(int)  # solutions were added: the number found so far
    scene = Signal(object)  # a new replay scene (other solution or mode)
    step = Signal(float)  # the replay moved to a step
    mode = Signal(str)  # 'solution', 'search', 'play' or 'design'
    message = Signal(str)  # the transient status line ('' clears it)


class ViewerState:
    def __init__(self) -> None:
        self.events = ViewerEvents()
        self.family: Family | None = None
        self.solutions: list[Any] = []
        self.solution_index = -1
        self.mode = "solution"
        self.step = 0.0
        self.scene: Scene | None = None
        self.play: PlayModel | None = None  # the Play table of this puzzle, once played
        self.message = ""
        self._scene_mode: str | None = None  # the replay mode `scene` was built for
        self._trace: Trace | None = None
        self.start_at_end = True  # a newly shown solution opens assembled

    # -- puzzle and solutions ----------------------------------------------------------------
    def set_family(self, family: Family) -> None:
        """A new puzzle: no solutions yet, a new Play table if playing (Play and Design fall
        back to Solution mode for a puzzle they do not fit)."""
        self.family = family
        self.solutions = []
        self.solution_index = -1
        self._trace = None
        self.step = 0.0
        self.play = None
        mode_changed = (self.mode == "play" and not self.can_play) or (
            self.mode == "design" and not self.can_design
        )
        if mode_changed:
            self.mode = "solution"
        elif self.mode == "play":
            self.play = new_table(family.puzzle)
        self.say("")
        self.events.puzzle.emit(family)
        if mode_changed:
            self.events.mode.emit(self.mode)
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
        if self.replay_mode == "solution":
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

    # -- mode ----------------------------------------------------------------------------------
    @property
    def can_play(self) -> bool:
        """Play mode is for families whose pieces can be handled (the `playable` capability)."""
        return self.family is not None and self.family.entry.playable

    @property
    def can_design(self) -> bool:
        """Design mode edits `editable` families' puzzles, or starts one when none is loaded."""
        return self.family is None or self.family.entry.editable

    @property
    def replay_mode(self) -> str:
        """The replay mode: the mode itself, or in Play and Design the one the kept scene
        belongs to."""
        if self.mode in REPLAY_MODES:
            return self.mode
        return self._scene_mode or "solution"

    def set_mode(self, mode: str) -> bool:
        """Switch mode; False (and a message) if Play or Design was asked for a puzzle it does
        not fit."""
        if mode not in MODES:
            raise ValueError(f"mode is one of {MODES}")
        if mode == self.mode:
            return True
        if mode == "play" and not self.can_play:
            self.say("Play mode is for polycube puzzles")
            return False
        if mode == "design" and not self.can_design:
            self.say("Design mode is for polycube puzzles")
            return False
        if mode == "play" and (self.play is None or self.play.puzzle is not self.family.puzzle):
            self.play = new_table(self.family.puzzle)
        left_aside = self.mode in ASIDE_MODES
        self.mode = mode
        self.say("")
        self.events.mode.emit(mode)
        if mode in ASIDE_MODES:
            return True
        if left_aside and mode == self._scene_mode and self.scene is not None:
            self.events.scene.emit(self.scene)  # the replay left behind, shown again
            self.events.step.emit(self.step)
        else:
            self._rebuild(at_end=mode == "solution" and self.start_at_end)
        return True

    def say(self, text: str) -> None:
        """Set the transient status line ('' clears it)."""
        if text != self.message:
            self.message = text
            self.events.message.emit(text)

    # -- step ----------------------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return self.scene.n_steps if self.scene else 0

    def set_step(self, step: float) -> None:
        if self.mode in ASIDE_MODES:
            return  # the table and the editor have no steps; the replay waits where it was
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
        if self.mode == "design":  # nothing shows a replay while designing: built on leaving
            self._scene_mode = None
            return
        mode = self.replay_mode
        if mode == "search":
            self.scene = build_scene(self.family, None, "search", self.trace)
        else:
            self.scene = build_scene(self.family, self.solution, "solution")
        self._scene_mode = mode
        self.step = float(self.scene.n_steps) if at_end else 0.0
        self.events.scene.emit(self.scene)
        self.events.step.emit(self.step)
