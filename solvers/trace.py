"""Search trace events shared by every solver.

Every family's search speaks the same small vocabulary so that one viewer mode (Search) can
replay any of them: a choice is *placed* at some depth, later *removed* when the search
backtracks, and a *solution* event marks each complete assignment. What a choice means (a
polycube placement, an oriented die, a digit in a cell, a domino on two cells) is up to the
family; the event only carries its integer id.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class EventKind(IntEnum):
    PLACE = 0
    REMOVE = 1
    SOLUTION = 2


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One step of a search: `choice` placed or removed at `depth` (0 = first choice)."""

    kind: EventKind
    choice: int
    depth: int

    def __str__(self) -> str:
        if self.kind is EventKind.SOLUTION:
            return f"solution at depth {self.depth}"
        verb = "place" if self.kind is EventKind.PLACE else "remove"
        return f"{verb} {self.choice} at depth {self.depth}"


def stack_at(events: list[TraceEvent], step: int) -> list[int]:
    """The choices standing after the first `step` events: what a Search view shows."""
    stack: list[int] = []
    for event in events[:step]:
        if event.kind is EventKind.PLACE:
            del stack[event.depth :]
            stack.append(event.choice)
        elif event.kind is EventKind.REMOVE:
            del stack[event.depth :]
    return stack


def stacks_after_each(events: list[TraceEvent]) -> list[tuple[int, ...]]:
    """`stack_at` for every step at once (index = step), in one pass over the trace."""
    out: list[tuple[int, ...]] = [()]
    stack: list[int] = []
    for event in events:
        if event.kind is EventKind.PLACE:
            del stack[event.depth :]
            stack.append(event.choice)
        elif event.kind is EventKind.REMOVE:
            del stack[event.depth :]
        out.append(tuple(stack))
    return out
