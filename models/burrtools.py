"""Import of BurrTools `.xmpuzzle` files (cube grid only).

The file is gzip-compressed XML. Shapes are `<voxel x= y= z=>` strings listing every cell with
x varying fastest: `_` empty, `#` a cube, `+` a "variable" cube (in a result shape: a cell that
may stay empty). A digit run after a state is a colour constraint, which Tessera ignores with a
warning. Each `<problem>` names a result shape and its pieces with counts.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from pathlib import Path

import numpy as np
from defusedxml import ElementTree as SafeET

from tessera.models import geometry
from tessera.models.errors import PuzzleError
from tessera.models.polycube import Piece, PolycubePuzzle, Target

MAX_INFLATED = 64 * 1024 * 1024
_VOXEL_TOKEN = re.compile(r"([_#+])(\d*)")


def _inflate(path: Path) -> bytes:
    """Decompress, refusing to inflate past MAX_INFLATED (a zip bomb guard)."""
    raw = path.read_bytes()
    if raw[:2] != b"\x1f\x8b":
        return raw  # plain XML is fine too
    out = io.BytesIO()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            while chunk := stream.read(1 << 20):
                out.write(chunk)
                if out.tell() > MAX_INFLATED:
                    raise PuzzleError("refused: the file inflates past 64 MB", path)
    except (OSError, EOFError, zlib.error) as exc:
        raise PuzzleError(f"not a readable gzip file ({exc})", path) from None
    return out.getvalue()


def _line(data: bytes, tag: str, index: int) -> int | None:
    """The line of the index-th occurrence of <tag in the inflated XML."""
    pos = -1
    for _ in range(index + 1):
        pos = data.find(b"<" + tag.encode(), pos + 1)
        if pos < 0:
            return None
    return data.count(b"\n", 0, pos) + 1


def _parse_voxel(element, path: Path, line: int | None, warnings: list[str]):
    try:
        nx, ny, nz = (int(element.get(a, "0")) for a in "xyz")
    except ValueError:
        raise PuzzleError("voxel sizes must be integers", path, line) from None
    text = (element.text or "").strip()
    tokens = _VOXEL_TOKEN.findall(text)
    if "".join(state + colour for state, colour in tokens) != text:
        bad = next(ch for ch in text if ch not in "_#+0123456789")
        raise PuzzleError(f"unexpected character {bad!r} in a voxel string", path, line)
    if len(tokens) != nx * ny * nz:
        raise PuzzleError(
            f"voxel string has {len(tokens)} cells, expected {nx}×{ny}×{nz}", path, line
        )
    if any(colour for _, colour in tokens):
        warnings.append(f"{path}:{line}: colour constraints ignored")
    fixed, variable = [], []
    for i, (state, _) in enumerate(tokens):
        x, rest = i % nx, i // nx
        y, z = rest % ny, rest // ny
        if state == "#":
            fixed.append((x, y, z))
        elif state == "+":
            variable.append((x, y, z))
    as_arr = lambda cells: np.array(cells, np.int64).reshape(-1, 3)  # noqa: E731
    return as_arr(fixed), as_arr(variable)


def load_xmpuzzle(path: str | Path, problem: int = 1) -> PolycubePuzzle:
    """The `problem`-th problem (1-based) of a BurrTools file as a polycube puzzle."""
    path = Path(path)
    if not path.exists():
        raise PuzzleError("no such file", path)
    data = _inflate(path)
    try:
        root = SafeET.fromstring(data)
    except SafeET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise PuzzleError(
            f"malformed XML: {exc.msg if hasattr(exc, 'msg') else exc}", path, line
        ) from None
    except Exception as exc:  # defusedxml refuses entities and the like
        raise PuzzleError(f"refused XML: {exc}", path) from None
    if root.tag != "puzzle":
        raise PuzzleError(f"not a BurrTools puzzle (root element <{root.tag}>)", path, 1)
    grid = root.find("gridType")
    if grid is not None and grid.get("type", "0") != "0":
        raise PuzzleError(
            "only the cube grid (gridType 0) is supported", path, _line(data, "gridType", 0)
        )
    warnings: list[str] = []
    shapes = root.findall("./shapes/voxel")
    parsed = [
        _parse_voxel(v, path, _line(data, "voxel", i), warnings) for i, v in enumerate(shapes)
    ]
    problems = root.findall("./problems/problem")
    if not problems:
        raise PuzzleError("the file has no problems", path)
    if not 1 <= problem <= len(problems):
        raise PuzzleError(f"problem {problem} does not exist (the file has {len(problems)})", path)
    prob = problems[problem - 1]
    pline = _line(data, "problem ", problem - 1) or _line(data, "problem", problem - 1)
    result = prob.find("result")
    if result is None or result.get("id") is None:
        raise PuzzleError("the problem has no result shape", path, pline)
    rid = _shape_index(result.get("id"), len(parsed), path, pline)
    req, opt = parsed[rid]
    pieces = []
    for k, sh in enumerate(prob.findall("./shapes/shape")):
        sline = _line(data, "shape ", k) or pline
        sid = _shape_index(sh.get("id"), len(parsed), path, sline)
        if sh.get("count") is None:
            lo, hi = sh.get("min"), sh.get("max")
            if lo is not None or hi is not None:
                raise PuzzleError(
                    f"piece ranges (min={lo} max={hi}) are not supported yet; give fixed counts",
                    path,
                    sline,
                )
        try:
            count = int(sh.get("count", "1"))
        except ValueError:
            raise PuzzleError("count must be a whole number", path, sline) from None
        if count < 1:
            continue
        fixed, variable = parsed[sid]
        cells = np.vstack([fixed, variable]) if len(variable) else fixed
        if len(cells) == 0:
            raise PuzzleError(f"shape {sid} has no cells", path, sline)
        name = shapes[sid].get("name") or f"S{sid + 1}"
        if not geometry.is_connected(cells):
            warnings.append(f"{path}:{sline}: piece '{name}' is not connected")
        pieces.append(Piece(name, geometry.normalise(cells), count))
    if not pieces:
        raise PuzzleError("the problem has no pieces", path, pline)
    name = prob.get("name") or path.stem
    return PolycubePuzzle(
        name if len(problems) == 1 else f"{path.stem}: {name}",
        pieces,
        Target(req, opt),
        source=str(path),
        warnings=warnings,
    )


def _shape_index(value: str | None, n: int, path: Path, line: int | None) -> int:
    try:
        index = int(value or "")
    except ValueError:
        raise PuzzleError(f"bad shape id {value!r}", path, line) from None
    if not 0 <= index < n:
        raise PuzzleError(f"shape id {index} does not exist (the file has {n} shapes)", path, line)
    return index
