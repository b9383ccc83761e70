"""Solving domino boards: exact cover on the shared engine, and a deduction solver for grading.

Exact cover: one column per cell (primary: each cell covered once) and one per tile of the set
(each tile at most once; primary when the board needs the whole set, so every tile is used
exactly once and an unplaceable tile prunes at once). A row is a tile lying on two neighbouring
cells; orientation marks remove the rows that lie the wrong way. Because the rows go through
the exact-cover engine, solutions come lazily, counting stops at a limit, a search can be
cancelled from another thread and the viewer can replay the trace: a trace event's choice is
the row number, and `DominoSolver.decode(row)` says which cells and tile it means.

The deduction solver follows the rules a person uses (those of Simon Tatham's Dominosa), so
the hardest rule a unique board needs is its difficulty: *trivial* (a tile or a cell with one
place left), *basic* (a cell that can only hold one tile, placements every copy of a tile
overlaps, local duplicates, odd-area parity), *hard* (set analysis over the cells of one
number); a unique board the rules cannot finish is *extreme* (the search had to decide).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import networkx as nx

from tessera.models.domino import (
    Cell,
    DominoPuzzle,
    Pair,
    Tile,
    placement_allowed,
    tile_count,
    tile_index,
)
from tessera.models.errors import NoSolution
from tessera.solvers.exact_cover import ExactCoverProblem, ExactCoverSearch
from tessera.solvers.search_control import Progress, Report, Search

LEVELS = ("trivial", "basic", "hard", "extreme")


@dataclass(frozen=True)
class Placement:
    """One row of the exact-cover matrix: `tile` on the neighbouring cells `a` and `b`."""

    a: Cell
    b: Cell
    tile: Tile

    @property
    def pair(self) -> Pair:
        return (self.a, self.b)

    @property
    def horizontal(self) -> bool:
        return self.a[0] == self.b[0]

    def __str__(self) -> str:
        return f"{self.tile[0]}-{self.tile[1]} on {self.a}{self.b}"


def placements(puzzle: DominoPuzzle) -> list[Placement]:
    """Every way a tile can lie on the board, in row-major order of the first cell."""
    out = []
    rows, cols = puzzle.n_rows, puzzle.n_cols
    for r in range(rows):
        for c in range(cols):
            for b in ((r, c + 1), (r + 1, c)):
                if b[0] < rows and b[1] < cols and placement_allowed(puzzle, (r, c), b):
                    out.append(Placement((r, c), b, puzzle.tile_at(((r, c), b))))
    return out


def exact_cover_problem(puzzle: DominoPuzzle, rows: list[Placement]) -> ExactCoverProblem:
    cols = puzzle.n_cols
    n_cells = puzzle.n_cells
    n_tiles = tile_count(puzzle.suits)
    matrix = [
        (p.a[0] * cols + p.a[1], p.b[0] * cols + p.b[1], n_cells + tile_index(*p.tile))
        for p in rows
    ]
    names = [f"r{r}c{c}" for r, c in puzzle.cells()]
    names += [f"{lo}-{hi}" for hi in range(puzzle.suits) for lo in range(hi + 1)]
    n_primary = n_cells + n_tiles if puzzle.full_set else n_cells
    return ExactCoverProblem(matrix, n_primary, n_cells + n_tiles, column_names=names)


class DominoSolver(Search):
    """One search over a board (the search protocol): tilings come as lists of
    ((r1, c1), (r2, c2)) pairs; `search` is the engine run underneath, which this object's
    cancel, progress and events are."""

    def __init__(self, puzzle: DominoPuzzle, *, trace: bool = False) -> None:
        self.puzzle = puzzle
        self.rows = placements(puzzle)
        self.problem = exact_cover_problem(puzzle, self.rows)
        self.search = ExactCoverSearch(self.problem, trace=trace)
        Search.__init__(self, self.search._cancel)  # one stop flag for both

    def decode(self, row: int) -> tuple[Cell, Cell, Tile]:
        """What a trace event's choice means: (cell a, cell b, tile)."""
        p = self.rows[row]
        return (p.a, p.b, p.tile)

    def pairs(self, rows: tuple[int, ...]) -> list[Pair]:
        return [self.rows[r].pair for r in rows]

    @property
    def found(self) -> int:
        return self.search.found

    @property
    def done(self) -> bool:
        return self.search.done

    @property
    def events(self):
        return self.search.events

    def progress(self) -> float:
        return self.search.progress()

    def check_often(self) -> None:
        self.search.check_often()

    def _solutions(self, report: Report | None) -> Iterator[list[Pair]]:
        for rows in self.search._solutions(report):
            yield self.pairs(rows)

    def count(self, limit: int | None = None, on_progress: Progress | None = None) -> int:
        return self.search.count(limit, on_progress)


def solve(puzzle: DominoPuzzle, limit: int | None = None) -> list[list[Pair]]:
    """All tilings (or the first `limit`)."""
    out = []
    for pairs in DominoSolver(puzzle).solutions():
        out.append(pairs)
        if limit is not None and len(out) >= limit:
            break
    return out


def first_solution(puzzle: DominoPuzzle) -> list[Pair]:
    for pairs in DominoSolver(puzzle).solutions():
        return pairs
    raise NoSolution("no solution: the board cannot be tiled with distinct tiles of the set")


def count_solutions(puzzle: DominoPuzzle, limit: int | None = None) -> int:
    return DominoSolver(puzzle).count(limit)


def is_unique(puzzle: DominoPuzzle) -> bool:
    """Exactly one tiling (the search stops at the second)."""
    return count_solutions(puzzle, limit=2) == 1


# -- deductions ----------------------------------------------------------------------------------
@dataclass
class Deduction:
    """The outcome of the deduction solver: `status` is "solved", "stuck" or "contradiction";
    `level` the hardest rule it used (an index into LEVELS); `pairs` the tiling when solved."""

    status: str
    level: int
    pairs: list[Pair] | None = None

    @property
    def difficulty(self) -> str:
        return LEVELS[self.level] if self.status == "solved" else LEVELS[-1]


class Deducer:
    """Placements not yet ruled out, per cell and per tile, and the rules that rule them out."""

    def __init__(self, puzzle: DominoPuzzle) -> None:
        self.puzzle = puzzle
        self.full = puzzle.full_set
        self.pl = placements(puzzle)
        self.active = set(range(len(self.pl)))
        self.by_cell: dict[Cell, set[int]] = {cell: set() for cell in puzzle.cells()}
        self.by_tile: dict[Tile, set[int]] = {}
        for i, p in enumerate(self.pl):
            self.by_cell[p.a].add(i)
            self.by_cell[p.b].add(i)
            self.by_tile.setdefault(p.tile, set()).add(i)
        self.level = 0

    # bookkeeping
    def rule_out(self, i: int) -> None:
        if i not in self.active:
            return
        p = self.pl[i]
        self.active.discard(i)
        self.by_cell[p.a].discard(i)
        self.by_cell[p.b].discard(i)
        self.by_tile[p.tile].discard(i)

    def overlaps(self, i: int) -> set[int]:
        p = self.pl[i]
        return (self.by_cell[p.a] | self.by_cell[p.b]) - {i}

    def other_cell(self, i: int, cell: Cell) -> Cell:
        p = self.pl[i]
        return p.b if p.a == cell else p.a

    # trivial
    def tile_single_placement(self) -> bool:
        """A tile that must be used and has one place left takes it: its overlaps go."""
        done = False
        if not self.full:
            return False
        for places in self.by_tile.values():
            if len(places) == 1:
                (i,) = places
                for q in self.overlaps(i):
                    self.rule_out(q)
                    done = True
        return done

    def cell_single_placement(self) -> bool:
        """A cell with one placement left takes it: that tile elsewhere and its overlaps go."""
        done = False
        for places in self.by_cell.values():
            if len(places) == 1:
                (i,) = places
                for q in (self.by_tile[self.pl[i].tile] | self.overlaps(i)) - {i}:
                    self.rule_out(q)
                    done = True
        return done

    # basic
    def cell_single_tile(self) -> bool:
        """Every placement left for a cell is the same tile: that tile cannot be elsewhere."""
        done = False
        for places in self.by_cell.values():
            if len(places) < 2:
                continue
            tiles = {self.pl[i].tile for i in places}
            if len(tiles) != 1:
                continue
            (tile,) = tiles
            for q in list(self.by_tile[tile] - places):
                self.rule_out(q)
                done = True
        return done

    def tile_must_overlap(self) -> bool:
        """A placement overlapped by every place left for a needed tile cannot be used."""
        if not self.full:
            return False
        done = False
        for places in self.by_tile.values():
            if len(places) < 2:
                continue
            common = None
            for i in places:
                common = self.overlaps(i) if common is None else common & self.overlaps(i)
            for q in common or ():
                self.rule_out(q)
                done = True
        return done

    def local_duplicate(self) -> bool:
        """Placing p would leave a neighbouring cell nothing but copies of p's tile (or nothing)."""
        done = False
        for i in list(self.active):
            if i not in self.active:
                continue
            tile = self.pl[i].tile
            for q in self.overlaps(i):
                p_cells = {self.pl[i].a, self.pl[i].b}
                sq = self.pl[q].a if self.pl[q].a not in p_cells else self.pl[q].b
                if all(j == q or self.pl[j].tile == tile for j in self.by_cell[sq]):
                    self.rule_out(i)
                    done = True
                    break
        return done

    def parity(self) -> bool:
        """A placement whose removal splits its region into two even parts leaves two odd
        parts once it is placed: impossible."""
        graph = nx.Graph()
        graph.add_nodes_from(self.by_cell)
        edge_of = {}
        for i in self.active:
            p = self.pl[i]
            graph.add_edge(p.a, p.b)
            edge_of[frozenset((p.a, p.b))] = i
        done = False
        for u, v in list(nx.bridges(graph)):
            graph.remove_edge(u, v)
            side_u = len(nx.node_connected_component(graph, u))
            side_v = len(nx.node_connected_component(graph, v))
            graph.add_edge(u, v)
            if side_u % 2 == 0 and side_v % 2 == 0:
                self.rule_out(edge_of[frozenset((u, v))])
                done = True
        return done

    # hard
    def set_analysis(self) -> bool:
        """n cells of one number whose placements, between them, offer only n tiles (and no
        double could cover two of them) must use exactly those tiles: rule them out elsewhere."""
        done = False
        for num in range(self.puzzle.suits):
            cells = [
                cell
                for cell in self.puzzle.cells()
                if self.puzzle.numbers[cell[0]][cell[1]] == num and len(self.by_cell[cell]) > 1
            ]
            n = len(cells)
            if n < 3 or n > 16:
                continue
            masks, adjacent = [], [0] * n
            index = {cell: k for k, cell in enumerate(cells)}
            for k, cell in enumerate(cells):
                mask = 0
                for i in self.by_cell[cell]:
                    lo, hi = self.pl[i].tile
                    other = lo + hi - num
                    mask |= 1 << other
                    if other == num:
                        k2 = index.get(self.other_cell(i, cell))
                        if k2 is not None:
                            adjacent[k] |= 1 << k2
                masks.append(mask)
            used = 0
            for subset in range(1, 1 << n):
                if subset & used:
                    continue
                members = [k for k in range(n) if subset >> k & 1]
                if any(adjacent[k] & subset for k in members):
                    continue
                union = 0
                for k in members:
                    union |= masks[k]
                n_tiles = union.bit_count()
                if n_tiles != len(members) or n_tiles <= 1 or n_tiles >= n - 1:
                    continue
                used |= subset
                mine = {cells[k] for k in members}
                for other in range(self.puzzle.suits):
                    if not union >> other & 1:
                        continue
                    tile = (min(num, other), max(num, other))
                    for i in list(self.by_tile.get(tile, ())):
                        p = self.pl[i]
                        if p.a not in mine and p.b not in mine:
                            self.rule_out(i)
                            done = True
        return done

    def status(self) -> str:
        sizes = [len(s) for s in self.by_cell.values()]
        if min(sizes) == 0:
            return "contradiction"
        if self.full and any(not s for s in self.by_tile.values()):
            return "contradiction"
        if max(sizes) == 1:
            chosen = {next(iter(s)) for s in self.by_cell.values()}
            tiles = {self.pl[i].tile for i in chosen}
            return "solved" if len(tiles) == len(chosen) else "contradiction"
        return "stuck"

    def run(self, max_level: int = 2) -> Deduction:
        """Apply the rules, cheapest first, until none makes progress."""
        if self.full and len(self.by_tile) < tile_count(self.puzzle.suits):
            return Deduction("contradiction", 0)
        rules = [
            (0, self.tile_single_placement),
            (0, self.cell_single_placement),
            (1, self.cell_single_tile),
            (1, self.tile_must_overlap),
            (1, self.local_duplicate),
            (1, self.parity),
            (2, self.set_analysis),
        ]
        while self.status() == "stuck":
            for level, rule in rules:
                if level > max_level:
                    break
                if rule():
                    self.level = max(self.level, level)
                    break
            else:
                break
        status = self.status()
        pairs = None
        if status == "solved":
            pairs = [self.pl[next(iter(s))].pair for s in self.by_cell.values()]
            pairs = sorted(set(pairs))
        return Deduction(status, self.level, pairs)


def deduce(puzzle: DominoPuzzle, max_level: int = 2) -> Deduction:
    return Deducer(puzzle).run(max_level)


def grade(puzzle: DominoPuzzle) -> str:
    """The difficulty of a board with one solution: the hardest rule the deductions needed."""
    return deduce(puzzle).difficulty
