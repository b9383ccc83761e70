"""Writing a polycube puzzle back out: BurrTools `.xmpuzzle` and format 1 TOML.

Designers go back and forth between Tessera and BurrTools, so everything either side can say
survives the trip: shapes with fixed and variable cells, piece counts and `min`..`max` ranges,
groups, voxel colours with their palette, and the colour constraints (`models.colours`), on
any of BurrTools' five grids.

Cells are BurrTools' voxel coordinates on every grid, and on all but cubes a coordinate says
which kind of cell it is (an upward or a downward prism, one of a cube's 24 tetrahedra). So a
shape is only ever moved by a lattice translation, `grid.anchor(lowest corner)`, never by its
plain minimum: BurrTools reads each voxel string relative to its own box, and a box starting
one raster step off would turn every cell into another kind of cell.
"""

from __future__ import annotations

import gzip
import json
import re
import xml.etree.ElementTree as ET  # writing only; reading goes through defusedxml

import numpy as np

from tessera.models.grids import Grid
from tessera.models.polycube import PolycubePuzzle, layers_text


def _origin(grid: Grid, cells: np.ndarray) -> np.ndarray:
    """Where a shape's box starts: the lattice point at or below its lowest corner, so the
    cells keep their kind once the box's corner is (0, 0, 0)."""
    cells = np.asarray(cells, np.int64).reshape(-1, 3)
    return grid.anchor(cells.min(axis=0))


def _voxel(
    parent: ET.Element, grid: Grid, name: str, marked: list[tuple[np.ndarray, str]], colours
) -> None:
    """A BurrTools `<voxel>`: x fastest, then y, then z; `_`, `#`, `+`, each followed by its
    colour number when it has a custom one."""
    every = np.vstack([cells for cells, _ in marked]).astype(np.int64)
    lo = _origin(grid, every)
    nx, ny, nz = (every.max(axis=0) - lo + 1).tolist()
    states = ["_"] * (nx * ny * nz)
    k = 0
    for cells, mark in marked:
        for x, y, z in (cells - lo).tolist():
            colour = int(colours[k]) if colours is not None else 0
            states[x + nx * (y + ny * z)] = mark + (str(colour) if colour else "")
            k += 1
    voxel = ET.SubElement(parent, "voxel", x=str(nx), y=str(ny), z=str(nz), type="0", name=name)
    voxel.text = "".join(states)


def to_xmpuzzle(puzzle: PolycubePuzzle, compress: bool = True) -> bytes:
    """The puzzle as a BurrTools file (gzip XML, as BurrTools saves): shape 0 the target, then
    one shape per piece, one problem."""
    root = ET.Element("puzzle", version="2")
    grid = puzzle.grid
    ET.SubElement(root, "gridType", type=str(grid.burrtools_type))
    colours = ET.SubElement(root, "colors")
    rules = puzzle.colour_rules
    for hex_colour in rules.palette if rules else ():
        r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        ET.SubElement(colours, "color", red=str(r), green=str(g), blue=str(b))
    shapes = ET.SubElement(root, "shapes")
    target = puzzle.target
    marked = [(target.required, "#")]
    if len(target.optional):
        marked.append((target.optional, "+"))
    _voxel(shapes, grid, "Result", marked, target.colours)
    for piece in puzzle.pieces:
        _voxel(shapes, grid, piece.name, [(piece.cells, "#")], piece.voxel_colours)
    problems = ET.SubElement(root, "problems")
    problem = ET.SubElement(problems, "problem", name=puzzle.name)
    used = ET.SubElement(problem, "shapes")
    for k, piece in enumerate(puzzle.pieces, start=1):
        counts = (
            {"min": str(piece.fewest), "max": str(piece.copies)}
            if piece.ranged
            else {"count": str(piece.copies)}
        )
        if piece.group:
            counts["group"] = str(piece.group)
        ET.SubElement(used, "shape", id=str(k), **counts)
    ET.SubElement(problem, "result", id="0")
    bitmap = ET.SubElement(problem, "bitmap")
    for piece_colour, target_colour in sorted(rules.allow if rules else ()):
        ET.SubElement(bitmap, "pair", piece=str(piece_colour - 1), result=str(target_colour - 1))
    ET.SubElement(root, "comment")
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return gzip.compress(data, mtime=0) if compress else data


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _layers(layers: list[list[str]]) -> str:
    """One layer a line, so the file reads like the drawing."""
    inner = ",\n".join("  [" + ", ".join(json.dumps(r) for r in layer) + "]" for layer in layers)
    return "[\n" + inner + ",\n]"


def _cells(cells: np.ndarray) -> str:
    """`[[x, y, z], ...]`, eight cells a line so a large shape stays readable."""
    items = [f"[{x}, {y}, {z}]" for x, y, z in np.asarray(cells).tolist()]
    if len(items) <= 8:
        return "[" + ", ".join(items) + "]"
    rows = [", ".join(items[i : i + 8]) for i in range(0, len(items), 8)]
    return "[\n" + ",\n".join("  " + r for r in rows) + ",\n]"


def _voxel_colours(rel: np.ndarray, colours) -> list[str]:
    """`voxel_colours = [...]` for the cells with a custom colour, at the coordinates `rel`
    the file gives the shape's cells."""
    if colours is None or not np.any(colours):
        return []
    entries = [
        f"[{x}, {y}, {z}, {int(c)}]"
        for (x, y, z), c in zip(rel.tolist(), colours, strict=True)
        if c
    ]
    return [f"voxel_colours = [{', '.join(entries)}]"]


def _shape(grid: Grid, cells: np.ndarray) -> tuple[list[str], np.ndarray]:
    """A piece's `layers = ...` (cubes) or `cells = ...` (every other grid: a drawing of rows
    and columns only draws cubes), and its cells at the coordinates the file gives them."""
    rel = np.asarray(cells, np.int64) - _origin(grid, cells)
    if grid.is_cubic:
        return [f"layers = {_layers(layers_text(rel))}"], rel
    return [f"cells = {_cells(rel)}"], rel


def _target(grid: Grid, target) -> tuple[list[str], np.ndarray]:
    """The target as layers (`#` required, `+` optional) on cubes, or as `cells` and
    `optional` lists, moved by a lattice translation to start near the origin."""
    every = target.cells
    lo = _origin(grid, every)
    if not grid.is_cubic:
        out = [f"cells = {_cells(target.required - lo)}"]
        if len(target.optional):
            out.append(f"optional = {_cells(target.optional - lo)}")
        return out, every - lo
    size = every.max(axis=0) - lo + 1
    drawing = [[["."] * size[0] for _ in range(size[1])] for _ in range(size[2])]
    for cells, mark in ((target.required, "#"), (target.optional, "+")):
        for x, y, z in (np.asarray(cells, np.int64).reshape(-1, 3) - lo).tolist():
            drawing[z][y][x] = mark
    layers = [["".join(row) for row in layer] for layer in drawing]
    return [f"layers = {_layers(layers)}"], every - lo


def to_format1(puzzle: PolycubePuzzle, comment: str = "") -> str:
    """The puzzle as format 1 TOML (docs/file-formats.md): on cubes, shapes as layers (the
    target's optional cells as `+`); on other grids, `grid = ...` and cell lists. `comment`
    heads the file as a `#` line."""
    grid = puzzle.grid
    lines = [f"# {comment}"] if comment else []
    lines += [
        'kind = "polycube"',
        "format = 1",
        f"name = {json.dumps(puzzle.name, ensure_ascii=False)}",
    ]
    if not grid.is_cubic:
        lines.append(f"grid = {json.dumps(grid.name)}")
    rules = puzzle.colour_rules
    if rules and (rules.allow or rules.palette):
        lines += ["", "[colours]"]
        lines.append(f"allow = {json.dumps(sorted([list(p) for p in rules.allow]))}")
        if rules.palette:
            lines.append(f"palette = {json.dumps(list(rules.palette))}")
    for piece in puzzle.pieces:
        lines += ["", f"[pieces.{_key(piece.name)}]"]
        shape, rel = _shape(grid, piece.cells)
        lines += shape
        if piece.ranged:
            lines += [f"min = {piece.fewest}", f"max = {piece.copies}"]
        elif piece.copies != 1:
            lines.append(f"copies = {piece.copies}")
        if piece.group:
            lines.append(f"group = {piece.group}")
        if piece.color:
            lines.append(f'color = "{piece.color}"')
        lines += _voxel_colours(rel, piece.voxel_colours)
    shape, rel = _target(grid, puzzle.target)
    lines += ["", "[target]", *shape]
    lines += _voxel_colours(rel, puzzle.target.colours)
    return "\n".join(lines) + "\n"
