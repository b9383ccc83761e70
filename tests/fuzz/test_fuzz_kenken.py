"""The .kenken format and Keen game IDs: a puzzle or a PuzzleError, never a traceback."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tessera.models.keen_id import decode_keen_id, encode_keen_id
from tessera.models.kenken import cage_labels, format_kenken, parse_kenken
from tests.fuzz.strategies import NASTY, mixed, only_puzzle_errors
from tests.fuzz.valid import keen_ids, kenken_texts

OPS = ["+", "-", "x", "*", "/", "×", "÷", "−", "", "%", "++"]


@st.composite
def kenken_text(draw) -> str:
    """An N×N grid of labels (cages of any shape) and a rule per label."""
    n = draw(st.integers(1, 10))
    labels = cage_labels(draw(st.integers(1, 12)))
    grid = [[draw(st.sampled_from(labels)) for _ in range(n)] for _ in range(n)]
    spaced = draw(st.booleans())
    lines = [(" " if spaced else "").join(row) for row in grid]
    used = sorted({label for row in grid for label in row})
    for label in used:
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing rule
        target = draw(st.one_of(st.integers(0, 400), st.sampled_from(["9" * 90, "²", "-3"])))
        lines.append(f"{label}: {target}{draw(st.sampled_from(OPS))}")
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), "# a comment")
    return "\n".join(lines) + "\n"


@st.composite
def big_cage_text(draw) -> str:
    """Few large cages: the inputs that once listed billions of tuples."""
    n = draw(st.integers(3, 9))
    split = draw(st.integers(0, n))
    lines = ["a" * n if r < split else "b" * n for r in range(n)]
    op = draw(st.sampled_from(["+", "x"]))
    lines += [f"a: {draw(st.integers(1, 10**12))}{op}", f"b: {draw(st.integers(1, 10**12))}{op}"]
    return "\n".join(lines) + "\n"


@given(mixed(st.one_of(kenken_texts, kenken_text(), big_cage_text()), alphabet="abc: +-x/#0123\n"))
def test_kenken_text(text):
    puzzle = only_puzzle_errors(lambda: parse_kenken(text, "fuzz.kenken"))
    if puzzle is not None:  # what loads must write back to the same puzzle
        assert parse_kenken(format_kenken(puzzle)).cages == puzzle.cages


WALL_ALPHABET = "_abcdefghijklmnopqrstuvwxyz0123456789"


@st.composite
def keen_id(draw) -> str:
    n = draw(st.integers(1, 10))
    params = str(n) + draw(st.sampled_from(["", "de", "dn", "dh", "dx", "du", "dq", "m", "dem"]))
    walls = draw(st.text(alphabet=WALL_ALPHABET, max_size=40))
    clues = "".join(
        draw(st.sampled_from("asmdq")) + str(draw(st.integers(0, 3000)))
        for _ in range(draw(st.integers(0, 30)))
    )
    return f"{params}:{walls},{clues}"


VALID_IDS = [
    "4:_4a_5bba__b_,s1a9a1m12s3s2a2d2",
    "5dem:_ab_caa__db_3a_3b_aa,m15m8m10m240m240m12m30",
    "6:ba3__aa_4a__ab__a_aa_a_3a__aa_5ba,m360a5a6s3a1m80a5m8a10d6a7s1a15s1m12a5",
    "6:yyj,a126",
    "9:yyyd,a405",
]


@given(mixed(st.one_of(keen_ids, keen_id(), st.sampled_from(VALID_IDS)), alphabet="0123:,_adm"))
def test_keen_id(text):
    puzzle = only_puzzle_errors(lambda: decode_keen_id(text))
    if puzzle is not None:
        assert decode_keen_id(encode_keen_id(puzzle)).cages == puzzle.cages


@given(st.sampled_from(NASTY), st.sampled_from(VALID_IDS), st.integers(0, 40))
def test_keen_id_with_a_nasty_splice(nasty, ident, at):
    """Valid IDs (one per size, and whole-grid cages) with a nasty fragment spliced in."""
    only_puzzle_errors(lambda: decode_keen_id(ident[:at] + nasty + ident[at:]))
