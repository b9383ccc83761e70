"""The viewer's view of the family registry (`tessera.solvers.registry`), which it re-exports:
the window, the worker thread and the exporter speak only to a `LoadedPuzzle`."""

from __future__ import annotations

from tessera.solvers.registry import (
    FAMILIES,
    MAX_TRACE_EVENTS,
    LoadedPuzzle,
    Trace,
    builtin_groups,
    family_of_file,
    load,
)

#: What the viewer calls a loaded puzzle of any family.
Family = LoadedPuzzle

__all__ = [
    "FAMILIES",
    "MAX_TRACE_EVENTS",
    "Family",
    "LoadedPuzzle",
    "Trace",
    "builtin_groups",
    "family_of_file",
    "load",
]
