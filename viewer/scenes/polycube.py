"""Polycube and Soma scenes: one merged surface per piece, placed by an affine transform.

Each piece instance gets one actor whose mesh is the piece's own normalised shape, its cells
drawn as their grid's solids (`_surface.drawn`: cubes, prisms, balls, tetrahedra); where it sits
in a step is a turn of the grid plus an offset (its `user_matrix`), and offsets in cell units
(a flight, a disassembly's slides) become space through the grid (`space_vector`). Solution mode
follows the assembly plan: piece k flies in along the direction it slides into place. An
interlocking assembly, which no such plan builds (a burr, pieces locked in a box), plays its
real disassembly backwards instead (`viewer.scenes.disassembly`): move by move, groups sliding
together, each part that came out flying back in along its axis. Boxes, cages and frames
(`disassembly.shells`) are drawn see-through in either case, so the inside can be watched.
Search mode replays the exact-cover trace: the stack of placements standing after each event.

A puzzle of many copies (more than `MAX_PIECE_ACTORS`) is not drawn one actor per copy: adding
thousands of actors holds the window for seconds and drawing them for each frame more. Solution
mode then draws the assembly order in chunks (`_chunked_scene`): the chunks placed before the
current one as one mesh per piece type each, fixed, and the current chunk's pieces by slot
actors (per type, as many as a chunk ever needs) that move as single pieces do; so a scene of
n copies has about 2·√n actors per type, and the renderer merges the static ones further.
Search mode draws as many copies as the trace ever has on the stack at once, and cuts the
trace where that would pass `MAX_PIECE_ACTORS`.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence

import numpy as np
import pyvista as pv

from tessera.models.grids import CUBES, Grid
from tessera.models.grids.base import as_cells
from tessera.models.grids.surface import is_round, space_vector
from tessera.models.polycube import Piece, Placement, PolycubePuzzle
from tessera.solvers.polycube.disassemble import Disassembly
from tessera.solvers.polycube.interlocking import (
    InterlockedSolution,
    disassembly_of,
    piece_groups,
)
from tessera.solvers.polycube.packing import PolycubeSolution, check_size, equal_types
from tessera.solvers.polycube.plan import assembly_plan
from tessera.solvers.trace import EventKind
from tessera.viewer.scenes._surface import Drawn, drawn, extent, view_centres
from tessera.viewer.scenes.base import (
    IDENTITY,
    ActorSpec,
    Pose,
    Scene,
    TraceReplay,
    affine,
    ease,
    hex_rgb,
    placed_copies,
)
from tessera.viewer.scenes.disassembly import AssemblyReplay, shells

#: Up to this many piece copies, each is an actor of its own (picked, hidden, exploded one by
#: one); beyond, Solution mode draws them in chunks and Search mode cuts its trace there.
MAX_PIECE_ACTORS = 300
FLY_CELLS = 1.0  # how far beyond the target a piece starts its flight
SHELL_OPACITY = 0.3  # a box, cage or frame: the pieces inside show through


def _mesh(surface: Drawn) -> pv.PolyData:
    mesh = pv.PolyData(np.asarray(surface.points, float), surface.faces)
    if surface.normals is not None:  # a round cell: shaded smooth (render.py)
        mesh.point_data["Normals"] = surface.normals
        mesh.point_data.active_normals_name = "Normals"
    return mesh


def piece_mesh(cells: np.ndarray, grid: Grid = CUBES) -> pv.PolyData:
    """The piece's cells as their grid's solids (`_surface.drawn`): polyhedra keep their
    quads and triangles, so drawn edges follow the cells; balls are smooth."""
    return _mesh(drawn(grid, cells))


#: Custom voxel colours a file names no display colour for.
VOXEL_FALLBACK = ("#c0392b", "#222222", "#f1c40f", "#ffffff", "#16a085", "#8e44ad")


def voxel_coloured_mesh(piece: Piece, base: str, palette: tuple[str, ...]):
    """A piece whose cells have custom colours (BurrTools' colour constraints), painted as
    BurrTools' colour view paints them: each face in its cell's custom colour, cells of the
    default colour in the piece's own."""
    surface = drawn(piece.grid, piece.cells)
    mesh, owner = _mesh(surface), surface.owner
    colours = np.asarray(piece.voxel_colours, np.int64)
    table = [hex_rgb(base)] + [
        hex_rgb(palette[k] if k < len(palette) else VOXEL_FALLBACK[k % len(VOXEL_FALLBACK)])
        for k in range(int(colours.max()))
    ]
    mesh.cell_data["rgb"] = np.array(table, np.uint8)[colours[owner]]
    return mesh


def placement_matrix(
    piece_cells: np.ndarray,
    placed: np.ndarray,
    grid: Grid = CUBES,
    colours: tuple[np.ndarray, Sequence[int]] | None = None,
) -> np.ndarray:
    """The 4×4 affine that maps a piece's own mesh onto its mesh at `placed` (turn + shift).

    The grid says which of its transforms (rotations first, then mirror images) and which
    lattice translation take the piece's cells onto `placed`; the matrix is then read off
    space, as the one map taking the cells' centres to their images' centres. So that it is
    fixed even for a piece whose centres lie on a line or in a plane, a few probe cells are
    turned with the piece (the first cell moved by each of the grid's directions: they span
    space). Where the probes leave the lattice (the sphere grid's turns within a plane) the
    piece's own centres fix it well enough: balls look the same turned about any axis.

    The cells alone cannot tell apart the turns of a symmetric piece coloured asymmetrically
    (a domino with one red end), which are different placements (`Placement.colours`).
    `colours` (the piece's colour per own cell, the placement's per cell of `placed`) then
    picks the turn that puts each colour where the placement has it."""
    own, target = as_cells(piece_cells), as_cells(placed)
    both = np.vstack([own, own[:1] + np.array(grid.directions, np.int64)])
    images, ok = grid.transform_all(both, mirrors=True)
    own_images, own_ok = images[:, : len(own)], ok
    if not ok.all():  # the probes left the lattice: is the piece itself still on it?
        own_images, own_ok = grid.transform_all(own, mirrors=True)
    shift = target.min(axis=0) - own_images.min(axis=1)
    moved = own_images + shift[:, None, :]
    fits = own_ok & _same_shapes(moved, target)
    fits &= grid.is_translation(shift)
    if colours is not None:
        fits &= _colours_land(moved, target, *colours)
    if not fits.any():
        raise ValueError("the placed cells are not an image of the piece")
    g = int(np.argmax(fits))
    if ok[g]:
        return _fit(view_centres(grid, both), view_centres(grid, images[g] + shift[g]))
    return _fit(view_centres(grid, own), view_centres(grid, own_images[g] + shift[g]))


def _same_shapes(images: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per image (g, n, 3): does it hold exactly the target's cells? (One sorted code per
    cell, relative to the target's lowest corner; cells outside its box cannot match.)"""
    lo, hi = target.min(axis=0), target.max(axis=0)
    size = hi - lo + 1

    def codes(cells: np.ndarray) -> np.ndarray:
        rel = cells - lo
        return np.sort((rel[..., 0] * size[1] + rel[..., 1]) * size[2] + rel[..., 2], axis=-1)

    inside = ((images >= lo) & (images <= hi)).all(axis=(1, 2))
    return inside & (codes(images) == codes(target)).all(axis=1)


def _colours_land(
    images: np.ndarray, target: np.ndarray, own: np.ndarray, placed: Sequence[int]
) -> np.ndarray:
    """Per image (g, n, 3) of the piece's cells: does each own cell's colour land on a target
    cell given that colour? (Meaningful only for images that hold exactly the target's cells,
    `_same_shapes`; the others look up some cell.)"""
    lo, hi = target.min(axis=0), target.max(axis=0)
    size = hi - lo + 1

    def codes(cells: np.ndarray) -> np.ndarray:
        rel = cells - lo
        return (rel[..., 0] * size[1] + rel[..., 1]) * size[2] + rel[..., 2]

    wanted = codes(target)
    order = np.argsort(wanted)
    at = np.clip(np.searchsorted(wanted[order], codes(images)), 0, len(order) - 1)
    landed = np.asarray(placed, np.int64)[order[at]]
    return (landed == np.asarray(own, np.int64)[None, :]).all(axis=1)


def _fit(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The rigid map taking each source point to its target: exact (least squares) when the
    points span space, else the proper rotation that fits best (Kabsch). Entries within 1e-9
    of a whole number are made whole (the cube grid's matrices are all whole)."""
    homogeneous = np.column_stack([source, np.ones(len(source))])
    solved, _, rank, _ = np.linalg.lstsq(homogeneous, target, rcond=1e-9)
    if rank == 4:
        rotation, offset = solved[:3].T, solved[3]
    else:
        a, b = source.mean(axis=0), target.mean(axis=0)
        u, _, vt = np.linalg.svd((source - a).T @ (target - b))
        flip = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
        rotation = vt.T @ np.diag([1.0, 1.0, flip]) @ u.T
        offset = b - rotation @ a
    m = affine(rotation, offset)
    whole = np.round(m)
    return np.where(np.abs(m - whole) < 1e-9, whole, m)


#: Meshes built for a puzzle, by its identity: every scene of the puzzle (each solution, the
#: search trace) shows the same mesh objects, so the renderer keeps their actors from one scene
#: to the next (`SceneRenderer.show`) instead of uploading them again.
_MESHES: dict[int, tuple[weakref.ref, dict]] = {}


def _puzzle_mesh(puzzle: PolycubePuzzle, name, make: Callable[[], pv.PolyData]) -> pv.PolyData:
    entry = _MESHES.get(id(puzzle))
    if entry is None or entry[0]() is not puzzle:
        for key in [k for k, (ref, _) in _MESHES.items() if ref() is None]:
            del _MESHES[key]
        entry = _MESHES[id(puzzle)] = (weakref.ref(puzzle), {})
    meshes = entry[1]
    if name not in meshes:
        meshes[name] = make()
    return meshes[name]


def _type_mesh(puzzle: PolycubePuzzle, t: int, colors: list[str]) -> pv.PolyData:
    """Piece type t's own mesh (voxel colours painted), built once per puzzle."""
    piece = puzzle.pieces[t]
    palette = puzzle.colour_rules.palette if puzzle.colour_rules else ()
    if piece.coloured:
        return _puzzle_mesh(
            puzzle, ("piece", t, colors[t]),
            lambda: voxel_coloured_mesh(piece, colors[t], palette),
        )  # fmt: skip
    return _puzzle_mesh(puzzle, ("piece", t, ""), lambda: piece_mesh(piece.cells, piece.grid))


def _instances(
    puzzle: PolycubePuzzle, colors: list[str], copies: list[int] | None = None
) -> list[ActorSpec]:
    """One actor per piece instance (copies share their mesh); `copies[t]` of type t only,
    when given."""
    specs = []
    edges = not is_round(puzzle.grid)  # a ball's triangles are no cell edges
    for t, piece in enumerate(puzzle.pieces):
        coloured = piece.coloured
        mesh = _type_mesh(puzzle, t, colors)
        for j in range(piece.copies if copies is None else copies[t]):
            suffix = f"#{j + 1}" if piece.copies > 1 else ""
            specs.append(
                ActorSpec(
                    key=f"piece-{t}-{j}",
                    mesh=mesh,
                    color=colors[t],
                    rgb=coloured,
                    show_edges=edges,
                    role="piece",
                    pickable=True,
                    name=piece.name + suffix,
                    closed=True,
                )
            )
    return specs


def _outline(puzzle: PolycubePuzzle) -> ActorSpec:
    """The target's edges, faint (for balls, which have none: a dot at each centre)."""
    grid, cells = puzzle.grid, puzzle.target.cells

    def make() -> pv.PolyData:
        if is_round(grid):
            return pv.PolyData(view_centres(grid, cells))
        return piece_mesh(cells, grid).extract_feature_edges(
            boundary_edges=False, feature_edges=True, manifold_edges=False,
            non_manifold_edges=False,
        )  # fmt: skip

    mesh = _puzzle_mesh(puzzle, "outline", make)
    return ActorSpec(
        "target-outline", mesh, color="#5a6472", opacity=0.35, role="guide", line_width=1.0
    )


def _camera_bounds(puzzle: PolycubePuzzle) -> tuple[float, ...]:
    lo, hi = extent(puzzle.grid, puzzle.target.cells)
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


def check(puzzle: PolycubePuzzle) -> None:
    """Refuse, in one line, before anything is built, a puzzle the solver cannot hold: any
    number of copies can be drawn (in chunks), but no solution of such a puzzle ever comes
    (`packing.check_size`, the solver's own refusal: 100,000 copies would need 37 GiB)."""
    check_size(puzzle)


def build(
    puzzle: PolycubePuzzle,
    solution: PolycubeSolution | None,
    mode: str = "solution",
    trace=None,
) -> Scene:
    """The scene of one solution (pieces fly in by the assembly plan) or of a search trace."""
    check(puzzle)
    bounds = _camera_bounds(puzzle)
    if mode == "search":
        if trace is None:
            raise ValueError("search mode needs a trace")
        return _search_scene(puzzle, trace, bounds)
    many = puzzle.n_instances > MAX_PIECE_ACTORS
    if solution is None:
        actors = [] if many else _instances(puzzle, puzzle.colors())
        actors.append(_outline(puzzle))
        return Scene(actors, 0, lambda step: _hidden(actors), bounds)
    if many and not isinstance(solution, InterlockedSolution):  # (those have few pieces)
        return _chunked_scene(puzzle, solution, bounds)
    actors = _instances(puzzle, puzzle.colors())
    actors.append(_outline(puzzle))
    return _solution_scene(puzzle, solution, actors, _keys_of_type(puzzle), bounds)


def _keys_of_type(puzzle: PolycubePuzzle, copies=None) -> dict[int, list[str]]:
    """Each piece type's actor keys, one per copy (or per copy drawn: `copies[t]`)."""
    return {
        t: [f"piece-{t}-{j}" for j in range(p.copies if copies is None else copies[t])]
        for t, p in enumerate(puzzle.pieces)
    }


def _hidden(actors: list[ActorSpec]) -> dict[str, Pose]:
    return {a.key: Pose(visible=False) for a in actors if a.role == "piece"}


def _placed(puzzle, solution, keys_of_type) -> tuple[dict[int, str], dict[int, np.ndarray]]:
    """Per piece instance of the solution: its actor's key and its assembled matrix."""
    seen_of_type: dict[int, int] = {}
    key_of: dict[int, str] = {}
    for k, placed in enumerate(solution.pieces):
        j = seen_of_type.get(placed.piece, 0)
        seen_of_type[placed.piece] = j + 1
        key_of[k] = keys_of_type[placed.piece][j]
    return key_of, dict(enumerate(final_matrices(puzzle, solution)))


def final_matrices(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[np.ndarray]:
    """Each placed piece's `placement_matrix`, worked out once per type and placed shape: a
    copy placed as another one was, moved by a lattice step, takes that one's matrix moved
    by the step (5,000 monocubes: one matrix, not 5,000)."""
    grid = puzzle.grid
    known: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    out = []
    for placed in solution.pieces:
        cells = as_cells(placed.cells)
        corner = cells.min(axis=0)
        colours = _placed_colours(puzzle, placed.piece, placed.placement)
        painted = None if colours is None else tuple(colours[1])
        shape = (placed.piece, (cells - corner).tobytes(), painted)
        seen = known.get(shape)
        step = corner - seen[1] if seen is not None else None
        if seen is not None and grid.is_translation(step):
            matrix = seen[0].copy()
            first = cells[:1]
            matrix[:3, 3] += (view_centres(grid, first) - view_centres(grid, first - step))[0]
        else:
            matrix = placement_matrix(puzzle.pieces[placed.piece].cells, cells, grid, colours)
            known[shape] = (matrix, corner)
        out.append(matrix)
    return out


def _placed_colours(
    puzzle: PolycubePuzzle, t: int, placement: Placement | None
) -> tuple[np.ndarray, tuple[int, ...]] | None:
    """What `placement_matrix` needs to turn piece type t as `placement` has it, when its
    colours tell turns apart: (the piece's colour per own cell, the placement's per cell);
    None when the cells alone say the turn (or no placement is known)."""
    if placement is None or placement.colours is None:
        return None
    own = puzzle.pieces[t].voxel_colours
    return (np.asarray(own, np.int64), placement.colours) if own is not None else None


def _see_through(puzzle, solution, actors, key_of) -> None:
    """Boxes, cages and frames (`disassembly.shells`) become translucent."""
    cells = [p.cells for p in solution.pieces]
    keys = {key_of[k] for k in shells(cells, piece_groups(puzzle, solution))}
    for spec in actors:
        if spec.key in keys:
            spec.opacity = SHELL_OPACITY


def _assembly_order(puzzle, solution, bounds):
    """The assembly plan as the scene plays it: (piece, unit direction it flies along) in
    order, where a piece is a fraction t of the way in (`flight(matrix, way, t)`), and the
    plan's words for each step's direction."""
    plan = getattr(solution, "plan", None) or assembly_plan(puzzle, solution)
    order = [(s.piece_index, np.array(s.vector, float)) for s in plan.steps]
    # Pieces no straight move can bring in, in an assembly that does not come apart either,
    # drop in from above, marked stuck.
    order += [(k, np.array((0.0, 0.0, -1.0))) for k in plan.stuck]
    # the plan's steps are lattice directions: each piece flies along the way they point
    ways = [space_vector(puzzle.grid, v) for _, v in order]
    order = [(k, way / np.linalg.norm(way)) for (k, _), way in zip(order, ways, strict=True)]
    span = np.array(bounds[1::2]) - np.array(bounds[0::2])

    def flight(final: np.ndarray, vector: np.ndarray, t: float) -> np.ndarray:
        """Where a piece is a fraction t of the way in: it travels against its direction."""
        distance = float(np.abs(vector) @ span) + FLY_CELLS
        m = final.copy()
        m[:3, 3] -= vector * distance * (1.0 - ease(t))
        return m

    words = [s.direction for s in plan.steps] + ["-z (stuck)"] * len(plan.stuck)
    return order, flight, words


def _solution_scene(puzzle, solution, actors, keys_of_type, bounds) -> Scene:
    key_of, final = _placed(puzzle, solution, keys_of_type)
    _see_through(puzzle, solution, actors, key_of)
    result = disassembly_of(puzzle, solution)  # None: the straight plan builds it
    if result is not None and result.complete:
        return _disassembly_scene(solution, result, actors, key_of, final, puzzle.grid)
    order, fly, words = _assembly_order(puzzle, solution, bounds)
    n = len(order)
    names = {a.key: a.name for a in actors}

    def flight(k: int, vector: np.ndarray, t: float) -> np.ndarray:
        return fly(final[k], vector, t)

    def pose(step: float) -> dict[str, Pose]:
        step, whole, frac, moving, done = _order_step(step, n)
        out = _hidden(actors)
        for i, (k, vector) in enumerate(order):
            if i < whole:
                matrix = final[k]
            elif i == whole and frac > 0:
                matrix = flight(k, vector, frac)
            else:
                continue
            emphasis = "normal" if done else ("active" if i == moving else "dim")
            out[key_of[k]] = Pose(matrix, True, emphasis)
        return out

    describe = _describer(n, lambda k: names[key_of[k]], order, words)

    return Scene(actors, n, pose, bounds, describe=describe)


def _describer(n: int, name_of, order, words) -> Callable[[float], str]:
    """What the status line says at a step of an assembly order: which piece slides in, and
    along which way (one wording for plain and chunked scenes)."""

    def describe(step: float) -> str:
        i = math.ceil(min(max(step, 0.0), n)) - 1
        if i < 0:
            return "empty target"
        return f"{name_of(order[i][0])} slides in along {words[i]}"

    return describe


def chunk_size(n: int) -> int:
    """Pieces per chunk of a chunked scene: √n balances the chunks' actors (n / size) against
    the current chunk's slots (size)."""
    return max(1, math.isqrt(max(n - 1, 0)) + 1)


def _chunked_scene(puzzle: PolycubePuzzle, solution: PolycubeSolution, bounds) -> Scene:
    """A solution of many copies (see the module doc): the assembly order in chunks of
    `chunk_size`; before the current chunk, one fixed mesh per chunk and piece type; in it,
    one slot actor per piece, by type. Boxes and cages (`shells`, drawn see-through) keep an
    actor of their own."""
    colors = puzzle.colors()
    edges = not is_round(puzzle.grid)
    final = final_matrices(puzzle, solution)
    types = [p.piece for p in solution.pieces]
    order, fly, words = _assembly_order(puzzle, solution, bounds)
    n, size = len(order), chunk_size(len(order))
    alone = shells([p.cells for p in solution.pieces], piece_groups(puzzle, solution))
    copy_number, seen = [], {}
    for t in types:
        seen[t] = seen.get(t, 0) + 1
        copy_number.append(seen[t])

    def name(k: int) -> str:
        piece = puzzle.pieces[types[k]]
        return piece.name + (f"#{copy_number[k]}" if piece.copies > 1 else "")

    def spec(key: str, t: int, mesh, label: str, opacity: float = 1.0) -> ActorSpec:
        return ActorSpec(
            key, mesh, color=colors[t], rgb=puzzle.pieces[t].coloured, opacity=opacity,
            show_edges=edges, role="piece", pickable=True, name=label, closed=True,
        )  # fmt: skip

    actors: list[ActorSpec] = []
    chunk_keys: list[list[str]] = []
    slot_of: dict[int, str] = {}  # order index -> the actor that shows it while its chunk is on
    for j in range(0, n, size):
        members: dict[int, list[int]] = {}
        for i in range(j, min(j + size, n)):
            k = order[i][0]
            if k in alone:
                slot_of[i] = f"piece-{types[k]}-{copy_number[k] - 1}"
                continue
            members.setdefault(types[k], []).append(k)
            slot_of[i] = f"slot-{types[k]}-{len(members[types[k]]) - 1}"
        keys = []
        for t, ks in members.items():
            mesh = placed_copies(_type_mesh(puzzle, t, colors), [final[k] for k in ks])
            label = f"{puzzle.pieces[t].name} ×{len(ks)} (pieces {j + 1}–{min(j + size, n)})"
            keys.append(f"chunk-{j // size}-{t}")
            actors.append(spec(keys[-1], t, mesh, label))
        chunk_keys.append(keys)
    slots = {key for key in slot_of.values() if key.startswith("slot-")}
    for key in sorted(slots, key=lambda k: tuple(map(int, k.split("-")[1:]))):
        t = int(key.split("-")[1])
        actors.append(spec(key, t, _type_mesh(puzzle, t, colors), puzzle.pieces[t].name))
    for k in sorted(alone):
        key = f"piece-{types[k]}-{copy_number[k] - 1}"
        actors.append(spec(key, types[k], _type_mesh(puzzle, types[k], colors), name(k),
                           SHELL_OPACITY))  # fmt: skip
    actors.append(_outline(puzzle))
    loners = [(i, k) for i, (k, _) in enumerate(order) if k in alone]

    def pose(step: float) -> dict[str, Pose]:
        step, whole, frac, moving, done = _order_step(step, n)
        current = max(moving, 0) // size  # the chunk shown piece by piece
        out = _hidden(actors)
        static = Pose(IDENTITY, True, "normal" if done else "dim")
        for keys in chunk_keys[:current]:
            for key in keys:
                out[key] = static
        for i, k in loners:  # boxes and cages of earlier chunks, placed
            if i >= current * size:
                break
            out[slot_of[i]] = Pose(final[k], True, static.emphasis)
        for i in range(current * size, min(whole + 1, n)):
            k, vector = order[i]
            if i < whole:
                matrix = final[k]
            elif frac > 0:
                matrix = fly(final[k], vector, frac)
            else:
                continue
            emphasis = "normal" if done else ("active" if i == moving else "dim")
            out[slot_of[i]] = Pose(matrix, True, emphasis)
        return out

    describe = _describer(n, name, order, words)

    return Scene(actors, n, pose, bounds, describe=describe)


def _order_step(step: float, n: int) -> tuple[float, int, float, int, bool]:
    """A step of an assembly order of n pieces, held in 0..n: (step, pieces already in place,
    how far the next has flown, the order index moving in this step, whether all are in)."""
    step = min(max(step, 0.0), n)
    whole = math.floor(step)
    return step, whole, step - whole, math.ceil(step) - 1, step >= n


def _disassembly_scene(
    solution, result: Disassembly, actors, key_of, final, grid: Grid = CUBES
) -> Scene:
    """An interlocking assembly: its disassembly backwards (`disassembly.AssemblyReplay`),
    from the base alone at step 0 to the assembly at the last step; the pieces of the move
    under way are highlighted, the others dimmed."""
    cells = [p.cells for p in solution.pieces]
    replay = AssemblyReplay.of(cells, result, grid)
    n = replay.n_steps
    names_by_key = {a.key: a.name for a in actors}
    names = [names_by_key[key_of[k]] for k in range(len(cells))]

    def pose(step: float) -> dict[str, Pose]:
        offsets, visible = replay.at(step)
        offsets = space_vector(grid, offsets)  # cell units -> space
        current = replay.move_at(step)
        moving = set(current[1].pieces) if current is not None else set()
        out = _hidden(actors)
        for k in range(len(cells)):
            if not visible[k]:
                continue
            matrix = final[k].copy()
            matrix[:3, 3] += offsets[k]
            if current is None or step >= n:
                emphasis = "normal"
            else:
                emphasis = "active" if k in moving else "dim"
            out[key_of[k]] = Pose(matrix, True, emphasis)
        return out

    return Scene(
        actors, n, pose, replay.bounds(cells), describe=lambda step: replay.describe(step, names)
    )


def _search_scene(puzzle, trace, bounds) -> Scene:
    problem = trace.decoder
    # Pieces of one shape under different names are one type to the search (`equal_types`):
    # its placements go to the actors of all of them, in order.
    same = equal_types(puzzle)
    events, need = _drawable_trace(trace.events, [same[p.piece] for p in problem.placements])
    copies = None
    if puzzle.n_instances > MAX_PIECE_ACTORS:  # actors for the copies the trace shows only
        copies = []
        for t, piece in enumerate(puzzle.pieces):
            before = sum(puzzle.pieces[u].copies for u in range(t) if same[u] == same[t])
            copies.append(min(piece.copies, max(0, need.get(same[t], 0) - before)))
    actors = _instances(puzzle, puzzle.colors(), copies)
    actors.append(_outline(puzzle))
    keys_of_type = _keys_of_type(puzzle, copies)
    cut = len(events) < len(trace.events)
    replay = TraceReplay(events, trace.describe)
    matrices: dict[tuple[int, int], np.ndarray] = {}
    keys_of_shape = {r: [(t, k) for t in range(len(same)) if same[t] == r for k in keys_of_type[t]]
                     for r in set(same)}  # fmt: skip

    def matrix_of(row: int, t: int) -> np.ndarray:
        if (row, t) not in matrices:
            colours = _placed_colours(puzzle, t, problem.placements[row])
            matrices[row, t] = placement_matrix(
                puzzle.pieces[t].cells, problem.row_cells[row], puzzle.grid, colours
            )
        return matrices[row, t]

    def pose(step: float) -> dict[str, Pose]:
        stack = replay.stack(step)
        last = replay.last(step)
        removing = replay.removed_at(step)  # a backtrack under way: those pieces fade out
        out = _hidden(actors)
        used: dict[int, int] = {}
        for i, row in enumerate(stack):
            shape = same[problem.placements[row].piece]
            j = used.get(shape, 0)
            used[shape] = j + 1
            t, key = keys_of_shape[shape][j]
            active = last is not None and last.kind is EventKind.PLACE and i == len(stack) - 1
            if removing is not None and i >= removing[0]:
                fade = 1.0 - ease(removing[1])
                out[key] = Pose(matrix_of(row, t), fade > 0.02, "active", fade)
                continue
            out[key] = Pose(matrix_of(row, t), True, "active" if active else "dim")
        if last is not None and last.kind is EventKind.SOLUTION:
            out = {k: Pose(p.matrix, p.visible, "normal") for k, p in out.items()}
        return out

    def describe(step: float) -> str:
        text = replay.describe(step)
        if cut and step >= len(events):
            text += f" (the trace is cut here: over {MAX_PIECE_ACTORS:,} pieces at once)"
        return text

    return Scene(
        actors, len(replay.events), pose, bounds, describe=describe, depth=replay.depth,
        timeline=replay.timeline(),
    )  # fmt: skip


def _drawable_trace(events, shape_of_row: list[int]) -> tuple[list, dict[int, int]]:
    """The trace up to the first placement that would put more than `MAX_PIECE_ACTORS` pieces
    on the stack, and per shape the most copies it has there at once."""
    stack: list[int] = []
    counts: dict[int, int] = {}
    most: dict[int, int] = {}
    for n, event in enumerate(events):
        if event.kind is EventKind.SOLUTION:
            continue
        for row in stack[event.depth :]:
            counts[shape_of_row[row]] -= 1
        del stack[event.depth :]
        if event.kind is EventKind.PLACE:
            if len(stack) >= MAX_PIECE_ACTORS:
                return events[:n], most
            stack.append(event.choice)
            shape = shape_of_row[event.choice]
            counts[shape] = counts.get(shape, 0) + 1
            most[shape] = max(most.get(shape, 0), counts[shape])
    return events, most
