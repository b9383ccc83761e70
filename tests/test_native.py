"""The kernels compiled ahead of time (`solvers.native`) against numba's JIT of the same sources:
the same answers, the same signatures as real calls, the GIL released, stale or damaged builds
ignored, and a command line run that never imports numba."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.polycube import load_polycube
from tessera.solvers import native
from tessera.solvers.exact_cover import ExactCoverSearch
from tessera.solvers.polycube.disassemble import disassemble
from tessera.solvers.polycube.packing import PackingProblem
from tests._paths import ROOT

ASSETS = ROOT / "assets"

pytestmark = pytest.mark.timeout(600)

BURRS = Path(__file__).parent / "fixtures" / "burrtools"


def _no_compiler() -> str | None:
    if native.TARGET_CPU is None:
        return f"no ahead-of-time target for {os.uname().machine}"
    from shutil import which

    if not (which("cc") or which("gcc")):
        return "no C compiler to build the kernels ahead of time (install gcc)"
    return None


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The built modules: the install's own when `make` built them, else built here."""
    if native.enabled() and native.up_to_date():
        yield native.folder()
        return
    reason = _no_compiler()
    if reason and not os.environ.get("CI"):
        pytest.skip(reason)
    where = tmp_path_factory.mktemp("native")
    try:
        native.build(where)
    except Exception as err:  # no Python headers, say: CI has them, so there it fails
        if os.environ.get("CI"):
            raise
        pytest.skip(f"the kernels could not be built ahead of time: {err}")
    old = os.environ.get("TESSERA_NATIVE_DIR")
    os.environ["TESSERA_NATIVE_DIR"] = str(where)
    native.forget()
    yield where
    if old is None:
        os.environ.pop("TESSERA_NATIVE_DIR", None)
    else:
        os.environ["TESSERA_NATIVE_DIR"] = old
    native.forget()


def _jit(monkeypatch):
    monkeypatch.setenv("TESSERA_NATIVE", "0")
    monkeypatch.setattr(native, "_loaded", {})


def _count(problem, bitsets):
    search = ExactCoverSearch(problem, bitsets=bitsets)
    return search.count(), search.nodes


PROBLEMS = ["soma.toml", "tetracubes-2x4x4.toml", "pentominoes-3x20.toml"]


@pytest.mark.parametrize("name", PROBLEMS)
@pytest.mark.parametrize("bitsets", [True, False], ids=["bitsets", "sparse-sets"])
def test_built_search_counts_as_the_jit_one(built, monkeypatch, name, bitsets):
    problem = PackingProblem(load_polycube(ASSETS / "puzzles" / name)).exact_cover
    assert native.loaded(native.CELLS) is not None  # else this would compare the JIT to itself
    mine = _count(problem, bitsets)
    _jit(monkeypatch)
    assert native.loaded(native.CELLS) is None
    assert _count(problem, bitsets) == mine
    assert mine[0] > 0


@pytest.mark.parametrize("case", ["box01", "lid03", "range02", "group04"])
def test_built_disassembler_takes_apart_as_the_jit_one(built, monkeypatch, case):
    from tessera.solvers.polycube.symmetry import ClassSearch

    puzzle = load_xmpuzzle(BURRS / f"{case}.xmpuzzle")
    assemblies = [
        [np.asarray(p.cells) for p in a.pieces] for a in ClassSearch(puzzle).representatives()
    ]
    assert native.loaded(native.MOVES) is not None

    def answers():
        out = []
        for cells in assemblies:
            result = disassemble(cells)
            out.append((result.complete, result.level, result.nodes, result.moves))
        return out

    mine = answers()
    _jit(monkeypatch)
    assert answers() == mine
    assert any(complete for complete, *_ in mine)


def test_signatures_are_those_of_real_calls(built, monkeypatch):
    """The built exports take exactly the types the Python side passes: numba's JIT, given the
    same calls, compiles these signatures and no others."""
    from tessera.solvers._cells_kernel import run
    from tessera.solvers.polycube._disassembly_kernel import _disassemble

    _jit(monkeypatch)
    problem = PackingProblem(load_polycube(ASSETS / "puzzles" / "soma.toml")).exact_cover
    _count(problem, True)
    _count(problem, False)
    puzzle = load_xmpuzzle(BURRS / "box01.xmpuzzle")
    from tessera.solvers.polycube.symmetry import ClassSearch

    for assembly in ClassSearch(puzzle).representatives():
        disassemble([np.asarray(p.cells) for p in assembly.pieces])
    wanted = native._signatures()
    cells = {s.args for m in (native.CELLS, native.CELLS_SETS) for s in wanted[m].values()}
    assert {s.args for s in run.nopython_signatures} <= cells
    assert len(run.nopython_signatures) == 2
    (taken_apart,) = _disassemble.nopython_signatures
    assert taken_apart.args == wanted[native.MOVES]["disassemble"].args
    assert taken_apart.return_type == wanted[native.MOVES]["disassemble"].return_type


def test_built_kernel_lets_other_threads_run(built):
    """During one long call into the built kernel another thread sees the kernel's arrays
    change: it could run meanwhile, so the call released the GIL (as `nogil=True` does). With
    the GIL held the watcher could only look before or after the call, never see it working."""
    problem = PackingProblem(load_polycube(ASSETS / "puzzles" / "pentominoes-6x10.toml"))
    search = problem.search()
    search.slice_nodes = 1 << 40  # the whole count in one call
    inside = threading.Event()
    done = threading.Event()

    def count():
        inside.set()
        search.count()
        done.set()

    worker = threading.Thread(target=count)
    worker.start()
    inside.wait()
    seen = set()
    while not done.is_set() and len(seen) < 3:
        seen.add(search._chosen.tobytes())
    worker.join()
    assert len(seen) >= 3, "the kernel's state never changed while another thread watched"


def test_a_stale_or_damaged_build_is_ignored(built, tmp_path, monkeypatch):
    """Another key (an edited kernel, another numba) names another file; a file that is not
    an extension module leaves the JIT in charge."""
    monkeypatch.setenv("TESSERA_NATIVE_DIR", str(tmp_path))
    monkeypatch.setattr(native, "_loaded", {})
    assert native.loaded(native.CELLS) is None
    native.path_of(native.CELLS).write_bytes(b"not a shared object")
    monkeypatch.setattr(native, "_loaded", {})
    assert native.loaded(native.CELLS) is None
    from tessera.solvers._cells_kernel import run

    assert native.cells_run() is run
    edited = tmp_path / "kernel.py"
    edited.write_bytes(native.SOURCES[1].read_bytes() + b"\n# edited\n")
    before = native.key()
    monkeypatch.setattr(native, "SOURCES", (*native.SOURCES[:1], edited, *native.SOURCES[2:]))
    assert native.key() != before


def test_a_command_line_analysis_never_imports_numba(built):
    code = (
        "import sys\n"
        "from tessera.cli.main import main\n"
        f"sys.argv = ['tessera', 'solve', {str(BURRS / 'lid03.xmpuzzle')!r}, '--disassemble',"
        " '--count', '--json']\n"
        "main()\n"
        "print('numba' in sys.modules)\n"
    )
    env = {**os.environ, "TESSERA_NATIVE_DIR": str(built)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT.parent, env=env
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert '"solutions"' in lines[0]
    assert lines[-1] == "False"
