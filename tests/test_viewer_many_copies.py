"""Issue 21 F6: a puzzle of thousands of piece copies opens in the window and shows its
solution, drawn in chunks (viewer/scenes/polycube.py `_chunked_scene`): a bounded number of
actors, every copy drawn exactly once where the solution puts it, step by step. Search mode
draws as many copies as its trace holds at once, and cuts the trace past the bound. Counted
through the window's real signals and actors, never timed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tessera.viewer.framing import mesh_cells
from tessera.viewer.scenes.polycube import MAX_PIECE_ACTORS, chunk_size, piece_mesh

pytestmark = [pytest.mark.timeout(600), pytest.mark.filterwarnings("ignore::UserWarning")]

WIDTH, HEIGHT = 100, 50  # a one-layer board of 5,000 cells, one monocube on each
COPIES = WIDTH * HEIGHT


@pytest.fixture
def monocubes(tmp_path):
    path = tmp_path / "monocubes.toml"
    rows = ", ".join(f'"{"#" * WIDTH}"' for _ in range(HEIGHT))
    path.write_text(
        f'kind = "polycube"\n[pieces.A]\ncells = [[0, 0, 0]]\ncopies = {COPIES}\n'
        f"[target]\nlayers = [[{rows}]]\n"
    )
    return path


def open_and_solve(qtbot, window, path) -> None:
    with qtbot.waitSignal(window.puzzle_loaded, timeout=60_000):
        assert window.open_puzzle(str(path))
    qtbot.waitUntil(lambda: window.state.solution is not None, timeout=300_000)


def shown_cells(renderer) -> list[tuple[int, int, int]]:
    """Every unit cell the visible piece actors draw, where they draw it (with repeats)."""
    out: list[tuple[int, int, int]] = []
    for key, spec in renderer.specs.items():
        actor = renderer.actors[key]
        if spec.role != "piece" or not actor.GetVisibility():
            continue
        found = mesh_cells(spec.mesh)
        assert found is not None, key
        matrix = np.asarray(actor.user_matrix, float)
        cells = found[0] @ matrix[:3, :3].T + matrix[:3, 3]
        out.extend(map(tuple, np.rint(cells).astype(int).tolist()))
    return out


def test_five_thousand_copies_show_their_solution_in_a_few_actors(qtbot, window, monocubes):
    open_and_solve(qtbot, window, monocubes)
    state, renderer = window.state, window.renderer
    assert state.scene.n_steps == COPIES
    pieces = [k for k, s in renderer.specs.items() if s.role == "piece"]
    size = chunk_size(COPIES)
    assert size == math.isqrt(COPIES - 1) + 1 == 71
    # one actor per chunk before the current one, one per piece of the current chunk
    assert len(pieces) <= math.ceil(COPIES / size) + size < COPIES // 30
    # the whole board, each copy once, on the target's cells
    window.actions["last"].trigger()
    target = mesh_cells(piece_mesh(state.family.puzzle.target.cells))[0]
    cells = shown_cells(renderer)
    assert len(cells) == len(set(cells)) == COPIES
    assert set(cells) == set(map(tuple, np.rint(target).astype(int).tolist()))
    # a step back takes one copy away; half way, half the board, in the order it is built
    with qtbot.waitSignal(window.step_shown, timeout=10_000):
        window.actions["back"].trigger()
    assert len(set(shown_cells(renderer))) == COPIES - 1
    with qtbot.waitSignal(window.step_shown, timeout=10_000):
        window.step_bar.step_requested.emit(2_500)
    half = shown_cells(renderer)
    assert len(half) == len(set(half)) == 2_500 and set(half) < set(cells)
    # drawn: the render merges what stands still into a few stand-ins
    with qtbot.waitSignal(window.rendered, timeout=10_000):
        window.schedule_render()
    assert 0 < renderer.merge.stand_ins <= 8
    assert renderer.merge.merged == sum(renderer.actors[k].GetVisibility() for k in pieces)


def test_search_mode_draws_what_its_trace_holds_and_cuts_it_past_the_bound(
    qtbot, window, monocubes
):
    open_and_solve(qtbot, window, monocubes)
    window.set_mode("search")
    scene, renderer = window.state.scene, window.renderer
    pieces = [k for k, s in renderer.specs.items() if s.role == "piece"]
    assert len(pieces) == MAX_PIECE_ACTORS
    assert scene.n_steps == MAX_PIECE_ACTORS  # one place per copy, until the bound
    window.actions["last"].trigger()
    cells = shown_cells(renderer)
    assert len(cells) == len(set(cells)) == MAX_PIECE_ACTORS
    assert "the trace is cut here" in scene.describe(scene.n_steps)
