"""Which listed solution the search trace is showing, so the solution list and Search mode agree.

Each family says how, with its `match_trace` capability (polycubes: by symmetry classes,
`solvers.polycube.trace_match`); a family without one is not matched, and the list then
highlights nothing in Search mode rather than a solution the trace does not show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def solution_row(family: Any, trace: Any, stack: Sequence[int], solutions: Sequence[Any]):
    """The listed solution the trace shows at a solution event (None: not matched)."""
    if family is None or trace is None or not solutions:
        return None
    match = family.entry.match_trace
    if match is None:
        return None
    try:
        return match(family.puzzle, trace, stack, solutions)
    except (AttributeError, IndexError, ValueError):  # another decoder: do not guess
        return None
