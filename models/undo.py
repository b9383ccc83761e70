"""The one undo history of the models that are edited by hand: Design's document
(`models.design.DesignDocument`) and Play's table (`models.play.PlayModel`).

Each keeps named entries on two stacks; what an entry holds is the model's business (a
snapshot of the document, the poses a move changed). A new edit clears what could be redone.
Undo moves the newest entry to the redo stack and hands it back for the model to apply; a
model that stores snapshots rather than changes passes `keep`, which gives what the other
stack keeps instead (the snapshot being left), so that redo can come back to it. The stacks
have moved before the model applies the entry, so the history it announces is the new one.
Qt-free, like the models: the window's Undo actions only read `can_undo` and the labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    label: str  # what the edit did, for "Undo move A along x"
    data: T


class UndoStack(Generic[T]):
    def __init__(self) -> None:
        self._undo: list[Entry[T]] = []
        self._redo: list[Entry[T]] = []

    def push(self, label: str, data: T) -> None:
        """A new edit: it can be undone, and nothing undone before can be redone."""
        self._undo.append(Entry(label, data))
        self._redo.clear()

    def undo(self, keep: Callable[[T], T] | None = None) -> Entry[T] | None:
        """The newest edit to take back (None: none), moved to the redo stack (as
        `keep(data)` when given)."""
        return self._move(self._undo, self._redo, keep)

    def redo(self, keep: Callable[[T], T] | None = None) -> Entry[T] | None:
        """The newest undone edit to do again (None: none), moved back to the undo stack."""
        return self._move(self._redo, self._undo, keep)

    @staticmethod
    def _move(source: list, sink: list, keep: Callable | None) -> Entry | None:
        if not source:
            return None
        entry = source.pop()
        sink.append(entry if keep is None else Entry(entry.label, keep(entry.data)))
        return entry

    def __len__(self) -> int:
        """How many edits can be undone."""
        return len(self._undo)

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_label(self) -> str | None:
        return self._undo[-1].label if self._undo else None

    @property
    def redo_label(self) -> str | None:
        return self._redo[-1].label if self._redo else None


class Undoable:
    """What a model with a `history` tells its Undo and Redo actions (Design and Play alike)."""

    history: UndoStack

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    @property
    def undo_label(self) -> str | None:
        return self.history.undo_label

    @property
    def redo_label(self) -> str | None:
        return self.history.redo_label
