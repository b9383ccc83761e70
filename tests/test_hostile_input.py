"""Issue 21's reproducers for the parsers and the polycube solver: each answers with the right
counts, or one line and exit 2, within a bounded memory (measured on a child process)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TESSERA = [sys.executable, "-m", "tessera.cli.main"]
#: What a child may use at its peak (ru_maxrss of the children, in KiB on Linux).
MAX_RSS_KIB = 1 << 20


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*TESSERA, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def child_peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def puzzle_text(pieces: dict[str, tuple[list, dict]], target: list, optional=()) -> str:
    """A format-1 file: pieces by name as (cells, extra keys), and the target's cells."""
    lines = ['kind = "polycube"']
    for name, (cells, extra) in pieces.items():
        lines.append(f"[pieces.{name}]")
        lines.append(f"cells = {json.dumps(cells)}")
        lines.extend(f"{key} = {value}" for key, value in extra.items())
    lines.append("[target]")
    lines.append(f"cells = {json.dumps(target)}")
    if optional:
        lines.append(f"optional = {json.dumps(list(optional))}")
    return "\n".join(lines) + "\n"


def box(x: int, y: int, z: int) -> list[list[int]]:
    return [[i, j, k] for i in range(x) for j in range(y) for k in range(z)]


def counts_of(tmp_path: Path, text: str, name: str) -> dict[str, int]:
    from tessera.models.polycube import load_polycube
    from tessera.solvers.polycube.symmetry import ClassSearch

    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return ClassSearch(load_polycube(path)).tally().as_dict()


# -- F2: pieces of one shape under different names ------------------------------------------

MONO = [[0, 0, 0]]
DOMINO = [[0, 0, 0], [1, 0, 0]]
L3 = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
#: a chiral tetracube (Soma's right screw) and its mirror image
SCREW = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
SCREW_MIRROR = [[-x, y, z] for x, y, z in SCREW]

#: (split pieces, the same puzzle with copies, target, optional target cells)
SPLITS = {
    "two monocubes": (
        {"A": (MONO, {}), "B": (MONO, {})},
        {"A": (MONO, {"copies": 2})},
        box(2, 1, 1),
        (),
    ),
    "two dominoes in 2x2": (
        {"A": (DOMINO, {}), "B": (DOMINO, {})},
        {"A": (DOMINO, {"copies": 2})},
        box(2, 2, 1),
        (),
    ),
    "equal pieces and others": (
        {"A": (DOMINO, {}), "B": ([[0, 0, 0], [0, 1, 0]], {}), "L": (L3, {}), "M": (MONO, {})},
        {"A": (DOMINO, {"copies": 2}), "L": (L3, {}), "M": (MONO, {})},
        box(2, 2, 2),
        (),
    ),
    "three names, copies added": (
        {"A": (DOMINO, {"copies": 2}), "B": (DOMINO, {}), "C": (DOMINO, {})},
        {"A": (DOMINO, {"copies": 4})},
        box(2, 2, 2),
        (),
    ),
    "mirror pairs": (
        {
            "R1": (SCREW, {}),
            "R2": (SCREW, {}),
            "L1": (SCREW_MIRROR, {}),
            "L2": (SCREW_MIRROR, {}),
        },
        {"R": (SCREW, {"copies": 2}), "L": (SCREW_MIRROR, {"copies": 2})},
        box(2, 2, 4),
        (),
    ),
    "two left, one right with two copies": (
        {"R1": (SCREW, {}), "R2": (SCREW, {}), "L": (SCREW_MIRROR, {"copies": 2})},
        {"R": (SCREW, {"copies": 2}), "L": (SCREW_MIRROR, {"copies": 2})},
        box(2, 2, 4),
        (),
    ),
    "ranges": (
        {"A": (DOMINO, {"min": 0, "max": 1}), "B": (DOMINO, {"min": 0, "max": 2}), "L": (L3, {})},
        {"A": (DOMINO, {"min": 0, "max": 3}), "L": (L3, {})},
        box(3, 2, 1),
        [[0, 2, 0], [1, 2, 0]],
    ),
}


@pytest.mark.parametrize("case", sorted(SPLITS))
def test_equal_pieces_count_as_one_piece_with_copies(tmp_path, case) -> None:
    split, joined, target, optional = SPLITS[case]
    got = counts_of(tmp_path, puzzle_text(split, target, optional), "split")
    want = counts_of(tmp_path, puzzle_text(joined, target, optional), "joined")
    assert got == want
    assert got["fixed"] >= got["up_to_rotation"] >= got["up_to_symmetry"] >= 1


def test_equal_pieces_keep_their_names_in_solutions(tmp_path) -> None:
    from tessera.models.polycube import load_polycube
    from tessera.solvers.polycube.packing import solutions

    split, _, target, _ = SPLITS["three names, copies added"]
    path = tmp_path / "names.toml"
    path.write_text(puzzle_text(split, target))
    puzzle = load_polycube(path)
    seen = 0
    for solution in solutions(puzzle):
        seen += 1
        used = [placed.piece for placed in solution.pieces]
        assert sorted(used) == [0, 0, 1, 2]  # A twice, B and C once
        for placed in solution.pieces:
            p = placed.placement
            assert p.piece == placed.piece
            shape = puzzle.pieces[p.piece].orientations[p.orientation] + np.array(p.offset)
            assert sorted(map(tuple, shape.tolist())) == sorted(map(tuple, placed.cells.tolist()))
        covered = np.vstack([placed.cells for placed in solution.pieces])
        assert len({tuple(c) for c in covered.tolist()}) == 8
    assert seen == counts_of(tmp_path, puzzle_text(split, target), "again")["fixed"]


def test_duplicate_names_from_the_command_line(tmp_path) -> None:
    path = tmp_path / "dup.toml"
    path.write_text(puzzle_text({"A": (DOMINO, {}), "B": (DOMINO, {})}, box(2, 2, 1)))
    done = run_cli("solve", str(path), "--count", "--json")
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert (counts["fixed"], counts["up_to_rotation"], counts["up_to_symmetry"]) == (2, 1, 1)


# -- F1: cells far apart --------------------------------------------------------------------


def far_text(far: list[int]) -> str:
    return puzzle_text(
        {"A": ([[0, 0, 0]], {}), "B": ([[0, 0, 0], [0, 0, 1]], {})},
        [[0, 0, 0], far, [far[0], far[1], far[2] + 1]],
    )


@pytest.mark.parametrize("far", [[0, 1000, 0], [1000, 1000, 1000], [-10000, 10000, 9999]])
def test_cells_far_apart_count_in_little_memory(tmp_path, far) -> None:
    path = tmp_path / "far.toml"
    path.write_text(far_text(far))
    done = run_cli("solve", str(path), "--count", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fixed"] == 1
    assert child_peak_kib() < MAX_RSS_KIB


def test_a_piece_far_apart_in_its_own_target(tmp_path) -> None:
    path = tmp_path / "far.toml"
    cells = [[0, 0, 0], [0, 1000, 0]]
    path.write_text(puzzle_text({"A": (cells, {})}, cells))
    done = run_cli("solve", str(path), "--count", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fixed"] == 1
    assert child_peak_kib() < MAX_RSS_KIB


def test_render_of_pieces_far_apart_says_the_movement_is_not_analysed(tmp_path) -> None:
    path = tmp_path / "far.toml"
    path.write_text(far_text([1000, 1000, 1000]))
    done = run_cli("render", str(path), "--out", str(tmp_path / "far.png"), "--size", "64x48")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "not analysed" in line]
    assert len(said) == 1 and "Traceback" not in done.stderr
    assert (tmp_path / "far.png").stat().st_size > 0
    assert child_peak_kib() < MAX_RSS_KIB


def sources() -> list[Path]:
    from tessera.models.assets import builtin_puzzles

    fixtures = Path(__file__).parent / "fixtures" / "burrtools"
    builtin = [p for p in builtin_puzzles().values() if p.suffix in (".toml", ".xmpuzzle")]
    return sorted(builtin) + sorted(fixtures.glob("*.xmpuzzle"))


def test_sparse_placements_equal_the_dense_grid_and_the_plain_loop(monkeypatch) -> None:
    from tessera.models.burrtools import load_xmpuzzle
    from tessera.models.errors import PuzzleError
    from tessera.models.polycube import load_polycube
    from tessera.solvers.polycube import packing

    checked = 0
    for path in sources():
        try:
            puzzle = (load_xmpuzzle if path.suffix == ".xmpuzzle" else load_polycube)(path)
        except (PuzzleError, ValueError):
            continue  # not a polycube file, or a multi-problem one
        if len(puzzle.target.cells) > 1000:
            continue
        dense = packing.PlacementTable(puzzle)
        with monkeypatch.context() as m:
            m.setattr(packing, "DENSE_CELLS", 0)
            m.setattr(packing, "DENSE_PER_CELL", 0)
            sparse = packing.PlacementTable(puzzle)
        for t in range(len(puzzle.pieces)):
            assert np.array_equal(dense.cells[t], sparse.cells[t]), (path, t)
            assert np.array_equal(dense.orientation[t], sparse.orientation[t]), (path, t)
            assert np.array_equal(dense.offset[t], sparse.offset[t]), (path, t)
            plain = puzzle.placements(t)
            assert [p.cells for p in plain] == [tuple(r) for r in dense.cells[t].tolist()]
            assert [p.offset for p in plain] == [tuple(r) for r in dense.offset[t].tolist()]
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        (
            'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0], [0, 10001, 0]]\n'
            "[target]\ncells = [[0, 0, 0]]\n",
            "beyond",
            3,
        ),
        (
            'kind = "polycube"\n[pieces.A]\nlayers = [["' + "#" * 1_000_001 + '"]]\n'
            "[target]\ncells = [[0, 0, 0]]\n",
            "more than 1,000,000",
            2,
        ),
        (
            'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0], [1, 0, 0]]\ncopies = 600000\n'
            "[target]\ncells = [[0, 0, 0]]\n",
            "more than 1,000,000 cells",
            2,
        ),
    ],
)
def test_absurd_sizes_are_one_line_and_exit_2(tmp_path, text, words, line) -> None:
    path = tmp_path / "absurd.toml"
    path.write_text(text)
    done = run_cli("solve", str(path), "--count")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr
    assert f"{path}:{line}:" in lines[0]
    assert child_peak_kib() < MAX_RSS_KIB


# -- F3: loading is linear ------------------------------------------------------------------


def test_many_pieces_read_the_file_for_lines_once(tmp_path, monkeypatch) -> None:
    from tessera.models import fileformat, polycube

    n = 2000
    lines = ['kind = "polycube"']
    for i in range(n):
        lines += [f"[pieces.P{i}]", "cells = [[0, 0, 0]]"]
    lines += ["[target]", "cells = [" + ", ".join(f"[{i}, 0, 0]" for i in range(n)) + "]"]
    path = tmp_path / "many.toml"
    path.write_text("\n".join(lines) + "\n")
    scans = []
    real_key_lines, real_line_of = fileformat.key_lines, fileformat.line_of
    monkeypatch.setattr(polycube, "key_lines", lambda text: scans.append(1) or real_key_lines(text))
    monkeypatch.setattr(
        polycube, "line_of", lambda *a, **k: scans.append(1) or real_line_of(*a, **k)
    )
    puzzle = polycube.load_polycube(path)
    assert len(puzzle.pieces) == n
    assert len(scans) <= 3  # one index of the lines, the target's line: not one per piece
    from tessera.solvers.polycube.symmetry import ClassSearch

    assert ClassSearch(puzzle).tally().as_dict()["fixed"] == 1  # n equal pieces: one way


# -- F4: more pieces than the movement analysis takes ---------------------------------------


def test_render_of_70_pieces_shows_the_assembly(tmp_path) -> None:
    path = tmp_path / "row.toml"
    path.write_text(puzzle_text({f"P{i}": (MONO, {}) for i in range(70)}, box(70, 1, 1)))
    done = run_cli("render", str(path), "--out", str(tmp_path / "row.png"), "--size", "64x48")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "not analysed" in line]
    assert said == [
        "tessera: the movement is not analysed: at most 62 pieces can be, this assembly has 70"
    ]
    assert "Traceback" not in done.stderr
    assert (tmp_path / "row.png").stat().st_size > 0


def test_disassembling_70_pieces_is_refused_in_one_line(tmp_path) -> None:
    path = tmp_path / "row.toml"
    path.write_text(puzzle_text({f"P{i}": (MONO, {}) for i in range(70)}, box(70, 1, 1)))
    done = run_cli("solve", str(path), "--disassemble")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tessera: error: the movement is not analysed: at most 62 pieces can be, this "
        "assembly has 70"
    ]


# -- F5: domino numbers and sizes -----------------------------------------------------------


def test_a_domino_number_of_5000_digits_is_one_line(tmp_path) -> None:
    path = tmp_path / "long.toml"
    path.write_text('kind = "domino"\nrows = [\n"0 ' + "1" * 5000 + '",\n"0 1"\n]\n')
    done = run_cli("domino", "solve", str(path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:3:" in lines[0] and "5000 digits" in lines[0]


def test_a_domino_board_too_big_for_any_set_is_refused_by_its_size(tmp_path, monkeypatch) -> None:
    from tessera.models import domino
    from tessera.models.errors import PuzzleError

    row = " ".join(["0"] * 1000)
    path = tmp_path / "big.toml"
    path.write_text('kind = "domino"\nrows = [\n' + ",\n".join([f'"{row}"'] * 1000) + "\n]\n")
    tokens_read = []
    real = domino.parse_rows
    monkeypatch.setattr(
        domino, "parse_rows", lambda *a, **k: tokens_read.append(1) or real(*a, **k)
    )
    with pytest.raises(PuzzleError, match="1000x1000 = 1000000 cells"):
        domino.load_domino(path)
    assert tokens_read == []  # refused before a single row was read
    done = run_cli("domino", "solve", str(path))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert child_peak_kib() < MAX_RSS_KIB


def test_a_dominosa_id_far_too_long_is_refused_by_its_length() -> None:
    from tessera.models.dominosa_id import parse_dominosa_id
    from tessera.models.errors import PuzzleError

    with pytest.raises(PuzzleError, match="this description has 1,000,000"):
        parse_dominosa_id("3:" + "0" * 1_000_000)


# -- F17: a small BurrTools file of very many shapes ----------------------------------------


def xmpuzzle(shapes: str, pieces: str) -> bytes:
    import gzip

    xml = (
        '<?xml version="1.0"?>\n<puzzle version="2"><gridType type="0"/><colors></colors>'
        f'<shapes>{shapes}</shapes><problems><problem name="P"><shapes>{pieces}</shapes>'
        '<result id="0"/><bitmap></bitmap></problem></problems><comment/></puzzle>'
    )
    return gzip.compress(xml.encode())


@pytest.mark.parametrize("many_pieces", [False, True])
def test_200000_shapes_in_a_small_file_are_refused_by_their_count(tmp_path, many_pieces) -> None:
    n = 200_000
    one = '<voxel x="1" y="1" z="1" type="0">#</voxel>'
    pieces = (
        "".join(f'<shape id="{i}" count="1"/>' for i in range(1, n + 1))
        if many_pieces
        else '<shape id="1" count="2"/>'
    )
    path = tmp_path / "many.xmpuzzle"
    path.write_bytes(xmpuzzle('<voxel x="2" y="1" z="1" type="0">##</voxel>' + one * n, pieces))
    done = run_cli("solve", str(path), "--count")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "more than 10,000 shapes" in lines[0] and f"{path}:" in lines[0]
    assert child_peak_kib() < MAX_RSS_KIB


def test_only_the_shapes_a_problem_uses_are_read(tmp_path, monkeypatch) -> None:
    from tessera.models import burrtools

    one = '<voxel x="1" y="1" z="1" type="0">#</voxel>'
    path = tmp_path / "some.xmpuzzle"
    path.write_bytes(
        xmpuzzle(
            '<voxel x="2" y="1" z="1" type="0">##</voxel>' + one * 5000, '<shape id="1" count="2"/>'
        )
    )
    read = []
    real = burrtools._parse_voxel
    monkeypatch.setattr(burrtools, "_parse_voxel", lambda *a: read.append(1) or real(*a))
    puzzle = burrtools.load_xmpuzzle(path)
    assert len(read) == 2  # the result and the one piece shape
    assert puzzle.pieces[0].copies == 2


# -- F11: partial counts are consistent -----------------------------------------------------


@pytest.mark.parametrize("after", [1, 3, 10])
def test_a_partial_count_keeps_fixed_over_rotation_over_symmetry(tmp_path, after) -> None:
    from tessera.models.polycube import load_polycube
    from tessera.solvers.polycube.symmetry import ClassSearch

    path = tmp_path / "dominoes.toml"
    path.write_text(puzzle_text({"D": (DOMINO, {"copies": 24})}, box(3, 4, 4)))
    job = ClassSearch(load_polycube(path))
    assert job.anchor_piece is None  # listed and compared: where a class runs ahead
    calls = []

    def stop(_fraction, _found) -> None:
        calls.append(1)
        if len(calls) >= after:
            job.cancel()

    counts = job.tally(stop, workers=1)
    assert counts.partial
    assert counts.fixed >= counts.up_to_rotation >= counts.up_to_symmetry


# -- F14: a batch's Ctrl-C at its very end --------------------------------------------------


def test_ctrl_c_just_after_a_batch_ends_is_never_a_death_by_the_signal(tmp_path) -> None:
    import random
    import signal

    folder = tmp_path / "batch"
    folder.mkdir()
    text = puzzle_text({"A": (DOMINO, {})}, box(2, 1, 1))
    for i in range(8):
        (folder / f"f{i}.toml").write_text(text)
    rng = random.Random(21)
    outcomes = []
    for _ in range(6):
        proc = subprocess.Popen(
            [*TESSERA, "solve", str(folder), "--count", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines = [proc.stdout.readline() for _ in range(8)]  # every file's line
        assert all(json.loads(line)["fixed"] == 1 for line in lines)
        subprocess.run(["sleep", f"{rng.uniform(0, 0.05):.3f}"], check=True)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err, err
        assert proc.returncode in (0, 130), (proc.returncode, err)
        if proc.returncode == 130:
            assert "tessera: interrupted" in err
        outcomes.append(proc.returncode)
    assert len(outcomes) == 6


def test_pool_workers_die_at_once_on_sigterm() -> None:
    code = (
        "import signal\n"
        "signal.signal(signal.SIGTERM, lambda *a: None)\n"
        "from tessera.solvers.polycube.batch import _worker_init\n"
        "_worker_init()\n"
        "print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,"
        " signal.getsignal(signal.SIGINT) == signal.SIG_IGN)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.split() == ["True", "True"], done.stderr


def test_5000_equal_shapes_told_apart_are_refused_by_their_matrix_size(tmp_path) -> None:
    n = 5000
    row = f'<voxel x="{n}" y="1" z="1" type="0">{"#" * n}</voxel>'
    one = '<voxel x="1" y="1" z="1" type="0">#</voxel>'
    pieces = "".join(f'<shape id="{i}" count="1"/>' for i in range(1, n + 1))
    path = tmp_path / "apart.xmpuzzle"
    path.write_bytes(xmpuzzle(row + one * n, pieces))
    done = run_cli("solve", str(path), "--count")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "too big to search" in lines[0], done.stderr
    assert child_peak_kib() < MAX_RSS_KIB
