"""Play mode on interlocking puzzles (issues #12 and #13): a piece of a burr or a box moves only
along physically free paths. Headless, on `models.play`, `solvers.movement` and the mouse's
rules in `viewer.drag` (Qt-free).

The fixture tests/fixtures/peg-in-box.toml is a 3x3x3 box of two halves (a plate with a U on it,
leaving a channel open at the front, +y, and a lid) and a peg of two cells that fills the
channel. With the box closed, the peg gets in only by sliding along -y from the front: from
beside the right wall its place is two cells away in a straight line, but six along the free
way round."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.models.play import PlayModel, Pose, is_interlocking
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube.movement import DIRECTIONS, free_path, reach, slides
from tessera.viewer import drag
from tests._paths import FIXTURES, case_file, needs_conformance

PEG_IN_BOX = FIXTURES / "peg-in-box.toml"
INSIDE = Pose(0, (1, 1, 1))  # the peg's place: the channel x = 1, y = 1..2, z = 1
BESIDE_WALL = Pose(0, (3, 1, 1))  # touching the right wall, level with the channel


def as_set(cells) -> set[tuple[int, ...]]:
    return {tuple(c) for c in np.asarray(cells).tolist()}


@pytest.fixture
def box() -> PlayModel:
    """The fixture's table with the box assembled in the target and the peg on the tray."""
    model = drag.new_table(load_polycube(PEG_IN_BOX))
    model.place(model.find("box"), Pose(0, (0, 0, 0)))
    model.place(model.find("lid"), Pose(0, (0, 0, 2)))
    return model


def others_and_peg(model: PlayModel, pose: Pose) -> list[np.ndarray]:
    peg = model.find("peg")
    return [model.cells(k) for k in range(len(model.pieces)) if k != peg] + [
        model.cells_at(peg, pose)
    ]


# -- which puzzles are interlocking ------------------------------------------------------------
def test_the_rule_and_the_property(soma):
    puzzle = load_polycube(PEG_IN_BOX)
    assert is_interlocking(puzzle)  # its box halves share a group
    assert drag.new_table(puzzle).interlocked
    assert not is_interlocking(soma) and not PlayModel(soma).interlocked
    assert not PlayModel(puzzle, interlocked=False).interlocked  # the override
    for name in ("pentominoes-6x10", "bedlam", "six-piece-cube", "tetracubes-2x4x4"):
        assert not is_interlocking(load_polycube(case_file_or_asset(name)))


def test_an_interlocking_table_is_given_the_movement_analysis():
    """Models do not import solvers: the check of a key move's way is passed in, and a table
    that would need it cannot be made without it (it would let a piece through a wall)."""
    puzzle = load_polycube(PEG_IN_BOX)
    with pytest.raises(ValueError, match="slide_room"):
        PlayModel(puzzle)
    asked = []

    def room(cells, group, direction):
        asked.append(direction)
        return slides(cells, group)[direction]

    model = PlayModel(puzzle, slide_room=room)
    peg = model.find("peg")
    model.move(peg, "x", -1)
    assert asked == [1]  # -x, asked once for the whole move


def case_file_or_asset(name: str):
    from tests._paths import ROOT

    return ROOT / "assets" / "puzzles" / f"{name}.toml"


# -- the movement analysis for one piece among fixed others ------------------------------------
def test_reach_finds_the_way_round_the_wall_and_none_into_a_closed_box(box):
    pieces = others_and_peg(box, BESIDE_WALL)
    shift = np.subtract(INSIDE.offset, BESIDE_WALL.offset)
    path = free_path(pieces, len(pieces) - 1, shift)
    assert path is not None and len(path) == 6  # out in front, across, in: not 2 through it
    assert free_path(pieces, len(pieces) - 1, shift, max_steps=5) is None
    # replayed one cell at a time, the way never enters the box
    occupied = as_set(np.vstack(pieces[:-1]))
    offset = np.zeros(3, int)
    for d in path:
        offset += DIRECTIONS[d]
        assert not as_set(pieces[-1] + offset) & occupied
    assert tuple(offset) == tuple(shift)
    # close the channel with a third piece at its mouth: no way in at all
    plug = np.array([[1, 3, 1]])
    assert free_path([*pieces[:-1], plug, pieces[-1]], 3, shift) is None
    # a bounded search knows exactly the translations within its limit
    near = reach(pieces, len(pieces) - 1, max_steps=1)
    assert {s for s, _ in near.reached()} == {
        (0, 0, 0),
        (1, 0, 0),
        (0, 1, 0),
        (0, -1, 0),
        (0, 0, 1),
        (0, 0, -1),
    }  # fmt: skip  (-x is the wall)
    assert slides(pieces, [len(pieces) - 1])[1] == 0  # -x: touching the wall


# -- (a) a drop into an enclosed pose that no free path reaches is refused ---------------------
def test_a_drop_beside_the_wall_does_not_snap_through_it(box):
    peg = box.find("peg")
    assert box.fits(peg, INSIDE)  # the place is free and in the target...
    straight = int(np.abs(np.subtract(INSIDE.offset, BESIDE_WALL.offset)).sum())
    assert straight <= drag.SNAP_STEPS  # ...and near enough for a snap in a straight line
    # dragged towards the channel from the side, it stops at the wall, not lifted over
    side = drag.carry(box, peg, box.pose(peg), BESIDE_WALL.offset)
    assert side == BESIDE_WALL
    held = drag.carry(box, peg, box.pose(peg), INSIDE.offset, held=side)
    assert held == BESIDE_WALL
    assert drag.drop(box, peg, held) == BESIDE_WALL  # let go: it stays beside the box
    assert drag.free_snap(box, peg, held) is None
    # from on top of the lid, right above its place: not through the lid either
    above = Pose(0, (1, 1, 3))
    assert drag.drop(box, peg, above) == above
    # a Soma-style table would have lifted it over the box onto the lid
    loose = PlayModel(box.puzzle, interlocked=False)
    for k in range(len(box.pieces)):
        loose.place(k, box.pose(k))
    lifted = drag.carry(loose, peg, BESIDE_WALL, INSIDE.offset)
    assert lifted.offset[:2] == INSIDE.offset[:2] and lifted.offset[2] == 3


# -- (b) along the free way it gets in and snaps ----------------------------------------------
def test_sliding_in_from_the_open_side_gets_in_and_snaps(box):
    peg = box.find("peg")
    start = box.pose(peg)
    front = drag.carry(box, peg, start, (1, 4, 1))
    assert front == Pose(0, (1, 4, 1))  # in front of the channel
    # pushed in: it slides along -y until it touches the back of the channel
    deep = drag.carry(box, peg, start, (1, -3, 1), held=front)
    assert deep == INSIDE
    # let go a cell short of its place: one free slide away, it snaps in
    short = drag.carry(box, peg, start, (1, 2, 1), held=front)
    assert short == Pose(0, (1, 2, 1)) and not box.fits(peg, short)
    assert drag.drop(box, peg, short) == INSIDE
    box.place(peg, drag.drop(box, peg, short))
    assert box.solved
    # every pose of a drag is free: a staircase from the tray to the far side, round the box
    box.undo()
    held = box.pose(peg)
    for goal in [(1, 4, 1), (1, 1, 1), (5, 1, 1), (-3, -3, 0), (1, -1, 4), (1, 1, 1)]:
        held = drag.carry(box, peg, start, goal, held=held)
        assert not as_set(box.cells_at(peg, held)) & box.occupied(exclude=peg)


def test_nothing_falls_and_nothing_is_lifted(box):
    peg = box.find("peg")
    up = Pose(0, (8, 4, 3))
    assert drag.fall(box, peg, up) == up  # held in the hands
    assert drag.drop(box, peg, up) == up
    # the table does not hold it up either: the puzzle is in the hands, it can go below
    assert drag.carry(box, peg, box.pose(peg), (8, 4, -2)) == Pose(0, (8, 4, -2))
    # across the box's row it stops at the box, it does not ride over
    beside = Pose(0, (4, 1, 1))
    assert drag.carry(box, peg, beside, (-4, 1, 1)) == BESIDE_WALL


# -- (c) key moves and turns that would go into another piece are refused ----------------------
def test_a_blocked_key_move_or_turn_is_refused(box):
    peg = box.find("peg")
    box.place(peg, INSIDE)
    assert box.solved
    said = []
    box.events.refused.connect(said.append)
    moved = []
    box.events.moved.connect(lambda pieces, kind: moved.append(kind))
    steps = box.undo_label
    blocked = (
        ("x", 1, "box"),
        ("x", -1, "box"),
        ("z", 1, "lid"),
        ("z", -1, "box"),
        ("y", -1, "box"),
    )
    for axis, step, blocker in blocked:
        assert box.move(peg, axis, step) == INSIDE
        assert said[-1] == box.refusal and blocker in said[-1] and "cannot move" in said[-1]
    assert box.rotate(peg, "z", 1) == INSIDE and "cannot turn" in said[-1]
    assert box.undo_label == steps and moved == []  # nothing happened
    # out through the open side, one cell at a time; two cells at once only if both are free
    assert box.move(peg, "y", 1) == Pose(0, (1, 2, 1))
    assert box.move(peg, "y", 2) == Pose(0, (1, 4, 1))
    assert box.move(peg, "y", -4) == Pose(0, (1, 4, 1)) and len(said) == 7
    assert len(said) == 7
    # out in the open a turn is fine; the mouse's turn follows the same rule
    assert box.rotate(peg, "z", 1).rotation != 0
    box.place(peg, INSIDE)
    assert drag.turn(box, peg, 0, 1) == INSIDE and len(said) == 8
    # a Soma-style table lets the same key move overlap (and only shows it)
    loose = PlayModel(box.puzzle, interlocked=False)
    for k in range(len(box.pieces)):
        loose.place(k, box.pose(k))
    assert loose.move(peg, "x", 1) == Pose(0, (2, 1, 1)) and loose.fit().overlap[peg].any()


# -- Pelikan Burr, read in place from ../shared ---------------------------------------------------
@needs_conformance
def test_pelikan_burr_no_stick_goes_back_in_by_itself():
    from tessera.models.burrtools import load_xmpuzzle
    from tessera.solvers.polycube.packing import solutions

    path = case_file("burrtools/PelikanBurr.xmpuzzle")
    puzzle = load_xmpuzzle(path)
    model = drag.new_table(puzzle)
    assert model.interlocked
    solution = next(solutions(puzzle))
    for placed in solution.pieces:
        k = next(p.index for p in model.pieces if p.piece == placed.piece)
        model.place(k, model.pose_for(k, placed.cells))
    assert model.solved
    cage = model.find("Cage")
    for p in model.pieces:
        if p.index == cage:
            continue
        k, home = p.index, model.pose(p.index)
        # in the assembly a stick wiggles a cell at most: a key move beyond is refused
        free = reach(
            [model.cells(j) for j in range(len(model.pieces)) if j != k] + [model.cells(k)],
            len(model.pieces) - 1,
        )
        assert max(max(abs(v) for v in s) for s, _ in free.reached()) <= 1
        # taken out (turned as it goes in, in front of the burr), it cannot be put back
        # alone: no free way leads in, and the hand pushing it home stops at the cage
        away = Pose(home.rotation, (home.offset[0], home.offset[1] + 40, home.offset[2]))
        model.place(k, away)
        others = [model.cells(j) for j in range(len(model.pieces)) if j != k]
        shift = np.subtract(home.offset, away.offset)
        assert free_path([*others, model.cells(k)], len(others), shift) is None
        held = drag.carry(model, k, away, home.offset)
        assert held.offset[1] < away.offset[1]  # it did move towards the burr...
        assert held != home and not as_set(model.cells_at(k, held)) & model.occupied(exclude=k)
        assert drag.drop(model, k, held) != home  # ...and let go there, it does not snap in
        model.place(k, home)
