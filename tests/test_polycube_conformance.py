"""Every polycube count in ../shared/conformance/expected.toml, found by our engine."""

from __future__ import annotations

import pytest

from tessera.cli.polycube import load_any_polycube
from tessera.solvers.polycube_symmetry import ClassSearch
from tests._paths import CONFORMANCE, expected

CASES = {
    key: value
    for key, value in expected().items()
    if key.startswith(("polycube/", "burrtools/")) and key != "polycube/bedlam.toml"
}


def test_every_polycube_case_is_covered():
    assert "polycube/soma.toml" in CASES and "burrtools/PelikanBurr.xmpuzzle" in CASES
    assert len(CASES) >= 6


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_match_published(case):
    puzzle = load_any_polycube(str(CONFORMANCE / case))
    counts = ClassSearch(puzzle).tally()
    want = CASES[case]
    assert counts.fixed == want["fixed"]
    assert counts.up_to_rotation == want["up_to_rotation"]
    if "up_to_symmetry" in want:
        assert counts.up_to_symmetry == want["up_to_symmetry"]
    assert not counts.partial


@pytest.mark.slow
def test_bedlam_distinct_count():
    """Bedlam's 19186 is counted with one piece held still: exactly our rotation classes."""
    want = expected()["polycube/bedlam.toml"]
    puzzle = load_any_polycube(str(CONFORMANCE / "polycube/bedlam.toml"))
    counts = ClassSearch(puzzle, mirrors=False).tally()
    assert counts.up_to_rotation == want["up_to_rotation"]
    assert counts.fixed == want["fixed"]


def test_representatives_are_one_per_class_and_valid():
    puzzle = load_any_polycube(str(CONFORMANCE / "polycube/soma.toml"))
    job = ClassSearch(puzzle)
    reps = list(job.representatives())
    assert len(reps) == expected()["polycube/soma.toml"]["up_to_symmetry"]
    canon = {job.group.canonical(s) for s in reps}
    assert len(canon) == len(reps)
    for solution in reps[:20]:
        cells = [tuple(c) for p in solution.pieces for c in p.cells.tolist()]
        assert len(cells) == len(set(cells)) == 27
