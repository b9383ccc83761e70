"""The one framing (viewer/framing.py), checked by pixels of the headless export path: every
step and half-step of a few solutions fits the frame without touching its border and fills
most of it, and the piece under way is seen (rendered as flat piece-ID colours)."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.viewer import export, framing
from tessera.viewer.families import load
from tessera.viewer.scenes import build_scene
from tests._paths import CONFORMANCE, needs_conformance

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BUILT_IN = ["soma", "six-piece-cube", "pentominoes-3x4x5", "soma-pyramid"]
SHARED = [
    pytest.param(str(CONFORMANCE / "burrtools" / name), id=name, marks=needs_conformance)
    for name in ("PelikanBurr.xmpuzzle", "CubeInCage.xmpuzzle")
]
PUZZLES = [pytest.param(name, id=name) for name in BUILT_IN] + SHARED
SIZE = (480, 360)
ID_SIZE = (240, 180)


def scene_of(name: str):
    family = load(name)
    return build_scene(family, family.solution(0))


def half_steps(scene) -> list[float]:
    return [i / 2 for i in range(2 * scene.n_steps + 1)]


@pytest.fixture(scope="module")
def plotter():
    p = export.open_plotter(SIZE)
    yield p
    p.close()


@pytest.fixture(scope="module")
def id_plotter():
    p = export.open_plotter(ID_SIZE)
    p.set_background("black")
    yield p
    p.close()


def grab_alpha(plotter) -> np.ndarray:
    image = np.asarray(plotter.screenshot(transparent_background=True, return_img=True))
    return image[..., 3] > 0


@pytest.mark.parametrize("name", PUZZLES)
def test_every_step_fits_and_fills_the_frame(plotter, name):
    scene = scene_of(name)
    plotter.set_background("white")  # a transparent background needs a flat one
    shown = export._Shown(plotter, scene, 0.0, None)
    problems = []
    try:
        for step in half_steps(scene):
            shown.apply(step)
            shown.aim()
            plotter.render()
            drawn = grab_alpha(plotter)
            border = drawn[0].any() or drawn[-1].any() or drawn[:, 0].any() or drawn[:, -1].any()
            rows, cols = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
            fill = max(np.ptp(cols) + 1, 0) / SIZE[0], max(np.ptp(rows) + 1, 0) / SIZE[1]
            if border or max(fill) < 0.55:
                problems.append((step, "cut off" if border else f"fills {max(fill):.0%}"))
    finally:
        shown.renderer.clear()
    assert not problems, problems


def id_image(plotter, renderer, moving: set[str], alone: bool) -> tuple[np.ndarray, dict]:
    """Each piece in its own flat colour (no light, no edges); see-through pieces, which hide
    nothing, and guides are left out; `alone`: the moving pieces only."""
    colours = {}
    for i, (key, actor) in enumerate(renderer.actors.items()):
        spec = renderer.specs[key]
        prop = actor.prop
        prop.lighting, prop.show_edges = False, False
        prop.ambient, prop.diffuse, prop.specular = 1.0, 0.0, 0.0
        colour = np.array(((i * 37) % 200 + 40, (i * 91) % 200 + 40, (i * 53) % 200 + 40))
        prop.color = tuple(colour / 255)
        prop.opacity = 1.0
        colours[key] = colour
        see_through = spec.opacity < 1 and key not in moving
        if spec.role != "piece" or see_through or (alone and key not in moving):
            actor.visibility = False
    plotter.render()
    return np.asarray(plotter.screenshot(return_img=True))[..., :3].astype(int), colours


def pixels_of(image: np.ndarray, colours: dict, keys) -> int:
    return int(sum((np.abs(image - colours[k]) <= 2).all(axis=-1).sum() for k in keys))


@pytest.mark.parametrize("name", PUZZLES)
def test_the_moving_piece_is_at_least_half_seen(id_plotter, name):
    scene = scene_of(name)
    shown = export._Shown(id_plotter, scene, 0.0, None)
    renderer = shown.renderer
    hidden_behind = []
    try:
        for step in half_steps(scene)[1:]:
            moving = set(framing.moving_keys(scene, step))
            assert moving, step
            shown.apply(step)
            shown.aim()
            image, colours = id_image(id_plotter, renderer, moving, alone=False)
            seen = pixels_of(image, colours, moving)
            image, colours = id_image(id_plotter, renderer, moving, alone=True)
            whole = pixels_of(image, colours, moving)
            assert whole > 0, step
            if seen < 0.5 * whole:
                hidden_behind.append((step, sorted(moving), round(seen / whole, 2)))
            renderer.show(scene, step, frame=False)  # fresh actors for the next step
    finally:
        renderer.clear()
    assert not hidden_behind, hidden_behind


def test_fit_holds_every_point_with_the_margin():
    rng = np.random.default_rng(1)
    points = rng.normal(size=(50, 3)) * (3, 1, 0.5) + (10, -4, 2)
    for aspect in (0.5, 4 / 3, 2.5):
        shot = framing.fit(points, (1, -1.6, 1.2), (0, 0, 1), aspect)
        right, up, d = framing._basis(shot.direction, shot.up)
        rel = points - np.asarray(shot.position)
        depth = -(rel @ d)
        tan_v = np.tan(np.radians(shot.view_angle / 2))
        x = np.abs(rel @ right) / depth / (tan_v * aspect)
        y = np.abs(rel @ up) / depth / tan_v
        assert max(x.max(), y.max()) <= 1 - framing.MARGIN + 1e-9
        assert max(x.max(), y.max()) >= 1 - framing.MARGIN - 1e-6  # as tight as it may be


def test_a_gliding_camera_keeps_every_frame_in_and_moves_smoothly():
    scene = scene_of("soma")
    steps = [i / 8 for i in range(scene.n_steps * 8 + 1)]
    points = [framing.step_points(scene, s) for s in steps]
    shots = framing.glide(scene, steps, 4 / 3, points)
    for shot, pts in zip(shots, points, strict=True):
        assert framing.contain(shot, pts, 4 / 3) == shot  # nothing had to be pushed back
    turns = [
        np.degrees(np.arccos(np.clip(a.direction @ b.direction, -1, 1)))
        for a, b in zip(shots, shots[1:], strict=False)
    ]
    assert max(turns) < 45  # eased over several frames, never a cut
