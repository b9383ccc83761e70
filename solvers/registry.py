"""The family registry: everything Tessera knows about a puzzle family, in one entry.

A family is one `FamilyEntry`: how to load it (a file, a built-in name or a game ID), how to
recognise its files and IDs, the search that lists its solutions, how to record and describe
a trace, which scene draws it and which module adds its subcommands. The window, the
headless exporter and the command line all go through `load()`, so adding a family touches
this table and nothing else.

The scene and CLI are named by module path, not imported, the way napari's plugin manifests
name their contributions: this module stays below the viewer and the CLI (import-linter's
layers), and importing a family never drags in Qt, VTK or argparse.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tessera.models.assets import builtin_puzzles, existing_file, resolve_puzzle
from tessera.models.errors import NoSolution, PuzzleError, printable
from tessera.solvers.search_control import Search
from tessera.solvers.trace import TraceEvent

#: How many trace events Search mode records at most (a long search is cut, not frozen on).
MAX_TRACE_EVENTS = 20_000


@dataclass
class Trace:
    """A recorded search: its events, and the family's decoder for their `choice` ids."""

    events: list[TraceEvent]
    decoder: Any
    describe: Callable[[int], str]
    truncated: bool = False


@dataclass(frozen=True)
class FamilyEntry:
    """One puzzle family. The callables take the loaded puzzle; `load` takes a path or ID."""

    name: str
    #: The command that solves it, for "this is a kenken puzzle: use 'tessera kenken solve'".
    command: str
    load: Callable[..., Any]
    search: Callable[[Any], Search]
    trace: Callable[[Any, int], Trace]
    scene_module: str
    cli_module: str
    suffixes: tuple[str, ...] = ()
    #: The top-level commands `cli_module` adds: `tessera COMMAND ...` imports that module
    #: alone (a family that names none still works; its commands build the whole parser).
    commands: tuple[str, ...] = ()
    is_game_id: Callable[[str], bool] | None = None
    load_game_id: Callable[[str], Any] | None = None
    # -- capabilities: what differs between families is asked here, never by family name --
    #: The family's name in the window's puzzle browser.
    title: str = ""
    #: Pieces can be picked up, turned and placed by hand (Play mode).
    playable: bool = False
    #: The puzzle can be drawn and edited cube by cube (Design mode, STL export).
    editable: bool = False
    #: What the solution list keeps of each thing the search finds (None: everything):
    #: `keep(puzzle, found, number)` returns the solution to list, or None to leave it out
    #: (burrs: only assemblies that come apart, with their disassembly).
    keep: Callable[[Any, Any, int], Any] | None = None
    #: Which listed solution a trace's stack of choices shows (None: not matched):
    #: `match_trace(puzzle, trace, stack, solutions)` returns an index into `solutions`.
    match_trace: Callable[[Any, Trace, Sequence[int], Sequence[Any]], int | None] | None = None


FAMILIES: dict[str, FamilyEntry] = {}


def register(entry: FamilyEntry) -> FamilyEntry:
    """Add a family (or replace one of the same name)."""
    FAMILIES[entry.name] = entry
    return entry


@dataclass
class LoadedPuzzle:
    """A puzzle of some family, with where it came from: what the window and `tessera view`
    hold. `solve()` and `trace()` go to the family's entry."""

    puzzle: Any
    source: str
    entry: FamilyEntry
    name: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def family(self) -> str:
        return self.entry.name

    def solve(self) -> Search:
        """A fresh search listing one solution per class (the search protocol)."""
        return self.entry.search(self.puzzle)

    def trace(self, max_events: int = MAX_TRACE_EVENTS) -> Trace:
        return self.entry.trace(self.puzzle, max_events)

    def solution(self, k: int) -> Any:
        """The k-th solution (0-based) as the window's list numbers it, found without a thread
        (CLI): what the family's `keep` lets through (only burrs' assemblies that come apart)."""
        search = self.solve()
        try:
            found = search.solutions()
            if self.entry.keep is not None:
                keep, puzzle = self.entry.keep, self.puzzle
                kept = (keep(puzzle, s, number) for number, s in enumerate(found, 1))
                found = (s for s in kept if s is not None)
            found = next(itertools.islice(found, k, None), None)
        finally:
            search.cancel()
        if found is None:
            where = f"no solution {k + 1}" if k else "no solution"
            raise NoSolution(f"{self.source}: {where}")
        return found


# -- recognising a puzzle ---------------------------------------------------------------------


def family_of_file(path: Path) -> str:
    """The family a puzzle file belongs to: its suffix, else its `kind` key (default polycube)."""
    suffix = path.suffix.lower()
    for entry in FAMILIES.values():
        if suffix in entry.suffixes:
            return entry.name
    from tessera.models.fileformat import parse_document, read_text

    data = parse_document(read_text(path), path)
    kind = data.get("kind", "polycube")
    if not isinstance(kind, str) or kind not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        raise PuzzleError(f"unknown kind {printable(kind)} (known: {known})", path)
    return kind


def game_id_family(text: str) -> str | None:
    """The family whose game IDs look like `text`, if it is no file or built-in name."""
    if existing_file(text) is not None or text in builtin_puzzles():
        return None
    for entry in FAMILIES.values():
        if entry.is_game_id is not None and entry.is_game_id(text):
            return entry.name
    return None


def load(name_or_path: str | Path, family: str | None = None, **options: Any) -> LoadedPuzzle:
    """Any puzzle Tessera knows: a file, a built-in name or a game ID.

    With `family`, the puzzle must be of that family: a file of another kind is refused with
    the command that opens it (`tessera kenken solve`). `options` go to the family's loader
    (`problem=K` for a BurrTools file)."""
    text = str(name_or_path)
    kind = game_id_family(text)
    if kind is not None and (family is None or family == kind):
        entry = FAMILIES[kind]
        assert entry.load_game_id is not None
        return _loaded(entry, entry.load_game_id(text), text, text)
    path = resolve_puzzle(text)
    kind = family_of_file(path)
    if family is not None and kind != family:
        raise PuzzleError(f"this is a {kind} puzzle: use '{FAMILIES[kind].command}'", path)
    entry = FAMILIES[kind]
    return _loaded(entry, entry.load(path, **options), str(path), text)


def load_puzzle(name_or_path: str | Path, family: str, **options: Any) -> Any:
    """Just the puzzle object of `load(..., family=family)`."""
    return load(name_or_path, family, **options).puzzle


def _loaded(entry: FamilyEntry, puzzle: Any, source: str, label: str) -> LoadedPuzzle:
    name = getattr(puzzle, "name", None) or Path(label).stem
    return LoadedPuzzle(puzzle, source, entry, name=name)


def builtin_groups() -> dict[str, list[tuple[str, Path]]]:
    """Built-in puzzles grouped by family, for the browser and `tessera list`."""
    groups: dict[str, list[tuple[str, Path]]] = {}
    for stem, path in builtin_puzzles().items():
        groups.setdefault(family_of_file(path), []).append((stem, path))
    return groups


# -- the families -----------------------------------------------------------------------------


def _record(search: Search, max_events: int, decoder: Any, describe) -> Trace:
    events, truncated = search.record_trace(max_events)
    return Trace(events, decoder, describe, truncated)


def _polycube_load(path: Path, problem: int = 1) -> Any:
    if path.suffix.lower() == ".soma":
        from tessera.models.soma_figure import load_soma

        return load_soma(path)
    if path.suffix.lower() == ".xmpuzzle":
        from tessera.models.burrtools import load_xmpuzzle

        return load_xmpuzzle(path, problem=problem)
    from tessera.models.polycube import load_polycube

    return load_polycube(path)


def _polycube_search(puzzle: Any) -> Search:
    from tessera.solvers.polycube.symmetry import ClassSearch

    return ClassSearch(puzzle)


def _polycube_keep(puzzle: Any, found: Any, number: int) -> Any:
    from tessera.solvers.polycube.interlocking import analyse

    return analyse(puzzle, found, number)


def _polycube_match_trace(puzzle: Any, trace: Trace, stack: Sequence[int], solutions) -> Any:
    from tessera.solvers.polycube.trace_match import polycube_row

    return polycube_row(puzzle, trace, stack, solutions)


def _polycube_trace(puzzle: Any, max_events: int) -> Trace:
    from tessera.solvers.polycube.packing import PackingProblem
    from tessera.solvers.trace import EventKind

    problem = PackingProblem(puzzle)
    trace = _record(problem.search(trace=True), max_events, problem, problem.describe)
    # "leave an optional cell empty" rows are bookkeeping: nothing to place or show
    real = problem.n_placement_rows
    kept = [e for e in trace.events if e.kind is EventKind.SOLUTION or e.choice < real]
    return Trace(kept, trace.decoder, trace.describe, trace.truncated)


def _dice_load(path: Path) -> Any:
    from tessera.models.dice import load_dice

    return load_dice(path)


def _dice_search(puzzle: Any) -> Search:
    from tessera.solvers.dice import DistinctStacks

    return DistinctStacks(puzzle)


def _dice_trace(puzzle: Any, max_events: int) -> Trace:
    from tessera.models.dice import SIDE_NAMES, SIDES, orient
    from tessera.solvers.dice import DiceSearch, decode_choice

    def describe(choice: int) -> str:
        die, k = decode_choice(choice)
        faces = orient(puzzle.dice[die], k)
        sides = ", ".join(f"{SIDE_NAMES[i]} {faces[s]}" for i, s in enumerate(SIDES))
        return f"die {die + 1} turned {k} ({sides})"

    return _record(DiceSearch(puzzle, trace=True), max_events, decode_choice, describe)


def _domino_load(path: Path) -> Any:
    from tessera.models.domino import load_domino

    return load_domino(path)


def _domino_is_id(text: str) -> bool:
    from tessera.models.dominosa_id import looks_like_id

    return looks_like_id(text)


def _domino_from_id(text: str) -> Any:
    from tessera.models.dominosa_id import parse_dominosa_id

    return parse_dominosa_id(text)


def _domino_search(puzzle: Any) -> Search:
    from tessera.solvers.domino import DominoSolver

    return DominoSolver(puzzle)


def _domino_trace(puzzle: Any, max_events: int) -> Trace:
    from tessera.solvers.domino import DominoSolver

    solver = DominoSolver(puzzle, trace=True)

    def describe(row: int) -> str:
        a, b, (lo, hi) = solver.decode(row)
        return f"tile {lo}-{hi} on {a} {b}"

    return _record(solver, max_events, solver, describe)


def _kenken_load(path: Path) -> Any:
    from tessera.models.kenken import load_kenken

    return load_kenken(path)


def _kenken_is_id(text: str) -> bool:
    from tessera.models.keen_id import looks_like_keen_id

    # Keen and Dominosa IDs both start `N:`; a Keen ID always has a comma (walls, then
    # clues), Dominosa's digits never do.
    return "," in text and looks_like_keen_id(text)


def _kenken_from_id(text: str) -> Any:
    from tessera.models.keen_id import decode_keen_id

    return decode_keen_id(text)


def _kenken_search(puzzle: Any) -> Search:
    from tessera.solvers.kenken import KenKenSearch

    return KenKenSearch(puzzle)


def _kenken_trace(puzzle: Any, max_events: int) -> Trace:
    from tessera.solvers.kenken import KenKenSearch, decode_choice

    decode = partial(decode_choice, size=puzzle.size)

    def describe(choice: int) -> str:
        r, c, digit = decode(choice)
        return f"{digit} in row {r + 1}, column {c + 1}"

    return _record(KenKenSearch(puzzle, trace=True), max_events, decode, describe)


# Order matters where IDs overlap: KenKen's (with a comma) is tried before Dominosa's.
register(
    FamilyEntry(
        "polycube",
        "tessera solve",
        _polycube_load,
        _polycube_search,
        _polycube_trace,
        scene_module="tessera.viewer.scenes.polycube",
        cli_module="tessera.cli.polycube",
        commands=("solve", "list", "convert"),
        suffixes=(".xmpuzzle", ".soma"),
        title="Polycubes",
        playable=True,
        editable=True,
        keep=_polycube_keep,
        match_trace=_polycube_match_trace,
    )
)
register(
    FamilyEntry(
        "dice",
        "tessera dice solve",
        _dice_load,
        _dice_search,
        _dice_trace,
        scene_module="tessera.viewer.scenes.dice",
        cli_module="tessera.cli.dice",
        commands=("dice",),
        title="Dice",
    )
)
register(
    FamilyEntry(
        "kenken",
        "tessera kenken solve",
        _kenken_load,
        _kenken_search,
        _kenken_trace,
        scene_module="tessera.viewer.scenes.kenken",
        cli_module="tessera.cli.kenken",
        commands=("kenken",),
        title="KenKen",
        suffixes=(".kenken",),
        is_game_id=_kenken_is_id,
        load_game_id=_kenken_from_id,
    )
)
register(
    FamilyEntry(
        "domino",
        "tessera domino solve",
        _domino_load,
        _domino_search,
        _domino_trace,
        scene_module="tessera.viewer.scenes.domino",
        cli_module="tessera.cli.domino",
        commands=("domino",),
        title="Dominoes",
        is_game_id=_domino_is_id,
        load_game_id=_domino_from_id,
    )
)
