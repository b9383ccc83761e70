"""Scene builders, one module per family: `build(puzzle, solution, mode, trace) -> Scene`."""

from __future__ import annotations

import importlib
from typing import Any

from tessera.viewer.scenes.base import ActorSpec, Pose, Scene

__all__ = ["ActorSpec", "Pose", "Scene", "build_scene", "check_drawable"]


def check_drawable(loaded: Any) -> None:
    """Refuse a puzzle its scene could not draw in reasonable time and memory, before the
    window builds anything (a scene module may define `check(puzzle)`)."""
    module = importlib.import_module(loaded.entry.scene_module)
    check = getattr(module, "check", None)
    if check is not None:
        check(loaded.puzzle)


def build_scene(loaded: Any, solution: Any, mode: str = "solution", trace: Any = None) -> Scene:
    """The scene of a loaded puzzle (`solvers.registry.LoadedPuzzle`) for one solution or a
    trace, by the scene module its family's registry entry names."""
    module = importlib.import_module(loaded.entry.scene_module)
    return module.build(loaded.puzzle, solution, mode, trace)
