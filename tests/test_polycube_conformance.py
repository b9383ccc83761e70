"""Every published polycube count, found by our engine: the project's own fixtures always,
and every case of ../shared/conformance/expected.toml when that folder is beside the clone."""

from __future__ import annotations

import pytest

from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load_puzzle
from tests._paths import HAVE_CONFORMANCE, case, ground_truth

CASES = [
    (name, path, truth)
    for prefix in ("polycube/", "burrtools/")
    for name, path, truth in ground_truth(prefix)
    if not name.endswith("bedlam.toml")
]


def test_every_polycube_case_is_covered():
    names = {name for name, *_ in CASES}
    assert {"own:polycube/soma.toml", "own:polycube/pentominoes-6x10.toml"} <= names
    if HAVE_CONFORMANCE:
        assert "shared:burrtools/PelikanBurr.xmpuzzle" in names
        assert len(names) >= 11


@pytest.mark.parametrize("path, want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_counts_match_published(path, want):
    puzzle = load_puzzle(path, "polycube")
    counts = ClassSearch(puzzle).tally()
    assert counts.fixed == want["fixed"]
    assert counts.up_to_rotation == want["up_to_rotation"]
    if "up_to_symmetry" in want:
        assert counts.up_to_symmetry == want["up_to_symmetry"]
    assert not counts.partial


@pytest.mark.parametrize("key", ["polycube/soma.toml", "polycube/six-piece-cube.toml"])
def test_rotation_classes_with_one_piece_held(key):
    """How Bedlam's 19186 is counted (one piece held still, no mirror search: exactly the
    rotation classes), on puzzles small enough for the suite; Bedlam itself is counted and
    checked by benchmarks/bench_polycube.py."""
    path, want = case(key)
    counts = ClassSearch(load_puzzle(path, "polycube"), mirrors=False).tally()
    assert counts.up_to_rotation == want["up_to_rotation"]
    assert counts.fixed == want["fixed"]


def test_representatives_are_one_per_class_and_valid():
    path, want = case("polycube/soma.toml")
    job = ClassSearch(load_puzzle(path, "polycube"))
    reps = list(job.representatives())
    assert len(reps) == want["up_to_symmetry"]
    canon = {job.group.canonical(s) for s in reps}
    assert len(canon) == len(reps)
    for solution in reps[:20]:
        cells = [tuple(c) for p in solution.pieces for c in p.cells.tolist()]
        assert len(cells) == len(set(cells)) == 27
