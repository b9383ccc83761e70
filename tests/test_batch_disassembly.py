"""`tessera solve FILES... --disassemble --count`: a batch spread over forked workers gives the
lines a batch in one process gives, in the order given; Ctrl-C ends the files under way as
partial lines. And what a command line run of it loads: its own command's module only, none of
the modules its start-up no longer needs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests._paths import ROOT, run_cli

CASES = Path(__file__).parent / "fixtures" / "burrtools"


def expected(name: str) -> dict:
    return tomllib.loads((CASES / f"{name}.toml").read_text())


@pytest.fixture
def forks(monkeypatch) -> list[int]:
    """Every batch hands its files to a pool after the first one; the pools started, counted."""
    from tessera.cli import disassemble as cli
    from tessera.solvers.polycube import batch, symmetry

    started: list[int] = []
    real = batch.fork_pool

    def counted(processes, initializer):
        started.append(processes)
        return real(processes, initializer)

    monkeypatch.setattr(cli, "POOL_WORTH_SECONDS", 0.0)
    monkeypatch.setattr(cli, "FIRST_CALLS_SECONDS", 0.0)
    monkeypatch.setattr(batch, "fork_pool", counted)
    monkeypatch.setattr(symmetry, "available_cores", lambda: 2)
    return started


def test_a_pooled_batch_prints_every_file_in_the_order_given(capsys, forks):
    names = ["box01", "lid01", "range03", "turn07", "latin1", "box02", "lid03"]
    files = [str(CASES / f"{n}.xmpuzzle") for n in names]
    missing = str(CASES / "no-such-case.xmpuzzle")
    argv = ["solve", *files[:3], missing, *files[3:], "--disassemble", "--count", "--json"]
    code, out, err = run_cli(argv, capsys)
    assert code == 2  # the missing file
    assert forks == [2]  # one pool, a worker per core
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["file"] for line in lines] == files
    for line, name in zip(lines, names, strict=True):
        truth = expected(name)
        assert (line["assemblies"], line["solutions"]) == (truth["assemblies"], truth["solutions"])
        assert Counter(line["levels"]) == Counter(truth["levels"])
        assert "partial" not in line
    errors = [e for e in err.splitlines() if e.startswith("tessera: error:")]
    assert errors == [f"tessera: error: {missing}: no such file"]
    assert "lid01.xmpuzzle:2: piece 'S5' is not connected" in err  # the worker's warning


def test_the_plain_lines_of_a_pooled_batch(capsys, forks):
    names = ("box01", "box02", "range03", "box03", "box04", "latin1")
    files = [str(CASES / f"{n}.xmpuzzle") for n in names]
    code, out, _ = run_cli(["solve", *files, "--disassemble", "--count"], capsys)
    assert code == 0 and forks
    assert [line.split(" problem 1:")[0] for line in out.splitlines()] == files
    assert "2 assemblies, 1 solutions, levels" in out.splitlines()[2]


def test_a_few_small_files_start_no_pool(capsys, monkeypatch):
    from tessera.solvers.polycube import batch

    def refuse(*args):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(batch, "fork_pool", refuse)
    files = [str(CASES / f"{n}.xmpuzzle") for n in ("box01", "box02", "latin1")]
    code, out, _ = run_cli(["solve", *files, "--disassemble", "--count", "--json"], capsys)
    assert code == 0 and len(out.splitlines()) == 3


def test_when_a_pool_pays():
    from tessera.cli.disassemble import (
        FIRST_CALLS_SECONDS,
        MIN_POOL_FILES,
        POOL_WORTH_SECONDS,
        _pool_pays,
    )

    small = POOL_WORTH_SECONDS / 10
    assert not _pool_pays(1, small, 100)  # the first file pays for first calls: wait
    assert _pool_pays(2, small, 100)
    assert not _pool_pays(2, small, 5)  # 5 small files: cheaper here
    assert _pool_pays(1, FIRST_CALLS_SECONDS + POOL_WORTH_SECONDS, MIN_POOL_FILES)  # long ones
    assert not _pool_pays(5, 10.0, MIN_POOL_FILES - 1)  # too few left to share


def test_a_stopped_worker_ends_its_file_as_a_partial_line_and_starts_no_other():
    from tessera.cli import disassemble as cli
    from tessera.cli.progress import ProgressBar

    stop = cli._Stop()
    stop()
    with pytest.raises(KeyboardInterrupt) as caught:
        cli.analyse_one(CASES / "turn07.xmpuzzle", 1, 1000, ProgressBar("x"), "", stop=stop)
    (doc,) = caught.value.args
    assert doc["partial"] is True and doc["assemblies"] == 0
    try:
        cli._stop.asked = True
        result = cli._analyse_file((3, str(CASES / "box01.xmpuzzle"), 1000))
    finally:
        cli._stop.asked = False
    assert (result.index, result.docs, result.error) == (3, [], None)


def _long_batch(tmp_path: Path, count: int = 60) -> list[str]:
    """Copies of a case of 1,152 assemblies (a tenth of a second each), named in order: the
    pool's bar shows after a second, with most of them still to do."""
    files = []
    for k in range(count):
        path = tmp_path / f"case{k:02d}.xmpuzzle"
        shutil.copyfile(CASES / "turn07.xmpuzzle", path)
        files.append(str(path))
    return files


def _start(files: list[str], out) -> subprocess.Popen:
    """The batch in its own process; its lines (10 kB each) go to the file `out`: through a
    pipe that is not read until the end they would fill it and stop the batch."""
    return subprocess.Popen(
        [sys.executable, "-m", "tessera", "solve", *files, "--disassemble", "--count", "--json"],
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"TESSERA_PROGRESS": "1"},
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def _read_until(stream, text: str) -> str:
    seen = ""
    while text not in seen:
        ch = stream.read(1)
        if not ch:
            break
        seen += ch
    return seen


def _group_gone(pgid: int) -> bool:
    """Whether every process of the group has ended (polled for at most 20 s; one that ended
    and waits to be reaped counts as ended)."""
    if not Path("/proc/self/stat").exists():
        return True  # no /proc to look in
    for _ in range(200):
        if not any(_running_in(pgid, stat) for stat in Path("/proc").glob("[0-9]*/stat")):
            return True
        time.sleep(0.1)
    return False


def _running_in(pgid: int, stat: Path) -> bool:
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):  # ended while we looked
        return False
    return int(fields[2]) == pgid and fields[0] != "Z"


@pytest.mark.parametrize("to", ["parent", "group"])
def test_ctrl_c_ends_the_files_under_way_as_partial_lines(tmp_path, to):
    """Ctrl-C at a terminal reaches every process of the job; `kill -INT` the parent alone,
    which passes it on. Either way: the lines of the files started, in order, those under way
    marked partial, no file after them, exit 130."""
    files = _long_batch(tmp_path)
    with open(tmp_path / "out", "w") as out_file:
        proc = _start(files, out_file)
        seen = _read_until(proc.stderr, "files")  # the pool's bar: workers are under way
        if proc.poll() is None:
            if to == "parent":
                proc.send_signal(signal.SIGINT)
            else:
                os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    out = (tmp_path / "out").read_text()
    err = seen + err
    assert "Traceback" not in err, err
    lines = [json.loads(line) for line in out.splitlines()]
    if proc.returncode == 0:  # done before the signal could land
        assert len(lines) == len(files)
        return
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.rstrip().endswith("interrupted (partial)")
    names = [line["file"] for line in lines]
    assert names == sorted(names) and len(names) == len(set(names))
    assert len(lines) < len(files)
    partial = [line for line in lines if line.get("partial")]
    assert len(partial) <= os.cpu_count()
    # a file whose last assemblies were being taken apart when the signal landed is partial
    # even if none was left: what the search would still have found is not known
    assert all(line["assemblies"] <= 1152 for line in partial)
    assert all(line["assemblies"] == 1152 for line in lines if not line.get("partial"))
    assert _group_gone(proc.pid)


def test_a_second_ctrl_c_leaves_a_pooled_batch_at_once(tmp_path):
    with open(tmp_path / "out", "w") as out_file:
        proc = _start(_long_batch(tmp_path), out_file)
        seen = _read_until(proc.stderr, "files")
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            seen += _read_until(proc.stderr, "Ctrl-C again")
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    err = seen + err
    assert "Traceback" not in err, err
    assert proc.returncode in (130, 0), (proc.returncode, err)
    assert _group_gone(proc.pid)  # no worker left behind


# -- what a run loads ---------------------------------------------------------------------------

_LOADED = """
import sys
from tessera.__main__ import run
sys.argv = ["tessera", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
sys.stdout.flush()
print("MODULES", *sorted(sys.modules), file=sys.stderr)
"""


def test_a_batch_file_run_loads_only_its_own_command_and_no_start_up_fat():
    from tessera.solvers import native

    if not (native.enabled() and native.up_to_date()):
        pytest.skip("the kernels are not built ahead of time (make kernels): numba loads")
    argv = [str(CASES / "box01.xmpuzzle"), "--disassemble", "--count", "--json"]
    result = subprocess.run(
        [sys.executable, "-c", _LOADED, "solve", *argv],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert json.loads(result.stdout)["solutions"] == 3, result.stderr
    modules = set(result.stderr.rsplit("MODULES", 1)[1].split())
    assert "tessera.cli.polycube" in modules
    others = {"tessera.cli.dice", "tessera.cli.kenken", "tessera.cli.domino", "tessera.cli.viewer"}
    fat = {"numpy.ma", "numpy.random", "tempfile", "secrets", "importlib.resources"}
    assert modules & (others | {"tessera.models.dice"} | fat) == set()


def test_every_command_is_declared_by_the_module_that_adds_it():
    import argparse
    import importlib

    from tessera.cli.main import command_modules

    owners = command_modules()
    by_module: dict[str, set[str]] = {}
    for command, module in owners.items():
        by_module.setdefault(module, set()).add(command)
    for module, declared in by_module.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(sub)
        assert set(sub.choices) == declared, module


def test_a_command_parses_the_same_with_its_own_module_alone():
    from tessera.cli.main import build_parser

    argv = ["solve", "a.xmpuzzle", "b.xmpuzzle", "--disassemble", "--count", "--json"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))
    argv = ["dice", "solve", "instant-insanity", "--json"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


# -- the replacements of numpy calls that loaded modules ----------------------------------------


def test_unique_rows_is_numpys_unique_of_rows():
    from tessera.models.grids.sweep import unique_rows

    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 5, 40):
        rows = rng.integers(-2, 3, (n, 3))
        values, first = unique_rows(rows)
        want_values, want_first = np.unique(rows.reshape(-1, 3), axis=0, return_index=True)
        assert values.tolist() == want_values.tolist() and first.tolist() == want_first.tolist()
    floats = np.round(rng.normal(size=(30, 3)), 1)
    floats = np.vstack([floats, floats[:7], -0.0 * floats[:3]])
    values, first = unique_rows(floats)
    want_values, want_first = np.unique(floats, axis=0, return_index=True)
    assert values.tolist() == want_values.tolist() and first.tolist() == want_first.tolist()


def test_the_orbit_salt_is_splitmix64_and_the_same_every_run():
    from tessera.solvers.polycube.symmetry import _salt

    mask = (1 << 64) - 1

    def splitmix64(seed: int, n: int) -> list[int]:
        out, state = [], seed
        for _ in range(n):
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            out.append(z ^ (z >> 31))
        return out

    salt = _salt(20261124, (2, 9))
    assert salt.dtype == np.int64 and salt.shape == (2, 9)
    assert salt.view(np.uint64).ravel().tolist() == splitmix64(20261124, 18)
    assert len(set(salt.ravel().tolist())) == 18


def test_ctrl_c_inside_a_dataclass_being_made_is_ctrl_c(capsys, monkeypatch):
    """Python 3.11 turns a KeyboardInterrupt raised in a field's `__set_name__` (a module
    making a dataclass while it loads) into a RuntimeError: still one line and exit 130."""
    from tessera.cli import main as cli_main

    def wrapped(argv=None):
        raise RuntimeError("Error calling __set_name__") from KeyboardInterrupt()

    monkeypatch.setattr(cli_main, "build_parser", wrapped)
    assert cli_main.main(["list"]) == 130
    assert capsys.readouterr().err.strip() == "tessera: interrupted"

    def broken(argv=None):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_main, "build_parser", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        cli_main.main(["list"])
