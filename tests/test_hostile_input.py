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
