"""Solutions drawn as text: one symbol per piece, layers side by side (`--show`), shared by
`tessera solve` and its `--disassemble` listing."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotations: this module loads without numpy
    from tessera.models.polycube import PolycubePuzzle
    from tessera.solvers.polycube.packing import PolycubeSolution

SYMBOL_POOL = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@$%&*=?!"


def piece_symbols(puzzle: PolycubePuzzle) -> list[str]:
    """One distinct character per piece (not per copy): its name when that is one character,
    else its initial when no other piece has it, else the next free one of `SYMBOL_POOL`.
    Letters are upper case, so copies can alternate case."""
    symbols: list[str | None] = [None] * len(puzzle.pieces)
    taken: set[str] = set()
    initials = [(piece.name[:1] or "?").upper() for piece in puzzle.pieces]
    for k, piece in enumerate(puzzle.pieces):
        ch = initials[k]
        if len(piece.name) == 1 and ch not in taken and ch.strip() and ch != ".":
            symbols[k] = ch
            taken.add(ch)
    for k in range(len(puzzle.pieces)):
        ch = initials[k]
        if symbols[k] is None and initials.count(ch) == 1 and ch not in taken and ch.isalnum():
            symbols[k] = ch
            taken.add(ch)
    pool = (ch for ch in SYMBOL_POOL if ch not in taken)
    return [s if s is not None else next(pool, "#") for s in symbols]


def symbol_legend(puzzle: PolycubePuzzle) -> str | None:
    """ "A = p1, B = p2, ..." when some symbol is not simply the piece's name."""
    symbols = piece_symbols(puzzle)
    pairs = [(s, piece.name) for s, piece in zip(symbols, puzzle.pieces, strict=True)]
    if all(s == name.upper() for s, name in pairs):
        return None
    return ", ".join(f"{s} = {name}" for s, name in pairs)


def piece_letters(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[str]:
    """One symbol per placed piece (`piece_symbols`), alternating case between copies."""
    symbols = piece_symbols(puzzle)
    letters, seen = [], {}
    for placed in solution.pieces:
        k = seen.get(placed.piece, 0)
        seen[placed.piece] = k + 1
        ch = symbols[placed.piece]
        letters.append(ch if k % 2 == 0 else ch.lower())
    return letters


def layer_diagram(puzzle: PolycubePuzzle, solution: PolycubeSolution) -> list[str]:
    """Layers side by side, bottom (z = min) first; '.' empty, ' ' outside the target."""
    lo, hi = puzzle.target.bounds
    letters = piece_letters(puzzle, solution)
    where = {tuple(c): letters[k] for k, p in enumerate(solution.pieces) for c in p.cells.tolist()}
    inside = set(puzzle.target.index)
    lines = []
    for y in range(hi[1], lo[1] - 1, -1):
        row = []
        for z in range(lo[2], hi[2] + 1):
            cells = []
            for x in range(lo[0], hi[0] + 1):
                c = (x, y, z)
                cells.append(where.get(c, "." if c in inside else " "))
            row.append(" ".join(cells))
        lines.append("   ".join(row))
    return lines
