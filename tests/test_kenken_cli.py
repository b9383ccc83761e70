"""`tessera kenken ...` as users run it: output, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.cli.main import main
from tessera.models.keen_id import encode_keen_id
from tessera.models.kenken import load_kenken
from tessera.solvers.kenken import count_solutions
from tests._paths import case, needs_conformance

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "5de:a__a_3a_5a_a_a_3b_bac_,a5m15a7a10s2s2d2s3m40m2s2"
ROWS_4X4 = "a a a a\nb b b b\nc c c c\nd d d d\na: 10+\nb: 10+\nc: 10+\nd: 10+\n"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@needs_conformance
def test_solve_conformance_file(capsys):
    NYT, truth = case("kenken/nyt-4x4.kenken")
    code, out, _ = run(capsys, "kenken", "solve", str(NYT))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "nyt-4x4: 4x4, 8 cages"
    assert lines[1:5] == [" ".join(map(str, row)) for row in truth["solution"]]
    assert lines[5] == "unique solution"


def test_solve_json(capsys):
    path, truth = case("kenken/keen-5x5.kenken")
    code, out, _ = run(capsys, "kenken", "solve", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["solutions"] == truth["solutions"] == 1
    puzzle = load_kenken(path)
    assert count_solutions(puzzle) == 1
    grid = data["solution"]
    assert all(sorted(row) == list(range(1, 6)) for row in grid)
    assert all(sorted(col) == list(range(1, 6)) for col in zip(*grid, strict=True))


def test_solve_json_counts_up_to_two_unless_count(capsys, tmp_path):
    path = tmp_path / "rows.kenken"
    path.write_text(ROWS_4X4)
    _, out, _ = run(capsys, "kenken", "solve", str(path), "--json")
    assert json.loads(out)["solutions"] == 2
    _, out, _ = run(capsys, "kenken", "solve", str(path), "--json", "--count")
    assert json.loads(out)["solutions"] == 576  # every 4x4 Latin square
    code, out, _ = run(capsys, "kenken", "solve", str(path))
    assert code == 0 and "more than one solution" in out
    _, out, _ = run(capsys, "kenken", "solve", str(path), "--count")
    assert out.splitlines()[-1] == "solutions: 576"


def test_solve_builtin_and_keen_id(capsys):
    code, out, _ = run(capsys, "kenken", "solve", "kenken-6x6")
    assert code == 0 and out.startswith("kenken-6x6: 6x6") and "unique solution" in out
    code, out, _ = run(capsys, "kenken", "solve", EXAMPLE, "--json")
    assert code == 0
    assert json.loads(out)["solution"][0] == [4, 1, 3, 5, 2]


def test_id_prints_the_keen_id(capsys):
    code, out, _ = run(capsys, "kenken", "id", "kenken-keen-5x5")
    assert code == 0 and out.strip() == EXAMPLE.replace("5de:", "5:")
    _, out, _ = run(capsys, "kenken", "id", EXAMPLE)
    assert out.strip() == EXAMPLE


def test_no_solution_exits_1(capsys, tmp_path):
    path = tmp_path / "clash.kenken"
    path.write_text("a b c\nd d c\ne e e\na: 1\nb: 1\nc: 5+\nd: 3+\ne: 6+\n")
    code, out, err = run(capsys, "kenken", "solve", str(path))
    assert (code, out, err) == (1, "", "no solution\n")
    code, _, err = run(capsys, "kenken", "solve", str(path), "--json")
    assert code == 1 and err == "no solution\n"


BAD = {
    "no rule": ("a a b\na c b\nd d b\na: 4+\nb: 6+\nd: 5+\n", 2),
    "rule not on grid": ("a a b\nc c b\nc d d\na: 3+\nb: 4+\nc: 6+\nd: 3+\nz: 5+\n", 8),
    "minus three": ("a a a\nb b c\nb d c\na: 2-\nb: 6+\nc: 3+\nd: 1\n", 4),
    "divide three": ("a a b\na c b\nd c b\na: 2/\nb: 6+\nc: 3+\nd: 3\n", 4),
    "disconnected": ("a b b\nc c a\nc d d\na: 4+\nb: 4+\nc: 6+\nd: 3+\n", 2),
    "unreachable": ("a a b\nc c b\nc d d\na: 100+\nb: 4+\nc: 6+\nd: 3+\n", 4),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_exit_2_with_file_and_line(capsys, tmp_path, case):
    text, line = BAD[case]
    path = tmp_path / "bad.kenken"
    path.write_text(text)
    code, out, err = run(capsys, "kenken", "solve", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"tessera: error: {path}:{line}: ")
    assert err.count("\n") == 1


def test_malformed_keen_id_exits_2(capsys):
    bad = EXAMPLE[:-1] + "q"
    code, _, err = run(capsys, "kenken", "solve", bad)
    assert code == 2
    assert err.startswith(f"tessera: error: {bad}: malformed Keen ID")
    assert err.count("\n") == 1


def test_generate_is_reproducible_and_unique(capsys, tmp_path):
    _, first, _ = run(capsys, "kenken", "generate", "--size", "6", "--seed", "9")
    _, second, _ = run(capsys, "kenken", "generate", "--size", "6", "--seed", "9")
    assert first == second and "seed 9" in first
    out_file = tmp_path / "g.kenken"
    code, out, _ = run(
        capsys, "kenken", "generate", "--size", "6", "--seed", "9", "--out", str(out_file)
    )
    assert code == 0 and out.startswith(f"wrote {out_file}")
    assert out_file.read_text() == first
    puzzle = load_kenken(out_file)
    assert count_solutions(puzzle) == 1
    keen_line = next(line for line in first.splitlines() if line.startswith("# keen: "))
    assert keen_line[len("# keen: ") :].split(":", 1)[1] == encode_keen_id(puzzle).split(":", 1)[1]


def test_generate_options(capsys):
    code, out, _ = run(
        capsys,
        *["kenken", "generate", "--size", "5", "--seed", "1", "--no-givens"],
        *["--difficulty", "hard"],
    )
    assert code == 0 and "difficulty hard" in out
    rules = [line for line in out.splitlines() if ":" in line and not line.startswith("#")]
    assert all(rule[-1] in "+-x/" for rule in rules)  # no plain givens
    code, out, _ = run(
        capsys, "kenken", "generate", "--size", "4", "--seed", "2", "--multiplication-only"
    )
    assert code == 0
    keen = next(line for line in out.splitlines() if line.startswith("# keen: "))
    assert keen.split(":")[1].endswith("m")  # the ID's parameters carry the mode
    rules = [line for line in out.splitlines() if ": " in line and not line.startswith("#")]
    assert all(rule.endswith("x") or rule.split(": ")[1].isdigit() for rule in rules)


def test_generate_refuses_bad_sizes_and_impossible_grades(capsys):
    code, _, err = run(capsys, "kenken", "generate", "--size", "12")
    assert code == 2 and "size must be 3..9" in err
    code, _, err = run(capsys, "kenken", "generate", "--size", "3", "--difficulty", "extreme")
    assert code == 2 and "could not make a 3x3 puzzle of difficulty extreme" in err


def test_installed_command_runs(tmp_path):
    exe = Path(sys.executable).with_name("tessera")
    result = subprocess.run(
        [str(exe), "kenken", "solve", "kenken-4x4", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["solutions"] == 1
