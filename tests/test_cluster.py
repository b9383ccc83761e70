"""Counting on Dask (`tessera[cluster]`, part of the test extra): a LocalCluster of two worker
processes on loopback gives the one-machine counts, also when a worker is killed mid-run, and a
count stopped and resumed from its checkpoint gives the same total."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import dask.distributed  # noqa: E402,F401  (a declared test dependency: missing is an error)
import pytest

from tessera.solvers.polycube.distributed import (
    Checkpoint,
    DistributedCount,
    count_task,
    merge,
    plan_tasks,
)
from tessera.solvers.registry import load_puzzle
from tests._paths import case, run_cli


def test_the_split_is_exact_without_a_cluster():
    """Every subproblem counted in this process adds up to the published Soma counts, classes
    included (fractions of a class found in different subproblems sum to whole classes)."""
    path, want = case("polycube/soma.toml")
    puzzle = load_puzzle(path, "polycube")
    tasks = plan_tasks(puzzle, 150)
    assert 100 <= len(tasks) <= 400
    assert len({t.key for t in tasks}) == len(tasks)
    counts = merge(puzzle, [count_task(puzzle, t) for t in tasks], partial=False)
    assert (counts.fixed, counts.up_to_rotation, counts.up_to_symmetry) == (
        want["fixed"], want["up_to_rotation"], want["up_to_symmetry"],
    )  # fmt: skip


def test_two_workers_count_solid_pentominoes_even_when_one_is_killed():
    puzzle = load_puzzle("pentominoes-3x4x5", "polycube")
    clients = []
    killed = []

    def kill_one_worker(fraction: float, found: int) -> None:
        if killed or fraction < 0.2:
            return
        pids = clients[0].run(os.getpid)
        address, pid = sorted(pids.items())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(address)

    job = DistributedCount(puzzle, workers=2, tasks_per_worker=40)
    counts = job.run(kill_one_worker, on_client=clients.append)
    assert killed, "the run ended before a worker could be killed"
    assert not counts.partial
    assert (counts.fixed, counts.up_to_rotation, counts.up_to_symmetry) == (31520, 7880, 3940)


def test_a_stopped_count_resumes_from_its_checkpoint(tmp_path):
    path, want = case("polycube/pentominoes-6x10.toml")
    puzzle = load_puzzle(path, "polycube")
    checkpoint = tmp_path / "six-by-ten.jsonl"
    first = DistributedCount(puzzle, workers=2, checkpoint=checkpoint, tasks_per_worker=30)

    def stop_early(fraction: float, found: int) -> None:
        if fraction >= 0.3:
            first.cancel()

    partial = first.run(stop_early)
    assert partial.partial and partial.fixed < want["fixed"]
    lines = checkpoint.read_text().splitlines()
    assert json.loads(lines[0])["tessera_checkpoint"] == 1 and len(lines) > 1
    finished = len(Checkpoint(checkpoint, puzzle, json.loads(lines[0])["tasks"]).done)
    resumed = DistributedCount(puzzle, workers=2, checkpoint=checkpoint, tasks_per_worker=30)
    seen = []
    counts = resumed.run(lambda fraction, found: seen.append(fraction))
    assert not counts.partial
    assert (counts.fixed, counts.up_to_rotation) == (want["fixed"], want["up_to_rotation"])
    assert seen[0] > finished / json.loads(lines[0])["tasks"] - 1e-9  # it did not start over


def test_the_command_line_counts_on_a_local_cluster(capsys, tmp_path):
    code, out, err = run_cli(
        ["solve", "soma", "--count", "--json", "--workers", "2",
         "--checkpoint", str(tmp_path / "soma.jsonl")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["fixed"], doc["up_to_rotation"], doc["up_to_symmetry"]) == (11520, 480, 240)
    assert doc["partial"] is False


def test_a_checkpoint_of_another_puzzle_is_refused_in_one_line(capsys, tmp_path):
    saved = tmp_path / "other.jsonl"
    saved.write_text('{"tessera_checkpoint": 1, "puzzle": "0000", "tasks": 3}\n')
    code, _, err = run_cli(
        ["solve", "soma", "--count", "--workers", "1", "--checkpoint", str(saved)], capsys
    )
    assert code == 2
    assert err.count("\n") == 1 and "other.jsonl:1" in err and "another puzzle" in err


@pytest.fixture(scope="module")
def soma_checkpoint(tmp_path_factory) -> str:
    """A whole checkpoint of Soma's count on two workers, as the command writes it."""
    saved = tmp_path_factory.mktemp("checkpoint") / "soma.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "tessera", "solve", "soma", "--count", "--workers", "2",
         "--checkpoint", str(saved)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return saved.read_text()


@pytest.mark.parametrize(
    "line",
    [
        "[" * 100_000 + "]" * 100_000,  # nested deep enough to overflow json's recursion
        '{"key": "k", "fixed": -31520, "classes": "0", "rotation": "0"}',
        '{"key": "k", "fixed": 3, "classes": "-1", "rotation": "1"}',
        '{"key": "k", "fixed": 1, "classes": "2", "rotation": "1"}',
        '{"key": 7, "fixed": 1, "classes": "0", "rotation": "0"}',
        '{"key": "k", "fixed": true, "classes": "0", "rotation": "0"}',
        '{"key": "k", "fixed": 1.5, "classes": "0", "rotation": "0"}',
    ],
    ids=["deep", "negative", "negative-fraction", "disordered", "key", "bool", "float"],
)
def test_a_damaged_checkpoint_line_is_refused_with_its_line_number(
    capsys, tmp_path, soma_checkpoint, line
):
    lines = soma_checkpoint.splitlines()
    saved = tmp_path / "soma.jsonl"
    # the damaged line is not the last (a last line cut short by a kill is dropped, not refused)
    saved.write_text("\n".join([lines[0], line, *lines[1:]]) + "\n")
    code, out, err = run_cli(
        ["solve", "soma", "--count", "--workers", "2", "--checkpoint", str(saved)], capsys
    )
    assert code == 2 and out == ""
    assert err == f"tessera: error: {saved}:2: damaged checkpoint line\n"


def test_ctrl_c_on_a_terminal_stops_a_dask_count_cleanly():
    """The terminal's Ctrl-C reaches the whole process group, Dask's workers included: one
    interrupted count, its partial result in order, no worker traceback, exit 130."""
    import pty
    import select

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tessera", "solve", "pentominoes-6x10", "--count", "--workers", "2"],
        stdin=follower, stdout=follower, stderr=follower, start_new_session=True,
    )  # fmt: skip
    os.close(follower)
    seen, sent = b"", False
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            seen += chunk
        if not sent and b"%" in seen:  # the progress bar: tasks are running on the workers
            os.killpg(proc.pid, signal.SIGINT)
            sent = True
        if proc.poll() is not None and not ready:
            break
    os.close(leader)
    assert proc.wait() == 130
    text = seen.decode(errors="replace").replace("\r", "\n")
    assert "Traceback" not in text and "Error" not in text, text
    assert "fixed:" in text, text
    counts = {
        name: int(re.search(rf"{name}: (\d+)", text).group(1))
        for name in ("fixed", "up to rotation", "up to symmetry")
    }
    assert counts["fixed"] >= counts["up to rotation"] >= counts["up to symmetry"]
    assert "(partial: interrupted)" in text
