"""Where the built-in puzzles live and how a name on the command line becomes a file."""

from __future__ import annotations

from pathlib import Path

from tessera.models.errors import PuzzleError

# The assets are package data of `tessera`; an installed wheel unpacks them as real files, so
# they are the package's own folder. Only a zip import needs `importlib.resources` to copy them
# out (imported here alone: it and the `tempfile` it pulls in are 7 ms of every command).
ASSETS = Path(__file__).parent.parent / "assets"
if not ASSETS.is_dir():
    from importlib.resources import as_file, files

    with as_file(files("tessera") / "assets") as _assets:
        ASSETS = Path(_assets)
PUZZLES = ASSETS / "puzzles"
PUZZLE_SUFFIXES = (".toml", ".json", ".xmpuzzle", ".kenken", ".soma")


def builtin_puzzles() -> dict[str, Path]:
    """Built-in puzzles by name (the file stem), sorted by name: the files of assets/puzzles/
    and of its folders one level down (a library such as soma-figures/). A name in the top
    folder wins over the same name in a library."""
    found = {}
    for path in [*sorted(PUZZLES.glob("*/*")), *sorted(PUZZLES.glob("*"))]:
        if path.suffix in PUZZLE_SUFFIXES and path.is_file():
            found[path.stem] = path
    return dict(sorted(found.items()))


def existing_file(name_or_path: str | Path) -> Path | None:
    """The path, if it names something that exists. A game ID of 300 characters or a string
    with a NUL byte is no file name, not an error: `Path.exists` would raise for them."""
    try:
        path = Path(name_or_path)
        return path if path.exists() else None
    except (OSError, ValueError):
        return None


def resolve_puzzle(name_or_path: str | Path) -> Path:
    """A path to an existing puzzle file, or the built-in of that name."""
    name_or_path = str(name_or_path)
    path = existing_file(name_or_path)
    if path is not None:
        if path.is_dir():
            raise PuzzleError("is a folder, not a puzzle file", path)
        return path
    path = Path(name_or_path[:200])
    builtins = builtin_puzzles()
    if name_or_path in builtins:
        return builtins[name_or_path]
    if path.suffix or "/" in name_or_path:
        raise PuzzleError("no such file", path)
    raise PuzzleError(f"no built-in puzzle named {name_or_path!r} (see 'tessera list')", path)
