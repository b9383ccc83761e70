"""A self-contained web page of domino puzzles: inline CSS and SVG, nothing fetched.

Each cell is drawn as the half-tile face a player would see, with real pips; a 2, 3 or 6 with
an orientation mark is drawn turned the way its tile lies, because that is the clue the mark
stands for. The answer (tile outlines) sits in every board's SVG from the start, hidden by CSS;
one checkbox at the top reveals all of them without any script, and print styles drop the
checkbox so a printed page is just the puzzles (answers only if they were shown).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from tessera.models.domino import DominoPuzzle, set_name, tile_count

CELL = 48  # px per cell
PAD = 0.24  # pip-free margin inside a cell, as a fraction of the cell
MARGIN = 6

_C, _L, _H = 0.5, 1 / 3, 2 / 3
# Pip positions on a unit square (x right, y down) for a half-tile lying across ("h").
PIPS: dict[int, list[tuple[float, float]]] = {
    0: [],
    1: [(_C, _C)],
    2: [(0, 0), (1, 1)],
    3: [(0, 0), (_C, _C), (1, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (_C, _C), (0, 1), (1, 1)],
    6: [(0, 0), (_C, 0), (1, 0), (0, 1), (_C, 1), (1, 1)],
    7: [(0, 0), (_C, 0), (1, 0), (_C, _C), (0, 1), (_C, 1), (1, 1)],
    8: [(0, 0), (_C, 0), (1, 0), (0, _C), (1, _C), (0, 1), (_C, 1), (1, 1)],
    9: [(x, y) for y in (0, _C, 1) for x in (0, _C, 1)],
    10: [(x, y) for y in (0, _L, _H, 1) for x in (0, 1)] + [(_C, _L), (_C, _H)],
    11: [(x, y) for y in (0, _L, _H, 1) for x in (0, 1)] + [(_C, 0), (_C, _C), (_C, 1)],
    12: [(x, y) for y in (0, _L, _H, 1) for x in (0, _C, 1)],
}


def pip_positions(number: int, mark: str) -> list[tuple[float, float]]:
    """Unit-square pip centres; a cell marked "v" shows the face turned a quarter turn."""
    base = PIPS[number]
    if mark == "v":
        return [(1 - y, x) for x, y in base]
    return list(base)


def board_svg(puzzle: DominoPuzzle, index: int = 1) -> str:
    """One board: faces always, the answer's outlines in a `.answer` group (hidden by CSS)."""
    rows, cols = puzzle.n_rows, puzzle.n_cols
    width, height = cols * CELL + 2 * MARGIN, rows * CELL + 2 * MARGIN
    pip_r = CELL * (0.085 if puzzle.suits <= 10 else 0.065)
    span = CELL * (1 - 2 * PAD)
    out = [
        f'<svg class="board" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        f' role="img" aria-label="domino board {index}">'
    ]
    out.append('<g class="faces">')
    for r in range(rows):
        for c in range(cols):
            x0, y0 = MARGIN + c * CELL, MARGIN + r * CELL
            n, mark = puzzle.numbers[r][c], puzzle.marks[r][c]
            out.append(
                f'<g class="cell" data-row="{r}" data-col="{c}" data-number="{n}"'
                f' data-mark="{mark}"><title>{n}{mark}</title>'
                f'<rect x="{x0 + 1}" y="{y0 + 1}" width="{CELL - 2}" height="{CELL - 2}"'
                ' rx="5" class="face"/>'
            )
            for u, v in pip_positions(n, mark):
                cx = x0 + CELL * PAD + u * span
                cy = y0 + CELL * PAD + v * span
                out.append(f'<circle class="pip" cx="{cx:.1f}" cy="{cy:.1f}" r="{pip_r:.1f}"/>')
            out.append("</g>")
    out.append("</g>")
    if puzzle.solution:
        out.append('<g class="answer">')
        for (r1, c1), (r2, c2) in puzzle.solution:
            top, left = min(r1, r2), min(c1, c2)
            w = (abs(c1 - c2) + 1) * CELL
            h = (abs(r1 - r2) + 1) * CELL
            x, y = MARGIN + left * CELL, MARGIN + top * CELL
            out.append(
                f'<rect class="tile" x="{x + 2}" y="{y + 2}" width="{w - 4}" height="{h - 4}"'
                ' rx="8"/>'
            )
            if r1 == r2:
                mx = x + CELL
                out.append(f'<line class="bar" x1="{mx}" y1="{y + 8}" x2="{mx}" y2="{y + h - 8}"/>')
            else:
                my = y + CELL
                out.append(f'<line class="bar" x1="{x + 8}" y1="{my}" x2="{x + w - 8}" y2="{my}"/>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


STYLE = """
body { font-family: Georgia, "DejaVu Serif", serif; margin: 2em; color: #1d1d1d; background: #fff; }
h1 { font-size: 1.5em; margin: 0 0 .4em; }
h2 { font-size: 1.1em; margin: 0 0 .3em; }
.rules { max-width: 44em; margin: 0 0 1em; }
.controls { margin: 0 0 1.2em; font-size: 1.05em; }
.puzzle { break-inside: avoid; page-break-inside: avoid; margin: 0 0 2em; }
.puzzle p { margin: .3em 0; color: #444; }
.face { fill: #fbf8ef; stroke: #b9b2a0; stroke-width: 1; }
.pip { fill: #1d1d1d; }
.answer { visibility: hidden; }
.tile { fill: none; stroke: #b3261e; stroke-width: 4; }
.bar { stroke: #b3261e; stroke-width: 1.5; stroke-dasharray: 3 3; }
#show-answer:checked ~ main .answer { visibility: visible; }
@media print {
  .controls { display: none !important; }
  body { margin: 0; }
  .puzzle { margin-bottom: 1.2em; }
}
"""


def render_html(puzzles: Sequence[DominoPuzzle], title: str = "Domino puzzles") -> str:
    """The whole page; several puzzles share one answer checkbox."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        '<input type="checkbox" id="show-answer" class="controls">',
        '<label for="show-answer" class="controls" id="show-answer-label">Show the answer</label>',
        "<main>",
        f"<h1>{html.escape(title)}</h1>",
        '<p class="rules">Cover each board with dominoes, every tile of the set at most once'
        " (exactly once when the board needs the whole set). Each tile covers two neighbouring"
        " cells showing its two numbers. A 2, 3 or 6 is drawn the way its tile lies.</p>",
    ]
    for i, puzzle in enumerate(puzzles, start=1):
        heading = f"Puzzle {i}: {puzzle.n_cols}\u00d7{puzzle.n_rows}, {set_name(puzzle.suits)}"
        details = [f"{puzzle.n_cells // 2} of the {tile_count(puzzle.suits)} tiles"]
        if puzzle.difficulty:
            details.append(f"difficulty: {puzzle.difficulty}")
        if "seed" in puzzle.meta:
            details.append(f"seed {puzzle.meta['seed']}")
        if not puzzle.oriented_pips:
            details.append("faces of 2, 3, 6 carry no orientation")
        parts.append(f'<section class="puzzle" id="puzzle-{i}">')
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(board_svg(puzzle, i))
        parts.append(f"<p>{html.escape('; '.join(details))}</p>")
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
