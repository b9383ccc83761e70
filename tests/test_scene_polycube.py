"""Polycube scenes as pure data: meshes, placements and poses, without drawing anything."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.solvers.trace import EventKind, stack_at
from tessera.viewer.families import load
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes._surface import cell_quads
from tessera.viewer.scenes.polycube import placement_matrix
from tests.conftest import puzzle_file


@pytest.fixture(scope="module")
def soma():
    family = load(str(puzzle_file("soma")))
    return family, family.solution(0)


def test_cell_quads_are_the_outer_faces_of_a_closed_surface():
    from tessera.viewer.scenes.base import quads_mesh

    cells = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
    vertices, quads = cell_quads(cells)
    assert len(quads) == 4 * 6 - 2 * 3  # three shared faces hidden
    mesh = quads_mesh(vertices, quads)
    assert mesh.is_manifold
    assert mesh.triangulate().volume == pytest.approx(4.0)


def test_placement_matrices_put_each_piece_on_its_cells(soma):
    family, solution = soma
    for placed in solution.pieces:
        own = family.puzzle.pieces[placed.piece].cells
        m = placement_matrix(own, placed.cells)
        moved = own @ m[:3, :3].T + m[:3, 3]
        assert sorted(map(tuple, moved.round().astype(int).tolist())) == sorted(
            map(tuple, placed.cells.tolist())
        )
        assert round(np.linalg.det(m[:3, :3])) == 1


def test_solution_poses_step_by_step(soma):
    family, solution = soma
    scene = build_scene(family, solution)
    assert scene.n_steps == len(solution.pieces) == 7
    assert sum(p.visible for p in scene.pose(0).values()) == 0
    for step in range(1, 8):
        pose = scene.pose(step)
        assert sum(p.visible for p in pose.values()) == step
    assert {p.emphasis for p in scene.pose(7).values() if p.visible} == {"normal"}
    mid, landed = scene.pose(2.5), scene.pose(3)
    flying = [k for k, p in mid.items() if p.visible and p.emphasis == "active"]
    assert len(flying) == 1
    key = flying[0]
    shift = landed[key].matrix[:3, 3] - mid[key].matrix[:3, 3]
    assert np.count_nonzero(np.round(shift, 6)) == 1  # along one axis: its free direction
    assert "slides in along" in scene.describe(3)


def test_search_poses_follow_the_trace_stack(soma):
    family, _ = soma
    trace = family.trace()
    assert trace.events and not trace.truncated
    assert trace.events[-1].kind is EventKind.SOLUTION
    scene = build_scene(family, None, "search", trace)
    assert scene.n_steps == len(trace.events)
    for step in (0, 1, 5, 40, len(trace.events)):
        visible = sum(p.visible for p in scene.pose(step).values())
        assert visible == len(stack_at(trace.events, step)) == scene.depth(step)
    assert scene.describe(len(trace.events)) == "solution found"
