"""A fresh install's first solve: one line on a terminal while a kernel compiles, none when
stderr is piped, and the answer unchanged. Counts what is printed; the CPU budget of a cold
compile is a benchmark (benchmarks/bench_startup.py), not a test."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(300)


def _tessera(args: list[str], cache: str, terminal: bool) -> tuple[int, str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    command = [sys.executable, "-m", "tessera", *args]
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=follower, text=True
    ) as proc:
        os.close(follower)
        err = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            err += chunk
        out = proc.stdout.read()
        code = proc.wait()
    os.close(leader)
    return code, out, err.decode(errors="replace")


def test_a_cold_compile_says_so_once_on_a_terminal(tmp_path):
    code, out, err = _tessera(["solve", "soma", "--count"], str(tmp_path), terminal=True)
    assert code == 0 and "fixed: 11520" in out
    notes = [line for line in err.splitlines() if "compiling" in line]
    assert notes == [
        "tessera: compiling the exact-cover search (once after installing; a few seconds)…"
    ]
    # the second run finds the kernel in the cache: silence
    code, out, err = _tessera(["solve", "soma", "--count"], str(tmp_path), terminal=True)
    assert code == 0 and "compiling" not in err


def test_a_piped_stderr_gets_no_compile_note(tmp_path):
    code, out, err = _tessera(["solve", "soma", "--count"], str(tmp_path), terminal=False)
    assert code == 0 and "fixed: 11520" in out
    assert "compiling" not in err
