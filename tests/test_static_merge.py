"""Pieces standing still are drawn merged by look, without the faces they hide (`StaticMerge`
in viewer/render.py): the picture stays the same, the faces drawn drop, a step builds little,
and every other part of the viewer sees the actors as before the render.

All off screen (`export.open_plotter`), counted, never timed."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.inspect import Inspector, InspectState
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes import build_scene

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
SIZE = (400, 300)


@pytest.fixture(scope="module")
def bedlam():
    family = load("bedlam")
    return family, build_scene(family, family.solution(0), "solution")


def shown(scene, step, merge=True, inspect: InspectState | None = None):
    plotter = export.open_plotter(SIZE)
    renderer = SceneRenderer(plotter)
    renderer.merge.enabled = merge
    renderer.show(scene, step)
    if inspect is not None:
        inspector = Inspector(renderer, inspect)
        inspector.capture()
    return plotter, renderer


def picture(scene, step, merge=True, inspect=None) -> np.ndarray:
    plotter, _ = shown(scene, step, merge, inspect)
    try:
        return plotter.screenshot(return_img=True).astype(int)
    finally:
        plotter.close()


def assert_same_picture(a: np.ndarray, b: np.ndarray) -> None:
    """The same picture: floating-point noise (a level or two) on some pixels, and a few
    pixels where an edge of a culled back face no longer shows through at a silhouette."""
    difference = np.abs(a - b).max(axis=2)
    assert (difference > 8).sum() <= 150, (difference > 8).sum()
    assert (difference > 2).mean() < 0.002


def render(plotter) -> None:
    plotter.ren_win.Render()  # pyvista's render() waits for a first show() off screen


def drawn_faces(renderer: SceneRenderer) -> int:
    look = renderer.merge._looks.values()
    return sum(b.actor.GetMapper().GetInput().GetNumberOfCells() for lk in look for b in lk.batches)


@pytest.mark.parametrize("step", [0, 1, 5, 5.5, "last"])
def test_merged_pictures_are_the_pictures(bedlam, step):
    _, scene = bedlam
    step = scene.n_steps if step == "last" else step
    assert_same_picture(picture(scene, step, merge=False), picture(scene, step, merge=True))


@pytest.mark.parametrize(
    "inspect",
    [
        InspectState(explode=0.6),
        InspectState(ghost=True, selected="piece-3-0"),
        InspectState(selected="piece-3-0"),
        InspectState(layer_axis=2, layer=1),
        InspectState(hidden=frozenset({"piece-0-0", "piece-1-0"})),
    ],
    ids=["explode", "ghost", "selected", "cut", "hidden"],
)
def test_what_the_inspector_shows_is_unchanged(bedlam, inspect):
    _, scene = bedlam
    for step in (7, scene.n_steps):
        before = picture(scene, step, merge=False, inspect=inspect.copy())
        assert_same_picture(before, picture(scene, step, merge=True, inspect=inspect.copy()))


@pytest.mark.parametrize(
    "name", ["soma", "polysphere-pyramid", "prisms-hexagon-block", "rhombic-pyramid",
             "box-sliding-lid"],
)  # fmt: skip
def test_other_grids_and_see_through_boxes_look_the_same(name):
    family = load(name)
    scene = build_scene(family, family.solution(0), "solution")
    for step in (scene.n_steps // 2 + 0.5, scene.n_steps):
        assert_same_picture(picture(scene, step, merge=False), picture(scene, step))


def test_the_assembled_cube_draws_only_its_outer_faces(bedlam):
    _, scene = bedlam
    plotter, renderer = shown(scene, scene.n_steps)
    try:
        pieces = [k for k, s in renderer.specs.items() if s.role == "piece"]
        own = sum(renderer.specs[k].mesh.n_cells for k in pieces)
        render(plotter)
        assert renderer.merge.merged == len(pieces) == 13
        # 4x4x4: 6 sides of 16 unit squares; the 186 faces where two pieces touch are gone
        assert drawn_faces(renderer) == 96 < own == 282
        # and after the render every actor is as the renderer left it
        assert all(renderer.actors[k].GetVisibility() for k in pieces)
        assert not any(
            b.actor.GetVisibility() for lk in renderer.merge._looks.values() for b in lk.batches
        )
    finally:
        plotter.close()


def test_a_step_builds_only_what_changed(bedlam):
    _, scene = bedlam
    plotter, renderer = shown(scene, 0)
    try:
        render(plotter)
        builds = []
        for step in range(1, scene.n_steps + 1):
            before = renderer.merge.builds
            renderer.apply(step)
            render(plotter)
            builds.append(renderer.merge.builds - before)
        # one piece arrives (its own batch), the one before it is dimmed (a batch of its look):
        # a step builds a few small batches, never the whole assembly again; the last one
        # shows every piece undimmed: each look once
        assert max(builds[:-1]) <= 4 and sum(builds[:-1]) <= 3 * scene.n_steps, builds
        assert builds[-1] <= 13
        before = renderer.merge.builds
        renderer.orbit(30.0)
        render(plotter)
        assert renderer.merge.builds == before  # a camera move builds nothing
    finally:
        plotter.close()


def test_a_moved_or_unmerged_piece_leaves_its_batch(bedlam):
    _, scene = bedlam
    plotter, renderer = shown(scene, scene.n_steps)
    try:
        render(plotter)
        key = "piece-2-0"
        actor = renderer.actors[key]
        actor.prop.opacity = 0.5  # translucent: drawn by itself again
        render(plotter)
        merged = {k for lk in renderer.merge._looks.values() for b in lk.batches for k in b.members}
        assert key not in merged and len(merged) == 12
        # its neighbours' faces it hid show again: more faces than the outer 96 are drawn
        assert drawn_faces(renderer) > 96 - renderer.specs[key].mesh.n_cells
    finally:
        plotter.close()


def test_a_new_solution_keeps_the_pieces_actors(bedlam):
    family, scene = bedlam
    other = build_scene(family, family.solution(1), "solution")
    plotter, renderer = shown(scene, scene.n_steps)
    try:
        render(plotter)
        kept = dict(renderer.actors)
        renderer.show(other, 4.5)
        assert all(renderer.actors[k] is kept[k] for k in kept)  # nothing uploaded again
        render(plotter)
        image = plotter.screenshot(return_img=True).astype(int)
    finally:
        plotter.close()
    assert_same_picture(picture(other, 4.5), image)


@pytest.mark.parametrize("name", ["bedlam", "soma", "pentominoes-6x10"])
def test_stepping_back_and_forth_draws_each_step_as_a_fresh_view(name):
    """The batches kept from step to step never leave a hole or a stale face: every step,
    reached forwards, backwards or by a jump, looks as it does drawn from scratch."""
    family = load(name)
    scene = build_scene(family, family.solution(0), "solution")
    n = scene.n_steps
    steps = [*range(n + 1), n - 0.5, *range(n, -1, -2), 3, n - 1, 2.5, n, 1]
    plotter, renderer = shown(scene, 0)
    try:
        for step in steps:
            renderer.apply(step)
            renderer.frame_camera((1.0, -1.6, 1.2))
            render(plotter)  # (an off-screen screenshot after the first grabs what is drawn)
            image = plotter.screenshot(return_img=True).astype(int)
            fresh_plotter, fresh = shown(scene, step)
            fresh.frame_camera((1.0, -1.6, 1.2))
            expected = fresh_plotter.screenshot(return_img=True).astype(int)
            fresh_plotter.close()
            assert_same_picture(expected, image)
    finally:
        plotter.close()
