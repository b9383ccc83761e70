"""Solutions up to the target's symmetries, counted without listing every fixed solution.

The trick is the usual one (Knuth fixes the X pentomino in a quarter of the 6×10 box): pick a
piece p that is unique and that every symmetry g maps to itself, split p's placements into
orbits under the group G, and search once per orbit with p held at the orbit's first placement
q. Every class of solutions meets exactly one orbit, and inside it the solutions with p at q form
classes under q's stabiliser H. When H is trivial (the common case) those are all distinct
classes, each of |G| fixed solutions, and the compiled engine merely counts them; only the few
orbits with a symmetric placement need their solutions listed and compared.

Reflections act only when the mirror image of every piece is a piece of the set (Soma's A and B
swap); otherwise "up to symmetry" equals "up to rotation".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from models import geometry
from models.polycube import Placement, PolycubePuzzle
from solvers.exact_cover import Cancelled, Search
from solvers.polycube import PackingProblem, PolycubeSolution

Distinct = Literal["fixed", "rotation", "symmetry"]


@dataclass(frozen=True)
class Counts:
    fixed: int
    up_to_rotation: int
    up_to_symmetry: int
    partial: bool = False

    def as_dict(self) -> dict[str, int | bool]:
        return {
            "fixed": self.fixed,
            "up_to_rotation": self.up_to_rotation,
            "up_to_symmetry": self.up_to_symmetry,
        }


@dataclass(frozen=True)
class GroupElement:
    affine: np.ndarray  # 3×4: p -> M p + t
    proper: bool
    cell_map: np.ndarray  # target cell index -> index of its image
    type_map: tuple[int, ...]  # piece type -> type of its image


class TargetGroup:
    """The symmetries of a puzzle: those of the target that also map the piece set to itself."""

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        self.puzzle = puzzle
        target = puzzle.target
        mirror_types = self._mirror_types(puzzle)
        self.mirrors_act = mirror_types is not None
        identity_types = tuple(range(len(puzzle.pieces)))
        elements = []
        for affine in geometry.target_symmetries(target.required, target.optional, mirrors=True):
            proper = geometry.is_proper(affine[:, :3])
            if not proper and (not mirrors or mirror_types is None):
                continue
            moved = geometry.apply_affine(target.cells, affine)
            cell_map = np.array([target.index[tuple(c)] for c in moved.tolist()], np.int64)
            types = identity_types if proper else mirror_types
            elements.append(GroupElement(affine, proper, cell_map, types))
        self.elements = elements

    @staticmethod
    def _mirror_types(puzzle: PolycubePuzzle) -> tuple[int, ...] | None:
        by_shape = {(p.shape_key, p.copies): t for t, p in enumerate(puzzle.pieces)}
        out = []
        for p in puzzle.pieces:
            t = by_shape.get((p.mirror_key, p.copies))
            if t is None:
                return None
            out.append(t)
        return tuple(out)

    @property
    def order(self) -> int:
        return len(self.elements)

    @cached_property
    def has_improper(self) -> bool:
        return any(not g.proper for g in self.elements)

    def image(self, g: GroupElement, cells: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(g.cell_map[list(cells)].tolist()))

    def encode(self, solution: PolycubeSolution, g: GroupElement | None = None):
        """A hashable form of the solution's image under g: sorted (type, cells) pairs."""
        items = []
        for placed in solution.pieces:
            cells = placed.placement.cells
            if g is None:
                items.append((placed.piece, cells))
            else:
                items.append((g.type_map[placed.piece], self.image(g, cells)))
        return tuple(sorted(items))

    def canonical(self, solution: PolycubeSolution, elements=None):
        return min(self.encode(solution, g) for g in (elements or self.elements))

    def stabiliser(self, solution: PolycubeSolution, elements=None) -> list[GroupElement]:
        me = self.encode(solution)
        return [g for g in (elements or self.elements) if self.encode(solution, g) == me]


@dataclass(frozen=True)
class Orbit:
    representative: Placement
    size: int
    stabiliser: tuple[GroupElement, ...]


def _orbits(group: TargetGroup, piece: int) -> list[Orbit]:
    placements = group.puzzle.placements(piece)
    by_cells = {p.cells: p for p in placements}
    seen: set[tuple[int, ...]] = set()
    orbits = []
    for p in placements:
        if p.cells in seen:
            continue
        images = set()
        stab = []
        for g in group.elements:
            image = group.image(g, p.cells)
            images.add(image)
            if image == p.cells:
                stab.append(g)
        assert images <= by_cells.keys(), "a symmetry moved a placement outside the target"
        seen |= images
        orbits.append(Orbit(p, len(images), tuple(stab)))
    return orbits


def _anchor(group: TargetGroup) -> tuple[int, list[Orbit]] | None:
    """The piece whose orbits make the cheapest restriction, or None if no piece qualifies."""
    best = None
    for t, piece in enumerate(group.puzzle.pieces):
        if piece.copies != 1 or any(g.type_map[t] != t for g in group.elements):
            continue
        orbits = _orbits(group, t)
        if not orbits:
            continue
        cost = len(orbits) + 4 * sum(1 for o in orbits if len(o.stabiliser) > 1)
        if best is None or cost < best[0]:
            best = (cost, t, orbits)
    return None if best is None else (best[1], best[2])


ProgressFn = Callable[[float, int], None]


class ClassSearch:
    """Counts, or lists one representative per class, under a puzzle's symmetry group.

    Cancellable from another thread (`cancel()`); progress goes to `on_progress(fraction,
    solutions_so_far)`.
    """

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        self.puzzle = puzzle
        self.group = TargetGroup(puzzle, mirrors=mirrors)
        self._cancel = threading.Event()
        self._current: Search | None = None
        anchor = _anchor(self.group)
        self.anchor_piece, self.orbits = anchor if anchor else (None, [])

    def cancel(self) -> None:
        self._cancel.set()
        if self._current is not None:
            self._current.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _searches(self) -> Iterator[tuple[int, Orbit | None, PackingProblem, Search]]:
        if self.anchor_piece is None:
            problem = PackingProblem(self.puzzle)
            yield 0, None, problem, self._start(problem)
            return
        for k, orbit in enumerate(self.orbits):
            if self.cancelled:
                return
            problem = PackingProblem(self.puzzle, only={self.anchor_piece: [orbit.representative]})
            yield k, orbit, problem, self._start(problem)

    def _start(self, problem: PackingProblem) -> Search:
        self._current = problem.search()
        if self.cancelled:
            self._current.cancel()
        return self._current

    def _fraction(self, k: int, search: Search) -> float:
        n = max(len(self.orbits), 1)
        return (k + search.progress()) / n

    def count(self, on_progress: ProgressFn | None = None) -> Counts:
        """fixed / up to rotation / up to symmetry. On cancel, returns partial counts."""
        fixed = classes = rot = 0
        partial = False
        for k, orbit, problem, search in self._searches():

            def report(s: Search, k=k, before=fixed) -> None:
                if on_progress:
                    on_progress(self._fraction(k, s), before + s.found)

            if orbit is not None and len(orbit.stabiliser) == 1:
                try:
                    n = search.count(on_progress=report)
                except Cancelled as exc:
                    n, partial = exc.partial, True
                fixed += orbit.size * n
                classes += n
                rot += (2 if self.group.has_improper else 1) * n
            else:
                elements = list(orbit.stabiliser) if orbit else self.group.elements
                seen = set()
                n = 0
                for rows in search.solutions(report):
                    n += 1
                    sol = problem.solution(rows)
                    canon = self.group.canonical(sol, elements)
                    if canon in seen:
                        continue
                    seen.add(canon)
                    stab = self.group.stabiliser(sol, elements)
                    classes += 1
                    rot += (
                        1 if any(not g.proper for g in stab) or not self.group.has_improper else 2
                    )
                if orbit is not None:
                    fixed += orbit.size * n
                else:
                    fixed += n
                if search.cancelled and not search.done:
                    partial = True
            if partial:
                break
        if not self.group.has_improper:
            rot = classes
        return Counts(fixed, rot, classes, partial)

    def representatives(self, on_progress: ProgressFn | None = None) -> Iterator[PolycubeSolution]:
        """One solution per class, lazily."""
        found = 0
        for k, orbit, problem, search in self._searches():

            def report(s: Search, k=k, before=found) -> None:
                if on_progress:
                    on_progress(self._fraction(k, s), before)

            elements = list(orbit.stabiliser) if orbit else self.group.elements
            trivial = orbit is not None and len(elements) == 1
            seen = set()
            for rows in search.solutions(report):
                sol = problem.solution(rows)
                if not trivial:
                    canon = self.group.canonical(sol, elements)
                    if canon in seen:
                        continue
                    seen.add(canon)
                found += 1
                yield sol


def count_solutions(puzzle: PolycubePuzzle, on_progress: ProgressFn | None = None) -> Counts:
    return ClassSearch(puzzle).count(on_progress)
