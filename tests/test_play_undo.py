"""The one undo history (`models.undo.UndoStack`) that Play's table and Design's document share:
its rules on its own, and both models going through it."""

from __future__ import annotations

from tessera.models.design import DesignDocument
from tessera.models.play import PlayModel
from tessera.models.undo import UndoStack


def test_a_new_edit_clears_redo_and_labels_name_the_next_step():
    stack: UndoStack[int] = UndoStack()
    assert stack.undo() is None and stack.redo() is None and not stack.can_undo
    stack.push("a", 1)
    stack.push("b", 2)
    assert (stack.undo_label, stack.redo_label, len(stack)) == ("b", None, 2)
    assert stack.undo().data == 2 and stack.redo_label == "b"
    stack.push("c", 3)  # a new edit: "b" cannot come back
    assert not stack.can_redo and stack.undo_label == "c"


def test_a_snapshot_store_keeps_the_state_it_leaves():
    """`keep` gives what the other stack holds: undo of a snapshot keeps the one left."""
    stack: UndoStack[str] = UndoStack()
    now = "after"
    stack.push("edit", "before")
    entry = stack.undo(lambda _old: now)
    assert entry.data == "before"
    now = entry.data
    assert stack.redo(lambda _old: now).data == "after" and stack.undo_label == "edit"


def test_play_and_design_undo_through_it(soma):
    model = PlayModel(soma)
    model.move(0, "x", 2)
    model.rotate(0, "z")
    assert isinstance(model.history, UndoStack) and len(model.history) == 2
    assert model.undo() and model.redo_label.startswith("turn") and model.can_redo
    doc = DesignDocument()
    doc.add_cells([(0, 0, 0)])
    doc.add_cells([(1, 0, 0)])
    assert isinstance(doc.history, UndoStack) and len(doc.history) == 2
    assert doc.undo() and doc.cells() == {(0, 0, 0)} and doc.redo()
    assert doc.cells() == {(0, 0, 0), (1, 0, 0)} and not doc.can_redo
