"""Which listed polycube solution a search trace's stack shows (the family's `match_trace`).

The list holds one solution per symmetry class, in the order the (symmetry-reduced) listing
found them; the trace is the plain search's own path, whose first solution may be any member
of any class. A solution is compared as its cell → piece-type labelling under every symmetry
of the target: the trace's solution matches a listed one when some symmetry maps one
labelling onto the other. Cheap: 48 keys for the trace's solution, one per listed solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

Key = tuple[tuple[int, int, int, int], ...]


def _key(cells: np.ndarray, labels: np.ndarray) -> Key:
    rows = np.column_stack([np.asarray(cells, np.int64), np.asarray(labels, np.int64)])
    return tuple(map(tuple, rows[np.lexsort(rows.T[::-1])].tolist()))


def _labelled(pieces: Sequence[tuple[int, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    cells = np.vstack([np.asarray(c, np.int64) for _, c in pieces])
    labels = np.concatenate([np.full(len(c), t, np.int64) for t, c in pieces])
    return cells, labels


def _mirror_partners(puzzle: Any) -> np.ndarray | None:
    """Per piece type, the type whose shape is its mirror image (itself if symmetric); None
    when the set is not closed under mirroring (then reflections are no symmetry of it)."""
    from tessera.models.geometry import canonical_key, mirror

    shapes = {canonical_key(p.cells): t for t, p in enumerate(puzzle.pieces)}
    partners = []
    for piece in puzzle.pieces:
        partner = shapes.get(canonical_key(mirror(piece.cells)))
        if partner is None:
            return None
        partners.append(partner)
    return np.array(partners, np.int64)


def polycube_row(puzzle: Any, trace: Any, stack: Sequence[int], solutions: Sequence[Any]):
    """The index in `solutions` of the polycube solution the trace's `stack` shows, or None."""
    from tessera.models.geometry import apply_affine, target_symmetries

    problem = trace.decoder
    pieces = [(problem.placements[row].piece, problem.row_cells[row]) for row in stack]
    if not pieces:
        return None
    cells, labels = _labelled(pieces)
    target = puzzle.target
    mirror_of = _mirror_partners(puzzle)
    keys = set()
    for affine in target_symmetries(target.required, target.optional):
        if np.linalg.det(affine[:, :3]) > 0:
            keys.add(_key(apply_affine(cells, affine), labels))
        elif mirror_of is not None:  # a reflection turns each piece into its mirror partner
            keys.add(_key(apply_affine(cells, affine), mirror_of[labels]))
    for index, solution in enumerate(solutions):
        listed = [(p.piece, p.cells) for p in solution.pieces]
        if _key(*_labelled(listed)) in keys:
            return index
    return None
