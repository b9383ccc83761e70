"""Where the built-in puzzles live and how a name on the command line becomes a file."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from tessera.models.errors import PuzzleError

# The assets are package data of `tessera`; an installed wheel unpacks them as real files, so
# `as_file` returns their own folder (it would copy them out of a zip import only).
with as_file(files("tessera") / "assets") as _assets:
    ASSETS = Path(_assets)
PUZZLES = ASSETS / "puzzles"
PUZZLE_SUFFIXES = (".toml", ".json", ".xmpuzzle", ".kenken")


def builtin_puzzles() -> dict[str, Path]:
    """Built-in puzzles by name (the file stem), sorted by name."""
    found = {}
    for path in sorted(PUZZLES.glob("*")):
        if path.suffix in PUZZLE_SUFFIXES:
            found[path.stem] = path
    return found


def resolve_puzzle(name_or_path: str) -> Path:
    """A path to an existing file, or the built-in of that name."""
    path = Path(name_or_path)
    if path.exists():
        return path
    builtins = builtin_puzzles()
    if name_or_path in builtins:
        return builtins[name_or_path]
    if path.suffix or "/" in name_or_path:
        raise PuzzleError("no such file", name_or_path)
    raise PuzzleError(
        f"no built-in puzzle named '{name_or_path}' (see 'tessera list')", name_or_path
    )
