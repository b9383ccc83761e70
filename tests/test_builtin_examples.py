"""The examples that ship: Tessera's own interlocking puzzles come apart as their notes say,
with a level beyond 1, and every figure of the Soma figure library can be built.

The levels, assembly counts and figure counts were measured with the solver when the files
were written (`tessera solve NAME --disassemble`, `tessera solve NAME --count`); a change in
them means the files or the solver changed."""

from __future__ import annotations

import pytest

from tessera.cli.main import main
from tessera.models.assets import PUZZLES, builtin_puzzles
from tessera.solvers.polycube import interlocking
from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load
from tests.test_disassembly import replay

#: Tessera's own interlocking puzzles: (assemblies, the levels of those that come apart).
INTERLOCKING = {
    "box-sliding-lid": (1, ["3.2"]),
    "box-two-latches": (1, ["6.3.2"]),
    # B and D are one shape: one piece with two copies, so swapping them is no second
    # assembly (issue 21 F2; BurrTools, which tells named shapes apart, would count 2)
    "burr-six-notched": (1, ["5"]),
    "burr-six-holey": (1, ["4.1.1.2"]),
}

#: The Soma figure library (assets/puzzles/soma-figures/): solutions up to rotation and
#: reflection, as `tessera solve NAME --count` gives them.
SOMA_FIGURES = {
    "soma-arch": 188,
    "soma-babel": 133,
    "soma-bed": 4,
    "soma-bench": 9,
    "soma-boat": 174,
    "soma-camel": 2,
    "soma-cannon": 458,
    "soma-castle": 33,
    "soma-chair": 130,
    "soma-cottage": 1060,
    "soma-cross": 105,
    "soma-duck": 56,
    "soma-giraffe": 2,
    "soma-monument": 203,
    "soma-piano": 53,
    "soma-skyscraper": 148,
    "soma-snake": 3,
    "soma-steps": 1173,
    "soma-wall": 12,
    "soma-well": 6,
    "soma-zigzag": 47,
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(INTERLOCKING))
def test_own_interlocking_puzzles_come_apart_beyond_level_1(name: str) -> None:
    loaded = load(name, family="polycube")
    puzzle = loaded.puzzle
    assert puzzle.warnings == []
    assemblies = list(ClassSearch(puzzle).representatives())
    solutions = list(interlocking.solutions(puzzle, assemblies))
    want_assemblies, want_levels = INTERLOCKING[name]
    assert len(assemblies) == want_assemblies
    assert [interlocking.level_of(s) for s in solutions] == want_levels
    for solution in solutions:
        result = solution.disassembly
        assert result is not None and result.complete and not result.gave_up
        assert result.first_separation > 1
        assert int(result.level.split(".")[0]) == result.first_separation
        replay(
            [p.cells for p in solution.pieces],
            result,
            interlocking.piece_groups(puzzle, solution),
        )


@pytest.mark.timeout(120)
def test_the_soma_figure_library_is_all_there() -> None:
    library = {p.stem for p in (PUZZLES / "soma-figures").glob("*.soma")}
    assert library == set(SOMA_FIGURES)
    assert len(library) >= 20
    builtins = builtin_puzzles()
    for name in SOMA_FIGURES:
        assert builtins[name].parent.name == "soma-figures"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(SOMA_FIGURES))
def test_every_soma_figure_can_be_built(name: str) -> None:
    loaded = load(name)
    assert loaded.family == "polycube"
    figure = loaded.puzzle
    assert len(figure.figure_cells) == 27 and figure.parts == 1
    assert sorted(p.name for p in figure.pieces) == sorted("ABLPTVZ")
    assert figure.warnings == []
    counts = ClassSearch(figure).tally()
    assert not counts.partial
    assert counts.up_to_symmetry == SOMA_FIGURES[name] >= 1


@pytest.mark.timeout(120)
def test_list_names_every_new_builtin(capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[1]: line.split() for line in out.splitlines() if line.strip()}
    for name in INTERLOCKING:
        assert rows[name][0] == "polycube"
    for name in SOMA_FIGURES:
        assert rows[name][0] == "polycube"
        assert rows[name][2] == f"soma-figures/{name}.soma"
    # the library lists as one block, after the family's other built-ins
    names = [line.split()[1] for line in out.splitlines() if line.startswith("polycube")]
    block = names[-len(SOMA_FIGURES) :]
    assert block == sorted(SOMA_FIGURES)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["box-two-latches", "soma-chair"])
def test_solve_by_builtin_name(name: str, capsys) -> None:
    argv = ["solve", name, "--disassemble"] if name.startswith("box") else ["solve", name]
    assert main([*argv, "--count"]) == 0
    out = capsys.readouterr().out
    want = "levels: 6.3.2" if name.startswith("box") else "up to symmetry: 130"
    assert want in out
