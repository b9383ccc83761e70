"""Reading TOML/JSON puzzle files with errors that point at a line.

tomllib and json both report where a syntax error is; for semantic errors (an unknown key, a
bad coordinate) we find the line by looking for the key in the text. That is a heuristic, but
it names the right line for every file written the way docs/file-formats.md shows.

Both parsers have limits of their own that surface as other exceptions: an integer of more than
4,300 digits (`ValueError` from `int`) and arrays nested a few hundred deep (`RecursionError`).
`parse_document` turns those into a `PuzzleError` with a line too, and refuses any nesting
deeper than `MAX_DEPTH` up front, so no loader ever walks a pathological structure.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from tessera.models.errors import PuzzleError, printable

#: No puzzle file nests lists deeper than 4 (a layer's rows, a solution's pairs); 32 leaves room
#: and stays far from both parsers' recursion limits.
MAX_DEPTH = 32
#: Known `kind` values, for the message a wrong one gets (the registry holds the real table;
#: models cannot import it, and the two are checked against each other by the tests).
KNOWN_KINDS = ("dice", "domino", "kenken", "polycube")
_LONG_NUMBER = re.compile(r"[0-9][0-9_]{4000,}")


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
    is_json = suffix == ".json" or (suffix != ".toml" and text.lstrip().startswith("{"))
    deep = _too_deep_line(text)
    if deep is not None:
        raise PuzzleError(f"lists or tables nested more than {MAX_DEPTH} deep", path, deep)
    try:
        data = _parse_json(text, path) if is_json else _parse_toml(text, path)
    except RecursionError:  # nesting our scan did not see (e.g. inside inline tables)
        raise PuzzleError("nested too deeply", path, _deepest_line(text)) from None
    except ValueError as exc:  # int() past sys.get_int_max_str_digits(), and the like
        if isinstance(exc, PuzzleError):
            raise
        if "digits" in str(exc):
            message = "a number is too long (more than 4300 digits)"
        else:
            message = f"cannot read a value ({printable(str(exc), 80)})"
        raise PuzzleError(message, path, _long_number_line(text)) from None
    if not isinstance(data, dict):
        raise PuzzleError("expected a table of keys at the top level", path, 1)
    return data


def _parse_json(text: str, path: str | Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleError(f"malformed JSON: {exc.msg}", path, exc.lineno) from None


def _parse_toml(text: str, path: str | Path) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else None
        if line is None and "end of document" in msg:
            line = max(1, len(text.splitlines()))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        msg = re.sub(r"\s*\(at end of document\)", "", msg)
        raise PuzzleError(f"malformed TOML: {msg}", path, line or 1) from None


def _bracket_depths(text: str):
    """(line, depth) after each opening bracket outside strings and comments: a cheap
    look at nesting that needs no parser (quotes are tracked roughly; close enough to place
    an error, and `parse_document` still catches what it misses)."""
    depth, line, quote, comment, escaped = 0, 1, "", False, False
    for ch in text:
        if ch == "\n":
            line += 1
            comment = False
        elif comment:
            continue
        elif quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            comment = True
        elif ch in "[{":
            depth += 1
            yield line, depth
        elif ch in "]}":
            depth = max(0, depth - 1)


def _too_deep_line(text: str) -> int | None:
    """The line where nesting first passes MAX_DEPTH, if it does."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    return next((line for line, depth in _bracket_depths(text) if depth > MAX_DEPTH), None)


def _deepest_line(text: str) -> int:
    best_line, best = 1, 0
    for line, depth in _bracket_depths(text):
        if depth > best:
            best_line, best = line, depth
    return best_line


def _long_number_line(text: str) -> int:
    m = _LONG_NUMBER.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def check_kind(data: dict[str, Any], expected: str, text: str, path: str | Path) -> None:
    """Refuse a `kind` other than `expected` (a missing kind is `expected`), in the registry's
    words: `unknown kind True (known: ...)`, or which family the file belongs to."""
    kind = data.get("kind", expected)
    if kind == expected and isinstance(kind, str):
        return
    line = key_line(text, "kind")
    if not isinstance(kind, str) or kind not in KNOWN_KINDS:
        known = ", ".join(KNOWN_KINDS)
        raise PuzzleError(f"unknown kind {printable(kind)} (known: {known})", path, line)
    # (the registry names the command that opens it, before any loader is reached)
    raise PuzzleError(f"this is a {kind} puzzle, not a {expected} puzzle", path, line)


def key_line(text: str, key: str, after: int = 0) -> int | None:
    """The line where `key` is assigned (TOML `key =`, JSON `"key":`, or a `[key]` table),
    from line `after`+1 on; unlike a plain word search it is not fooled by `kind = "dice"`."""
    k = re.escape(key)
    pattern = re.compile(rf"""(^|[{{,\s])(["']?){k}\2\s*[=:]|^\s*\[\s*{k}\s*\]""")
    for number, line in enumerate(text.splitlines(), start=1):
        if number > after and pattern.search(line):
            return number
    return line_of(text, key, after=after)


_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]")
_QUOTED_KEY = re.compile(r"""(["'])([^"'\n]*)\1\s*[=:]""")
_BARE_KEY = re.compile(r"(?:^|[{,\s])([\w-]+)\s*=")


def key_lines(text: str) -> dict[str, int]:
    """Where each table header (`[pieces.A]` as "pieces.A") and each key (TOML `A =`,
    JSON `"A":`) is first written, from one pass over the text: a loader naming the line of
    each of thousands of pieces looks them up here, where `line_of` per piece would read the
    whole file once per piece (5,000 pieces took over a minute)."""
    out: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        header = _HEADER.match(line)
        if header:
            name = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "").replace("'", "")
            out.setdefault(name, number)
        for m in _QUOTED_KEY.finditer(line):
            out.setdefault(m.group(2), number)
        for m in _BARE_KEY.finditer(line):
            out.setdefault(m.group(1), number)
    return out


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
                f"unknown key {printable(key)} in {where} (known: {known})",
                path,
                line_of(text, key) or 1,
            )
