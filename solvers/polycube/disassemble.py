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
never generated. The search is compiled (numba, `_disassembly_kernel`), and so is the walk
over the parts: the states live in one array with an open-addressing hash table over it, and
the work is bounded by a node limit, reported as "gave up" instead of growing without end.
This module reads the kernel's rows back into the tree of `Separation`s and its `Move`s.

The level string is written as BurrTools writes it: the separation's move count, then, each
after a dot, the level of the part left behind and then of the part taken out, each only when
that part needs more than a single move to come apart completely (its own level is not "1").
Checked against BurrTools 0.7.1: Pelikan 98.2.4.2, Al Packino 1.1.1.1.1.2.1.3.1.2.1.2 (trailing
ones are dropped, inner ones kept: Draculas's separations 3, 5, 16, 6, 4, 1, 1, 1 read 3.5.16.6.4).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tessera.models.grids import CUBES, Grid
from tessera.solvers import native
from tessera.solvers.polycube._movement_codes import FOUND, LIMIT, SHAPES
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
    from tessera.solvers.polycube._disassembly_kernel import (
        _fronts,
        _lattice_distances,
        _piece_grids,
    )

    lat = lattice(grid)
    kinds = lat.kinds(cells)
    grids = _piece_grids(cells, starts)
    front = _fronts(cells, starts, kinds, lat.arrays, grids)
    n = len(starts) - 1
    shapes = (np.arange(n, dtype=np.int64), np.zeros((n, 3), np.int64))  # each piece its own
    return _lattice_distances(
        cells, starts, offsets, dist, ckeys, cvals, ccount, pair, kinds, lat.arrays, grids, front,
        shapes,
    )  # fmt: skip


class _PairCache:
    """The pair distances the disassembler has worked out, kept from one assembly to the next
    on one thread and grid: a puzzle's assemblies set the same shapes side by side again and
    again (Dracula's 84 share most of their pairs). A shape is a piece's cells less their
    lowest corner, with their kinds; `shapes` numbers them."""

    def __init__(self, n_directions: int) -> None:
        self.n_directions = n_directions
        self.clear()

    def clear(self) -> None:
        self.numbers: dict[bytes, int] = {}
        self.table = (
            np.full(1 << 14, -1, np.int64),
            np.empty((1 << 14, self.n_directions), np.int32),
            np.int64(0),
        )

    def keep(self, table: tuple) -> None:
        """The table the kernel hands back: the same arrays, filled in, or new ones when it
        had to grow them. Those are the kernel runtime's memory: copied into numpy's, so no
        array of the compiled module's own lives on in a thread's cache."""
        keys, values, count = table
        if keys is not self.table[0] or values is not self.table[1]:
            keys, values = np.array(keys), np.array(values)
        self.table = (keys, values, np.int64(count))

    def shapes(self, cells: list[np.ndarray], kinds: np.ndarray) -> tuple:
        if len(self.numbers) + len(cells) > SHAPES or self.table[2] > CACHE_PAIRS:
            self.clear()  # full: start again rather than grow without end
        ids = np.empty(len(cells), np.int64)
        bases = np.empty((len(cells), 3), np.int64)
        at = 0
        for k, piece in enumerate(cells):
            base = piece.min(axis=0)
            key = (piece - base).tobytes() + kinds[at : at + len(piece)].tobytes()
            ids[k] = self.numbers.setdefault(key, len(self.numbers))
            bases[k] = base
            at += len(piece)
        return ids, bases


#: Pairs the cache keeps at most before it starts again (its table then holds up to 50 MB on
#: the rhombic grid, 26 directions; 12 MB on the cube grid).
CACHE_PAIRS = 1 << 17
_caches = threading.local()


def _pair_cache(grid: Grid, n_directions: int) -> _PairCache:
    mine = getattr(_caches, "by_grid", None)
    if mine is None:
        mine = _caches.by_grid = {}
    found = mine.get(grid.name)
    if found is None or found.n_directions != n_directions:
        found = mine[grid.name] = _PairCache(n_directions)
    return found


# ---------------------------------------------------------------------------------------------
# the tree, read back from the compiled disassembly


def _pieces(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def _tree(moves: np.ndarray, seps: np.ndarray, grid: Grid) -> tuple[Separation, list[Move]]:
    """The separations and the moves in replay order, from the kernel's rows (see
    `_disassembly_kernel._disassemble`)."""
    every = [Move(_pieces(m), d, k, bool(r), grid) for m, d, k, r in moves.tolist()]
    rows = seps.tolist()
    nodes = [
        Separation(
            _pieces(mask),
            every[first : first + count],
            left_pieces=_pieces(left_mask),
            removed_pieces=_pieces(removed_mask),
        )
        for mask, first, count, _, _, left_mask, removed_mask in rows
    ]
    for node, row in zip(nodes, rows, strict=True):
        node.left = nodes[row[3]] if row[3] >= 0 else None
        node.removed = nodes[row[4]] if row[4] >= 0 else None
    return nodes[0], every


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
    listed = np.vstack(cells).tolist()
    if len(set(map(tuple, listed))) != len(listed):  # np.unique(axis=0) cost more than the search
        raise ValueError("two pieces share a cell: not an assembly")
    pieces = tuple(range(len(cells)))
    if len(cells) == 1:  # nothing to take apart: BurrTools' assembly that is no solution
        return Disassembly("", (), (), complete=False, stuck=pieces)
    groups = list(groups) if groups is not None else [0] * len(cells)
    if len(groups) != len(cells):
        raise ValueError("one group number per piece")
    packed, starts = pack_cells(cells)
    lat = lattice(grid)
    # pieces only ever move by lattice translations: a cell keeps its assembled kind
    kinds = lat.kinds(packed.astype(np.int64))
    cache = _pair_cache(grid, len(lat.dirs))
    shapes = cache.shapes(cells, kinds)
    code, stuck, nodes, moves, seps, together, table = native.disassembly()(
        packed, starts, kinds, np.asarray(groups, np.int64), node_limit, lat.arrays, shapes,
        cache.table,
    )  # fmt: skip
    cache.keep(table)
    if code != FOUND:
        return Disassembly(
            "", (), (), complete=False, gave_up=code == LIMIT, stuck=_pieces(int(stuck)),
            nodes=int(nodes),
        )  # fmt: skip
    tree, every = _tree(moves, seps, grid)
    return Disassembly(
        tree.level(),
        tuple(every),
        tuple(_pieces(m) for m in together.tolist()),
        complete=True,
        nodes=int(nodes),
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
