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

import os
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from tessera.models import geometry
from tessera.models.polycube import Placement, PolycubePuzzle
from tessera.solvers.exact_cover import ExactCoverSearch
from tessera.solvers.polycube import PackingProblem, PolycubeSolution
from tessera.solvers.search_control import Cancelled, Progress, Report, Search

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
    def kernel(self) -> frozenset[int]:
        """Elements that move no cell and no piece type (the mirror through the plane of a
        flat puzzle): they fix every solution, so they never make two solutions alike."""
        identity_cells = np.arange(len(self.puzzle.target.cells))
        identity_types = tuple(range(len(self.puzzle.pieces)))
        return frozenset(
            id(g)
            for g in self.elements
            if np.array_equal(g.cell_map, identity_cells) and g.type_map == identity_types
        )

    @cached_property
    def mirror_is_trivial(self) -> bool:
        """True when mirror images are always the same solution (or no mirror acts)."""
        return not self.has_improper or any(
            not g.proper for g in self.elements if id(g) in self.kernel
        )

    def acts_freely_on(self, stabiliser) -> bool:
        return all(id(g) in self.kernel for g in stabiliser)

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
    """The piece to hold at one placement per orbit, or None if no piece qualifies.

    What is left to search is about (orbits / placements) of the whole tree; orbits whose
    solutions must be listed and compared, not merely counted, weigh extra. Among the pieces
    within 10% of the cheapest, the one with the fewest placements wins: fixing the most
    constrained piece first prunes hardest (Knuth's X pentomino; measured on 6x10 and 3x4x5:
    2-3 times fewer nodes than an unconstrained piece with the same share).
    """
    scored = []
    for t, piece in enumerate(group.puzzle.pieces):
        if piece.copies != 1 or any(g.type_map[t] != t for g in group.elements):
            continue
        orbits = _orbits(group, t)
        if not orbits:
            continue
        listed = sum(1 for o in orbits if not group.acts_freely_on(o.stabiliser))
        n_placements = len(group.puzzle.placements(t))
        scored.append(((len(orbits) + 0.5 * listed) / n_placements, n_placements, t, orbits))
    if not scored:
        return None
    cheapest = min(cost for cost, *_ in scored)
    _, _, t, orbits = min((s for s in scored if s[0] <= 1.1 * cheapest), key=lambda s: s[1])
    return t, orbits


class ClassSearch(Search):
    """Lists one representative per class under a puzzle's symmetry group (the search
    protocol: `solutions()` and `count()` are per class), and `tally()`s the three counts.

    The orbits of the anchor piece are independent exact-cover searches: listing runs them one
    after another, `tally()` runs them on every core.
    """

    def __init__(self, puzzle: PolycubePuzzle, mirrors: bool = True) -> None:
        self.puzzle = puzzle
        self.group = TargetGroup(puzzle, mirrors=mirrors)
        Search.__init__(self)
        self.events = []
        self.found = 0
        self.done = False
        self._listing_fraction = 0.0
        self._current: ExactCoverSearch | None = None
        self._running: set[ExactCoverSearch] = set()
        self._lock = threading.Lock()
        self._progress_done = 0.0
        anchor = _anchor(self.group)
        self.anchor_piece, self.orbits = anchor if anchor else (None, [])

    def cancel(self) -> None:
        Search.cancel(self)
        with self._lock:
            running = list(self._running)
        for search in running:
            search.cancel()
        if self._current is not None:
            self._current.cancel()

    def progress(self) -> float:
        """While listing: the orbits done plus the running one's tree fraction; while tallying:
        the same over the orbits that run in parallel."""
        if self.done:
            return 1.0
        if self._running:
            return self._live_progress(max(len(self.orbits), 1))
        return self._listing_fraction

    def _searches(self) -> Iterator[tuple[int, Orbit | None, PackingProblem, ExactCoverSearch]]:
        if self.anchor_piece is None:
            problem = PackingProblem(self.puzzle)
            yield 0, None, problem, self._start(problem)
            return
        for k, orbit in enumerate(self.orbits):
            if self.cancelled:
                return
            problem = PackingProblem(self.puzzle, only={self.anchor_piece: [orbit.representative]})
            yield k, orbit, problem, self._start(problem)

    def _start(self, problem: PackingProblem) -> ExactCoverSearch:
        self._current = problem.search()
        if self.cancelled:
            self._current.cancel()
        return self._current

    def _fraction(self, k: int, search: ExactCoverSearch) -> float:
        n = max(len(self.orbits), 1)
        return (k + search.progress()) / n

    def _tally_orbit(self, orbit: Orbit | None) -> tuple[int, int, int, bool]:
        """(fixed, classes, rotation classes, partial) for the solutions with the anchor
        piece at this orbit's representative (or for all solutions when there is no anchor)."""
        if orbit is None:
            problem = PackingProblem(self.puzzle)
        else:
            problem = PackingProblem(self.puzzle, only={self.anchor_piece: [orbit.representative]})
        search = problem.search()
        with self._lock:
            self._running.add(search)
        if self.cancelled:
            search.cancel()
        improper_doubles = 1 if self.group.mirror_is_trivial else 2
        try:
            if orbit is not None and self.group.acts_freely_on(orbit.stabiliser):
                try:
                    n = search.count()
                except Cancelled as exc:
                    return (
                        orbit.size * exc.partial,
                        exc.partial,
                        improper_doubles * exc.partial,
                        True,
                    )
                return orbit.size * n, n, improper_doubles * n, False
            elements = list(orbit.stabiliser) if orbit else self.group.elements
            seen = set()
            n = classes = rot = 0
            for rows in search.solutions():
                n += 1
                sol = problem.solution(rows)
                canon = self.group.canonical(sol, elements)
                if canon in seen:
                    continue
                seen.add(canon)
                classes += 1
                stab = self.group.stabiliser(sol, elements)
                rot += 1 if any(not g.proper for g in stab) else improper_doubles
            fixed = orbit.size * n if orbit is not None else n
            return fixed, classes, rot, search.cancelled and not search.done
        finally:
            with self._lock:
                self._running.discard(search)
                self._progress_done += 1.0 if search.done else search.progress()

    def _live_progress(self, total: int) -> float:
        with self._lock:
            running = sum(s.progress() for s in self._running)
            return min((self._progress_done + running) / max(total, 1), 1.0)

    def tally(self, on_progress: Progress | None = None, workers: int | None = None) -> Counts:
        """fixed / up to rotation / up to symmetry. On cancel, returns partial counts.

        The orbits are independent searches, and the compiled kernel releases the GIL, so
        they run on every core the machine gives us."""
        tasks: list[Orbit | None] = list(self.orbits) if self.anchor_piece is not None else [None]
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        workers = max(1, min(workers or cores or 1, len(tasks)))
        self._progress_done = 0.0
        fixed = classes = rot = 0
        partial = False
        with ThreadPoolExecutor(workers, thread_name_prefix="tessera-count") as pool:
            pending = {pool.submit(self._tally_orbit, orbit) for orbit in tasks}
            while pending:
                done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for future in done:
                    f, c, r, p = future.result()
                    fixed, classes, rot, partial = fixed + f, classes + c, rot + r, partial or p
                if on_progress:
                    on_progress(self._live_progress(len(tasks)), fixed)
        if self.group.mirror_is_trivial:
            rot = classes
        self.done = not (partial or self.cancelled)
        return Counts(fixed, rot, classes, partial or self.cancelled)

    def representatives(self, on_progress: Progress | None = None) -> Iterator[PolycubeSolution]:
        """One solution per class, lazily (the same as `solutions()`)."""
        return self.solutions(on_progress)

    def _solutions(self, report: Report | None) -> Iterator[PolycubeSolution]:
        for k, orbit, problem, search in self._searches():

            def orbit_report(_fraction: float, _found: int, k=k, search=search) -> None:
                self._listing_fraction = self._fraction(k, search)
                if report is not None:
                    report()

            elements = list(orbit.stabiliser) if orbit else self.group.elements
            trivial = orbit is not None and self.group.acts_freely_on(elements)
            seen = set()
            for rows in search.solutions(orbit_report):
                sol = problem.solution(rows)
                if not trivial:
                    canon = self.group.canonical(sol, elements)
                    if canon in seen:
                        continue
                    seen.add(canon)
                self.found += 1
                yield sol
            self._listing_fraction = self._fraction(k + 1, search) if orbit else 1.0
        self.done = not self.cancelled


def count_solutions(puzzle: PolycubePuzzle, on_progress: Progress | None = None) -> Counts:
    return ClassSearch(puzzle).tally(on_progress)
