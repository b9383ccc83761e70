"""Writing a polycube puzzle back out: BurrTools `.xmpuzzle` and format 1 TOML.

Designers go back and forth between Tessera and BurrTools, so everything either side can say
survives the trip: shapes with fixed and variable cells, piece counts and `min`..`max` ranges,
groups, voxel colours with their palette, and the colour constraints (`models.colours`).
"""

from __future__ import annotations

import gzip
import json
import re
import xml.etree.ElementTree as ET  # writing only; reading goes through defusedxml

import numpy as np

from tessera.models import geometry
from tessera.models.polycube import PolycubePuzzle, layers_text


def _voxel(parent: ET.Element, name: str, marked: list[tuple[np.ndarray, str]], colours) -> None:
    """A BurrTools `<voxel>`: x fastest, then y, then z; `_`, `#`, `+`, each followed by its
    colour number when it has a custom one."""
    every = np.vstack([cells for cells, _ in marked]).astype(np.int64)
    lo = every.min(axis=0)
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
    ET.SubElement(root, "gridType", type="0")
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
    _voxel(shapes, "Result", marked, target.colours)
    for piece in puzzle.pieces:
        _voxel(shapes, piece.name, [(piece.cells, "#")], piece.voxel_colours)
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


def _voxel_colours(cells: np.ndarray, colours) -> list[str]:
    """`voxel_colours = [...]` for the cells with a custom colour, in the frame the layers
    are read in (the shape's smallest corner at 0, 0, 0)."""
    if colours is None or not np.any(colours):
        return []
    rel = np.asarray(cells) - np.asarray(cells).min(axis=0)
    entries = [
        f"[{x}, {y}, {z}, {int(c)}]"
        for (x, y, z), c in zip(rel.tolist(), colours, strict=True)
        if c
    ]
    return [f"voxel_colours = [{', '.join(entries)}]"]


def to_format1(puzzle: PolycubePuzzle, comment: str = "") -> str:
    """The puzzle as format 1 TOML (docs/file-formats.md), shapes as layers (the target's
    optional cells as `+`); `comment` heads the file as a `#` line."""
    lines = [f"# {comment}"] if comment else []
    lines += [
        'kind = "polycube"',
        "format = 1",
        f"name = {json.dumps(puzzle.name, ensure_ascii=False)}",
    ]
    rules = puzzle.colour_rules
    if rules and (rules.allow or rules.palette):
        lines += ["", "[colours]"]
        lines.append(f"allow = {json.dumps(sorted([list(p) for p in rules.allow]))}")
        if rules.palette:
            lines.append(f"palette = {json.dumps(list(rules.palette))}")
    for piece in puzzle.pieces:
        lines += ["", f"[pieces.{_key(piece.name)}]"]
        lines.append(f"layers = {_layers(layers_text(piece.cells))}")
        if piece.ranged:
            lines += [f"min = {piece.fewest}", f"max = {piece.copies}"]
        elif piece.copies != 1:
            lines.append(f"copies = {piece.copies}")
        if piece.group:
            lines.append(f"group = {piece.group}")
        if piece.color:
            lines.append(f'color = "{piece.color}"')
        lines += _voxel_colours(geometry.normalise(piece.cells), piece.voxel_colours)
    target = puzzle.target
    lo = target.cells.min(axis=0)
    size = target.cells.max(axis=0) - lo + 1
    grid = [[["."] * size[0] for _ in range(size[1])] for _ in range(size[2])]
    for cells, mark in ((target.required, "#"), (target.optional, "+")):
        for x, y, z in (np.asarray(cells, np.int64).reshape(-1, 3) - lo).tolist():
            grid[z][y][x] = mark
    layers = [["".join(row) for row in layer] for layer in grid]
    lines += ["", "[target]", f"layers = {_layers(layers)}"]
    lines += _voxel_colours(target.cells, target.colours)
    return "\n".join(lines) + "\n"
