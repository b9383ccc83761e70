"""The cluster count's fingerprint of a puzzle (`distributed.fingerprint`) names everything the
count depends on, colours included: it keys each worker's cache of prepared searches and a
checkpoint's header, so two puzzles that differ only in their colours must not share either."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tessera.models.errors import PuzzleError
from tessera.models.grids import grid_named
from tessera.models.polycube import PolycubePuzzle, load_polycube
from tessera.solvers.polycube.distributed import (
    Checkpoint,
    count_task,
    fingerprint,
    merge,
    plan_tasks,
)
from tessera.solvers.polycube.symmetry import ClassSearch
from tessera.solvers.registry import load_puzzle

# A red-ended domino and a plain cube in a row of three.
ROW = """
kind = "polycube"
name = "row"
[colours]
allow = [[1, 1]]
[pieces.D]
cells = [[0,0,0],[1,0,0]]
voxel_colours = [[0,0,0,1]]
[pieces.M]
cells = [[0,0,0]]
[target]
layers = [["###"]]
"""

VARIANTS = {
    "plain target": ROW,
    "left cell red": ROW + "voxel_colours = [[0,0,0,1]]\n",
    "right cell red": ROW + "voxel_colours = [[2,0,0,1]]\n",
    "left cell of colour 2": ROW + "voxel_colours = [[0,0,0,2]]\n",
    "red may not fill red": ROW.replace("allow = [[1, 1]]", "allow = []")
    + "voxel_colours = [[0,0,0,1]]\n",
    "the other end red": ROW.replace("[[0,0,0,1]]", "[[1,0,0,1]]"),
    "the domino of colour 2": ROW.replace("[[0,0,0,1]]", "[[0,0,0,2]]"),
    "no colours at all": ROW.replace("voxel_colours = [[0,0,0,1]]\n", "").replace(
        "[colours]\nallow = [[1, 1]]\n", ""
    ),
}


def load(tmp_path: Path, name: str) -> PolycubePuzzle:
    path = tmp_path / f"{name.replace(' ', '-')}.toml"
    path.write_text(VARIANTS[name])
    return load_polycube(path)


def test_puzzles_differing_only_in_colours_have_different_fingerprints(tmp_path) -> None:
    puzzles = {name: load(tmp_path, name) for name in VARIANTS}
    cells = {
        (
            tuple(map(bytes, (np.asarray(p.cells) for p in puzzle.pieces))),
            bytes(puzzle.target.cells),
        )
        for puzzle in puzzles.values()
    }
    assert len(cells) == 1  # the same pieces and target cells throughout
    prints = {name: fingerprint(p) for name, p in puzzles.items()}
    assert len(set(prints.values())) == len(VARIANTS), prints


def test_a_reloaded_puzzle_keeps_its_fingerprint(tmp_path) -> None:
    assert fingerprint(load(tmp_path, "left cell red")) == fingerprint(
        load(tmp_path, "left cell red")
    )


def test_a_plain_puzzle_keeps_the_fingerprint_it_had() -> None:
    """Checkpoints written before colours counted still resume: the value the fingerprint
    had for Soma (pieces, copies and target cells only)."""
    assert fingerprint(load_puzzle("soma", "polycube")) == "f8f05bda71fab5bf"


def test_ranges_grid_and_naming_rule_count_too(tmp_path) -> None:
    base = load(tmp_path, "no colours at all")
    ranged = dataclasses.replace(
        base, pieces=[dataclasses.replace(base.pieces[0], copies=2, min_copies=1), base.pieces[1]]
    )
    two = dataclasses.replace(
        base, pieces=[dataclasses.replace(base.pieces[0], copies=2)] + [base.pieces[1]]
    )
    variants = [
        base,
        ranged,
        two,
        dataclasses.replace(base, grid=grid_named("spheres")),
        dataclasses.replace(base, equal_pieces_alike=False),
    ]
    assert len({fingerprint(p) for p in variants}) == len(variants)


def cluster_count(puzzle: PolycubePuzzle):
    tasks = plan_tasks(puzzle, 4)
    counts = merge(puzzle, [count_task(puzzle, t) for t in tasks], partial=False)
    return counts.fixed, counts.up_to_rotation, counts.up_to_symmetry


def test_a_worker_counts_each_colouring_as_itself(tmp_path) -> None:
    """One process counts the variants one after another, as a worker given several puzzles
    would: each must get its own prepared search, not the one cached for a colouring before."""
    names = ["left cell red", "plain target", "red may not fill red", "the domino of colour 2"]
    counted, expected = [], []
    for name in names:
        puzzle = load(tmp_path, name)
        tally = ClassSearch(puzzle).tally()
        expected.append((tally.fixed, tally.up_to_rotation, tally.up_to_symmetry))
        counted.append(cluster_count(puzzle))
    assert counted == expected
    assert len(set(expected)) > 1  # the colours change the counts


def test_a_checkpoint_of_another_colouring_is_refused(tmp_path) -> None:
    path = tmp_path / "count.ckpt"
    Checkpoint(path, load(tmp_path, "left cell red"), 3)
    Checkpoint(path, load(tmp_path, "left cell red"), 3)  # the same puzzle resumes
    with pytest.raises(PuzzleError, match="belongs to another puzzle"):
        Checkpoint(path, load(tmp_path, "right cell red"), 3)
