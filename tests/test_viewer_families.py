"""The real window under Xvfb with the dice, domino and KenKen families, driven by QActions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tessera.models.assets import resolve_puzzle
from tessera.models.dice import SIDES, load_dice, orient
from tessera.solvers.kenken import known_digits
from tessera.solvers.trace import EventKind, stack_at
from tessera.viewer.families import builtin_groups
from tessera.viewer.scenes.base import hex_rgb
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

KEEN_4 = "4:ab__aa_7a3_,s1a9s2s1a4a6s2a1"  # the conformance 4×4 as a Keen game ID
DOMINOSA_2 = "2:001200112122"  # domino-small's numbers as a Dominosa game ID

#: family -> (a puzzle of it, the key prefix of its moving actors, actors shown when solved)
CASES = {
    "dice": ("instant-insanity", "die-", 4),
    "domino": ("domino-small", "tile-", 6),
    "kenken": ("nyt-4x4", "digit-", 16),
}


def open_and_wait(qtbot, window, name: str) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(name), getattr(window, "last_error", "")
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=20_000)


def shown(window, prefix: str) -> list[str]:
    return sorted(
        key
        for key, actor in window.renderer.actors.items()
        if key.startswith(prefix) and actor.visibility
    )


def forward(qtbot, window) -> float:
    with qtbot.waitSignal(window.step_shown, timeout=2000) as blocker:
        window.actions["forward"].trigger()
    return blocker.args[0]


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_family_steps_and_searches_in_the_window(qtbot, window, kind):
    name, prefix, solved = CASES[kind]
    open_and_wait(qtbot, window, str(puzzle_file(name)))
    state, a = window.state, window.actions
    assert state.family.family == kind
    assert state.step == state.n_steps == solved  # a solution opens finished
    assert len(shown(window, prefix)) == solved
    meshes = {key: id(actor.mapper.dataset) for key, actor in window.renderer.actors.items()}

    a["first"].trigger()
    assert state.step == 0 and shown(window, prefix) == []
    assert forward(qtbot, window) == 1.0 and len(shown(window, prefix)) == 1
    assert forward(qtbot, window) == 2.0 and len(shown(window, prefix)) == 2
    assert window.status_step.text() == f"step 2 of {solved}"
    assert window.step_bar.slider.value() == 2
    a["back"].trigger()
    assert state.step == 1 and len(shown(window, prefix)) == 1
    assert window.statusBar().currentMessage()  # the scene says what this step did
    a["last"].trigger()
    assert len(shown(window, prefix)) == solved
    assert meshes == {k: id(actor.mapper.dataset) for k, actor in window.renderer.actors.items()}

    a["mode_search"].trigger()
    assert state.mode == "search" and state.step == 0
    events = state.trace.events
    assert state.n_steps == len(events) and events[-1].kind is EventKind.SOLUTION
    a["last"].trigger()
    assert window.statusBar().currentMessage() == "solution found"
    a["first"].trigger()
    if kind == "kenken":  # at the start, what propagation alone makes certain
        grid = known_digits(state.family.puzzle, [])
        assert len(shown(window, prefix)) == sum(map(bool, np.ravel(grid)))
    else:
        assert shown(window, prefix) == []
        forward(qtbot, window)
        assert len(shown(window, prefix)) == len(stack_at(events, 1)) == 1
        assert window.step_bar.depth_label.text() == " depth 1"
    a["mode_solution"].trigger()
    assert state.mode == "solution" and state.n_steps == solved


def test_dice_strips_in_the_window_match_the_tower(qtbot, window):
    open_and_wait(qtbot, window, str(puzzle_file("instant-insanity")))
    state = window.state
    puzzle, stack = state.family.puzzle, state.solution
    window.actions["first"].trigger()
    forward(qtbot, window)
    strips = shown(window, "strip-")
    assert strips == [f"strip-{i}-0" for i in range(4)]  # the bottom die's four sides
    sides = [orient(puzzle.dice[0], stack[0])[s] for s in SIDES]
    assert state.scene.describe(1).endswith(
        ", ".join(
            f"{n} {c}" for n, c in zip(("front", "right", "back", "left"), sides, strict=True)
        )
    )


@pytest.mark.parametrize(
    "game_id, kind, steps", [(DOMINOSA_2, "domino", 6), (KEEN_4, "kenken", 16)]
)
def test_game_ids_open_in_the_window(qtbot, window, game_id, kind, steps):
    open_and_wait(qtbot, window, game_id)
    assert window.state.family.family == kind
    assert window.state.n_steps == steps
    assert window.recent_files()[0] == game_id  # offered again under File ▸ Open recent


def test_browser_groups_every_builtin_by_family(qtbot, window):
    from tessera.solvers.registry import FAMILIES

    groups = builtin_groups()
    assert {"dice", "domino", "polycube"} <= set(groups)
    for kind, items in groups.items():
        for stem, _ in items:
            item = window.browser.item_for(stem)
            assert item is not None and item.parent().text(0) == FAMILIES[kind].title, stem
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        window.browser._activated(window.browser.item_for("dice-five"))
    qtbot.waitUntil(lambda: len(window.state.solutions) == 3, timeout=10_000)
    assert window.state.family.family == "dice"


def test_view_screenshot_shows_the_dice_as_a_person_sees_them(tmp_path):
    puzzle = "dice-five"
    out = tmp_path / "window.png"
    tessera = Path(sys.executable).with_name("tessera")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}  # recent files: not the user's
    done = subprocess.run(
        [str(tessera), "view", puzzle, "--step", "2", "--screenshot", str(out)],
        capture_output=True, text=True, timeout=90, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    import imageio.v3 as iio

    image = iio.imread(out)[..., :3]
    assert image.shape[0] > 400 and image.shape[1] > 600
    h, w = image.shape[:2]
    middle = image[h // 4 : 3 * h // 4, w // 3 : -w // 3]
    assert middle.std() > 10 and middle.mean() > 60  # the 3D view is drawn, not black
    # step 2: two dice on the tower and in the strips, in the puzzle's colours
    colours = load_dice(resolve_puzzle(puzzle)).colors.values()
    rgb = image.astype(float) + 1
    chroma = rgb / rgb.sum(axis=-1, keepdims=True)
    found = 0
    for c in colours:
        want = np.array(hex_rgb(c), float) + 1
        found += (np.abs(chroma - want / want.sum()).max(axis=-1) < 0.04).sum() > 100
    assert found >= 4
