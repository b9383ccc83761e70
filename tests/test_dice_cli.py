"""`tessera dice`: real invocations, their output, and their exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.cli.main import main
from tessera.models.dice import is_solution, load_dice
from tests._paths import ground_truth

TESSERA = Path(sys.executable).with_name("tessera")


DICE = ground_truth("dice/")


@pytest.mark.parametrize("path, expected", [c[1:] for c in DICE], ids=[c[0] for c in DICE])
@pytest.mark.parametrize("method", ["graph", "search"])
def test_solve_json_reports_the_published_counts(capsys, path, expected, method):
    assert main(["dice", "solve", str(path), "--json", "--method", method]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["raw"], out["distinct"]) == (expected["raw"], expected["distinct"])
    assert len(out["solutions"]) == len(out["orientations"]) == expected["distinct"]
    puzzle = load_dice(path)
    for shown, stack in zip(out["solutions"], out["orientations"], strict=True):
        assert shown == puzzle.oriented(tuple(stack))
        assert is_solution(puzzle.dice, tuple(stack))
        for side in (1, 2, 3, 4):  # each side shows every colour once
            assert sorted(die[side] for die in shown) == sorted(puzzle.colour_names)


def test_solve_text_and_show(capsys):
    assert main(["dice", "solve", "instant-insanity", "--show"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Instant Insanity: 4 dice, 8 raw solutions, 1 distinct")
    assert out.count("solution 1 ") == 1 and "solution 2" not in out
    for word in ("front", "right", "back", "left", "top", "bottom", "die 4"):
        assert word in out
    assert main(["dice", "solve", "dice-five"]) == 0
    out = capsys.readouterr().out
    assert "24 raw solutions, 3 distinct" in out and "solution 3 " in out


def _bad(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


FOUR = [
    '["b", "r", "g", "g", "y", "b"]',
    '["b", "r", "b", "g", "y", "r"]',
    '["r", "r", "g", "y", "y", "b"]',
    '["g", "b", "g", "y", "g", "r"]',
]


def _file(dice, extra=""):
    return 'kind = "dice"\n' + extra + "dice = [\n" + "".join(f"  {d},\n" for d in dice) + "]\n"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (_file([FOUR[0], '["b", "r", "b", "g", "y"]', *FOUR[2:]]), 4, "die 2 has 5 faces"),
        (_file(FOUR, 'colour = "b"\n'), 2, "unknown key 'colour'"),
        (_file([*FOUR[:3], '["g", "b", "w", "y", "g", "r"]']), 6, "4 dice need exactly 4"),
    ],
)
def test_bad_input_is_one_line_with_file_and_line_and_exit_2(capsys, tmp_path, text, line, words):
    path = _bad(tmp_path, "bad.toml", text)
    assert main(["dice", "solve", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"tessera: error: {path}:{line}: ")
    assert words in err[0]


def test_no_solution_exits_1(capsys, tmp_path):
    # colour y appears on one face only, so no side can show it
    dice = ['["y", "r", "g", "b", "r", "g"]'] + ['["r", "g", "b", "r", "g", "b"]'] * 3
    path = _bad(tmp_path, "none.toml", _file(dice))
    assert main(["dice", "solve", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip() == "no solution"
    assert "0 raw solutions, 0 distinct" in captured.out
    assert main(["dice", "solve", str(path), "--json", "--method", "search"]) == 1
    assert json.loads(capsys.readouterr().out)["raw"] == 0


def test_generate_writes_a_file_that_solves_uniquely(capsys, tmp_path):
    out = tmp_path / "g.toml"
    assert main(["dice", "generate", "--dice", "7", "--seed", "3", "--out", str(out)]) == 0
    assert "seed 3" in capsys.readouterr().out
    assert main(["dice", "solve", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dice"] == 7 and result["distinct"] == 1
    # the same seed prints the same file on standard output
    assert main(["dice", "generate", "--dice", "7", "--seed", "3"]) == 0
    assert capsys.readouterr().out == out.read_text()
    assert main(["dice", "generate", "--dice", "7", "--seed", "4"]) == 0
    assert capsys.readouterr().out != out.read_text()


def test_generate_rejects_a_bad_count(capsys):
    with pytest.raises(SystemExit) as info:
        main(["dice", "generate", "--dice", "0"])
    assert info.value.code == 2
    assert "between 1 and" in capsys.readouterr().err


def test_installed_command_runs_and_reports_errors_without_traceback(tmp_path):
    if not TESSERA.exists():
        pytest.skip("the tessera script is not installed in this environment")
    ok = subprocess.run(
        [str(TESSERA), "dice", "solve", "dice-five", "--json"], capture_output=True, text=True
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["distinct"] == 3
    bad = _bad(tmp_path, "bad.toml", _file(FOUR[:3]))
    run = subprocess.run([str(TESSERA), "dice", "solve", str(bad)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_ctrl_c_during_a_graph_solve_says_how_far_it_got(capsys, monkeypatch):
    """A long graph search (26 dice can take a minute) stops on Ctrl-C with a line that says
    how many raw solutions it had found, and exit 130; the search is asked to stop, not
    killed."""
    import os
    import signal

    from tessera.solvers import dice as dice_solver

    real = dice_solver.solutions
    asked_to_stop = []

    def slow(puzzle, method="graph", *, cancel=None):
        found = list(real(puzzle, method))
        yield from found  # the real solutions first
        os.kill(os.getpid(), signal.SIGINT)  # then a person presses Ctrl-C
        while not cancel.is_set():  # and the search runs on until it notices
            yield found[0]
        asked_to_stop.append(True)

    monkeypatch.setattr(dice_solver, "solutions", slow)
    assert main(["dice", "solve", "dice-five"]) == 130
    err = capsys.readouterr().err
    assert asked_to_stop == [True]
    assert "interrupted: " in err and "raw solutions" in err and "(partial)" in err
