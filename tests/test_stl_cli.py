"""`tessera stl` through the real command line: files named after pieces, read back with
PyVista as closed solids of the right size, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pyvista as pv  # noqa: E402

import tessera.cli.main as tessera_cli
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube.identify import SolutionIndex
from tests._paths import case_file

SOMA = case_file("polycube/soma.toml")


@pytest.fixture
def tessera():
    """`tessera` in this process."""
    return tessera_cli.main


def read(path):
    mesh = pv.read(path)
    assert mesh.n_cells > 0
    assert mesh.n_open_edges == 0, f"{path.name} is not closed"
    assert mesh.is_manifold
    return mesh


def test_one_closed_file_per_piece(tessera, tmp_path, capsys):
    out = tmp_path / "soma"
    assert tessera(["stl", "soma", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{n}.stl" for n in "VLTZABP")
    puzzle = load_polycube(SOMA)
    for piece in puzzle.pieces:
        mesh = read(out / f"{piece.name}.stl")
        assert mesh.volume == pytest.approx(piece.size * 20**3, rel=1e-6)
        assert np.allclose(mesh.bounds[::2], 0)  # each piece at the origin, in millimetres
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert lines[0] == f"{out / 'V.stl'}: V, 3 cells, 28 triangles, 24.0 cm³"


def test_gap_solution_and_assembly(tessera, tmp_path, capsys):
    out = tmp_path / "fit"
    argv = ["stl", str(SOMA), "--out", str(out), "--cell-mm", "10", "--gap-mm", "0.4"]
    assert tessera([*argv, "--solution", "3", "--assembly"]) == 0
    puzzle = load_polycube(SOMA)
    solution = SolutionIndex(puzzle).solution(3)
    total = 0.0
    for placed in solution.pieces:
        mesh = read(out / f"{puzzle.pieces[placed.piece].name}.stl")
        # the piece sits where solution 3 puts it, each outer face 0.2 mm in
        lo, hi = placed.cells.min(axis=0) * 10 + 0.2, (placed.cells.max(axis=0) + 1) * 10 - 0.2
        assert np.allclose(mesh.bounds[::2], lo, atol=1e-4)
        assert np.allclose(mesh.bounds[1::2], hi, atol=1e-4)
        assert mesh.volume < len(placed.cells) * 1000
        total += mesh.volume
    assembly = read(out / "assembly-3.stl")
    assert assembly.volume == pytest.approx(total, rel=1e-6)
    assert assembly.n_cells == sum(
        read(out / f"{puzzle.pieces[p.piece].name}.stl").n_cells for p in solution.pieces
    )
    assert np.allclose(assembly.bounds, [0.2, 29.8] * 3, atol=1e-4)
    assert "assembly-3.stl: solution 3, 27 cells" in capsys.readouterr().out
    # solution 3 is the third one `tessera solve` lists
    assert tessera(["solve", str(SOMA), "--limit", "3", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["solutions"][2]["pieces"]
    for entry in listed:
        cells = np.array(entry["cells"])
        mesh = read(out / f"{entry['piece']}.stl")
        assert np.allclose(mesh.bounds[::2], cells.min(axis=0) * 10 + 0.2, atol=1e-4)


def test_copies_are_numbered(tessera, tmp_path):
    out = tmp_path / "dominoes"
    path = case_file("polycube/dominoes-2x12.toml")
    assert tessera(["stl", str(path), "--out", str(out), "--cell-mm", "5"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"D-{k}.stl" for k in range(1, 13))
    assert read(out / "D-12.stl").volume == pytest.approx(2 * 125)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--gap-mm", "20"], "--gap-mm must be at least 0 and less than --cell-mm (20), not 20"),
        (["--cell-mm", "0"], "--cell-mm must be positive, not 0"),
        (["--solution", "241"], "--solution 241: the puzzle has only 240 distinct solutions"),
        (["--solution", "0"], "--solution counts from 1, not 0"),
    ],
)
def test_bad_options_are_one_line_errors(tessera, tmp_path, capsys, argv, message):
    assert tessera(["stl", str(SOMA), "--out", str(tmp_path / "x"), *argv]) == 2
    err = capsys.readouterr().err
    assert err == f"tessera: error: {message}\n"


def test_bad_puzzle_and_folder(tessera, tmp_path, capsys):
    assert tessera(["stl", "no-such-puzzle", "--out", str(tmp_path)]) == 2
    assert "no built-in puzzle named 'no-such-puzzle'" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert tessera(["stl", str(SOMA), "--out", str(blocker)]) == 2
    assert capsys.readouterr().err == f"tessera: error: {blocker}: exists and is not a folder\n"
    broken = tmp_path / "broken.toml"
    broken.write_text('kind = "polycube"\n[pieces.A]\ncells = [[0,0]]\n[target]\ncells=[[0,0,0]]\n')
    assert tessera(["stl", str(broken), "--out", str(tmp_path / "y")]) == 2
    assert capsys.readouterr().err.startswith(f"tessera: error: {broken}:3: ")


def test_assembly_of_an_unsolvable_puzzle_exits_1(tessera, tmp_path, capsys):
    puzzle = tmp_path / "stuck.toml"
    puzzle.write_text(
        'kind = "polycube"\n[pieces.L]\ncells = [[0,0,0],[1,0,0],[0,1,0]]\n'
        "[target]\ncells = [[0,0,0],[1,0,0],[2,0,0]]\n"
    )
    assert tessera(["stl", str(puzzle), "--out", str(tmp_path / "o"), "--assembly"]) == 1
    assert capsys.readouterr().err == "no solution\n"
    # the pieces alone can still be printed
    assert tessera(["stl", str(puzzle), "--out", str(tmp_path / "o")]) == 0
    assert read(tmp_path / "o" / "L.stl").volume == pytest.approx(3 * 20**3)


def test_a_new_export_replaces_the_old_folder_whole(tessera, tmp_path, capsys):
    out = tmp_path / "a" / "b" / "pieces"
    assert tessera(["stl", "soma", "--out", str(out)]) == 2  # missing parents are not made
    assert (
        capsys.readouterr().err
        == f"tessera: error: {out.parent}: no such folder (create it first)\n"
    )
    assert not (tmp_path / "a").exists()
    out.parent.mkdir(parents=True)
    assert tessera(["stl", "soma", "--out", str(out)]) == 0
    assert tessera(["stl", "pentominoes-3x20", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{n}.stl" for n in "FILNPTUVWXYZ")  # no soma A.stl or B.stl left
    for name in names:
        read(out / name)
    assert sorted(p.name for p in out.parent.iterdir()) == ["pieces"]  # no temporary left
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 + 12


def test_a_folder_with_other_files_is_never_replaced(tessera, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    (out / "old.stl").write_text("")
    assert tessera(["stl", "soma", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"tessera: error: {out}: holds files that are not STL (notes.txt); "
        "choose a new or empty folder\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "old.stl"]


def test_the_current_folder_is_never_replaced(tessera, tmp_path, capsys, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert tessera(["stl", "soma", "--out", "."]) == 2
    assert capsys.readouterr().err == (
        "tessera: error: .: is the current folder (or holds it); choose a new folder\n"
    )
    assert Path.cwd() == here and not list(here.iterdir())


def test_a_read_only_parent_is_one_line(tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    prefix = []
    if os.geteuid() == 0:  # root ignores permissions unless it gives up the capability
        if shutil.which("setpriv") is None:
            pytest.skip("as root this needs setpriv")
        caps = "-dac_override,-dac_read_search"
        prefix = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]
    out = parent / "pieces"
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "tessera", "stl", "soma", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    parent.chmod(0o755)
    assert result.returncode == 2
    assert result.stderr == f"tessera: error: {out}: cannot write: Permission denied\n"
    assert not list(parent.iterdir())
