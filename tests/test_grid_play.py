"""Play on the prism and sphere grids: poses are the grid's own turns and lattice translations,
the mouse turns pieces by the grid's turns and drags them by whole lattice steps, and a table
finished by the mouse reports itself solved.

Headless tests check the model (`models.play`) and the mouse's rules (`viewer.drag`) on small
inline puzzles. Window tests press, move and release the mouse and turn its wheel on the render
widget under Xvfb, with the helpers of tests/test_play_drag.py: on the built-in prism block and
polysphere board (always there) and on BurrTools' Bermuda (prisms) and BallRoom (spheres) when
../shared is beside the clone. All pieces but one are put in place through the model (that is
not what is tested); the last one is turned and dragged in by real events."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from tessera.models.grids import CUBES, PRISMS, SPHERES
from tessera.models.play import PlayModel, Pose, axis_turn, space_of, turn_axes
from tessera.models.polycube import Piece, PolycubePuzzle, Target, load_polycube
from tessera.solvers.polycube.identify import SolutionIndex
from tessera.solvers.polycube.movement import slides
from tessera.viewer import drag
from tessera.viewer._qt.play_view import key_of, pose_matrix
from tessera.viewer.scenes._surface import view_centres
from tests._paths import CONFORMANCE, ROOT, needs_conformance
from tests.test_play_drag import MODIFIER, mouse_drag, settle, to_widget, wheel

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BUILTINS = ROOT / "assets" / "puzzles"
GRIDS_DIR = CONFORMANCE / "burrtools-grids"


def as_set(cells) -> set:
    return {tuple(c) for c in np.asarray(cells).tolist()}


# -- small inline puzzles ----------------------------------------------------------------------
def prism_puzzle() -> PolycubePuzzle:
    """Two prism pieces (a rhombus of two triangles, and one of three) filling a trapezoid of
    five triangles one layer high."""
    grid = PRISMS
    pieces = [
        Piece("R", grid.normalise([[0, 0, 0], [1, 0, 0]]), 1, "#d04040", grid=grid),
        Piece("T", grid.normalise([[0, 0, 0], [1, 0, 0], [2, 0, 0]]), 1, "#4060d0", grid=grid),
    ]
    target = Target(np.array([[x, 0, 0] for x in range(5)], np.int64))
    return PolycubePuzzle("trapezoid", pieces, target, grid=grid)


def sphere_puzzle() -> PolycubePuzzle:
    """A line of three balls and a bent piece of three (a right angle, so it lies in a square
    layer and in no hexagonal one), end to end in a square layer."""
    grid = SPHERES
    line = [[0, 0, 0], [1, 1, 0], [2, 2, 0]]
    bent = [[1, 1, 0], [2, 0, 0], [3, 1, 0]]
    pieces = [
        Piece("I", grid.normalise(line), 1, "#d04040", grid=grid),
        Piece("V", grid.normalise(bent), 1, "#4060d0", grid=grid),
    ]
    cells = line + [[x + 2, y, z] for x, y, z in bent]
    return PolycubePuzzle("bend", pieces, Target(np.array(cells, np.int64)), grid=grid)


# -- the model ------------------------------------------------------------------------------------
def test_a_prism_piece_turns_by_sixths_about_its_anchor_and_stays_on_the_lattice():
    model = PlayModel(prism_puzzle())
    k = model.find("T")
    start, pivot = model.pose(k), model.pivot(k)
    seen = []
    for _ in range(6):
        model.rotate(k, "z")
        cells = model.cells(k)
        assert PRISMS.is_translation(np.array(model.pose(k).offset))
        assert PRISMS.canonical_key(cells) == model.puzzle.pieces[k].shape_key
        # the anchor stays in its lattice cell: a sixth takes an upward triangle to a downward
        # one, so its centre moves, but by less than a cell
        assert np.linalg.norm(model.pivot(k) - pivot) < 1.0
        seen.append(frozenset(as_set(cells)))
    assert model.pose(k) == start  # six sixths: back where it was
    assert len(set(seen)) == 6  # a row of three triangles looks different after each sixth
    # about x and y the prism grid turns by halves: twice is back again
    for axis in "xy":
        model.rotate(k, axis)
        assert model.pose(k) != start
        model.rotate(k, axis)
        assert model.pose(k) == start


def test_the_drawn_pose_carries_each_base_centre_onto_its_cell():
    """The actor matrix is the grid's real-space matrix: every base cell's centre lands on the
    centre of the cell the pose puts it on (prisms and spheres, turned and moved)."""
    for puzzle in (prism_puzzle(), sphere_puzzle()):
        model = PlayModel(puzzle)
        grid = puzzle.grid
        for k in range(len(model.pieces)):
            for axis in (2, 0, 2):
                model.rotate(k, axis)
                model.move(k, "x", 1)
                m = pose_matrix(model.pose(k), model, k)
                base = view_centres(grid, model.pieces[k].base)
                moved = base @ m[:3, :3].T + m[:3, 3]
                assert np.allclose(moved, view_centres(grid, model.cells(k)), atol=1e-9)
                assert np.allclose(m[:3, :3], grid.matrices[model.pose(k).rotation])
    cube = PlayModel(load_polycube(BUILTINS / "soma.toml"))
    cube.rotate(0, "x")
    assert np.array_equal(pose_matrix(cube.pose(0), cube, 0), pose_matrix(cube.pose(0)))


def test_a_sphere_sixth_turn_fits_a_flat_piece_and_is_refused_off_the_lattice():
    model = PlayModel(sphere_puzzle())
    said: list[str] = []
    model.events.refused.connect(said.append)
    line, bent = model.find("I"), model.find("V")
    diagonals = [(ax, g) for ax, g in turn_axes(SPHERES) if abs(abs(np.prod(ax)) - 3**-1.5) < 1e-6]
    assert len(diagonals) == 4  # the four body diagonals
    # the line lies in the hexagonal planes across (1, -1, +-1): a sixth about either fits
    perpendicular = [g for ax, g in diagonals if abs(np.dot(ax, (1, 1, 0))) < 1e-9]
    turned = model.try_turn(line, perpendicular[0])
    assert isinstance(turned, Pose) and turned.rotation >= 24  # none of the cube's 24 turns
    cells = model.cells_at(line, turned)
    assert SPHERES.valid(cells).all() and SPHERES.is_connected(cells)
    gaps = np.linalg.norm(np.diff(SPHERES.centres(cells[np.argsort(cells[:, 2])]), axis=0), axis=1)
    assert np.allclose(gaps, 1.0)  # still three touching balls in a row
    # the bent piece lies in a square layer, in no hexagonal plane: the same sixth leaves the
    # lattice, and the model says so instead of turning it
    why = model.try_turn(bent, perpendicular[0], about="a diagonal")
    assert isinstance(why, str) and "leave the spheres grid" in why
    before = model.pose(bent)
    assert drag.turn_by(model, bent, perpendicular[0], "a diagonal") == before
    assert said and "cannot turn about a diagonal" in said[-1]
    # the cube's quarter turns always fit a ball's lattice
    assert model.rotate(bent, "z") != before


def test_prism_and_sphere_drops_snap_into_the_target_and_fill_it():
    for puzzle in (prism_puzzle(), sphere_puzzle()):
        model = drag.new_table(puzzle)
        assert not model.interlocked
        solution = SolutionIndex(puzzle).solution(1)
        for placed in solution.pieces:
            k = next(p.index for p in model.pieces if p.piece == placed.piece)
            target = model.pose_for(k, placed.cells)
            for axis, turns in model._turn_path(model.pose(k).rotation, target.rotation):
                model.place(k, drag.turn(model, k, axis, turns))
            assert model.pose(k).rotation == target.rotation
            # the hand lets go one lattice step off: the drop falls and snaps in
            near = drag.near_shifts(puzzle.grid)[3]
            goal = tuple(int(a + b) for a, b in zip(target.offset, near, strict=True))
            goal = (goal[0], goal[1], model.pose(k).offset[2])
            held = drag.carry(model, k, model.pose(k), goal)
            assert not (as_set(model.cells_at(k, held)) & model.occupied(exclude=k))
            model.place(k, drag.drop(model, k, held))
            assert model.fits(k, model.pose(k)), puzzle.name
        assert model.solved


def test_an_interlocked_prism_key_move_along_y_is_checked_step_by_step():
    """A key move along y on prisms is two triangles' height, no direction of the grid: the
    model checks it as the two direction steps that make it, and refuses it into a piece."""
    puzzle = prism_puzzle()
    model = drag.new_table(puzzle, interlocked=True)
    r, t = model.find("R"), model.find("T")
    model.place(t, Pose(0, (0, 2, 0)))  # T across the row above R's
    model.place(r, Pose(0, (0, 0, 0)))
    said: list[str] = []
    model.events.refused.connect(said.append)
    assert PRISMS.axis_step(1) == (0, 2, 0) and (0, 2, 0) not in PRISMS.directions
    assert model.move(r, "y", 1) == Pose(0, (0, 0, 0))
    assert said and said[-1].startswith("R cannot move +y: it would go into T")
    assert model.move(r, "y", -1) == Pose(0, (0, -2, 0))  # nothing below: it goes
    assert model.move(r, "x", 1) == Pose(0, (2, -2, 0))  # along x a step is a direction


def test_the_cube_grid_frame_and_shifts_are_the_axes():
    frame = drag.frame(CUBES)
    assert np.array_equal(frame.basis, np.eye(3, dtype=np.int64))
    assert len(drag.near_shifts(CUBES)) == 27 and drag.near_shifts(CUBES)[0] == (0, 0, 0)
    for grid in (PRISMS, SPHERES):
        basis = drag.frame(grid).basis
        assert all(tuple(basis[:, a]) in grid.directions for a in range(3))
        assert abs(round(np.linalg.det(basis))) == 2  # every translation: the lattice's index


# -- the window -----------------------------------------------------------------------------------
def open_play(qtbot, window, path):
    with qtbot.waitSignal(window.puzzle_loaded, timeout=20_000):
        assert window.open_puzzle(str(path))
    with qtbot.waitSignal(window.mode_changed, timeout=5000):
        window.actions["mode_play"].trigger()
    model = window.handson.model
    window.handson.view.duration_ms = 0
    settle(qtbot, window)
    return model


def all_but(model, solution, last_name: str):
    """Every piece of `solution` in place through the model but the one named; (that piece,
    its target pose)."""
    last = None
    for placed in solution.pieces:
        k = next(
            p.index
            for p in model.pieces
            if p.piece == placed.piece and not model.fit().in_target[p.index]
        )
        pose = model.pose_for(k, placed.cells)
        if model.pieces[k].name == last_name:
            last = (k, pose)
        else:
            model.place(k, pose)
    assert last is not None
    return last


def grab(window, piece: int) -> tuple[np.ndarray, object]:
    """A point on the piece that is in view (highest cells first) and its pixel, found by
    picking at the projections of its cells' centres."""
    model = window.handson.model
    cells = model.cells(piece)
    centres = view_centres(model.grid, cells)
    for c in centres[np.argsort(-centres[:, 2])]:
        pixel = to_widget(window, c)
        key, world = window.handson.mouse.pick(QPointF(pixel))
        if key == key_of(piece):
            return world, pixel
    raise AssertionError(f"{model.pieces[piece].name} is nowhere in view")


def drag_by(qtbot, window, piece: int, shift) -> None:
    """Drag the piece by the lattice translation `shift` (level): grab it where it is seen, let
    go where that point would be after the shift."""
    model = window.handson.model
    point, pixel = grab(window, piece)
    end = to_widget(window, point + space_of(model.grid, shift))
    with qtbot.waitSignal(window.handson.mouse.dragged, timeout=5000):
        mouse_drag(window, pixel, end, steps=12)
    settle(qtbot, window)


def wheel_turn(qtbot, window, piece: int, axis: int, turns: int) -> None:
    """Wheel notches over the piece with the modifier that turns about `axis`."""
    _, pixel = grab(window, piece)
    axes = window.handson.mouse.view_axes()
    name, sign = next((n, s) for n, (a, s) in zip(MODIFIER, axes, strict=True) if a == axis)
    for _ in range(abs(turns)):
        with qtbot.waitSignal(window.handson.mouse.turned, timeout=5000):
            wheel(window, pixel, MODIFIER[name], clicks=sign * (1 if turns > 0 else -1))
        settle(qtbot, window)


def finish_by_mouse(qtbot, window, model, k: int, target: Pose) -> int:
    """Turn piece k by the wheel to its target rotation, drag it over the target and let go;
    the number of mouse actions."""
    actions = 0
    for axis, turns in model._turn_path(model.pose(k).rotation, target.rotation):
        wheel_turn(qtbot, window, k, axis, turns)
        actions += 1
    assert model.pose(k).rotation == target.rotation
    here = model.pose(k)
    shift = np.subtract(target.offset, here.offset)
    shift[2] = 0  # across the table: the drop falls and snaps
    drag_by(qtbot, window, k, shift)
    return actions + 1


def angle_of(m: np.ndarray) -> float:
    return float(np.degrees(np.arccos(np.clip((np.trace(m[:3, :3]) - 1) / 2, -1, 1))))


@pytest.mark.parametrize(
    ("name", "last", "sixth"),
    [
        ("prisms-hexagon-block.toml", "H", 60.0),
        ("polysphere-board-5x11.toml", "U", 90.0),
        ("tetra-octa-tetrahedron.toml", "octa1", 90.0),
    ],
)
def test_the_last_piece_turned_by_the_wheel_and_dragged_in_solves_the_table(
    qtbot, window, name, last, sixth
):
    model = open_play(qtbot, window, BUILTINS / name)
    assert not model.interlocked
    solution = SolutionIndex(model.puzzle).solution(1)
    k, target = all_but(model, solution, last)
    settle(qtbot, window)
    assert not model.solved
    turned: list[np.ndarray] = []
    window.handson.mouse.turned.connect(
        lambda _p: turned.append(window.renderer.actors[key_of(k)].user_matrix.copy())
    )
    # one Ctrl notch: the grid's smallest turn about z (a sixth on prisms, a quarter on balls)
    before = window.renderer.actors[key_of(k)].user_matrix.copy()
    wheel_turn(qtbot, window, k, 2, 1)
    step = turned[-1][:3, :3] @ before[:3, :3].T
    assert angle_of(step) == pytest.approx(sixth) and np.allclose(step[:, 2], (0, 0, 1))
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000) as solved:
        finish_by_mouse(qtbot, window, model, k, target)
    assert model.solved and model.pose(k).rotation == target.rotation
    assert solved.args[0] >= 1  # identified as a listed solution
    assert "Solved!" in window.handson.view.banner_text
    # each wheel notch turned the drawn piece by the grid's own turn about that axis
    for m in turned:
        assert any(np.allclose(m[:3, :3], r) for r in model.grid.matrices[: model.grid.n_rotations])


def test_a_sixth_turn_about_the_diagonal_nearest_the_view_by_ctrl_shift_wheel(qtbot, window):
    model = open_play(qtbot, window, BUILTINS / "polysphere-board-5x11.toml")
    line, cross = model.find("I5"), model.find("X")
    camera = window.plotter.camera
    focal = np.asarray(view_centres(SPHERES, model.cells(line)).mean(axis=0))
    camera.focal_point = tuple(focal)
    camera.position = tuple(focal + 14 * np.array([1.0, -1.0, 1.0]))  # along a diagonal
    camera.up = (0.0, 0.0, 1.0)
    window.plotter.renderer.ResetCameraClippingRange()
    settle(qtbot, window)
    both = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    _, pixel = grab(window, line)
    with qtbot.waitSignal(window.handson.mouse.turned, timeout=5000):
        wheel(window, pixel, both)
    settle(qtbot, window)
    pose = model.pose(line)
    assert pose.rotation >= 24  # a sixth about a diagonal: none of the cube's turns
    cells = model.cells(line)
    assert SPHERES.valid(cells).all() and not (as_set(cells) & model.occupied(exclude=line))
    assert model.undo_label.startswith("turn I5 about (0.58, -0.58, 0.58)")
    m = window.renderer.actors[key_of(line)].user_matrix
    assert np.allclose(m[:3, :3], SPHERES.matrices[pose.rotation])
    # the cross lies in a square layer: the same turn would leave the lattice, and is refused
    _, pixel = grab(window, cross)
    before = model.pose(cross)
    with qtbot.waitSignal(window.handson.mouse.turned, timeout=5000):
        wheel(window, pixel, both)
    assert model.pose(cross) == before
    assert "X cannot turn about (0.58, -0.58, 0.58)" in window.statusBar().currentMessage()
    assert "leave the spheres grid" in window.statusBar().currentMessage()
    # Ctrl alone still turns about z, by the grid's quarter turn there
    assert axis_turn(SPHERES, 2) is not None


# -- BurrTools' own examples (interlocking: held in the hands) -------------------------------------
def free_level_way(model, solution, k: int, target: Pose) -> tuple[int, ...] | None:
    """A level direction piece k leaves the finished assembly along for ever, if any."""
    others = [model.cells(j) for j in range(len(model.pieces)) if j != k]
    room = slides([*others, model.cells_at(k, target)], [len(others)], grid=model.grid)
    for d, r in enumerate(room):
        if r is None and model.grid.directions[d][2] == 0:
            return model.grid.directions[d]
    return None


@needs_conformance
@pytest.mark.parametrize(("name", "last"), [("Bermuda", "R"), ("BallRoom", "S5")])
def test_burrtools_examples_last_piece_dragged_in_along_its_free_way(qtbot, window, name, last):
    """All pieces but one in place; the last, turned as it goes (BallRoom's S5 by a sixth
    about a diagonal: no axis turn reaches it), waits four steps out along the level way it
    leaves the assembly by; one drag takes it in, cell by free cell, and it snaps home."""
    model = open_play(qtbot, window, GRIDS_DIR / f"{name}.xmpuzzle")
    assert model.interlocked and model.grid in (PRISMS, SPHERES)
    solution = SolutionIndex(model.puzzle).solution(1)
    k, target = all_but(model, solution, last)
    way = free_level_way(model, solution, k, target)
    assert way is not None
    out = tuple(int(t + 4 * w) for t, w in zip(target.offset, way, strict=True))
    model.place(k, Pose(target.rotation, out))
    settle(qtbot, window)
    assert not model.solved
    with qtbot.waitSignal(window.handson.solved_as, timeout=20_000):
        drag_by(qtbot, window, k, tuple(-4 * w for w in way))
    assert model.solved and model.pose(k) == target
