"""Import of BurrTools `.xmpuzzle` files, on all five of its grids.

The file is gzip-compressed XML. Shapes are `<voxel x= y= z=>` strings listing every cell with
x varying fastest: `_` empty, `#` a cube, `+` a "variable" cube (in a result shape: a cell that
may stay empty). A digit run after a state is that cell's colour; a problem's `<bitmap>` says
which piece colours may fill which result colours (`models.colours`). Each `<problem>` names a
result shape and its pieces with counts or ranges, and groups.
"""

from __future__ import annotations

import codecs
import gzip
import io
import re
import zlib
from pathlib import Path

import numpy as np
from defusedxml import ElementTree as SafeET

from tessera.models.colours import ColourRules
from tessera.models.errors import PuzzleError, printable
from tessera.models.grids import GRIDS, Grid
from tessera.models.polycube import Piece, PolycubePuzzle, Target

MAX_INFLATED = 64 * 1024 * 1024
#: Cells of one voxel grid (x·y·z) and of all grids together. The bytes guard alone let a
#: 60 KB file inflate to one 62-million-cell shape (7.8 GB before MemoryError); real BurrTools
#: shapes have hundreds of cells, the largest known a few tens of thousands.
MAX_SHAPE_CELLS = 1_000_000
MAX_TOTAL_CELLS = 2_000_000
#: Shapes in a file, and pieces in a problem: BurrTools' own examples have a few hundred at
#: most; a 28 KB file of 200,000 one-cube shapes took 7-20 s to read before this bound.
MAX_SHAPES = 10_000
_SIZE = re.compile(r"[0-9]{1,9}")
_COLOURS = re.compile(r"[0-9]+")
_STATE_COLOUR = re.compile(r"[_#+]([0-9]*)")


def _read(path: Path) -> bytes:
    """The file's bytes, refusing folders and files past MAX_INFLATED before reading them."""
    try:
        if path.is_dir():
            raise PuzzleError("is a folder, not a puzzle file", path)
        if path.stat().st_size > MAX_INFLATED:
            raise PuzzleError("refused: the file is larger than 64 MB", path)
        return path.read_bytes()
    except FileNotFoundError:
        raise PuzzleError("no such file", path) from None
    except OSError as exc:
        raise PuzzleError(f"cannot read: {exc.strerror or exc}", path) from None


def _inflate(path: Path) -> bytes:
    """Decompress, refusing to inflate past MAX_INFLATED (a zip bomb guard); plain XML is
    fine too and is held to the same limit by `_read`."""
    raw = _read(path)
    if raw[:2] != b"\x1f\x8b":
        return raw
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


_DECLARED = re.compile(rb"^(\s*<\?xml[^>]*?)\s+encoding=[\"']([^\"']*)[\"']")


def _declared_codec(name: bytes) -> str | None:
    """Python's name for a declared encoding it can read a byte at a time from ASCII up
    (Latin-1, windows-1252, KOI8-R, UTF-8), else None: a name Python lacks, or one that
    would misread the ASCII markup (UTF-16, EBCDIC), is no guide to the bytes."""
    try:
        codec = codecs.lookup(name.decode("latin-1")).name
        return codec if "<?xml".encode(codec) == b"<?xml" else None
    except (LookupError, UnicodeError, ValueError):
        return None


def _as_utf8(data: bytes) -> bytes:
    """The XML as UTF-8. BurrTools reads a file byte by byte and never checks an encoding, so
    its own examples hold Latin-1 names (Prisgon's) under no declaration or a wrong one.
    Here the declared encoding is used when Python knows it and the bytes fit it, then
    UTF-8, then Latin-1, where every byte is a character; the declaration goes, so expat never
    refuses a name it does not know (BurrTools never reads it)."""
    found = _DECLARED.match(data)
    declared = _declared_codec(found.group(2)) if found else None
    if found is None or declared == "utf-8":
        try:
            data.decode("utf-8")
            return data  # already what expat reads as it is: no copy of a large file
        except UnicodeDecodeError:
            pass
    if found:
        data = data[: found.end(1)] + data[found.end() :]
    for encoding in (declared, "utf-8", "latin-1"):  # Latin-1 reads any byte
        if encoding is not None:
            try:
                return data.decode(encoding).encode("utf-8")
            except UnicodeDecodeError:
                pass
    raise AssertionError("Latin-1 decodes every byte")


class _Lines:
    """Line numbers of the occurrences of `<tag` in the XML, found in one pass per tag (a
    file with thousands of shapes must not rescan from the top for each)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.found: dict[str, list[int]] = {}

    def __call__(self, tag: str, index: int) -> int | None:
        if tag not in self.found:
            lines, pos, line, needle = [], 0, 1, b"<" + tag.encode()
            while (hit := self.data.find(needle, pos)) >= 0:
                line += self.data.count(b"\n", pos, hit)
                lines.append(line)
                pos = hit
                pos += 1
            self.found[tag] = lines
        lines = self.found[tag]
        return lines[index] if index < len(lines) else None


def _voxel_size(element, path: Path, line: int | None) -> tuple[int, int, int]:
    """The grid's x, y, z sizes: plain ASCII numbers (int() would take ' 3', '1_0' or '٣'),
    at most MAX_SHAPE_CELLS cells."""
    sizes = []
    for axis in "xyz":
        value = element.get(axis, "0")
        if not _SIZE.fullmatch(value):
            raise PuzzleError(
                f"voxel size {axis}={printable(value)} is not a whole number", path, line
            )
        sizes.append(int(value))
    nx, ny, nz = sizes
    if nx * ny * nz > MAX_SHAPE_CELLS:
        raise PuzzleError(
            f"refused: a {nx}×{ny}×{nz} voxel grid has {nx * ny * nz:,} cells"
            f" (at most {MAX_SHAPE_CELLS:,} per shape)",
            path,
            line,
        )
    return nx, ny, nz


def _parse_voxel(element, path: Path, line: int | None):
    """(fixed cells, variable cells, their colours) of a `<voxel>` shape, read with numpy: one
    byte per cell. A cell's colour is the number after its state (0, the default, if none)."""
    nx, ny, nz = _voxel_size(element, path, line)
    text = (element.text or "").strip()
    states = _COLOURS.sub("", text)
    bad = next((ch for ch in states if ch not in "_#+"), None)
    if bad is not None:
        raise PuzzleError(f"unexpected character {bad!r} in a voxel string", path, line)
    if text[:1].isascii() and text[:1].isdigit():
        raise PuzzleError(
            "a voxel string starts with a colour number; each cell is _ # or + first",
            path,
            line,
        )
    if len(states) != nx * ny * nz:
        raise PuzzleError(
            f"voxel string has {len(states)} cells, expected {nx}×{ny}×{nz}", path, line
        )
    codes = np.frombuffer(states.encode("ascii"), np.uint8)
    colours = np.zeros(len(codes), np.int64)
    if len(states) != len(text):  # one pass: the digits after each state, in state order
        numbers = _STATE_COLOUR.findall(text)
        if any(len(n) > 4 for n in numbers):
            raise PuzzleError("a colour number is too large (at most 9999)", path, line)
        colours = np.array([int(n) if n else 0 for n in numbers], np.int64)
    fixed, variable = codes == ord("#"), codes == ord("+")
    return (
        _cells_where(fixed, nx, ny),
        _cells_where(variable, nx, ny),
        np.concatenate([colours[fixed], colours[variable]]),
    )


def _cells_where(mask: np.ndarray, nx: int, ny: int) -> np.ndarray:
    """(x, y, z) of the set cells of a flat mask with x varying fastest."""
    flat = np.flatnonzero(mask).astype(np.int64)
    x, rest = flat % nx, flat // nx
    return np.stack([x, rest % ny, rest // ny], axis=1).reshape(-1, 3)


def _read_grid(root, path: Path, lines: _Lines) -> Grid:
    """The file's grid (`<gridType type=...>`; none means cubes)."""
    element = root.find("gridType")
    kind = "0" if element is None else element.get("type", "0")
    if not (_SIZE.fullmatch(kind) and int(kind) < len(GRIDS)):
        raise PuzzleError(
            f"grid type {printable(kind)} is not one of BurrTools' grids (0-4)",
            path,
            lines("gridType", 0),
        )
    return GRIDS[int(kind)]


def _on_grid(cells: np.ndarray, grid: Grid, what: str, warnings: list[str]) -> np.ndarray:
    """The cells that exist on the grid. BurrTools' editor never fills any other; a file that
    does is read without them, and says so."""
    ok = grid.valid(cells)
    if not ok.all():
        warnings.append(f"{what}: {int((~ok).sum())} voxels off the {grid.title} grid ignored")
    return ok


def _parse_shapes(root, path: Path, lines: _Lines) -> list:
    shapes = root.findall("./shapes/voxel")
    total = 0
    for i, voxel in enumerate(shapes):
        nx, ny, nz = _voxel_size(voxel, path, lines("voxel", i))
        total += nx * ny * nz
        if total > MAX_TOTAL_CELLS:
            raise PuzzleError(
                f"refused: the shapes' voxel grids have over {MAX_TOTAL_CELLS:,} cells in all",
                path,
                lines("voxel", i),
            )
    return shapes


def _count_tags(data: bytes, path: Path, lines: _Lines) -> None:
    """Refuse a file with more shapes, or a problem with more pieces, than MAX_SHAPES, by
    counting their tags before the XML is parsed at all."""
    for tag, what in (("voxel", "shapes"), ("shape ", "pieces in its problems")):
        if data.count(b"<" + tag.encode()) > MAX_SHAPES:
            raise PuzzleError(
                f"refused: the file has more than {MAX_SHAPES:,} {what}",
                path,
                lines(tag, MAX_SHAPES),
            )


class _Parsed:
    """The shapes' cells, each read when a problem first uses it: a file's other shapes
    cost nothing."""

    def __init__(self, shapes: list, path: Path, lines: _Lines) -> None:
        self.shapes, self.path, self.lines = shapes, path, lines
        self.done: dict[int, tuple] = {}

    def __len__(self) -> int:
        return len(self.shapes)

    def __getitem__(self, i: int) -> tuple:
        if i not in self.done:
            self.done[i] = _parse_voxel(self.shapes[i], self.path, self.lines("voxel", i))
        return self.done[i]


def problem_count(path: str | Path) -> int:
    """How many problems a BurrTools file holds (a batch analyses each)."""
    path = Path(path)
    data = _as_utf8(_inflate(path))
    try:
        root = SafeET.fromstring(data)
    except Exception:  # the loader says what is wrong, with the line
        return 1
    return max(1, len(root.findall("./problems/problem")))


def load_xmpuzzle(path: str | Path, problem: int = 1) -> PolycubePuzzle:
    """The `problem`-th problem (1-based) of a BurrTools file as a polycube puzzle."""
    path = Path(path)
    data = _as_utf8(_inflate(path))
    line_at = _Lines(data)
    _count_tags(data, path, line_at)
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
    grid = _read_grid(root, path, line_at)
    warnings: list[str] = []
    shapes = _parse_shapes(root, path, line_at)
    parsed = _Parsed(shapes, path, line_at)
    problems = root.findall("./problems/problem")
    if not problems:
        raise PuzzleError("the file has no problems", path)
    if not 1 <= problem <= len(problems):
        raise PuzzleError(f"problem {problem} does not exist (the file has {len(problems)})", path)
    prob = problems[problem - 1]
    pline = line_at("problem ", problem - 1) or line_at("problem", problem - 1)
    result = prob.find("result")
    if result is None or result.get("id") is None:
        raise PuzzleError("the problem has no result shape", path, pline)
    rid = _shape_index(result.get("id"), len(parsed), path, pline)
    req, opt, target_colours = parsed[rid]
    where = f"{path}:{pline}: the result shape"
    keep_req, keep_opt = _on_grid(req, grid, where, warnings), _on_grid(opt, grid, where, [])
    if not (keep_req.all() and keep_opt.all()):
        target_colours = target_colours[np.concatenate([keep_req, keep_opt])]
        req, opt = req[keep_req], opt[keep_opt]
    if len(req) == 0:  # as the TOML loader says for a target of optional cells only
        raise PuzzleError("the target has no required cells", path, pline)
    pieces = []
    for k, sh in enumerate(prob.findall("./shapes/shape")):
        sline = line_at("shape ", k) or pline
        sid = _shape_index(sh.get("id"), len(parsed), path, sline)
        fewest: int | None = None
        if sh.get("count") is None and (sh.get("min") is not None or sh.get("max") is not None):
            low_text, count_text = sh.get("min", "0"), sh.get("max", sh.get("min", "1"))
            for text_value in (low_text, count_text):
                if not _SIZE.fullmatch(text_value):
                    raise PuzzleError(
                        f"piece range {printable(text_value)} is not a whole number", path, sline
                    )
            fewest = int(low_text)
            if fewest > int(count_text):
                raise PuzzleError(f"piece range min {fewest} > max {count_text}", path, sline)
        else:
            count_text = sh.get("count", "1")
        if not _SIZE.fullmatch(count_text):
            raise PuzzleError(f"count {printable(count_text)} is not a whole number", path, sline)
        count = int(count_text)
        if count < 1:
            continue
        if fewest is not None and fewest >= count:
            fewest = None
        group = _group_of(sh)
        fixed, variable, voxel_colours = parsed[sid]
        cells = np.vstack([fixed, variable]) if len(variable) else fixed
        name = shapes[sid].get("name") or f"S{sid + 1}"
        keep = _on_grid(cells, grid, f"{path}:{sline}: piece '{name}'", warnings)
        cells, voxel_colours = cells[keep], voxel_colours[keep]
        if len(cells) == 0:
            raise PuzzleError(f"shape {sid} has no cells", path, sline)
        if not grid.is_connected(cells):
            warnings.append(f"{path}:{sline}: piece '{name}' is not connected")
        cells, voxel_colours = grid.normalise_with(cells, voxel_colours)
        colours = voxel_colours if voxel_colours.any() else None
        pieces.append(Piece(name, cells, count, None, fewest, group, colours, grid))
    if not pieces:
        raise PuzzleError("the problem has no pieces", path, pline)
    name = prob.get("name") or ""
    if len(problems) == 1 or not name:  # BurrTools names a new problem just "Problem"
        name = path.stem if name.lower() in ("", "problem") else name
    else:
        name = f"{path.stem}: {name}"
    return PolycubePuzzle(
        name,
        pieces,
        Target(req, opt, target_colours if target_colours.any() else None),
        source=str(path),
        warnings=warnings,
        colour_rules=_colour_rules(root, prob, path, pline),
        equal_pieces_alike=False,  # BurrTools tells shapes of one form apart
        grid=grid,
    )


def _colour_rules(root, problem, path: Path, line: int | None) -> ColourRules | None:
    """The problem's colour constraints: `<bitmap>` pairs (numbered from 0 for custom colour
    1) and the file's `<colors>` palette for display."""
    palette = []
    for colour in root.findall("./colors/color"):
        rgb = [colour.get(k, "0") for k in ("red", "green", "blue")]
        if not all(_SIZE.fullmatch(v) and int(v) < 256 for v in rgb):
            raise PuzzleError(f"bad colour {printable(' '.join(rgb))}", path)
        palette.append("#" + "".join(f"{int(v):02x}" for v in rgb))
    allow = set()
    for pair in problem.findall("./bitmap/pair"):
        values = (pair.get("piece", ""), pair.get("result", ""))
        if not all(_SIZE.fullmatch(v) for v in values):
            raise PuzzleError(f"bad colour pair {printable(' '.join(values))}", path, line)
        allow.add((int(values[0]) + 1, int(values[1]) + 1))
    if not palette and not allow:
        return None
    return ColourRules(frozenset(allow), tuple(palette))


def _group_of(shape) -> int:
    """The BurrTools group a problem's piece belongs to (0: none): a `group` attribute, or the
    first `<group>` child (a piece in several groups may join any; Tessera keeps the first)."""
    value = shape.get("group")
    if value is None:
        child = shape.find("group")
        value = child.get("group") if child is not None else "0"
    return int(value) if value is not None and _SIZE.fullmatch(value) else 0


def _shape_index(value: str | None, n: int, path: Path, line: int | None) -> int:
    if value is None or not _SIZE.fullmatch(value):
        raise PuzzleError(f"bad shape id {printable(value)}", path, line)
    index = int(value)
    if not 0 <= index < n:
        raise PuzzleError(f"shape id {index} does not exist (the file has {n} shapes)", path, line)
    return index
