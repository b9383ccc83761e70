"""Format 1 files, BurrTools import and the errors users see for bad input."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tessera.cli.main import main
from tessera.models import geometry
from tessera.models.burrtools import load_xmpuzzle
from tessera.models.errors import PuzzleError
from tessera.models.polycube import load_polycube
from tests._paths import CONFORMANCE, ROOT, needs_conformance

SOMA_CELLS = """
kind = "polycube"
name = "tiny"
[pieces.L]
cells = [[-5,0,3],[-4,0,3],[-3,0,3],[-5,1,3]]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
copies = 2
[target]
layers = [["####", "#++#"]]
"""


def write(tmp_path: Path, text: str, name: str = "p.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "tessera.cli.main", *args], capture_output=True, text=True, cwd=ROOT
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_geometry_groups():
    rots, syms = geometry.rotations(), geometry.symmetries()
    assert len(rots) == 24 and len(syms) == 48
    assert len({m.tobytes() for m in syms}) == 48
    assert all(round(np.linalg.det(m)) == 1 for m in rots)
    assert all(round(np.linalg.det(m)) == -1 for m in syms[24:])
    assert np.array_equal(rots[0], np.eye(3, dtype=np.int64))
    # the I tetromino has 3 orientations, the L tetromino 24, a chiral screw 12 + 12 mirrored
    assert len(geometry.orientations([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]])) == 3
    assert len(geometry.orientations([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]])) == 24
    branch = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert len(geometry.orientations(branch)) == 8
    left = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 1]]
    right = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 1]]
    assert len(geometry.orientations(left)) == 12
    assert geometry.canonical_key(left) != geometry.canonical_key(right)
    assert geometry.canonical_key(geometry.mirror(left)) == geometry.canonical_key(right)
    assert len(geometry.target_symmetries(np.argwhere(np.ones((3, 3, 3))))) == 48
    assert len(geometry.target_symmetries(np.argwhere(np.ones((2, 3, 4))))) == 8


def test_cells_layers_negative_coordinates_and_copies(tmp_path):
    puzzle = load_polycube(write(tmp_path, SOMA_CELLS))
    assert [p.name for p in puzzle.pieces] == ["L", "D"]
    assert puzzle.pieces[0].cells.min() == 0  # normalised
    assert puzzle.pieces[1].copies == 2
    assert puzzle.target.n_required == 6 and len(puzzle.target.optional) == 2
    assert puzzle.piece_volume == 8


def test_json_is_the_same_structure(tmp_path):
    doc = {
        "kind": "polycube",
        "pieces": {"D": {"cells": [[0, 0, 0], [1, 0, 0]], "copies": 3}},
        "target": {"layers": [["###", "###"]]},
    }
    path = tmp_path / "strip.json"
    path.write_text(json.dumps(doc, indent=1))
    code = main(["solve", str(path), "--count", "--json"])
    assert code == 0


def test_solve_count_json_for_a_builtin(capsys):
    assert main(["solve", "soma", "--count", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["fixed"], doc["up_to_rotation"], doc["up_to_symmetry"]) == (11520, 480, 240)
    assert isinstance(doc["seconds"], float)


def test_show_draws_layers_with_one_letter_per_piece(capsys):
    assert main(["solve", "soma", "--show", "--limit", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    grid = [line.strip() for line in out[1:4]]
    letters = "".join(grid).replace(" ", "")
    assert len(letters) == 27 and set(letters) == set("VLTZABP")


@pytest.mark.parametrize(
    "text, message, line",
    [
        ("kind = 'polycube'\n[pieces.A\ncells = []\n", "malformed TOML", 2),
        (SOMA_CELLS.replace("copies = 2", "copies = 2\nwrong = 1"), "unknown key 'wrong'", 9),
        (SOMA_CELLS.replace("cells = [[0,0,0],[1,0,0]]", "cells = []"), "has no cells", 6),
        (SOMA_CELLS.replace("[1,0,0]]\ncopies", "[1,0.5,0]]\ncopies"), "not three integer", 7),
        (SOMA_CELLS.replace("[1,0,0]]\ncopies", "[0,0,0]]\ncopies"), "duplicate cell", 7),
        (SOMA_CELLS.replace('"####", "#++#"', '"##x#", "#++#"'), "unexpected character", 10),
        (SOMA_CELLS.replace("copies = 2", "copies = 0"), "copies must be", 8),
    ],
)
def test_bad_input_is_one_line_with_file_and_line(tmp_path, text, message, line):
    path = write(tmp_path, text)
    code, out, err = run_cli("solve", str(path), "--count")
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"tessera: error: {path}:{line}: "), err
    assert message in lines[0]


def test_disconnected_piece_is_a_warning_not_an_error(tmp_path):
    text = SOMA_CELLS.replace("cells = [[0,0,0],[1,0,0]]", "cells = [[0,0,0],[2,0,0]]")
    code, out, err = run_cli("solve", str(write(tmp_path, text)), "--count")
    assert "warning" in err and "not connected" in err
    assert code in (0, 1)


def test_volume_that_cannot_fit_exits_1(tmp_path):
    soma = (ROOT / "assets/puzzles/soma.toml").read_text()
    text = soma.replace('layers = [["##", "#."]]', 'layers = [["#"]]', 1)
    code, out, err = run_cli("solve", str(write(tmp_path, text)), "--count")
    assert code == 1
    assert "no solution possible" in err and "25 cells" in err


def test_unknown_builtin_and_missing_file(tmp_path):
    code, _, err = run_cli("solve", "no-such-puzzle")
    assert code == 2 and "tessera list" in err
    code, _, err = run_cli("solve", str(tmp_path / "missing.toml"))
    assert code == 2 and "no such file" in err


@needs_conformance
def test_burrtools_import_reads_shapes_counts_and_optional_cells():
    puzzle = load_xmpuzzle(CONFORMANCE / "burrtools/PelikanBurr.xmpuzzle")
    assert len(puzzle.pieces) == 7
    assert puzzle.pieces[0].name == "Cage"
    assert len(puzzle.target.optional) > 0


@needs_conformance
def test_burrtools_ranges_are_read():
    puzzle = load_xmpuzzle(CONFORMANCE / "burrtools/SolidSixPieceBurrs.xmpuzzle")
    assert len(puzzle.pieces) == 25
    assert all((p.fewest, p.copies) == (0, 6) for p in puzzle.pieces)


def test_burrtools_bomb_and_garbage_are_refused(tmp_path):
    bomb = tmp_path / "bomb.xmpuzzle"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        block = b"<" * (1 << 20)
        for _ in range(65):
            f.write(block)
    with pytest.raises(PuzzleError, match="64 MB"):
        load_xmpuzzle(bomb)
    junk = tmp_path / "junk.xmpuzzle"
    junk.write_bytes(gzip.compress(b"<puzzle><shapes>\n<voxel x='1'"))
    code, _, err = run_cli("solve", str(junk))
    assert code == 2 and "malformed XML" in err and "Traceback" not in err
