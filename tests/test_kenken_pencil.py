"""Pencil marks in KenKen's Search mode: every open cell shows the digits still possible at that
step of the search, as Tatham's Keen draws them.

The candidates come from the solver's own trace (`KenKenEvent.candidates`), so they are what
the search knew, backtracks included; the scene turns per-row pencil wheels to show them (no
mesh is built per step); the window draws them legibly at 1200×760."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

import tessera.solvers.kenken as kenken
from tessera.models.kenken import load_kenken
from tessera.solvers.kenken import (
    KenKenEvent,
    KenKenSearch,
    candidates_at,
    decode_choice,
    digits_of,
    known_digits,
)
from tessera.solvers.trace import EventKind, TraceEvent, stack_at
from tessera.viewer.families import load
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.kenken import PENCIL_PITCH, Pencil
from tests.conftest import puzzle_file

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def digits(mask: int) -> set[int]:
    return {d + 1 for d in range(mask.bit_length()) if mask >> d & 1}


# -- the solver's trace -----------------------------------------------------------------------
@pytest.mark.parametrize("probe", [False, "auto"])
def test_each_event_carries_the_candidates_the_search_had(probe):
    puzzle = load_kenken("kenken-9x9")  # needs guesses, and one of them fails
    n = puzzle.size
    search = KenKenSearch(puzzle, trace=True, probe=probe)
    (solution,) = list(search.solutions())
    events = search.events
    kinds = [e.kind for e in events]
    assert EventKind.REMOVE in kinds and EventKind.SOLUTION in kinds  # the whole tree
    truth = [solution[r][c] for r in range(n) for c in range(n)]
    root = candidates_at(puzzle, events, 0)
    # the search starts from what propagation alone gives: every solution digit still in
    assert all(1 << (d - 1) & m for d, m in zip(truth, root, strict=True))
    assert digits_of(root, n) == known_digits(puzzle, [])
    before = root
    for step, event in enumerate(events, 1):
        assert isinstance(event, KenKenEvent)
        assert len(event.candidates) == 2 * n * n  # two bytes a cell: a bounded trace
        masks = candidates_at(puzzle, events, step)
        assert masks == event.masks()
        stack = stack_at(events, step)
        if event.kind is EventKind.PLACE:
            r, c, digit = decode_choice(event.choice, n)
            assert masks[r * n + c] == 1 << (digit - 1)  # the guess
            # a guess only narrows what the search had before it
            assert all(m & ~b == 0 for m, b in zip(masks, before, strict=True))
        elif event.kind is EventKind.REMOVE:
            r, c, digit = decode_choice(event.choice, n)
            assert digit not in digits(masks[r * n + c])  # refuted, struck out
        else:
            assert digits_of(masks, n) == solution
        right = all(solution[r][c] == d for r, c, d in (decode_choice(x, n) for x in stack))
        if right and event.kind is not EventKind.REMOVE:
            # on the way to the solution no true digit is ever ruled out
            assert all(1 << (d - 1) & m for d, m in zip(truth, masks, strict=True)), step
        before = masks
    # the first guess, before any backtrack, is what replaying it gives
    assert digits_of(candidates_at(puzzle, events, 1), n) == known_digits(
        puzzle, stack_at(events, 1)
    )


def test_a_restart_takes_the_guesses_back_to_where_they_were_made(monkeypatch):
    monkeypatch.setattr(kenken, "AUTO_BUDGET", 2)
    puzzle = load_kenken("kenken-9x9")
    search = KenKenSearch(puzzle, trace=True)
    assert len(list(search.solutions())) == 1
    events = search.events
    restart = next(i for i, e in enumerate(events) if e.kind is EventKind.REMOVE and e.depth == 0)
    assert stack_at(events, restart + 1) == []
    # back at the root, before any probing: the candidates of step 0
    assert candidates_at(puzzle, events, restart + 1) == candidates_at(puzzle, events, 0)


def test_a_trace_written_by_hand_is_replayed():
    puzzle = load_kenken("kenken-4x4")
    events = [TraceEvent(EventKind.PLACE, kenken.choice_id(0, 0, 1, 4), 0)]
    masks = candidates_at(puzzle, events, 1)
    assert digits_of(masks, 4) == known_digits(puzzle, [events[0].choice])


# -- the scene --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(3, 10))
def test_each_pencil_wheel_face_shows_its_digits_and_hides_the_rest(n):
    pencil = Pencil(n)
    assert pencil.cols * pencil.rows >= n
    for j, wheel in enumerate(pencil.wheels):
        points = np.asarray(wheel.mesh().points)
        for subset in range(1, wheel.n + 1):
            m = wheel.matrix(pencil.centre(0, 0, j), subset)
            moved = points @ m[:3, :3].T + m[:3, 3]
            top = moved[moved[:, 2] > 0]
            assert 0 < top[:, 2].min() and top[:, 2].max() < 0.05  # on the surface
            assert shown_digits(pencil, j, top, 0) == {
                j * pencil.cols + k + 1 for k in range(pencil.cols) if subset >> k & 1
            }
            # under the clue, inside the cell
            assert top[:, 1].max() < -0.38 and top[:, 1].min() > -1.0
            assert top[:, 0].min() > 0.0 and top[:, 0].max() < 1.0


def shown_digits(pencil: Pencil, row: int, top: np.ndarray, column: int) -> set[int]:
    """Which digits of pencil row `row` glyph points above the surface belong to, by where
    they are across the cell."""
    k = np.rint((top[:, 0] - column - 0.5) / PENCIL_PITCH + (pencil.cols - 1) / 2).astype(int)
    return {row * pencil.cols + int(i) + 1 for i in np.unique(k)}


def pencil_marks(scene, pencil: Pencil, n: int, step: int) -> dict[tuple[int, int], set[int]]:
    """The digits the pose of a step draws in each cell's pencil grid, read off the geometry:
    each visible wheel's glyph points above the board's surface, by column."""
    pose = scene.pose(step)
    meshes = {s.key: np.asarray(s.mesh.points) for s in scene.actors if s.key.startswith("pen")}
    out: dict[tuple[int, int], set[int]] = {}
    for key, p in pose.items():
        if not key.startswith("pencil-") or not p.visible:
            continue
        r, c, j = map(int, key.split("-")[1:])
        moved = meshes[key] @ p.matrix[:3, :3].T + p.matrix[:3, 3]
        top = moved[moved[:, 2] > 0]
        assert len(top), key
        out.setdefault((r, c), set()).update(shown_digits(pencil, j, top, c))
    return out


def test_search_scene_pencils_are_the_solvers_candidates():
    family = load("kenken-9x9")
    trace = family.trace()
    n = family.puzzle.size
    scene = build_scene(family, None, "search", trace)
    pencil = Pencil(n)
    assert sum(s.key.startswith("pencil-") for s in scene.actors) == n * n * pencil.rows
    meshes = {id(s.mesh) for s in scene.actors if s.key.startswith("pencil-")}
    assert len(meshes) == pencil.rows  # one mesh per pencil row, shared by every cell
    seen = set()
    for step in range(len(trace.events) + 1):
        masks = candidates_at(family.puzzle, trace.events, step)
        marks = pencil_marks(scene, pencil, n, step)
        digits_shown = {k for k, p in scene.pose(step).items() if k[:6] == "digit-" and p.visible}
        for r in range(n):
            for c in range(n):
                mask = masks[r * n + c]
                if mask and not mask & (mask - 1):
                    assert (r, c) not in marks and f"digit-{r}-{c}" in digits_shown
                else:
                    assert marks.get((r, c), set()) == digits(mask), (step, r, c)
                    assert f"digit-{r}-{c}" not in digits_shown
        seen.add(tuple(sorted((k, tuple(sorted(v))) for k, v in marks.items())))
    assert len(seen) >= 4  # the marks change as the search goes
    # Solution mode shows filled digits only
    solution = build_scene(family, family.solution(0))
    assert not any(s.key.startswith("pencil-") for s in solution.actors)


@pytest.mark.parametrize("name", ["kenken-9x9", "kenken-4x4"])
def test_hidden_glyphs_stay_inside_the_board_block(name):
    """Every wheel, turned to any face, keeps its other glyphs inside the opaque block (none
    shows past its edges in a tilted view)."""
    family = load(name)
    scene = build_scene(family, None, "search", family.trace())
    specs = {s.key: s for s in scene.actors}
    x0, x1, y0, y1, z0, _ = specs["board"].mesh.bounds
    for step in range(scene.n_steps + 1):
        for key, p in scene.pose(step).items():
            if p.visible and key.startswith(("digit-", "pencil-")):
                points = np.asarray(specs[key].mesh.points) @ p.matrix[:3, :3].T + p.matrix[:3, 3]
                hidden = points[points[:, 2] <= 0]
                assert x0 < hidden[:, 0].min() and hidden[:, 0].max() < x1, key
                assert y0 < hidden[:, 1].min() and hidden[:, 1].max() < y1, key
                assert z0 < hidden[:, 2].min(), key


def test_a_step_only_turns_and_hides_actors():
    family = load("kenken-9x9")
    scene = build_scene(family, None, "search", family.trace())
    meshes = [s.mesh for s in scene.actors]
    for step in range(scene.n_steps + 1):
        assert all(not hasattr(p, "mesh") for p in scene.pose(step).values())
    assert [s.mesh for s in scene.actors] == meshes


# -- the window -------------------------------------------------------------------------------
def grab(window) -> np.ndarray:
    window.render_now()
    image = window.grab().toImage().convertToFormat(window.grab().toImage().Format.Format_RGB888)
    width, height = image.width(), image.height()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(height, image.bytesPerLine())
    return pixels[:, : width * 3].reshape(height, width, 3).copy()


def to_grab(window, points) -> np.ndarray:
    """(row, col) in the window grab of world points."""
    pixels = window.renderer.project(np.asarray(points, float))
    widget = window.plotter.interactor
    origin = widget.mapTo(window, QPoint(0, 0))
    dpr = widget.devicePixelRatioF()
    return np.column_stack([origin.y() + pixels[:, 0] / dpr, origin.x() + pixels[:, 1] / dpr])


def click(qtbot, widget) -> None:
    qtbot.waitUntil(widget.isVisible)
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def blue(image: np.ndarray) -> np.ndarray:
    rgb = image[..., :3].astype(int)
    return rgb[..., 2] - rgb[..., 0] > 60


def test_window_search_mode_draws_legible_pencil_marks(qtbot, window):
    window.resize(1200, 760)
    qtbot.waitUntil(lambda: window.width() == 1200)
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("kenken-9x9")))
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=30_000)
    state = window.state
    click(qtbot, window.step_bar.button(window.actions["mode_search"]))
    qtbot.waitUntil(lambda: state.mode == "search")
    assert not window.plotter.renderer.axes_widget.GetEnabled()  # no gizmo over the board
    puzzle, n = state.family.puzzle, state.family.puzzle.size
    events = state.trace.events
    pencil = Pencil(n)
    heights, checked = [], set()
    for target in (0, 3):  # the start, and after the backtrack
        while state.step < target:  # one click a step (a backtrack fades: wait for it)
            after = int(state.step) + 1
            click(qtbot, window.step_bar.button(window.actions["forward"]))
            qtbot.waitUntil(lambda t=after: state.step == t, timeout=5000)
        assert state.step == target
        qtbot.waitUntil(lambda: not window.render_pending, timeout=5000)
        image = grab(window)
        assert image.shape[:2] == (window.height(), window.width())  # one pixel per pixel
        ink = blue(image)
        masks = candidates_at(puzzle, events, target)  # what the solver says at this step
        empty = [
            (r, c) for r in range(n) for c in range(n) if masks[r * n + c] & (masks[r * n + c] - 1)
        ]
        assert len(empty) > 20
        for r, c in empty:
            for digit in range(1, n + 1):
                at = pencil.digit_at(r, c, digit)
                half = np.array([PENCIL_PITCH * 0.45, pencil.pitch * 0.48, 0.0])
                (top, left), (bottom, right) = to_grab(
                    window, [at + half * (-1, 1, 0), at + half * (1, -1, 0)]
                )
                box = ink[int(top) : int(bottom) + 1, int(left) : int(right) + 1]
                checked.add(target)
                if digit in digits(masks[r * n + c]):
                    assert box.sum() >= 6, (target, r, c, digit)
                    rows = np.nonzero(box.any(axis=1))[0]
                    heights.append(rows.max() - rows.min() + 1)
                else:
                    assert box.sum() <= 1, (target, r, c, digit)
    assert checked == {0, 3}
    assert candidates_at(puzzle, events, 0) != candidates_at(puzzle, events, 3)
    print(f"pencil digits {min(heights)}–{max(heights)} px tall in a 1200×760 window grab")
    assert min(heights) >= 7
    # a polycube puzzle next: its axes mean something again
    with qtbot.waitSignal(window.puzzle_loaded, timeout=10_000):
        assert window.open_puzzle(str(puzzle_file("soma")))
    qtbot.waitUntil(lambda: window.plotter.renderer.axes_widget.GetEnabled(), timeout=5000)
