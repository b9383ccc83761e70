"""Valid inputs for every parser, the starting points the fuzz tests mutate.

Built here from seeds (random KenKen cages over a Latin square, random domino boards) and
read from the built-in puzzles, so a mutation starts from something the parser accepts and
its edits reach deep into the checks rather than failing on the first character.
"""

from __future__ import annotations

import gzip
import json
import random
import tomllib

from hypothesis import strategies as st

from tessera.models.assets import builtin_puzzles
from tessera.models.domino import to_toml as domino_toml
from tessera.models.domino_json import to_json
from tessera.models.dominosa_id import to_dominosa_id
from tessera.models.keen_id import encode_keen_id
from tessera.models.kenken import Cage, KenKenPuzzle, cage_value, format_kenken
from tessera.solvers.domino_generate import random_board
from tessera.solvers.kenken_generate import latin_square
from tests._paths import CONFORMANCE


def _builtin_texts(prefixes: tuple[str, ...], suffix: str) -> list[str]:
    return [
        path.read_text(encoding="utf-8")
        for name, path in builtin_puzzles().items()
        if name.startswith(prefixes) and path.suffix == suffix
    ]


def _as_json(texts: list[str]) -> list[str]:
    return [json.dumps(tomllib.loads(text), indent=1) for text in texts]


POLYCUBE_TOML = _builtin_texts(("soma", "six-piece", "tetracubes", "pentominoes-3x4"), ".toml")
POLYCUBE_JSON = _as_json(POLYCUBE_TOML)
DICE = _builtin_texts(("dice", "instant"), ".toml")
DOMINO = _builtin_texts(("domino",), ".toml")
KENKEN = _builtin_texts(("kenken",), ".kenken")


def random_kenken(seed: int, size: int) -> KenKenPuzzle:
    """Random connected cages (1..5 cells) over a random Latin square, each with a target
    that square meets."""
    rng = random.Random(seed)
    square = latin_square(size, rng)
    owner = {(r, c): (r, c) for r in range(size) for c in range(size)}
    members = {cell: [cell] for cell in owner}
    for _ in range(size * size):
        r, c = rng.randrange(size), rng.randrange(size)
        other = (r, c + 1) if rng.random() < 0.5 else (r + 1, c)
        if other not in owner:
            continue
        a, b = owner[(r, c)], owner[other]
        if a == b or len(members[a]) + len(members[b]) > 5:
            continue
        for cell in members.pop(b):
            owner[cell] = a
            members[a].append(cell)
    cages = []
    for cells in members.values():
        digits = [square[r][c] for r, c in cells]
        ops = ["", "+"] if len(cells) == 1 else ["+", "*"]
        if len(cells) == 2:
            ops += ["-"] + (["/"] if max(digits) % min(digits) == 0 else [])
        op = rng.choice(ops if len(cells) > 1 else [""])
        cages.append(Cage(tuple(sorted(cells)), cage_value(op, digits), op))
    return KenKenPuzzle(size, tuple(sorted(cages, key=lambda cage: cage.cells)))


seeds = st.integers(0, 10**6)
kenken_puzzles = st.builds(random_kenken, seeds, st.integers(3, 9))
kenken_texts = st.one_of(kenken_puzzles.map(format_kenken), st.sampled_from(KENKEN))
keen_ids = kenken_puzzles.map(encode_keen_id)


def _board(seed: int, cols: int, rows: int, oriented: bool):
    return random_board(cols, rows, 13, random.Random(seed), oriented_pips=oriented)


domino_boards = st.builds(
    _board, seeds, st.integers(1, 6), st.sampled_from([2, 4, 6]), st.booleans()
)
domino_texts = st.one_of(
    domino_boards.map(domino_toml), domino_boards.map(to_json), st.sampled_from(DOMINO)
)


def _full_set(seed: int, n: int) -> str:
    board = random_board(n + 2, n + 1, n + 1, random.Random(seed), oriented_pips=False)
    return to_dominosa_id(board)


dominosa_ids = st.builds(_full_set, seeds, st.integers(1, 12))


def _xmpuzzles() -> list[str]:
    """The shared BurrTools examples when they are beside the clone, plus one made here."""
    made = (
        '<?xml version="1.0"?>\n<puzzle version="2">\n<gridType type="0"/>\n<shapes>\n'
        '<voxel x="2" y="2" z="1" type="0" name="box">###+</voxel>\n'
        '<voxel x="2" y="1" z="1" type="0">##</voxel>\n</shapes>\n<problems>\n<problem>\n'
        '<shapes>\n<shape id="1" count="2"/>\n</shapes>\n<result id="0"/>\n</problem>\n'
        "</problems>\n</puzzle>\n"
    )
    texts = [made]
    folder = CONFORMANCE / "burrtools"
    for path in sorted(folder.glob("*.xmpuzzle")) if folder.is_dir() else []:
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        if len(data) < 20_000:
            texts.append(data.decode("utf-8", "replace"))
    return texts


XMPUZZLE = _xmpuzzles()
