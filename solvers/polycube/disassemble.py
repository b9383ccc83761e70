"""BurrTools-style disassembly: the fewest straight moves until the assembly comes apart.

A *state* is the offset of every piece of a part. A *move* slides a group of pieces along one of
the grid's directions (the cube grid's six axes, or another grid's, each step stopped by the
cells its sweep meets: `models.grids.sweep`); each slide is one move, however far and however
many pieces. The moves of a state are found in BurrTools' order (`_removal`, `_slides`, the
grid's directions in their order, BurrTools' own on the cube and prism grids): that order
decides which of several equally short separations comes first, and so every number of the
level after the first. A breadth-
first search from the assembled state stops at the first state where some group can slide away
for ever: that removal is the last move of the *separation*, and its count the separation's
number (98 for Pelikan Burr). Then both parts, each keeping the relative positions it has at
that moment, are taken apart the same way. A part made only of pieces of one BurrTools `group`
may stay joined; any other part that cannot come apart makes the assembly no solution.

The first piece of a part never moves: sliding a group one way is the same relative motion as
sliding the rest the other way, so the states need no normalising and half the groups are
never generated. The search is compiled (numba): the states live in one array with an
open-addressing hash table over it, and the work is bounded by a node limit, reported as
"gave up" instead of growing without end.

The level string is written as BurrTools writes it: the separation's move count, then, each
after a dot, the level of the part left behind and then of the part taken out, each only when
that part needs more than a single move to come apart completely (its own level is not "1").
Checked against BurrTools 0.7.1: Pelikan 98.2.4.2, Al Packino 1.1.1.1.1.2.1.3.1.2.1.2 (trailing
ones are dropped, inner ones kept: Draculas's separations 3, 5, 16, 6, 4, 1, 1, 1 read 3.5.16.6.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.solvers import native
from tessera.solvers.polycube._movement_codes import FOUND, LIMIT
from tessera.solvers.polycube.movement import Move, lattice, pack_cells

DEFAULT_NODE_LIMIT = 1_000_000  # states per separation search (about 100 MB for 7 pieces)


class NodeLimitReached(RuntimeError):
    """The search for one separation visited more states than allowed."""


@dataclass
class Separation:
    """One node of the disassembly tree: the moves that split `pieces` into two parts."""

    pieces: tuple[int, ...]
    moves: list[Move]
    left: Separation | None = None  # the part that stayed (holds the part's first piece)
    removed: Separation | None = None  # the part that slid away
    left_pieces: tuple[int, ...] = ()
    removed_pieces: tuple[int, ...] = ()

    def level(self) -> str:
        text = str(len(self.moves))
        for child in (self.left, self.removed):
            if child is not None:
                sub = child.level()
                if sub != "1":
                    text += "." + sub
        return text

    def all_moves(self) -> list[Move]:
        """The moves in replay order: this separation, then the part left, then the other."""
        out = list(self.moves)
        for child in (self.left, self.removed):
            if child is not None:
                out.extend(child.all_moves())
        return out


@dataclass(frozen=True)
class Disassembly:
    """The outcome for one assembly.

    `complete`: it comes apart (into single pieces, or parts of one group each): a solution.
    `gave_up`: the node limit stopped a search, so nothing is known; `stuck` then or otherwise
    names the part that did not come apart.
    """

    level: str
    moves: tuple[Move, ...]
    left_together: tuple[tuple[int, ...], ...]
    complete: bool
    gave_up: bool = False
    stuck: tuple[int, ...] = ()
    nodes: int = 0
    tree: Separation | None = field(default=None, repr=False, compare=False)

    @property
    def first_separation(self) -> int:
        """Moves until the first piece or group comes out (the level's first number)."""
        return len(self.tree.moves) if self.tree is not None else 0

    @property
    def move_count(self) -> int:
        return len(self.moves)

    def level_key(self) -> tuple[int, ...]:
        """For sorting by level: hardest first is `sorted(..., key=..., reverse=True)`."""
        return tuple(int(v) for v in self.level.split(".")) if self.level else ()

    def frames(self, n_pieces: int) -> list[np.ndarray]:
        """Every piece's offset from its assembled place, before the first move and after
        each move: what a viewer plays (backwards, for an assembly). A removed group stays
        parked where its removal leaves it, clear of the rest of its part."""
        at = np.zeros((n_pieces, 3), np.int64)
        out = [at.copy()]
        for move in self.moves:
            at[list(move.pieces)] += np.asarray(move.by, np.int64)
            out.append(at.copy())
        return out

    def as_dict(self) -> dict:
        return {
            "level": self.level,
            "moves": [m.as_dict() for m in self.moves],
            "left_together": [list(g) for g in self.left_together],
        }


# ---------------------------------------------------------------------------------------------
# the compiled breadth-first search


def _cached_distances(cells, starts, offsets, dist, ckeys, cvals, ccount, pair, grid=CUBES):
    """`_lattice_distances` on `grid` (the cube grid unless told), for callers outside the
    search."""
    from tessera.solvers.polycube._disassembly_kernel import _lattice_distances, _piece_grids

    lat = lattice(grid)
    return _lattice_distances(
        cells, starts, offsets, dist, ckeys, cvals, ccount, pair, lat.kinds(cells), lat.arrays,
        _piece_grids(cells, starts),
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# the recursion in Python


class _Stuck(Exception):
    def __init__(self, pieces: tuple[int, ...], gave_up: bool) -> None:
        super().__init__(pieces)
        self.pieces = pieces
        self.gave_up = gave_up


class _Run:
    """One assembly's disassembly: every part's search, sharing the counters."""

    def __init__(
        self,
        cells: list[np.ndarray],
        groups: Sequence[int] | None,
        node_limit: int,
        grid: Grid = CUBES,
    ) -> None:
        self.cells = cells
        self.grid = grid
        self.lattice = lattice(grid)
        self.groups = list(groups) if groups is not None else [0] * len(cells)
        if len(self.groups) != len(cells):
            raise ValueError("one group number per piece")
        self.node_limit = node_limit
        self.nodes = 0
        self.left_together: list[tuple[int, ...]] = []
        self.search = native.disassembly_search()

    def done_part(self, pieces: tuple[int, ...]) -> bool:
        """True when the part needs no separation: one piece, or pieces of one group."""
        if len(pieces) == 1:
            return True
        first = self.groups[pieces[0]]
        if first != 0 and all(self.groups[p] == first for p in pieces):
            self.left_together.append(pieces)
            return True
        return False

    def separate(
        self, pieces: tuple[int, ...], offsets: np.ndarray, top: bool = False
    ) -> Separation | None:
        """The separation tree of a part (None when it needs none). The whole assembly
        (`top`) must come apart at least once even when all its pieces share a group, as in
        BurrTools: a group excuses a part left after a separation, not the puzzle itself."""
        if not top and self.done_part(pieces):
            return None
        packed, starts = pack_cells([self.cells[p] for p in pieces])
        init = np.ascontiguousarray(offsets, np.int32)
        lat = self.lattice
        # offsets are lattice translations: a cell's kind is the kind it has assembled
        kinds = lat.kinds(packed.astype(np.int64))
        code, states, parent, mmask, mdir, mdist, count, goal, removed, rdir = self.search(
            packed, starts, init, self.node_limit, kinds, lat.arrays
        )
        self.nodes += int(count)
        if code != FOUND:
            raise _Stuck(pieces, gave_up=code == LIMIT)
        path = []
        s = int(goal)
        while s > 0:
            path.append(s)
            s = int(parent[s])
        path.reverse()
        moves = []
        for s in path:
            m, d, k = int(mmask[s]), int(mdir[s]), int(mdist[s])
            moving = tuple(pieces[i] for i in range(len(pieces)) if m >> i & 1)
            moves.append(Move(moving, d, k, grid=self.grid))
        final = states[int(goal)].reshape(-1, 3).copy()
        mask = int(removed)
        inside = [i for i in range(len(pieces)) if mask >> i & 1]
        outside = [i for i in range(len(pieces)) if not mask >> i & 1]
        step = lat.dirs[int(rdir)]
        clear = _clearance(packed, starts, final, inside, outside, step)
        removal = Move(tuple(pieces[i] for i in inside), int(rdir), clear, True, self.grid)
        moves.append(removal)
        moved = final.copy()
        moved[inside] += step * clear
        left_pieces = tuple(pieces[i] for i in outside)
        removed_pieces = tuple(pieces[i] for i in inside)
        node = Separation(pieces, moves, left_pieces=left_pieces, removed_pieces=removed_pieces)
        node.left = self.separate(left_pieces, final[outside])
        node.removed = self.separate(removed_pieces, moved[inside])
        return node


def _clearance(cells, starts, offsets, inside, outside, step: np.ndarray) -> int:
    """The fewest steps (at least 1) after which the group is clear of the rest's bounding box,
    beyond it along some coordinate the step changes: no cell of the two is then shared, so the
    group can be parked there (every step on the way is free: it is a removal)."""

    def coords(group):
        return np.vstack([cells[starts[i] : starts[i + 1]] + offsets[i] for i in group])

    mine, rest = coords(inside), coords(outside)
    best = None
    for a in np.flatnonzero(step).tolist():
        if step[a] > 0:  # mine.min + k step > rest.max
            gap = int(rest[:, a].max() - mine[:, a].min())
        else:
            gap = int(mine[:, a].max() - rest[:, a].min())
        need = gap // abs(int(step[a])) + 1
        best = need if best is None else min(best, need)
    assert best is not None
    return max(1, best)


def disassemble(
    cells_by_piece: Sequence[Iterable],
    groups: Sequence[int] | None = None,
    node_limit: int = DEFAULT_NODE_LIMIT,
    grid: Grid = CUBES,
) -> Disassembly:
    """Take an assembly apart (pieces as cell lists, all in one frame, cells of `grid`).

    `groups`: one BurrTools group number per piece (0: none); a part made only of pieces of
    one non-zero group may stay joined. The result is `complete` when the assembly comes apart,
    otherwise `stuck` names the part that does not (with `gave_up` when the node limit, per
    separation search, stopped it rather than a proof).
    """
    cells = [np.asarray(c, np.int64).reshape(-1, 3) for c in cells_by_piece]
    if not cells:
        raise ValueError("no pieces")
    if node_limit < 1:
        raise ValueError("the node limit must be at least 1")
    every = np.vstack(cells).tolist()
    if len(set(map(tuple, every))) != len(every):  # np.unique(axis=0) cost more than the search
        raise ValueError("two pieces share a cell: not an assembly")
    pieces = tuple(range(len(cells)))
    if len(cells) == 1:  # nothing to take apart: BurrTools' assembly that is no solution
        return Disassembly("", (), (), complete=False, stuck=pieces)
    run = _Run(cells, groups, node_limit, grid)
    try:
        tree = run.separate(pieces, np.zeros((len(cells), 3), np.int32), top=True)
    except _Stuck as stuck:
        return Disassembly(
            "", (), (), complete=False, gave_up=stuck.gave_up, stuck=stuck.pieces, nodes=run.nodes
        )
    assert tree is not None
    return Disassembly(
        tree.level(),
        tuple(tree.all_moves()),
        tuple(run.left_together),
        complete=True,
        nodes=run.nodes,
        tree=tree,
    )


def require_complete(result: Disassembly) -> Disassembly:
    """`result`, or NodeLimitReached when the node limit stopped it (for callers that must
    not mistake "gave up" for "does not come apart")."""
    if result.gave_up:
        raise NodeLimitReached(
            f"gave up after {result.nodes} states while separating pieces "
            f"{list(result.stuck)}: raise the node limit to go on"
        )
    return result


# ---------------------------------------------------------------------------------------------
# BurrTools groups (models.burrtools does not keep them yet)


def xmpuzzle_groups(path: str | Path, problem: int = 1) -> list[int]:
    """The `group` number of each piece type of a BurrTools problem (1-based, as
    `models.burrtools.load_xmpuzzle` counts), in the order that loader lists the pieces
    (shapes with a count below 1 are skipped there and here). 0 means no group.

    A shape that lists several `<group>` children (it belongs to more than one group) gets
    the first one; BurrTools lets such pieces join any of them, which Tessera does not model.
    """
    import gzip

    from defusedxml import ElementTree as SafeET

    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    root = SafeET.fromstring(raw)
    problems = root.findall("./problems/problem")
    prob = problems[problem - 1]
    out = []
    for sh in prob.findall("./shapes/shape"):
        try:
            count = int(sh.get("count", "1"))
        except ValueError:
            count = 1
        if sh.get("count") is None and sh.get("max") is not None:
            count = int(sh.get("max"))
        if count < 1:
            continue
        group = sh.get("group")
        if group is None:
            child = sh.find("group")
            group = child.get("group") if child is not None else "0"
        out.append(int(group or 0))
    return out
