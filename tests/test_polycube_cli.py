"""`tessera solve` as a user runs it: plans, traces, Ctrl-C, progress."""

from __future__ import annotations

import io
import json
import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from tessera.cli.main import main
from tessera.cli.progress import ProgressBar
from tessera.solvers.polycube.packing import PackingProblem
from tessera.solvers.polycube.plan import DIRECTIONS, assembly_plan
from tessera.solvers.registry import load_puzzle
from tests._paths import ROOT, case_file, needs_conformance, run_cli


def slides_in_freely(cells: np.ndarray, placed: set, direction: str, lo, hi) -> bool:
    """Does the piece reach its cells moving along `direction` from outside the box?"""
    step = np.array(DIRECTIONS[direction])
    for cell in cells:
        p = cell - step
        while np.all(p >= lo) and np.all(p <= hi):
            if tuple(p.tolist()) in placed:
                return False
            p = p - step
    return True


def test_every_soma_plan_is_a_real_assembly_order():
    puzzle = load_puzzle("soma", "polycube")
    problem = PackingProblem(puzzle)
    lo, hi = puzzle.target.bounds
    checked = 0
    for rows in problem.search().solutions():
        solution = problem.solution(rows)
        plan = assembly_plan(puzzle, solution)
        assert plan.complete  # every Soma assembly goes together piece by piece
        assert sorted(s.piece_index for s in plan.steps) == list(range(7))
        placed: set = set()
        for step in plan.steps:
            cells = solution.pieces[step.piece_index].cells
            assert slides_in_freely(cells, placed, step.direction, lo, hi)
            placed |= {tuple(c) for c in cells.tolist()}
        checked += 1
        if checked == 200:
            break


@needs_conformance
def test_a_burr_without_a_single_piece_order_says_so():
    puzzle = load_puzzle(case_file("burrtools/PelikanBurr.xmpuzzle"), "polycube")
    problem = PackingProblem(puzzle)
    plans = [assembly_plan(puzzle, problem.solution(r)) for r in problem.search().solutions()]
    assert plans and not all(p.complete for p in plans)
    stuck = next(p for p in plans if not p.complete)
    assert len(stuck.stuck) >= 2  # an interlocked group, not a single blocked piece


def test_plan_and_json(capsys):
    assert main(["solve", "six-piece-cube", "--plan", "--json", "--limit", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["solutions"]) == 2
    plan = doc["solutions"][0]["plan"]
    assert plan["complete"] and len(plan["steps"]) == 6
    assert {s["direction"] for s in plan["steps"]} <= set(DIRECTIONS)


def test_trace_shows_placements_and_backtracks(capsys):
    assert main(["solve", "soma", "--trace", "--distinct", "fixed", "--limit", "1"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("trace:")]
    assert any("remove" in line for line in lines)  # backtracks included
    assert any("solution" in line for line in lines)
    assert sum("place" in line for line in lines) - sum("remove" in line for line in lines) == 7


def wait_for_progress_bar(proc: subprocess.Popen) -> str:
    """Read stderr until the progress bar is drawn: the search is running (not importing).
    No deadline of its own: a machine too busy to draw it soon is no failure, and a bar that
    never comes is caught by the test's timeout."""
    seen = b""
    fd = proc.stderr.fileno()
    while b"[" not in seen:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 4096)
            assert chunk, f"the command ended before searching: {seen!r}"
            seen += chunk
    return seen.decode()


@pytest.mark.parametrize("extra", [[], ["--limit", "100000000"]], ids=["count", "count-with-limit"])
def test_ctrl_c_prints_the_count_so_far_marked_partial(extra):
    proc = subprocess.Popen(
        [sys.executable, "-m", "tessera", "solve", "bedlam", "--count", "--json", *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | {"TESSERA_PROGRESS": "1"},
    )
    head = wait_for_progress_bar(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = head + err.decode()
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["partial"] is True
    assert 0 <= doc["fixed"] < 460464
    assert "Traceback" not in err


def test_progress_bar_waits_a_second_then_draws(monkeypatch):
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    bar = ProgressBar("counting", delay=0.2, force=True)
    bar.update(0.1)
    assert buffer.getvalue() == ""  # quick work shows nothing
    clock[0] += 0.25
    bar.update(0.5, "12 found")
    assert "50.0%" in buffer.getvalue() and "12 found" in buffer.getvalue()
    bar.close()
    assert buffer.getvalue().endswith("\r\x1b[K")


def test_show_gives_every_piece_its_own_symbol_with_a_legend(capsys):
    code, out, _ = run_cli(["solve", "six-piece-cube", "--show", "--limit", "1"], capsys)
    assert code == 0
    lines = out.splitlines()
    legend = next(line for line in lines if line.strip().startswith("legend:"))
    pairs = dict(item.split(" = ") for item in legend.split(":", 1)[1].strip().split(", "))
    assert sorted(pairs.values()) == [f"p{k}" for k in range(1, 7)]
    diagram = "".join(lines[lines.index(legend) + 1 :])
    drawn = {ch for ch in diagram if ch.isalnum()}
    assert drawn == set(pairs)  # six symbols, each drawn: no two pieces share one


@needs_conformance
def test_disassemble_keeps_only_what_comes_apart_with_burrtools_level(capsys):
    path = case_file("burrtools/PelikanBurr.xmpuzzle")
    code, out, err = run_cli(["solve", str(path), "--disassemble", "--count", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["assemblies"], doc["solutions"], doc["levels"]) == (12, 1, ["98.2.4.2"])
    code, out, err = run_cli(["solve", str(path), "--disassemble", "--json"], capsys)
    assert code == 0, err
    (solution,) = json.loads(out)["solutions"]
    moves = solution["disassembly"]["moves"]
    assert solution["disassembly"]["level"] == "98.2.4.2"
    assert sum(not m["removes"] for m in moves[:98]) == 97 and moves[97]["removes"]
    assert all(sum(map(abs, m["by"])) == max(map(abs, m["by"])) for m in moves)  # one axis


def test_sort_needs_disassemble(capsys):
    code, _, err = run_cli(["solve", "soma", "--sort", "level"], capsys)
    assert code == 2 and "--disassemble" in err
