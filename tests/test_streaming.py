"""Many-result commands print as they go: the first results arrive long before the last is
made, memory stays flat however many are asked for, and Ctrl-C keeps what was printed (a JSON
list is closed so it still parses) with exit 130."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

MILLION = ["domino", "generate", "--size", "4x3", "--seed", "1", "--count", "1000000"]


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _finish(proc: subprocess.Popen) -> tuple[str, str]:
    """The rest of its output (through the text buffers: `communicate` would read the raw
    pipes and lose what the line iterator had already buffered)."""
    rest, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=60)
    return rest, err


def _start(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tessera", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_million_boards_stream_in_flat_memory_and_ctrl_c_keeps_them():
    proc = _start(MILLION)
    boards = 0
    early = None
    for line in proc.stdout:
        if line.startswith("puzzle "):
            boards += 1
            if boards == 200:
                early = _rss_kib(proc.pid)
            if boards == 3000:
                break
    late = _rss_kib(proc.pid)
    proc.send_signal(signal.SIGINT)
    rest, err = _finish(proc)
    assert proc.returncode == 130
    assert early is not None and late - early < 20_000, (early, late)  # KiB: nothing gathered
    assert err.strip().splitlines()[-1].startswith("interrupted after ")
    # what was printed is whole boards: every "puzzle" header has its answer
    assert rest.count("puzzle ") <= rest.count("answer:") + 1


def test_json_boards_stream_and_still_parse_after_ctrl_c():
    proc = _start([*MILLION, "--json"])
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if sum(x.startswith(' "kind"') for x in seen) >= 50:
            break
    proc.send_signal(signal.SIGINT)
    rest, err = _finish(proc)
    assert proc.returncode == 130
    boards = json.loads("".join(seen) + rest)
    assert len(boards) >= 50 and all(b["size"] == "4x3" for b in boards)
