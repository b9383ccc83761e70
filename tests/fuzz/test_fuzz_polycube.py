"""Polycube TOML/JSON and BurrTools .xmpuzzle: a puzzle or a PuzzleError, never a traceback."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tessera.models.burrtools import load_xmpuzzle
from tessera.models.fileformat import parse_document
from tessera.models.polycube import polycube_from_dict
from tests.fuzz.strategies import mixed, only_puzzle_errors
from tests.fuzz.valid import POLYCUBE_JSON, POLYCUBE_TOML, XMPUZZLE

coord = st.one_of(st.integers(-3, 3), st.sampled_from([10**6, -(10**19), 2**63]))
cell = st.one_of(st.lists(coord, min_size=3, max_size=3), st.lists(coord, max_size=4))
row = st.text(alphabet="#+. ", max_size=5)
layers = st.lists(st.lists(row, max_size=4), max_size=3)


@st.composite
def shape(draw, target: bool = False) -> dict:
    if draw(st.booleans()):
        out = {"layers": draw(layers)}
    else:
        out = {"cells": draw(st.lists(cell, max_size=6))}
        if target and draw(st.booleans()):
            out["optional"] = draw(st.lists(cell, max_size=3))
    return out


@st.composite
def polycube_doc(draw) -> dict:
    pieces = {}
    for name in draw(st.lists(st.sampled_from("ABCDEFG"), max_size=4, unique=True)):
        piece = draw(shape())
        if draw(st.booleans()):
            piece["copies"] = draw(st.one_of(st.integers(-1, 5), st.just(True)))
        if draw(st.booleans()):
            piece["color"] = draw(st.sampled_from(["#ff0000", "red", "#12345g"]))
        pieces[name] = piece
    doc = {"kind": draw(st.sampled_from(["polycube", "dice", "kenken", "x"])), "pieces": pieces}
    if draw(st.booleans()):
        doc["target"] = draw(shape(target=True))
    if draw(st.booleans()):
        doc["format"] = draw(st.sampled_from([1, 2, "1"]))
    return doc


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def to_toml(doc: dict) -> str:
    lines = []
    for key, value in doc.items():
        if not isinstance(value, dict):
            lines.append(f"{key} = {toml_value(value)}")
    for name, piece in doc.get("pieces", {}).items():
        lines.append(f"[pieces.{name}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in piece.items()]
    if "target" in doc:
        lines.append("[target]")
        lines += [f"{k} = {toml_value(v)}" for k, v in doc["target"].items()]
    return "\n".join(lines) + "\n"


toml_texts = mixed(
    st.one_of(st.sampled_from(POLYCUBE_TOML), polycube_doc().map(to_toml)),
    alphabet='[]#+.=,"\n kindpolycubtarge0123',
)
json_texts = mixed(
    st.one_of(st.sampled_from(POLYCUBE_JSON), polycube_doc().map(lambda d: json.dumps(d))),
    alphabet='{}[]:,"\n kindpolycube0123',
)


def _polycube(text: str, name: str):
    return polycube_from_dict(parse_document(text, name), text, name)


@given(toml_texts)
def test_polycube_toml(text):
    only_puzzle_errors(lambda: _polycube(text, "fuzz.toml"))


@given(json_texts)
def test_polycube_json(text):
    only_puzzle_errors(lambda: _polycube(text, "fuzz.json"))


# -- .xmpuzzle ------------------------------------------------------------------------------

_FOLDER = Path(tempfile.mkdtemp(prefix="tessera-fuzz-"))
size_attr = st.one_of(st.integers(0, 4).map(str), st.sampled_from(["-1", "²", "1_0", " 2", "x"]))


@st.composite
def voxel(draw) -> str:
    x, y, z = draw(size_attr), draw(size_attr), draw(size_attr)
    try:
        cells = int(x) * int(y) * int(z)
    except ValueError:
        cells = 2
    states = draw(
        st.lists(
            st.sampled_from(["_", "#", "+", "#1", "0"]),
            min_size=0,
            max_size=max(0, min(cells, 64)) + 1,
        )
    )
    name = draw(st.sampled_from(["", ' name="A"', ' name="&lt;"']))
    return f'<voxel x="{x}" y="{y}" z="{z}" type="0"{name}>{"".join(states)}</voxel>'


@st.composite
def xmpuzzle(draw) -> str:
    voxels = draw(st.lists(voxel(), min_size=0, max_size=4))
    grid = draw(
        st.sampled_from(
            ["", '<gridType type="0"/>', '<gridType type="2"/>', '<gridType type="9"/>']
        )
    )
    pieces = "".join(
        f'<shape id="{draw(st.sampled_from(["0", "1", "2", "7", "-1", "a"]))}"'
        + draw(
            st.sampled_from(
                ["", ' count="2"', ' count="0"', ' min="1" max="2"', ' count="x"', ' count="²"']
            )
        )
        + "/>\n"
        for _ in range(draw(st.integers(0, 3)))
    )
    result = draw(st.sampled_from(['<result id="0"/>', '<result id="5"/>', "", "<result/>"]))
    problems = draw(st.integers(0, 2))
    problem = f"<problem>\n<shapes>\n{pieces}</shapes>\n{result}\n</problem>\n" * problems
    return (
        f'<?xml version="1.0"?>\n<puzzle version="2">\n{grid}\n<shapes>\n'
        + "\n".join(voxels)
        + f"\n</shapes>\n<problems>\n{problem}</problems>\n</puzzle>\n"
    )


xm_texts = mixed(
    st.one_of(st.sampled_from(XMPUZZLE), xmpuzzle()), alphabet='<>/="_#+0123 voxelshapeidcount\n'
)


@given(xm_texts, st.booleans(), st.integers(1, 3))
def test_xmpuzzle(text, compress, problem):
    data = text.encode("utf-8", "surrogatepass")
    path = _FOLDER / "fuzz.xmpuzzle"
    path.write_bytes(gzip.compress(data) if compress else data)
    only_puzzle_errors(lambda: load_xmpuzzle(path, problem))


@given(st.binary(max_size=400))
def test_xmpuzzle_raw_bytes(data):
    path = _FOLDER / "raw.xmpuzzle"
    path.write_bytes(data)
    only_puzzle_errors(lambda: load_xmpuzzle(path))


@given(st.binary(max_size=300), st.sampled_from(["fuzz.toml", "fuzz.json"]))
def test_puzzle_file_raw_bytes(data, name):
    from tessera.models.polycube import load_polycube

    path = _FOLDER / name
    path.write_bytes(data)
    only_puzzle_errors(lambda: load_polycube(path))
