"""Tessera against BurrTools' own answers on generated cases (tests/fixtures/burrtools/: each
NAME.xmpuzzle with NAME.toml, what `burrTxt -d` printed for it, written by generate.py there):
the number of assemblies and solutions, every whole level string, and every disassembly
replayed one cell at a time by tests/test_disassembly.py's independent checker."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.test_disassembly import replay

CASES = Path(__file__).parent / "fixtures" / "burrtools"
NAMES = sorted(p.stem for p in CASES.glob("*.xmpuzzle"))
#: Cases Tessera does not answer as BurrTools does yet, with why (strict: they fail today, so
#: a fix shows up here as an unexpected pass and the entry comes out).
KNOWN: dict[str, str] = {}


def analyse(name: str):
    from tessera.cli.disassemble import piece_groups
    from tessera.models.burrtools import load_xmpuzzle
    from tessera.solvers.polycube.disassemble import disassemble
    from tessera.solvers.polycube.symmetry import ClassSearch

    puzzle = load_xmpuzzle(CASES / f"{name}.xmpuzzle")
    groups = piece_groups(puzzle)
    seen, found = 0, []
    for assembly in ClassSearch(puzzle).representatives():
        seen += 1
        cells = [np.asarray(p.cells) for p in assembly.pieces]
        pieces_groups = [groups[p.piece] for p in assembly.pieces]
        result = disassemble(cells, pieces_groups)
        if result.complete:
            found.append((cells, pieces_groups, result))
    return seen, found


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN[n], strict=True)) if n in KNOWN else n
        for n in NAMES
    ],
)
def test_case_agrees_with_burrtools(name: str) -> None:
    expected = tomllib.loads((CASES / f"{name}.toml").read_text())
    seen, found = analyse(name)
    assert seen == expected["assemblies"]
    assert len(found) == expected["solutions"]
    assert Counter(r.level for _, _, r in found) == Counter(expected["levels"])
    for cells, groups, result in found:
        replay(cells, result, groups)


def test_there_are_cases() -> None:
    assert len(NAMES) >= 30


def test_latin1_names_load_as_burrtools_reads_them() -> None:
    from tessera.models.burrtools import load_xmpuzzle

    puzzle = load_xmpuzzle(CASES / "latin1.xmpuzzle")
    assert [p.name for p in puzzle.pieces] == ["Würfel"]
    assert puzzle.name == "Pröblem"


def batch_args(*files: str):
    from tessera.cli.main import build_parser

    return build_parser().parse_args(["solve", *files, "--disassemble", "--count", "--json"])


def test_batch_gives_one_line_per_file(capsys) -> None:
    import json

    from tessera.cli.polycube import run_solve

    files = [str(CASES / f"{n}.xmpuzzle") for n in ("lid01", "range03", "latin1")]
    assert run_solve(batch_args(*files)) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["file"] for line in lines] == files
    for line, name in zip(lines, ("lid01", "range03", "latin1"), strict=True):
        expected = tomllib.loads((CASES / f"{name}.toml").read_text())
        assert (line["assemblies"], line["solutions"]) == (
            expected["assemblies"],
            expected["solutions"],
        )
        assert Counter(line["levels"]) == Counter(expected["levels"])


def test_batch_ctrl_c_prints_the_partial_line(capsys, monkeypatch) -> None:
    import json

    from tessera.cli import disassemble as cli
    from tessera.cli.polycube import run_solve

    real = cli.analyse_one
    calls = []

    def stop_in_second(path, problem, node_limit, bar, done):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt({"file": str(path), "problem": problem, "assemblies": 1,
                                     "solutions": 0, "levels": [], "partial": True,
                                     "seconds": 0.0})  # fmt: skip
        return real(path, problem, node_limit, bar, done)

    monkeypatch.setattr(cli, "analyse_one", stop_in_second)
    files = [str(CASES / f"{n}.xmpuzzle") for n in ("lid01", "lid02", "lid03")]
    assert run_solve(batch_args(*files)) == 130
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2 and lines[1]["partial"] and "partial" not in lines[0]
    assert len(calls) == 2
