"""Solution mode's scene for interlocking puzzles, off screen: the disassembly played backwards,
which pieces are see-through, which assemblies the window lists, and the exports.

The always-present case is the project's own fixture, four dominoes in a closed box
(tests/fixtures/domino-box.toml: 5 assemblies, 1 comes apart, level 2.2.3.3, one move of two
dominoes together). BurrTools' own examples are read in place from ../shared when it is there.
"""

from __future__ import annotations

import itertools

import imageio.v3 as iio
import numpy as np
import pytest

from tessera.cli.main import main
from tessera.solvers.polycube.interlocking import (
    InterlockedSolution,
    analyse,
    level_of,
    plan_assembles,
    solutions,
)
from tessera.solvers.polycube.packing import PolycubeSolution
from tessera.solvers.polycube.plan import assembly_plan
from tessera.viewer import export
from tessera.viewer.families import load
from tessera.viewer.scenes import build_scene
from tessera.viewer.scenes.disassembly import shells, spread
from tests._paths import FIXTURES, needs_conformance
from tests.conftest import puzzle_file

BOX = FIXTURES / "domino-box.toml"


def clashes(scene, puzzle, step: float) -> list[tuple[str, str]]:
    """Pieces sharing a cell at `step`. Each shown piece's own cells go through its pose
    matrix; a piece part-way along a slide is counted at both whole-cell positions it lies
    between (all pieces rounded down, then all rounded up: a group moving together stays
    one rigid state either way)."""
    found = []
    poses = scene.pose(step)
    for rounding in (lambda c: np.floor(c + 1e-6), lambda c: np.ceil(c - 1e-6)):
        owner: dict[tuple, str] = {}
        for key, pose in poses.items():
            if not pose.visible or not key.startswith("piece-"):
                continue
            cells = puzzle.pieces[int(key.split("-")[1])].cells
            placed = cells @ pose.matrix[:3, :3].T + pose.matrix[:3, 3]
            for cell in map(tuple, rounding(placed).astype(int).tolist()):
                if cell in owner and owner[cell] != key:
                    found.append((owner[cell], key))
                owner[cell] = key
    return found


def quarter_steps(n: int) -> list[float]:
    return [k / 4 for k in range(4 * n + 1)]


def frames_overlap(cells, frames, shown=None) -> int:
    """How many frames of whole-cell offsets put two pieces (of those `shown`) in one cell."""
    bad = 0
    for k, offsets in enumerate(frames):
        keep = [i for i in range(len(cells)) if shown is None or shown[k][i]]
        every = np.vstack([cells[i] + offsets[i] for i in keep])
        bad += len(np.unique(every, axis=0)) != len(every)
    return bad


@pytest.fixture(scope="module")
def box():
    family = load(str(BOX))
    return family, family.solution(0)


# -- which assemblies are solutions ------------------------------------------------------------


def test_the_box_lists_one_solution_of_five_assemblies(box):
    family, solution = box
    assemblies = list(family.solve().solutions())
    assert len(assemblies) == 5
    kept = list(solutions(family.puzzle, assemblies))
    assert len(kept) == 1
    assert isinstance(kept[0], InterlockedSolution)
    assert level_of(kept[0]) == "2.2.3.3"
    number = kept[0].assembly  # which of the five it is (the search's order)
    assert [p.cells.tolist() for p in assemblies[number - 1].pieces] == [
        p.cells.tolist() for p in kept[0].pieces
    ]
    assert solution.disassembly.level == "2.2.3.3" and len(solution.disassembly.moves) == 10
    # four of the five ways to lay the dominoes in stay locked
    assert [analyse(family.puzzle, a) is None for a in assemblies].count(True) == 4


@pytest.mark.parametrize("name", ["soma", "pentominoes-6x10", "tetracubes-2x4x4", "bedlam"])
def test_plan_test_agrees_with_the_assembly_plan(name):
    family = load(str(puzzle_file(name)))
    for assembly in itertools.islice(family.solve().solutions(), 40):
        cells = [p.cells for p in assembly.pieces]
        assert plan_assembles(cells) == assembly_plan(family.puzzle, assembly).complete
        # an ordinary assembly is listed as it is, level 1
        assert analyse(family.puzzle, assembly) is assembly
        assert level_of(assembly) == "1"


def test_plan_test_agrees_on_the_locked_box(box):
    family, _ = box
    for assembly in family.solve().solutions():
        cells = [p.cells for p in assembly.pieces]
        assert plan_assembles(cells) is False
        assert assembly_plan(family.puzzle, assembly).complete is False


# -- the scene -----------------------------------------------------------------------------------


def test_the_box_plays_its_disassembly_backwards_without_overlap(box):
    family, solution = box
    scene = build_scene(family, solution)
    assert scene.n_steps == 10
    for step in quarter_steps(scene.n_steps):
        assert clashes(scene, family.puzzle, step) == [], step
    # the checker sees overlaps when there are some: the disassembler's own frames park the
    # dominoes that left through the slot in the same cells
    cells = [p.cells for p in solution.pieces]
    assert frames_overlap(cells, solution.disassembly.frames(len(cells))) > 0
    spread_out = spread(cells, solution.disassembly)
    assert frames_overlap(cells, spread_out.offsets, spread_out.shown) == 0


def test_the_box_scene_moves_pieces_by_whole_cells_and_groups_together(box):
    family, solution = box
    scene = build_scene(family, solution)
    n = scene.n_steps
    moves = solution.disassembly.moves

    def offsets(step):
        poses = scene.pose(step)
        return {k: p.matrix[:3, 3].copy() for k, p in poses.items() if p.visible}

    for i in range(1, n + 1):
        before, after = offsets(i - 1), offsets(i)
        for key in set(before) & set(after):
            delta = after[key] - before[key]
            assert np.allclose(delta, np.round(delta)), (i, key, delta)
        moved = {k for k in set(before) & set(after) if not np.allclose(before[k], after[k])}
        move = moves[n - i]
        if not move.removes:  # a slide: exactly its pieces moved, all by the move, reversed
            assert len(moved) == len(move.pieces), i
            for key in moved:
                assert np.allclose(after[key] - before[key], -np.array(move.by))
    # the one move of two dominoes at once
    assert any(len(m.pieces) == 2 and not m.removes for m in moves)


def test_the_box_scene_starts_with_the_box_and_ends_assembled(box):
    family, solution = box
    scene = build_scene(family, solution)
    start = {k for k, p in scene.pose(0).items() if p.visible}
    assert start == {"piece-0-0"}  # the box alone: every domino is out
    end = scene.pose(scene.n_steps)
    visible = {k for k, p in end.items() if p.visible}
    assert visible == {"piece-0-0"} | {f"piece-1-{j}" for j in range(4)}
    plain = build_scene(family, PolycubeSolution(solution.pieces))  # analysed on demand
    for key, pose in end.items():
        assert np.allclose(pose.matrix, plain.pose(scene.n_steps)[key].matrix)


def test_the_box_describes_moves_and_level(box):
    family, solution = box
    scene = build_scene(family, solution)
    assert scene.describe(0) == "move 0 of 10 · level 2.2.3.3 · the pieces are apart"
    assert scene.describe(1).startswith("move 1 of 10 · level 2.2.3.3 · D")
    assert "comes in along -z" in scene.describe(1)
    assert scene.describe(10).startswith("move 10 of 10 · level 2.2.3.3")
    assert scene.describe(9.5) == scene.describe(10)  # the move under way
    assert "slide -x by 1" in scene.describe(10)  # the two dominoes together, last


def test_the_box_is_drawn_see_through(box):
    family, solution = box
    scene = build_scene(family, solution)
    opacity = {a.key: a.opacity for a in scene.actors if a.role == "piece"}
    assert opacity["piece-0-0"] < 0.5
    assert all(opacity[f"piece-1-{j}"] == 1.0 for j in range(4))


def test_shells_are_boxes_cages_and_frames_only(box):
    family, solution = box
    cells = [p.cells for p in solution.pieces]
    assert shells(cells, [0] * len(cells)) == {0}
    soma = load(str(puzzle_file("soma")))
    for assembly in itertools.islice(soma.solve().solutions(), 20):
        assert shells([p.cells for p in assembly.pieces], [0] * 7) == set()
    assert all(a.opacity == 1.0 for a in build_scene(soma, assembly).actors if a.role == "piece")


@needs_conformance
@pytest.mark.parametrize(
    "name, level, moves, see_through",
    [
        ("PelikanBurr", "98.2.4.2", 108, {"Cage"}),
        ("AlPackino", "1.1.1.1.1.2.1.3.1.2.1.2", 17, {"Box"}),
        ("CubeInCage", "4.9.3", 16, {"Frame1", "Frame2#1", "Frame2#2"}),  # the group of three
    ],
)
def test_burrtools_examples_play_without_overlap(name, level, moves, see_through):
    family = load(str(puzzle_file(name)))
    solution = family.solution(0)
    assert solution.disassembly.level == level
    scene = build_scene(family, solution)
    assert scene.n_steps == moves
    assert scene.describe(37).startswith(f"move {min(37, moves)} of {moves} · level {level}")
    assert {a.name for a in scene.actors if a.role == "piece" and a.opacity < 1} == see_through
    for step in quarter_steps(moves):
        assert clashes(scene, family.puzzle, step) == [], step


@needs_conformance
def test_al_packino_needs_the_spread():
    """Al Packino's twelve pieces all leave upwards: parked as the disassembler leaves them,
    they would sit in each other."""
    family = load(str(puzzle_file("AlPackino")))
    solution = family.solution(0)
    cells = [p.cells for p in solution.pieces]
    assert frames_overlap(cells, solution.disassembly.frames(len(cells))) > 0


def test_an_assembly_that_does_not_come_apart_keeps_the_old_drop_in(box):
    family, _ = box
    locked = next(a for a in family.solve().solutions() if analyse(family.puzzle, a) is None)
    scene = build_scene(family, locked)
    assert scene.n_steps == 5  # one piece per step, the stuck ones dropped from above
    assert "stuck" in scene.describe(scene.n_steps)


def test_a_solution_without_its_disassembly_attached_builds_the_same_scene(box):
    family, solution = box
    attached = build_scene(family, solution)
    for bare in (InterlockedSolution(solution.pieces, None, 2), PolycubeSolution(solution.pieces)):
        scene = build_scene(family, bare)  # disassembled in the scene builder, the same way
        assert scene.n_steps == attached.n_steps == 10
        for step in (0, 3.5, 10):
            assert scene.describe(step) == attached.describe(step)
            a, b = attached.pose(step), scene.pose(step)
            assert all(np.array_equal(a[k].matrix, b[k].matrix) for k in a)


# -- command line and exports ------------------------------------------------------------------


def test_render_and_animate_number_solutions_as_the_window_does(tmp_path, capsys):
    png = tmp_path / "box.png"
    assert main(["render", str(BOX), "--step", "4.5", "--size", "160x120", "--out", str(png)]) == 0
    assert "step 4.5 of 10" in capsys.readouterr().out
    gif = tmp_path / "box.gif"
    args = ["animate", str(BOX), "--frames-per-step", "2", "--size", "96x72", "--out", str(gif)]
    assert main(args) == 0
    assert "21 frames, 96x72" in capsys.readouterr().out
    frames = iio.imread(gif, index=None)
    assert frames.shape == (21, 72, 96, 3)
    changed = [not np.array_equal(frames[i], frames[i + 1]) for i in range(20)]
    assert all(changed), changed  # every frame shows something moving
    # solution 2 would be the second assembly, which stays locked: there is none
    assert main(["render", str(BOX), "--solution", "2", "--out", str(tmp_path / "x.png")]) == 1
    assert "no solution 2" in capsys.readouterr().err


def test_the_box_exports_as_mp4(tmp_path, box):
    family, solution = box
    scene = build_scene(family, solution)
    out = tmp_path / "box.mp4"
    steps = export.animation_steps(scene, "solution", 1)
    written = export.export_animation(scene, out, steps, fps=6, size=(96, 72), hold_seconds=0)
    assert written == len(steps) == 11
    frames = iio.imread(out, index=None)
    assert len(frames) == 11
    assert np.abs(frames[0].astype(int) - frames[-1].astype(int)).mean() > 2


@needs_conformance
def test_pelikan_animates_its_108_moves(tmp_path, capsys):
    gif = tmp_path / "pelikan.gif"
    name = str(puzzle_file("PelikanBurr"))
    args = ["animate", name, "--frames-per-step", "1", "--size", "80x60", "--out", str(gif)]
    assert main(args) == 0
    assert "109 frames, 80x60, 12 fps, solution of 108" in capsys.readouterr().out
    frames = iio.imread(gif, index=None)
    assert frames.shape == (109, 60, 80, 3)
    differ = sum(not np.array_equal(frames[i], frames[i + 1]) for i in range(108))
    assert differ == 108
