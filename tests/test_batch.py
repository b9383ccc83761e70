"""Batch counting (`solvers.batch`): many files in one process, errors per file, every mode
agreeing; and puzzles too big for the engine refused before anything big is allocated."""

from __future__ import annotations

import resource
from pathlib import Path

import numpy as np
import pytest

from tessera.models.errors import PuzzleError
from tessera.models.polycube import Piece, PolycubePuzzle, Target
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.polycube.batch import BatchResult, count_files, expand_paths, load_for_batch
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.polycube.symmetry import ClassSearch
from tests._paths import ROOT

CUBE = "xxx\nxxx\nxxx\n\n" * 3
FIGURES = {
    "cube.soma": (CUBE, 240),
    "corner.soma": ("xxx\nxxx\nxxx\n\n" * 2 + "x33\nx3x\nxxx\n", 207),
    "edge.soma": ("xxx\nx3x\nx3x\n\nxxx\nxxx\nx3x\n\nxxx\nxxx\nxxx\n", 14),
    "all.soma": ("33l\nptl\nttt\n\nc3l\npnn\nppn\n\nccl\nczz\nzzn\n", 1),
}


@pytest.fixture
def library(tmp_path):
    """A folder of figures, one bad file, one file of another family, one built-in copy."""
    for name, (text, _) in FIGURES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "bad.soma").write_text(CUBE.replace("xxx\n", "xx.\n", 1))
    (tmp_path / "six.toml").write_text(
        (ROOT / "assets" / "puzzles" / "six-piece-cube.toml").read_text()
    )
    (tmp_path / "notes.txt").write_text("not a puzzle")
    return tmp_path


def test_a_folder_expands_to_its_puzzle_files(library):
    files = expand_paths([library])
    assert [p.name for p in files] == sorted(
        ["all.soma", "bad.soma", "corner.soma", "cube.soma", "edge.soma", "six.toml"]
    )
    assert expand_paths(["nowhere.soma"]) == [Path("nowhere.soma")]


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
def test_every_mode_counts_every_file_and_reports_bad_ones(library, mode):
    files = expand_paths([library]) + [library / "missing.soma"]
    results = {r.file: r for r in count_files(files, mode=mode, workers=2)}
    assert set(results) == {str(f) for f in files}
    for name, (_, want) in FIGURES.items():
        assert results[str(library / name)].up_to_symmetry == want, name
    six = ClassSearch(load_for_batch(library / "six.toml")).tally()
    assert results[str(library / "six.toml")].fixed == six.fixed
    bad = results[str(library / "bad.soma")]
    assert not bad.ok and not bad.internal
    assert bad.error == f"{library / 'bad.soma'}:11: Bad number of cubicles: 26 instead of 27"
    assert "no such file" in results[str(library / "missing.soma")].error
    assert all(r.seconds >= 0 for r in results.values())


def test_results_come_as_they_finish(library):
    """A generator: the first result is there before the whole batch is done."""
    files = [library / "cube.soma"] * 12
    stream = count_files(files, mode="process", workers=2)
    first = next(stream)
    assert first.up_to_symmetry == 240
    rest = list(stream)
    assert len(rest) == 11


def test_json_line_has_the_issue_keys():
    ok = BatchResult("f.soma", 2, 1, 1, 0.01234)
    assert ok.as_dict() == {
        "file": "f.soma",
        "fixed": 2,
        "up_to_rotation": 1,
        "up_to_symmetry": 1,
        "seconds": 0.0123,
    }
    bad = BatchResult("g.soma", error="g.soma:3: Illegal tab character in file")
    assert bad.as_dict() == {"file": "g.soma", "error": "g.soma:3: Illegal tab character in file"}
    assert ok.ok and not bad.ok


# -- issue 11, item 9: too many copies ----------------------------------------------------------


def _monocubes(copies: int) -> PolycubePuzzle:
    """`copies` single cubes into a flat target of as many cells: what used to ask numpy for
    a 224 GiB depth × items block."""
    side = int(np.ceil(np.sqrt(copies)))
    cells = np.array([(i % side, i // side, 0) for i in range(copies)], np.int64)
    return PolycubePuzzle(
        "many", [Piece("A", np.zeros((1, 3), np.int64), copies)], Target(cells), source="m.toml"
    )


def test_a_hundred_thousand_copies_are_refused_with_a_reason_not_a_memory_error():
    puzzle = _monocubes(100_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for build in (ClassSearch, PackingProblem):
        with pytest.raises(PuzzleError) as info:
            build(puzzle)
        message = str(info.value)
        assert message.startswith("m.toml: too big to search") and "GiB" in message
        assert "\n" not in message
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200_000


def test_the_engine_refuses_a_dense_block_that_cannot_fit():
    """The guard in ExactCoverSearch itself, for any caller: 60,000 exactly-once items with one
    option each, and one item hit 60,000 times."""
    n = 60_000
    rows = [[i, n] for i in range(n)]
    problem = ExactCoverProblem(rows, n + 1, n + 1, [1] * n + [n])
    with pytest.raises(PuzzleError, match="too big to search"):
        ExactCoverSearch(problem)


def test_many_copies_that_fit_are_still_counted():
    """The tighter depth bound must not cut real searches short: 12 dominoes in a 2x12 strip
    (233 tilings) and a few hundred monocubes (one way)."""
    domino = Piece("D", np.array([[0, 0, 0], [1, 0, 0]], np.int64), 12)
    strip = np.array([(x, y, 0) for x in range(12) for y in range(2)], np.int64)
    puzzle = PolycubePuzzle("strip", [domino], Target(strip))
    assert PackingProblem(puzzle).search().count() == 233
    assert PackingProblem(_monocubes(400)).search().count() == 1
