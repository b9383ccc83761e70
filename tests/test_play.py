"""Play mode's model: pieces start beside the target, turn and slide one step at a time with
undo, get flagged when they stick out or overlap, and a finished cube is recognised as the
right one of the 240 distinct Soma solutions."""

from __future__ import annotations

import numpy as np
import pytest

from tessera.models import geometry
from tessera.models.play import PlayModel, Pose
from tessera.models.polycube import load_polycube
from tessera.solvers.polycube.hint import hint
from tests._paths import case_file


def as_set(cells) -> set[tuple[int, ...]]:
    return {tuple(c) for c in np.asarray(cells).tolist()}


def assemble(model: PlayModel, solution, transform=None) -> int:
    """Move every piece into its place in `solution` with single key presses; return how many
    operations that took."""
    steps = 0
    for placed in solution.pieces:
        piece = next(p.index for p in model.pieces if p.piece == placed.piece)
        cells = placed.cells if transform is None else transform(placed.cells)
        pose = model.pose_for(piece, cells)
        ops = model.path_to(piece, pose, single_steps=True)
        assert all(abs(amount) == 1 for _, _, amount in ops)
        model.play(piece, ops)
        assert as_set(model.cells(piece)) == as_set(cells)
        steps += len(ops)
    return steps


def test_pieces_start_beside_an_empty_target(soma):
    model = PlayModel(soma)
    fit = model.fit()
    assert not any(fit.in_target) and fit.bad_pieces == () and fit.covered == 0
    assert not model.solved and not model.can_undo
    everything = [c for k in range(len(model.pieces)) for c in as_set(model.cells(k))]
    assert len(everything) == len(set(everything)) == 27  # no two pieces share a cell
    assert model.assembly() == []
    assert [p.name for p in model.pieces] == [p.name for p in soma.pieces]


def test_quarter_turns_keep_the_piece_on_the_grid_and_in_place(soma):
    model = PlayModel(soma)
    k = model.find("L")
    start = model.pose(k)
    pivot = model.pivot(k)
    for axis in "xyz":
        seen = []
        for _ in range(4):
            model.rotate(k, axis)
            cells = model.cells(k)
            seen.append(as_set(cells))
            assert geometry.canonical_key(cells) == soma.pieces[k].shape_key  # same shape
            assert np.array_equal(model.pivot(k), pivot)  # turns about its anchor cell
            assert any(np.array_equal(c + 0.5, pivot) for c in cells)
        assert model.pose(k) == start  # four quarter turns: back where it was
        assert len({frozenset(s) for s in seen}) == 4  # an L looks different each quarter
    model.rotate(k, "z", -1)
    turned = model.cells(k)
    model.undo()
    model.rotate(k, "z", 3)
    assert as_set(model.cells(k)) == as_set(turned)  # -1 is the other way round
    # +90° about z takes +x to +y (counter-clockwise seen from above)
    model.reset()
    before = model.cells(k) - model.pivot(k)
    model.rotate(k, "z")
    after = model.cells(k) - model.pivot(k)
    assert as_set(after + 0.5) == as_set(
        (before + 0.5) @ np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]).T
    )


def test_complete_the_soma_cube_move_by_move(soma, index):
    model = PlayModel(soma)
    events = {"moved": [], "solved": [], "history": [], "selected": []}
    for name, signal in model.events.signals.items():
        signal.connect(lambda *args, name=name: events[name].append(args))
    solution = index.solution(17)
    steps = assemble(model, solution)
    assert steps == len(events["moved"]) == len(model.history) > 7
    assert model.solved
    assert events["solved"] == [(True,)]  # announced once, at the end
    assert index.number(model.assembly()) == 17
    assert hint(soma, model.assembly()).reason == "solved"

    # an illegal move: lift a piece that reaches the top layer half out of the cube (one exists:
    # no sum of the flat pieces' sizes makes the 9 top cells)
    top = next(
        k
        for k in range(len(model.pieces))
        if model.cells(k)[:, 2].max() == 2 and model.cells(k)[:, 2].min() < 2
    )
    model.move(top, "z", 1)
    fit = model.fit()
    assert not model.solved and events["solved"][-1] == (False,)
    assert top in fit.bad_pieces
    assert np.array_equal(fit.outside[top], model.cells(top)[:, 2] == 3)
    lifted = as_set(model.cells(top))
    others = set().union(*(as_set(model.cells(k)) for k in range(7) if k != top))
    for k in range(7):  # red exactly where two pieces share a cell, or out of the cube
        against = others if k == top else lifted
        shared = [tuple(c) in against for c in model.cells(k).tolist()]
        assert shared == fit.overlap[k].tolist()
        assert np.array_equal(fit.bad[k], fit.outside[k] | fit.overlap[k])
    assert fit.covered < 27
    assert model.undo_label == f"move {model.pieces[top].name} along z"
    # and one that overlaps: push a piece sideways into its neighbour
    model.undo()
    assert model.solved
    k = model.find("V")
    cells = model.cells(k)
    axis, step = next(
        (a, s)
        for a in range(3)
        for s in (1, -1)
        if ((cells[:, a] + s >= 0) & (cells[:, a] + s <= 2)).all()
    )
    model.move(k, axis, step)
    fit = model.fit()
    assert fit.overlap[k].any() and k in fit.bad_pieces
    assert len(fit.bad_pieces) >= 2  # the neighbour's cells are flagged too
    assert not model.solved
    assert hint(soma, model.assembly()).completable is False
    assert model.undo() and model.solved
    assert model.redo() and not model.solved
    assert model.undo() and model.solved and model.can_redo
    assert [args[0] for args in events["solved"]] == [True, False, True, False, True, False, True]


def test_a_turned_or_mirrored_assembly_is_the_same_solution(soma, index):
    solution = index.solution(42)
    turn = PlayModel(soma)
    assemble(turn, solution, lambda c: np.column_stack([2 - c[:, 1], c[:, 0], c[:, 2]]))
    assert turn.solved and index.number(turn.assembly()) == 42
    # in a mirror image the two chiral pieces trade places: assemble with swapped roles
    mirrored = [(p.piece, p.cells * [-1, 1, 1] + [2, 0, 0]) for p in solution.pieces]
    swap = {t: index.group.elements[-1].type_map[t] for t in range(len(soma.pieces))}
    assert any(swap[t] != t for t in swap)
    assert index.number([(swap[t], c) for t, c in mirrored]) == 42
    other = index.solution(43)
    assert index.number([(p.piece, p.cells) for p in other.pieces]) == 43


def test_undo_redo_reset(soma):
    model = PlayModel(soma)
    history = []
    model.events.history.connect(lambda undo, redo: history.append((undo, redo)))
    k = model.find("T")
    start = model.pose(k)
    model.move(k, "x", 2)
    model.rotate(k, "y")
    moved = model.pose(k)
    assert model.undo_label == "turn T about y"
    model.reset()
    assert model.pose(k) == start and model.undo_label == "reset"
    assert model.undo() and model.pose(k) == moved  # reset is one undoable step
    assert model.undo() and model.undo() and model.pose(k) == start
    assert not model.undo() and model.can_redo
    assert model.redo() and model.pose(k).offset == (start.offset[0] + 2, *start.offset[1:])
    model.move(k, "y", 1)  # a new move drops the redo branch
    assert not model.can_redo
    model.place(k, Pose(0, (0, 0, 0)))
    assert as_set(model.cells(k)) == as_set(soma.pieces[k].cells)
    assert history[-1] == (True, False)
    n = len(history)
    model.place(k, Pose(0, (0, 0, 0)))  # no change, no history entry
    assert len(history) == n
    with pytest.raises(ValueError):
        model.place(k, Pose(24, (0, 0, 0)))
    with pytest.raises(ValueError):
        model.move(k, "w", 1)


def test_copies_are_separate_pieces():
    puzzle = load_polycube(case_file("polycube/dominoes-2x12.toml"))
    model = PlayModel(puzzle)
    assert [p.name for p in model.pieces] == [f"D {k}" for k in range(1, 13)]
    cells = [as_set(model.cells(k)) for k in range(12)]
    assert len(set().union(*cells)) == 24
    selected = []
    model.events.selected.connect(selected.append)
    model.select(3)
    model.select(3)
    model.select(None)
    assert selected == [3, None]


def test_a_range_of_copies_is_solved_without_the_spare_pieces(tmp_path):
    """Dominoes 0..2 and monominoes 0..4 in a strip of four: two dominoes fill it and the
    monominoes may stay on the table; one domino and a gap is not solved."""
    from tessera.viewer.drag import new_table
    from tests.test_piece_ranges import RANGED

    path = tmp_path / "strip.toml"
    path.write_text(RANGED)
    model = new_table(load_polycube(path))  # a grouped piece: an interlocking table
    assert len(model.pieces) == 6  # every copy a range allows lies on the table
    first, second = (p.index for p in model.pieces if p.name.startswith("D"))
    model.place(first, model.pose_for(first, [[0, 0, 0], [1, 0, 0]]))
    assert not model.solved
    model.place(second, model.pose_for(second, [[2, 0, 0], [3, 0, 0]]))
    assert model.solved


# -- the mouse's rules (viewer.drag: no Qt, no window) ------------------------------------------
def _overlaps(model: PlayModel, piece: int, pose: Pose) -> bool:
    cells = as_set(model.cells_at(piece, pose))
    return bool(cells & model.occupied(exclude=piece))


def test_a_carried_piece_rides_over_others_and_never_rests_inside_one(soma):
    from tessera.viewer import drag

    model = PlayModel(soma)
    v, lp = model.find("V"), model.find("L")
    start = model.pose(v)  # V at (0, 4, 0); L lies beside it at (3, 4, 0)
    # every goal along the row, through L and beyond: never inside L nor under the table
    for dx in range(0, 9):
        goal = (start.offset[0] + dx, start.offset[1], start.offset[2])
        held = drag.carry(model, v, start, goal)
        assert not _overlaps(model, v, held)
        assert model.cells_at(v, held)[:, 2].min() >= model.floor
        assert held.offset[:2] == goal[:2]  # lifted, it still gets where the hand is
    on_top = drag.carry(model, v, start, (4, 4, 0))
    assert on_top.offset[2] >= 1  # over L: it rests on L's top
    assert drag.fall(model, v, on_top) == on_top  # ... already resting there
    t = model.find("T")
    model.place(t, Pose(0, (20, 20, 0)))  # T out of the way: past L there is table
    beyond = drag.carry(model, v, start, (start.offset[0] + 8, start.offset[1], 0))
    assert beyond.offset == (8, 4, 0)  # past L it comes back down to the table
    # the way down into the target is clear: it slides straight in at table height
    assert drag.carry(model, v, start, (0, 0, 0)) == Pose(start.rotation, (0, 0, 0))
    # a piece held down from above cannot be lifted: it stops where it touches
    model.place(lp, Pose(model.pose(lp).rotation, (0, 4, 1)))  # L lies across V's top
    stuck = drag.carry(model, v, start, (start.offset[0] + 6, start.offset[1], 0))
    assert not _overlaps(model, v, stuck) and stuck.offset[2] == 0


def test_a_drop_falls_and_snaps_into_the_nearest_fitting_pose(soma, index):
    from tessera.viewer import drag

    model = PlayModel(soma)
    solution = index.solution(1)
    placed = solution.pieces[0]
    k = next(p.index for p in model.pieces if p.piece == placed.piece)
    target = model.pose_for(k, placed.cells)
    model.place(k, Pose(target.rotation, model.pose(k).offset))  # turned right, on the tray
    assert drag.snap(model, k, model.pose(k)) is None  # far from the target: no snap
    for shift in ((1, 0, 0), (0, -1, 0), (0, 0, 2), (1, 1, 1)):
        near = Pose(
            target.rotation, tuple(a + b for a, b in zip(target.offset, shift, strict=True))
        )
        if _overlaps(model, k, near):
            continue
        dropped = drag.drop(model, k, near)
        assert model.fits(k, dropped)
        assert as_set(model.cells_at(k, dropped)) <= as_set(soma.target.cells)
    high = Pose(target.rotation, (target.offset[0], target.offset[1], target.offset[2] + 5))
    assert drag.fall(model, k, high).offset[2] >= model.floor  # it falls, not through the table


def test_a_turn_that_would_hit_a_neighbour_is_lifted_clear(soma):
    from tessera.viewer import drag

    model = PlayModel(soma)
    for k in range(len(model.pieces)):
        for axis in range(3):
            for turns in (1, -1):
                pose = drag.turn(model, k, axis, turns)
                assert not _overlaps(model, k, pose)
                assert model.cells_at(k, pose)[:, 2].min() >= model.floor
                assert drag.fall(model, k, pose) == pose  # it lies on something
                assert pose.rotation == model.turned(k, axis, turns).rotation
