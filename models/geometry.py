"""Cube-grid geometry: the 48 symmetries of the cube and what they do to sets of unit cells.

Cells are integer (x, y, z) triples held as `(n, 3)` int arrays. A shape is *normalised* by
translating its minimum corner to the origin and sorting its cells, so two shapes are equal
exactly when their normalised arrays are; this is what makes orientations and placements easy
to deduplicate with plain tuples.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

Cells = np.ndarray  # (n, 3) int64


@cache
def _all_symmetries() -> tuple[np.ndarray, ...]:
    """The 48 signed permutation matrices, the 24 proper rotations first (identity first)."""
    proper, improper = [], []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), np.int64)
            for row, (col, sign) in enumerate(zip(perm, signs, strict=True)):
                m[row, col] = sign
            (proper if round(np.linalg.det(m)) == 1 else improper).append(m)
    proper.sort(key=lambda m: (not np.array_equal(m, np.eye(3, dtype=np.int64)), m.tobytes()))
    improper.sort(key=lambda m: m.tobytes())
    mats = proper + improper
    for m in mats:
        m.setflags(write=False)
    return tuple(mats)


def rotations() -> tuple[np.ndarray, ...]:
    """The 24 proper rotations of the cube as integer matrices (identity first)."""
    return _all_symmetries()[:24]


def symmetries() -> tuple[np.ndarray, ...]:
    """All 48 symmetries: the 24 rotations, then the 24 improper ones (rotations × mirror)."""
    return _all_symmetries()


def as_cells(cells) -> Cells:
    arr = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
    return arr


def normalise(cells) -> Cells:
    """Translate to the origin and sort lexicographically (x fastest-varying last)."""
    arr = as_cells(cells)
    if len(arr) == 0:
        return arr
    arr = arr - arr.min(axis=0)
    order = np.lexsort((arr[:, 2], arr[:, 1], arr[:, 0]))
    return arr[order]


def normalise_with(cells, values: np.ndarray) -> tuple[Cells, np.ndarray]:
    """`normalise`, carrying one value per cell (a voxel's colour) along with its cell."""
    arr = as_cells(cells)
    values = np.asarray(values, np.int64).reshape(len(arr))
    if len(arr) == 0:
        return arr, values
    arr = arr - arr.min(axis=0)
    order = np.lexsort((arr[:, 2], arr[:, 1], arr[:, 0]))
    return arr[order], values[order]


def coloured_orientations(cells, values: np.ndarray) -> list[tuple[Cells, np.ndarray]]:
    """Distinct orientations of a shape whose cells carry values (colours), under the 24
    rotations, in the order of the first rotation that produces each. A shape with a
    symmetry its colours break has more of these than `orientations` gives."""
    seen: dict[tuple, tuple[Cells, np.ndarray]] = {}
    for m in rotations():
        shape, vals = normalise_with(transform(cells, m), values)
        seen.setdefault((tuple(shape.ravel().tolist()), tuple(vals.tolist())), (shape, vals))
    return list(seen.values())


def key(cells) -> tuple[int, ...]:
    """A hashable identity of a normalised shape."""
    return tuple(normalise(cells).ravel().tolist())


def transform(cells, matrix: np.ndarray) -> Cells:
    return as_cells(cells) @ np.asarray(matrix).T


def orientations(cells, mirrors: bool = False) -> list[Cells]:
    """Distinct orientations of a shape under the 24 rotations (48 with mirrors), normalised,
    in the order of the first matrix that produces each."""
    seen: dict[tuple[int, ...], Cells] = {}
    for m in symmetries() if mirrors else rotations():
        shape = normalise(transform(cells, m))
        seen.setdefault(tuple(shape.ravel().tolist()), shape)
    return list(seen.values())


def canonical_key(cells, mirrors: bool = False) -> tuple[int, ...]:
    """The smallest key among the shape's orientations: equal for congruent shapes."""
    return min(tuple(o.ravel().tolist()) for o in orientations(cells, mirrors))


def mirror(cells) -> Cells:
    return normalise(as_cells(cells) * np.array([-1, 1, 1]))


def is_connected(cells) -> bool:
    """Face-connectedness, the usual requirement for a physical piece."""
    arr = as_cells(cells)
    if len(arr) <= 1:
        return True
    todo = {tuple(c) for c in arr.tolist()}
    stack = [todo.pop()]
    while stack:
        x, y, z = stack.pop()
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
            n = (x + dx, y + dy, z + dz)
            if n in todo:
                todo.remove(n)
                stack.append(n)
    return not todo


def target_symmetries(cells, optional=(), mirrors: bool = True) -> list[np.ndarray]:
    """The symmetries that map a target onto itself, as affine maps `(matrix, offset)` packed
    into 3×4 integer arrays: `p -> matrix @ p + offset`. Required and optional cells must each
    map onto themselves."""
    req = as_cells(cells)
    opt = as_cells(optional) if len(optional) else np.zeros((0, 3), np.int64)
    base_req = {tuple(c) for c in req.tolist()}
    base_opt = {tuple(c) for c in opt.tolist()}
    everything = np.vstack([req, opt]) if len(opt) else req
    lo = everything.min(axis=0)
    found = []
    for m in symmetries() if mirrors else rotations():
        moved = everything @ m.T
        offset = lo - moved.min(axis=0)
        r = {tuple(c) for c in (req @ m.T + offset).tolist()}
        o = {tuple(c) for c in (opt @ m.T + offset).tolist()} if len(opt) else set()
        if r == base_req and o == base_opt:
            found.append(np.hstack([m, offset.reshape(3, 1)]))
    return found


def apply_affine(cells, affine: np.ndarray) -> Cells:
    return as_cells(cells) @ affine[:, :3].T + affine[:, 3]
