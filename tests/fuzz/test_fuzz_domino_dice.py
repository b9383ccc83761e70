"""Domino TOML/JSON, Dominosa game IDs and dice files: a puzzle or a PuzzleError."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tessera.models.dice import parse_dice
from tessera.models.domino import puzzle_from_document
from tessera.models.dominosa_id import parse_dominosa_id
from tessera.models.fileformat import parse_document
from tests.fuzz.strategies import mixed, only_puzzle_errors
from tests.fuzz.valid import DICE, domino_texts, dominosa_ids

token = st.one_of(
    st.integers(0, 14).map(str),
    st.sampled_from(["2h", "3v", "6h", "2", "1h", "²", "٣", "99999999999", "x"]),
)


@st.composite
def domino_doc(draw) -> dict:
    cols, rows = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    doc: dict = {"kind": draw(st.sampled_from(["domino", "dice", True]))}
    doc["rows"] = [" ".join(draw(token) for _ in range(cols)) for _ in range(rows)]
    if draw(st.booleans()):
        doc["suits"] = draw(st.one_of(st.integers(-1, 20), st.just("7")))
    if draw(st.booleans()):
        doc["oriented_pips"] = draw(st.sampled_from([True, False, 1]))
    if draw(st.booleans()):
        pair = st.lists(st.integers(-1, 7), min_size=3, max_size=5)
        doc["solution"] = {"pairs": draw(st.lists(pair, max_size=6))}
    return doc


def to_toml(doc: dict) -> str:
    lines = [f"{k} = {json.dumps(v)}" for k, v in doc.items() if k != "solution"]
    if "solution" in doc:
        lines += ["[solution]", f"pairs = {json.dumps(doc['solution']['pairs'])}"]
    return "\n".join(lines) + "\n"


@given(mixed(st.one_of(domino_texts, domino_doc().map(to_toml)), alphabet='kind="domo"[]03 hv\n'))
def test_domino_file(text):
    name = "fuzz.json" if text.lstrip().startswith("{") else "fuzz.toml"
    only_puzzle_errors(lambda: puzzle_from_document(parse_document(text, name), text, name))


@given(mixed(domino_doc().map(json.dumps), alphabet='{}[]:,"kindomrws0123 hv'))
def test_domino_json(text):
    only_puzzle_errors(
        lambda: puzzle_from_document(parse_document(text, "fuzz.json"), text, "fuzz.json")
    )


@st.composite
def dominosa_id(draw) -> str:
    n = draw(st.integers(0, 14))
    params = str(n) + draw(st.sampled_from(["", "db", "dh", "a", "dq"]))
    count = (n + 2) * (n + 1) if draw(st.booleans()) else draw(st.integers(0, 50))
    numbers = [draw(st.integers(0, n + 1)) for _ in range(min(count, 240))]
    return params + ":" + "".join(str(v) if v < 10 else f"[{v}]" for v in numbers)


@given(mixed(st.one_of(dominosa_ids, dominosa_id(), st.just("1:011100")), alphabet="0129[]:d"))
def test_dominosa_id(text):
    only_puzzle_errors(lambda: parse_dominosa_id(text))


COLOURS = ["r", "g", "b", "w", "red", "", "²", "#ff0000"]


@st.composite
def dice_doc(draw) -> dict:
    doc: dict = {"kind": draw(st.sampled_from(["dice", "domino", 3]))}
    face = st.one_of(st.sampled_from(COLOURS), st.integers(0, 3))
    doc["dice"] = draw(st.lists(st.lists(face, min_size=4, max_size=7), max_size=5))
    if draw(st.booleans()):
        doc["colors"] = {c: draw(st.sampled_from(["#00ff00", "green", "#0"])) for c in "rg"}
    return doc


def dice_toml(doc: dict) -> str:
    lines = [f"{k} = {json.dumps(v)}" for k, v in doc.items() if k != "colors"]
    if "colors" in doc:
        lines += ["[colors]"] + [f"{k} = {json.dumps(v)}" for k, v in doc["colors"].items()]
    return "\n".join(lines) + "\n"


@given(
    st.one_of(
        mixed(st.sampled_from(DICE), alphabet='kind="dice"[],rgbw\n'),
        mixed(dice_doc().map(dice_toml), alphabet='kind="dice"[],rgbw\n'),
        mixed(dice_doc().map(json.dumps)),
    )
)
def test_dice_file(text):
    name = "fuzz.json" if text.lstrip().startswith("{") else "fuzz.toml"
    only_puzzle_errors(lambda: parse_dice(parse_document(text, name), text, name))
