"""Kill the real `tessera` while it writes over a previous good export: the path must then hold
the previous file byte for byte, or the complete new one, never a torn file (issue #11).

For each export kind (PNG, GIF, MP4, HTML, STL folder) one full run writes the previous good
"A" and times how long writing lasts; then `TESSERA_KILLS` runs (default 2) of a distinguishable
"B" are SIGKILLed at seeded random moments after they have started writing (detected by polling
for a non-empty temporary file or a change at the final path, so the test is just as able to
catch a writer that is not atomic). For the MP4, one more run gets Ctrl-C (SIGINT to its process
group, as a terminal sends it) and must exit 130 leaving the previous video and no temporary
file, its own or the killed runs'. For the quick kinds (HTML, STL) a last full run must succeed
and clear the killed runs' leftovers; the slow PNG and GIF skip it to keep the default run near
a minute (every run of a `tessera` command costs about 3 s of CPU, mostly imports; the clearing
is one mechanism for all).
`TESSERA_KILLS=100 pytest tests/test_export_kill.py` is the long fuzz; `TESSERA_KILL_SEED`
picks other moments.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import imageio.v2 as iio2
import imageio.v3 as iio
import numpy as np
import pytest

from tessera.models.mesh import read_stl, weld
from tessera.models.stl_export import piece_parts
from tessera.solvers.registry import load_puzzle

KILLS = int(os.environ.get("TESSERA_KILLS", "2"))
SEED = int(os.environ.get("TESSERA_KILL_SEED", "11"))
RUN_LIMIT = 180.0  # seconds any one run may take before the test gives up on it

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@dataclass
class Kind:
    """One export: the command lines writing A and B, and a checker that says which complete
    version a path holds (raising if it holds neither)."""

    name: str
    out: str
    argv_a: list[str]
    argv_b: list[str]
    version: Callable[[Path], str]


def png_version(path: Path) -> str:
    image = iio.imread(path)
    assert len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 20  # a real picture
    return {(150, 200): "A", (180, 240): "B"}[image.shape[:2]]


def gif_version(path: Path) -> str:
    frames = iio.imread(path, index=None)
    assert len(frames) >= 8  # every frame there (the count grows if the last frame is held)
    return {(72, 96): "A", (84, 112): "B"}[frames.shape[1:3]]


def mp4_version(path: Path) -> str:
    reader = iio2.get_reader(path)
    try:
        frames, size = reader.count_frames(), reader.get_meta_data()["size"]
        last = reader.get_data(frames - 1)
    finally:
        reader.close()
    assert last.std() > 10  # the last frame decodes to a picture
    assert frames >= 8  # every frame there (more when the last frame is held)
    return {(96, 64): "A", (128, 96): "B"}[tuple(size)]


def html_version(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
    boards = text.count('<section class="puzzle"')
    assert boards == text.count("</section>") == text.count("</svg>")
    return {2: "A", 12: "B"}[boards]


def closed_shells(path: Path) -> None:
    """A complete binary STL whose every edge borders exactly two triangles."""
    corners, _, _ = read_stl(path)
    _, triangles = weld(corners)
    edges = np.sort(
        np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]]), axis=1
    )
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert len(triangles) and set(counts.tolist()) == {2}, f"{path.name} is not closed"


def stl_names(puzzle: str) -> set[str]:
    return {part.filename for part in piece_parts(load_puzzle(puzzle, "polycube"))}


def stl_version(path: Path) -> str:
    names = {p.name for p in path.iterdir()}
    version = {frozenset(stl_names("soma")): "A", frozenset(stl_names("pentominoes-3x20")): "B"}
    label = version[frozenset(names)]
    for name in names:
        closed_shells(path / name)
    return label


KINDS = [
    Kind(
        "png", "shot.png",
        ["render", "soma", "--size", "200x150"],
        ["render", "soma", "--size", "240x180", "--step", "5"],
        png_version,
    ),
    Kind(
        "gif", "anim.gif",
        ["animate", "soma", "--size", "96x72", "--frames-per-step", "1"],
        ["animate", "soma", "--size", "112x84", "--frames-per-step", "2"],
        gif_version,
    ),
    Kind(
        "mp4", "anim.mp4",
        ["animate", "soma", "--size", "96x64", "--frames-per-step", "1"],
        ["animate", "soma", "--size", "128x96", "--frames-per-step", "2"],
        mp4_version,
    ),
    Kind(
        "html", "boards.html",
        ["domino", "generate", "--size", "6x5", "--count", "2", "--seed", "1", "--html"],
        ["domino", "generate", "--size", "8x7", "--count", "12", "--seed", "2", "--html"],
        html_version,
    ),
    Kind(
        "stl", "pieces",
        ["stl", "soma", "--cell-mm", "10"],
        ["stl", "pentominoes-3x20"],
        stl_version,
    ),
]  # fmt: skip


def command(kind: Kind, argv: list[str], out: Path) -> list[str]:
    flag = [] if argv[-1] == "--html" else ["--out"]
    return [sys.executable, "-m", "tessera", *argv, *flag, str(out)]


def headless_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def snapshot(path: Path):
    """What is at `path`: bytes of a file, {name: bytes} of a folder, None if nothing."""
    if path.is_dir():
        return {p.name: p.read_bytes() for p in path.iterdir()}
    return path.read_bytes() if path.exists() else None


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _signature(path: Path):
    try:
        info = path.stat()
    except OSError:
        return None
    listing = tuple(sorted(os.listdir(path))) if path.is_dir() else ()
    return info.st_ino, info.st_mtime_ns, info.st_size, listing


def temporaries(out: Path) -> set[str]:
    head = f".{out.stem if out.suffix else out.name}.tmp-"
    return {name for name in os.listdir(out.parent) if name.startswith(head)}


def writing_started(out: Path, before, old_temporaries: set[str]) -> bool:
    """A new temporary sibling with something in it (not a killed run's leftover), or any
    change at the final path itself."""
    if _signature(out) != before:
        return True
    for name in temporaries(out) - old_temporaries:
        path = out.parent / name
        try:
            if path.is_dir() and os.listdir(path) or path.stat().st_size > 0:
                return True
        except OSError:
            continue
    return False


class Run:
    """One `tessera` process in its own session, watched until it starts writing."""

    def __init__(self, argv: list[str], out: Path) -> None:
        self.out = out
        before, old = _signature(out), temporaries(out)
        self.start = time.monotonic()
        self.proc = subprocess.Popen(
            argv, cwd=out.parent, env=headless_env(), start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.started_writing = self._wait_for_writing(before, old)

    def _wait_for_writing(self, before, old: set[str]) -> float | None:
        deadline = self.start + RUN_LIMIT
        while self.proc.poll() is None and time.monotonic() < deadline:
            if writing_started(self.out, before, old):
                return time.monotonic()
            time.sleep(0.002)  # fine enough, and leaves the CPU to the writer
        return None

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=RUN_LIMIT)
        return self.proc.returncode, out.decode(), err.decode()

    def kill_after(self, delay: float, sig: int = signal.SIGKILL) -> None:
        try:
            self.proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, sig)
        self.proc.communicate(timeout=RUN_LIMIT)


def kill_while_writing(kind: Kind, out: Path, rng: random.Random, window: float) -> str:
    """One B run killed at a random moment once it writes: "previous", "new" or "absent" (a
    folder between the two renames where the system cannot swap in one step); else fail."""
    before = snapshot(out)
    run = Run(command(kind, kind.argv_b, out), out)
    # half the kills land as soon as writing shows, the rest anywhere until the end
    run.kill_after(0.0 if rng.random() < 0.5 else rng.uniform(0, window))
    after = snapshot(out)
    if after == before:
        return "previous"
    if after is None:
        restore = Run(command(kind, kind.argv_a, out), out)  # the next kill needs a previous
        assert restore.finish()[0] == 0
        return "absent"
    assert kind.version(out) == "B", f"{out} holds neither the old nor a complete new export"
    return "new"


def ctrl_c_while_writing(kind: Kind, out: Path) -> None:
    before = snapshot(out)
    # a long export (the last --frames-per-step wins), so it is still writing when the
    # signal lands however busy the machine: a short one could finish first and exit 0
    run = Run(command(kind, [*kind.argv_b, "--frames-per-step", "60"], out), out)
    assert run.started_writing is not None
    os.killpg(run.proc.pid, signal.SIGINT)
    code, _, err = run.finish()
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "tessera: interrupted"
    assert snapshot(out) == before
    assert leftovers(out.parent) == []  # Ctrl-C cleans up after itself


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_a_killed_export_leaves_the_previous_file_or_the_new_one(tmp_path, kind):
    rng = random.Random(f"{SEED}-{kind.name}")
    out = tmp_path / kind.out
    first = Run(command(kind, kind.argv_a, out), out)
    code, _, err = first.finish()
    assert code == 0, err
    assert kind.version(out) == "A"
    window = time.monotonic() - (first.started_writing or first.start)
    outcomes = [kill_while_writing(kind, out, rng, window) for _ in range(KILLS)]
    counts = {label: outcomes.count(label) for label in ("previous", "new", "absent")}
    print(f"{kind.name}: {KILLS} kills -> {counts}, 0 broken")
    if kind.name == "mp4":
        ctrl_c_while_writing(kind, out)
    if kind.name in ("png", "gif", "mp4"):
        return
    code, _, err = Run(command(kind, kind.argv_b, out), out).finish()
    assert code == 0, err
    assert kind.version(out) == "B"
    assert leftovers(tmp_path) == [], "a killed run's temporary files were not cleared"
