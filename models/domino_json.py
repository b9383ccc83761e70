"""A domino puzzle as JSON (`tessera domino ... --json`): the board, its orientations, its
Dominosa ID when it has one, and the solution; the same JSON loads back as a puzzle file.

Apart from `models.domino` because the ID comes from `models.dominosa_id`, which itself builds
on `models.domino`: here both are read, and neither imports the other back.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tessera.models.domino import DominoPuzzle, pairs_as_lists
from tessera.models.dominosa_id import dominosa_id_or_none


def to_dict(puzzle: DominoPuzzle) -> dict[str, Any]:
    """What `--json` prints: numbers, orientations and the solution, plus the row strings so the
    same JSON loads back as a puzzle file."""
    out: dict[str, Any] = {
        "kind": "domino",
        "name": puzzle.name,
        "size": f"{puzzle.n_cols}x{puzzle.n_rows}",
        "suits": puzzle.suits,
        "oriented_pips": puzzle.oriented_pips,
        "rows": puzzle.row_strings(),
        "numbers": puzzle.numbers,
        "orientations": puzzle.marks,
    }
    if puzzle.difficulty:
        out["difficulty"] = puzzle.difficulty
    for key in ("seed", "tries"):
        if key in puzzle.meta:
            out[key] = puzzle.meta[key]
    ident = None if puzzle.oriented_pips else dominosa_id_or_none(puzzle)
    if ident:
        out["dominosa_id"] = ident
    if puzzle.solution is not None:
        out["solution"] = {"pairs": pairs_as_lists(puzzle.solution)}
    return out


def dumps(data: Any) -> str:
    """JSON with one line per innermost list (a row of numbers, a pair), so boards stay legible."""
    text = json.dumps(data, indent=1)
    return re.sub(
        r"\[\s*([^\[\]{}]*?)\s*\]",
        lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]",
        text,
    )


def to_json(puzzle: DominoPuzzle) -> str:
    return dumps(to_dict(puzzle))
