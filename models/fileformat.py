"""Reading TOML/JSON puzzle files with errors that point at a line.

tomllib and json both report where a syntax error is; for semantic errors (an unknown key, a
bad coordinate) we find the line by looking for the key in the text. That is a heuristic, but
it names the right line for every file written the way the README shows.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from tessera.models.errors import PuzzleError


def read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PuzzleError("no such file", path) from None
    except IsADirectoryError:
        raise PuzzleError("is a directory, not a puzzle file", path) from None
    except UnicodeDecodeError as exc:
        raise PuzzleError(f"not UTF-8 text ({exc.reason})", path) from None
    except OSError as exc:
        raise PuzzleError(exc.strerror or str(exc), path) from None


def parse_document(text: str, path: str | Path) -> dict[str, Any]:
    """Parse TOML, or JSON when the file ends in .json (or starts with '{')."""
    suffix = Path(path).suffix.lower()
    if suffix == ".json" or (suffix != ".toml" and text.lstrip().startswith("{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PuzzleError(f"malformed JSON: {exc.msg}", path, exc.lineno) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = re.search(r"\(at line (\d+), column \d+\)", msg)
            line = int(m.group(1)) if m else None
            msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
            msg = re.sub(r"\s*\(at end of document\)", "", msg)
            raise PuzzleError(f"malformed TOML: {msg}", path, line) from None
    if not isinstance(data, dict):
        raise PuzzleError("expected a table of keys at the top level", path, 1)
    return data


def line_of(text: str, *needles: str, after: int = 0) -> int | None:
    """1-based number of the first line (from line `after`+1) that mentions every needle as a
    word (a key or quoted name); None when nothing matches."""
    patterns = [re.compile(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])") for n in needles]
    for number, line in enumerate(text.splitlines(), start=1):
        if number <= after:
            continue
        if all(p.search(_strip_comment(line)) for p in patterns):
            return number
    return None


def _strip_comment(line: str) -> str:
    """The line without a trailing `# comment` ('#' inside quotes is not a comment)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def check_keys(
    table: dict[str, Any], allowed: set[str], where: str, text: str, path: str | Path
) -> None:
    """Refuse unknown keys: a typo must not be silently ignored."""
    for key in table:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise PuzzleError(
                f"unknown key '{key}' in {where} (known: {known})", path, line_of(text, key)
            )


def peek_kind(path: str | Path) -> str | None:
    """The `kind` of a TOML/JSON puzzle file, without validating anything else."""
    text = read_text(path)
    data = parse_document(text, path)
    kind = data.get("kind")
    return kind if isinstance(kind, str) else None
