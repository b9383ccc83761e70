"""Scene builders, one module per family: `build(puzzle, solution, mode, trace) -> Scene`."""

from __future__ import annotations

import importlib
from typing import Any

from tessera.viewer.scenes.base import ActorSpec, Pose, Scene

__all__ = ["ActorSpec", "Pose", "Scene", "build_scene"]


def build_scene(family: Any, solution: Any, mode: str = "solution", trace: Any = None) -> Scene:
    """The scene of a loaded puzzle (`viewer.families.Family`) for one solution or a trace."""
    module = importlib.import_module(f"tessera.viewer.scenes.{family.family}")
    return module.build(family.puzzle, solution, mode, trace)
