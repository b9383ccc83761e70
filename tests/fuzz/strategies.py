"""Shared hypothesis strategies: near-valid texts with mutations, and raw text or bytes.

A parser's weak spots are just off the valid path (a digit where a letter goes, a number of
4,301 digits, brackets nested 500 deep), so every fuzz test mixes three sources: valid
documents built from parts, those documents mutated, and plain random text.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

#: Nasty fragments a mutation may splice in: unicode digits int() or isdigit() treat oddly,
#: control characters, huge numbers, deep nesting, quotes and separators of every format.
NASTY = [
    "²",
    "٣",
    "¹⁰",
    "\x00",
    "\x1b[2J",
    "\r\n",
    "\u2028",
    "9" * 4301,
    "1" + "0" * 40,
    "-1",
    "0",
    "[" * 600,
    "]" * 600,
    "{" * 40,
    '"',
    "'",
    '"""',
    "#",
    "=",
    ":",
    ",",
    "[[",
    "]]",
    "nan",
    "inf",
    "1e999",
    "true",
    "_",
    "+",
    "x",
    "÷",
    "<",
    ">",
    "&amp;",
    "&x;",
    "<!DOCTYPE a [<!ENTITY x 'y'>]>",
]


@st.composite
def mutated(draw, base: st.SearchStrategy[str], max_edits: int = 4) -> str:
    """`base` with a few random edits: deletions, insertions (random or nasty), duplicated
    and swapped slices."""
    text = draw(base)
    for _ in range(draw(st.integers(0, max_edits))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        edit = draw(st.sampled_from(["delete", "insert", "nasty", "duplicate", "replace"]))
        if edit == "delete":
            text = text[:i] + text[j:]
        elif edit == "insert":
            text = text[:i] + draw(st.text(max_size=8)) + text[i:]
        elif edit == "nasty":
            text = text[:i] + draw(st.sampled_from(NASTY)) + text[j:]
        elif edit == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 3)) + text[j:]
        else:
            text = text[:i] + draw(st.text(alphabet=text or "x", max_size=8)) + text[j:]
    return text


def any_text(alphabet: str | None = None, max_size: int = 300) -> st.SearchStrategy[str]:
    """Raw text: from the format's own alphabet (more likely to get far) or any characters."""
    own = st.text(alphabet=alphabet, max_size=max_size) if alphabet else st.nothing()
    return st.one_of(own, st.text(max_size=max_size))


def mixed(valid: st.SearchStrategy[str], alphabet: str | None = None) -> st.SearchStrategy[str]:
    """Valid documents, mutated ones and raw text, in roughly equal parts."""
    return st.one_of(valid, mutated(valid), mutated(valid, 12), any_text(alphabet))


def only_puzzle_errors(parse: Callable[[], object]) -> object | None:
    """Run a parser: it may return a puzzle or raise PuzzleError, nothing else."""
    from tessera.models.errors import PuzzleError

    try:
        return parse()
    except PuzzleError as exc:
        text = str(exc)
        assert "\n" not in text and "\x1b" not in text, text  # one line, no escapes
        return None
