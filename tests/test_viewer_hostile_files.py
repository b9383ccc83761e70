"""Issue 21: the window opens each hostile file of the sweep and shows a result or a dialog,
never a frozen window, a traceback or a silent status line. Each file is opened through the
window's own Open path; a refused file must put up the error dialog naming it, an accepted one
must show a solution (the solver goes on counting in the background)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)


def _polycube(pieces: dict[str, list], target: list, extra: str = "") -> str:
    lines = ['kind = "polycube"']
    for name, cells in pieces.items():
        lines += [f"[pieces.{name}]", f"cells = {json.dumps(cells)}"]
    lines += ["[target]", f"cells = {json.dumps(target)}"]
    return "\n".join(lines) + "\n" + extra


def _xmpuzzle(n_shapes: int) -> bytes:
    one = '<voxel x="1" y="1" z="1" type="0">#</voxel>'
    xml = (
        '<?xml version="1.0"?>\n<puzzle version="2"><gridType type="0"/><colors></colors>'
        f'<shapes><voxel x="2" y="1" z="1" type="0">##</voxel>{one * n_shapes}</shapes>'
        '<problems><problem name="P"><shapes><shape id="1" count="2"/></shapes>'
        '<result id="0"/><bitmap></bitmap></problem></problems><comment/></puzzle>'
    )
    return gzip.compress(xml.encode())


def _seventy_dominoes() -> str:
    pieces = {f"D{k}": [[0, 0, 0], [1, 0, 0]] for k in range(70)}
    target = [[2 * (k % 10) + dx, k // 10, 0] for k in range(70) for dx in (0, 1)]
    return _polycube(pieces, target)


#: name -> (file text or bytes, what the window must do: "solve" or "refuse")
HOSTILE = {
    "far-apart.toml": (
        _polycube({"A": [[0, 0, 0]], "B": [[0, 0, 0], [0, 0, 1]]},
                  [[0, 0, 0], [1000, 1000, 1000], [1000, 1000, 1001]]),
        "solve",
    ),
    "equal-shapes.toml": (
        _polycube({"A": [[0, 0, 0], [1, 0, 0]], "B": [[0, 0, 0], [1, 0, 0]]},
                  [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]),
        "solve",
    ),
    "seventy-pieces.toml": (_seventy_dominoes(), "solve"),
    "many-shapes.xmpuzzle": (_xmpuzzle(200_000), "refuse"),
    "long-number.toml": ('kind = "domino"\nrows = [\n"0 ' + "1" * 5000 + '",\n"0 1"\n]\n',
                         "refuse"),
    "huge-board.toml": (
        'kind = "domino"\nrows = [\n' + ",\n".join([f'"{" ".join(["0"] * 1000)}"'] * 1000)
        + "\n]\n",
        "refuse",
    ),
    "damaged.xmpuzzle": (b"<?xml version='1.0'?>\n<puzzle><shapes><voxel", "refuse"),
    "nested.toml": ('kind = "polycube"\nx = ' + "[" * 5000 + "]" * 5000 + "\n", "refuse"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(HOSTILE))
def test_the_window_answers_each_hostile_file(qtbot, window, tmp_path, name):
    content, expect = HOSTILE[name]
    path: Path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    if expect == "refuse":
        assert not window.open_puzzle(str(path))
        box = window.error_dialog
        qtbot.waitUntil(box.isVisible)
        assert name in box.text() and "Traceback" not in box.text()
        assert name in window.last_error
        box.close()
        return
    assert window.open_puzzle(str(path)), window.last_error
    # the first solution shown is the answer; a count of 70 dominoes may go on for ever
    qtbot.waitUntil(lambda: len(window.state.solutions) >= 1, timeout=300_000)
    assert len(window.state.solutions) >= 1, window.last_error
    assert window.state.scene is not None
    window.cancel_solving()
