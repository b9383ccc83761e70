"""What every grid offers: the one interface shapes, placements, symmetry, scenes and STL use.

Cells are integer (x, y, z) triples, held as `(n, 3)` int arrays, in BurrTools' own voxel
coordinates for that grid, so a file's cells are Tessera's cells and `convert` writes them back
unchanged. A grid says which triples are cells (`valid`), which translations move a shape onto
cells of the same kind (`is_translation`, and `anchor`, the lattice point at or below a corner),
how its rotations and mirror images act (`transform_all`), and what each cell looks like in
space (`centres`, `solid`).

Everything else is written once, here, from those: normalising a shape (translate its anchor to
the origin and sort), its distinct orientations, keys equal for congruent shapes, mirror
images and connectedness. A grid-specific branch anywhere else would be a second mechanism.
"""

from __future__ import annotations

import numpy as np

Cells = np.ndarray  # (n, 3) int64


def as_cells(cells) -> Cells:
    return np.asarray(cells, dtype=np.int64).reshape(-1, 3)


def sort_cells(cells: Cells) -> Cells:
    """Cells in the one order every key uses: by x, then y, then z."""
    order = np.lexsort((cells[:, 2], cells[:, 1], cells[:, 0]))
    return cells[order]


class Grid:
    """One lattice of cells. Subclasses fill in the geometry; the algorithms live here."""

    #: the name files use (`grid = "spheres"`) and the CLI shows
    name: str = ""
    #: a person's name for it
    title: str = ""
    #: BurrTools' `<gridType type=...>`
    burrtools_type: int = 0
    #: how many of `transform_all`'s images are proper rotations (they come first)
    n_rotations: int = 24
    #: lattice translations a piece slides along, one step each, when it comes apart
    directions: tuple[tuple[int, int, int], ...] = ()
    #: an (x, y, z) list of names for the directions, for the CLI and the window
    direction_names: tuple[str, ...] = ()

    # -- what a grid must say ---------------------------------------------------------------
    def valid(self, cells) -> np.ndarray:
        """Per triple: is it a cell of this grid?"""
        raise NotImplementedError

    def anchor(self, corner: np.ndarray) -> np.ndarray:
        """The lattice translation at or below each corner (`(..., 3)`), equivariant under
        lattice translations, so `cells - anchor(min)` is the same for translated copies."""
        raise NotImplementedError

    def is_translation(self, offsets) -> np.ndarray:
        """Per offset: does it move every cell onto a cell of the same kind?"""
        raise NotImplementedError

    def transform_all(self, cells, mirrors: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Every rotation (then every mirror image, when `mirrors`) applied to the cells,
        about one fixed point: `(images (g, n, 3), ok (g,))`. `ok` is False where an image
        leaves the lattice (the sphere grid's turns within a plane only fit flat shapes)."""
        raise NotImplementedError

    def centres(self, cells) -> np.ndarray:
        """Each cell's centre in space (float `(n, 3)`), in units of about one cell."""
        raise NotImplementedError

    def solid(self, cell) -> tuple[np.ndarray, list[tuple[int, ...]]] | None:
        """One cell's convex solid: (vertices (k, 3), faces as vertex-index loops, counter-
        clockwise seen from outside), or None for a round cell (a sphere)."""
        raise NotImplementedError

    #: radius of a round cell (spheres), in the units of `centres`
    radius: float = 0.0
    #: Whether an assembly is a solution only when it comes apart, as BurrTools' `-d` has it
    #: on the grids it can take apart (cubes, prisms). On the others BurrTools lists every
    #: assembly; Tessera takes each apart where straight slides can, and lists the rest too,
    #: said to be locked (a polysphere pyramid is built by hand, not by straight slides).
    solutions_come_apart: bool = True

    @property
    def matrices(self) -> np.ndarray:
        """The transforms of `transform_all(..., mirrors=True)` as rotation (and mirror)
        matrices acting on `centres`' space, in the same order: what a turn in the window is
        looked up by."""
        raise NotImplementedError

    # -- written once for every grid ---------------------------------------------------------
    @property
    def is_cubic(self) -> bool:
        """The cube grid: the one whose cells are unit cubes at integer positions."""
        return self.burrtools_type == 0

    def residue(self, cells) -> np.ndarray:
        """Each cell's position within its lattice cell: cells with equal residues are
        translations of each other (the kind of cell: an upward or a downward prism)."""
        arr = as_cells(cells)
        return arr - self.anchor(arr)

    def normalise(self, cells) -> Cells:
        """Translate so the anchor of the lowest corner is the origin, then sort."""
        arr = as_cells(cells)
        if len(arr) == 0:
            return arr
        return sort_cells(arr - self.anchor(arr.min(axis=0)))

    def key(self, cells) -> tuple[int, ...]:
        return tuple(self.normalise(cells).ravel().tolist())

    def orientations(self, cells, mirrors: bool = False) -> list[Cells]:
        """Distinct orientations, normalised, in the order of the first transform making each."""
        arr = as_cells(cells)
        images, ok = self.transform_all(arr, mirrors)
        seen: dict[tuple[int, ...], Cells] = {}
        for image, fits in zip(images, ok, strict=True):
            if fits:
                shape = self.normalise(image)
                seen.setdefault(tuple(shape.ravel().tolist()), shape)
        return list(seen.values())

    def normalise_with(self, cells, values) -> tuple[Cells, np.ndarray]:
        """`normalise`, carrying one value per cell (a voxel's colour) along with its cell."""
        arr = as_cells(cells)
        values = np.asarray(values, np.int64).reshape(len(arr))
        if len(arr) == 0:
            return arr, values
        arr = arr - self.anchor(arr.min(axis=0))
        order = np.lexsort((arr[:, 2], arr[:, 1], arr[:, 0]))
        return arr[order], values[order]

    def coloured_orientations(self, cells, values) -> list[tuple[Cells, np.ndarray]]:
        """Distinct orientations of a shape whose cells carry values (colours), under the
        rotations: a symmetric shape coloured asymmetrically has more of these."""
        images, ok = self.transform_all(as_cells(cells))
        seen: dict[tuple, tuple[Cells, np.ndarray]] = {}
        for image, fits in zip(images, ok, strict=True):
            if fits:
                shape, vals = self.normalise_with(image, values)
                key = (tuple(shape.ravel().tolist()), tuple(vals.tolist()))
                seen.setdefault(key, (shape, vals))
        return list(seen.values())

    def orientation_stack(self, cells) -> tuple[np.ndarray, tuple[int, ...]]:
        """`orientations` as one (orientations, size, 3) array, and the smallest one's key
        (`canonical_key`), from one numpy pass: what the placement table is built from."""
        arr = as_cells(cells)
        images, ok = self.transform_all(arr)
        moved = images[ok]
        moved = moved - self.anchor(moved.min(axis=1))[:, None, :]
        base = int(moved.max(initial=0)) + 1
        # one number per cell orders cells as lexsort by x, then y, then z does
        codes = np.sort((moved[..., 0] * base + moved[..., 1]) * base + moved[..., 2], axis=1)
        _, first = np.unique(codes, axis=0, return_index=True)
        codes = codes[np.sort(first)]
        shapes = np.stack([codes // (base * base), codes // base % base, codes % base], axis=2)
        smallest = shapes[np.lexsort(codes.T[::-1])[0]]
        return shapes, tuple(smallest.ravel().tolist())

    def canonical_key(self, cells, mirrors: bool = False) -> tuple[int, ...]:
        """The smallest key among the orientations: equal for congruent shapes."""
        return min(tuple(o.ravel().tolist()) for o in self.orientations(cells, mirrors))

    def mirror(self, cells) -> Cells:
        """The mirror image (the first improper transform), normalised."""
        images, ok = self.transform_all(as_cells(cells), mirrors=True)
        improper = np.flatnonzero(ok[self.n_rotations :])
        return self.normalise(images[self.n_rotations + improper[0]])

    def aligned_images(self, cells, mirrors: bool) -> tuple[np.ndarray, np.ndarray]:
        """`transform_all`, each image translated so its anchor sits where the original's
        does: a transform maps a figure onto itself exactly when its aligned image has the
        same cells (the translation, if any, is the anchors' difference)."""
        arr = as_cells(cells)
        images, ok = self.transform_all(arr, mirrors)
        if len(arr) == 0:
            return images, ok
        shift = self.anchor(arr.min(axis=0)) - self.anchor(images.min(axis=1))
        return images + shift[:, None, :], ok

    def proper(self, mirrors: bool) -> np.ndarray:
        n = self.n_rotations * (2 if mirrors else 1)
        return np.arange(n) < self.n_rotations

    # -- turning and moving a shape by hand (Design and Play) -----------------------------
    def transform_index(self, matrix) -> int | None:
        """The transform whose matrix is `matrix` (a turn about an axis, a mirror), or None
        when the grid has no such symmetry."""
        found = np.flatnonzero(
            np.abs(self.matrices - np.asarray(matrix, np.float64)).max(axis=(1, 2)) < 1e-9
        )
        return int(found[0]) if len(found) else None

    def axis_turn(self, axis: int, turns: int = 1) -> int | None:
        """The transform turning about a coordinate axis by the grid's smallest turn (a quarter
        on cubes; a sixth about z and a half about x and y on prisms), `turns` times;
        counter-clockwise seen from the axis' positive end. None if no such turn exists."""

        def turn(angle: float) -> np.ndarray:
            c, s = np.cos(angle), np.sin(angle)
            m = np.eye(3)
            b, d = [(1, 2), (2, 0), (0, 1)][axis]
            m[b, b], m[b, d], m[d, b], m[d, d] = c, -s, s, c
            return m

        for steps in (4, 6, 2):
            if self.transform_index(turn(2 * np.pi / steps)) is not None:
                return self.transform_index(turn(2 * np.pi / steps * turns))
        return None

    def axis_mirror(self, axis: int) -> int | None:
        """The transform mirroring along a coordinate axis, or None."""
        m = np.eye(3)
        m[axis, axis] = -1
        return self.transform_index(m)

    def axis_step(self, axis: int) -> tuple[int, int, int]:
        """The shortest lattice translation along a coordinate axis (cell units)."""
        for k in range(1, 13):
            step = [0, 0, 0]
            step[axis] = k
            if self.is_translation(np.array(step)):
                return (step[0], step[1], step[2])
        raise ValueError(f"no lattice step along axis {axis}")

    def turned_in_place(self, cells, transform: int) -> Cells:
        """The cells after one transform, moved back by a lattice translation so the shape
        stays where it was (its anchor corner where it was): a turn in the editor."""
        arr = as_cells(cells)
        if len(arr) == 0:
            return arr
        images, ok = self.transform_all(arr, mirrors=True)
        if not ok[transform]:
            raise ValueError("this transform takes the shape off the lattice")
        image = images[transform]
        return image + (self.anchor(arr.min(axis=0)) - self.anchor(image.min(axis=0)))

    # -- faces and neighbours, from the solids ----------------------------------------------
    def _face_keys(self, cells: Cells) -> list[list[tuple]]:
        """Per cell, a key per face: its rounded vertices, sorted (equal for a shared face)."""
        out = []
        for cell in cells.tolist():
            vertices, faces = self.solid(cell)  # type: ignore[misc]
            rounded = np.round(vertices * 1e6).astype(np.int64)
            out.append([tuple(sorted(map(tuple, rounded[list(f)].tolist()))) for f in faces])
        return out

    def neighbour_offsets(self, residue) -> np.ndarray:
        """The offsets from a cell of this residue to the cells sharing a face with it
        (touching it, for round cells): found once per kind of cell by looking at the cells
        round one of that kind, so finding a piece's neighbours is a look-up per offset."""
        cache = self.__dict__.setdefault("_neighbour_cache", {})
        key = tuple(int(v) for v in residue)
        if key not in cache:
            cell = np.array(key, np.int64)
            reach = max(max(self.axis_step(a)) for a in range(3))
            span = np.arange(-reach, reach + 1)
            box = cell + np.stack(np.meshgrid(span, span, span, indexing="ij"), -1).reshape(-1, 3)
            box = box[self.valid(box) & (box != cell).any(axis=1)]
            gaps = np.linalg.norm(self.centres(box) - self.centres(cell[None])[0], axis=1)
            solid = self.solid(key)
            if solid is None:
                near = box[np.abs(gaps - 2 * self.radius) < 1e-6]
            else:
                # a cell sharing a face has its centre within two of this cell's radii
                radius = np.linalg.norm(solid[0] - solid[0].mean(axis=0), axis=1).max()
                box = box[gaps < 2 * radius + 1e-6]
                mine = set(self._face_keys(cell[None])[0])
                theirs = self._face_keys(box)
                near = box[[bool(mine.intersection(k)) for k in theirs]]
            cache[key] = near - cell
        return cache[key]

    def neighbour_pairs(self, cells) -> list[tuple[int, int]]:
        """Index pairs (i < j) of cells sharing a face (touching, for spheres): one sorted
        look-up per cell and offset, so a piece of 100,000 cells is no quadratic matter."""
        arr = as_cells(cells)
        if len(arr) < 2:
            return []
        lo = arr.min(axis=0) - 64
        dims = arr.max(axis=0) - lo + 65

        def code(points: np.ndarray) -> np.ndarray:
            p = points - lo
            return (p[..., 0] * dims[1] + p[..., 1]) * dims[2] + p[..., 2]

        codes = code(arr)
        order = np.argsort(codes)
        sorted_codes = codes[order]
        residues = self.residue(arr)
        kinds, kind_of = np.unique(residues, axis=0, return_inverse=True)
        pairs = []
        for k, kind in enumerate(kinds):
            members = np.flatnonzero(kind_of.reshape(-1) == k)
            for offset in self.neighbour_offsets(kind):
                probe = code(arr[members] + offset)
                pos = np.minimum(np.searchsorted(sorted_codes, probe), len(codes) - 1)
                hit = sorted_codes[pos] == probe
                i, j = members[hit], order[pos[hit]]
                keep = i < j
                pairs.append(np.stack([i[keep], j[keep]], axis=1))
        both = np.concatenate(pairs) if pairs else np.zeros((0, 2), np.int64)
        return [(int(i), int(j)) for i, j in both.tolist()]

    def is_connected(self, cells) -> bool:
        """Face-connected (touching, for spheres): the usual requirement for a real piece."""
        arr = as_cells(cells)
        if len(arr) <= 1:
            return True
        parent = list(range(len(arr)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i, j in self.neighbour_pairs(arr):
            parent[root(i)] = root(j)
        return len({root(i) for i in range(len(arr))}) == 1

    def __repr__(self) -> str:
        return f"<grid {self.name}>"
