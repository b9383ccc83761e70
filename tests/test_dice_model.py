"""The dice model: the 24 orientations, the file format and its errors, the built-in sets."""

from __future__ import annotations

import itertools

import pytest

from tessera.models.assets import builtin_puzzles
from tessera.models.dice import (
    AXES,
    BY_FRONT_RIGHT,
    ORIENTATIONS,
    STACK_SYMMETRIES,
    DicePuzzle,
    canonical_look,
    dump_dice,
    load_dice,
    orient,
    orientation_of,
)
from tessera.models.errors import PuzzleError

DIE = ["t", "f", "r", "k", "l", "m"]  # six different faces, so orientations are told apart

# Corners of a cube as the faces that meet there, in counter-clockwise order seen from outside;
# a rotation maps corners to corners keeping that cyclic order, a reflection reverses it.
POSITION_VECTORS = {0: (0, 0, 1), 1: (0, -1, 0), 2: (1, 0, 0), 3: (0, 1, 0), 4: (-1, 0, 0)}
POSITION_VECTORS[5] = (0, 0, -1)


def _det(p):
    """Determinant of the linear map sending position vectors to the face vectors p says
    land there: +1 for a rotation, -1 for a reflection."""
    cols = [POSITION_VECTORS[p[i]] for i in (2, 3, 0)]  # images of +x, +y, +z
    rows = [POSITION_VECTORS[i] for i in (2, 3, 0)]
    m = [[sum(a * b for a, b in zip(c, r, strict=True)) for c in cols] for r in rows]
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def test_there_are_24_orientations_all_rotations_keeping_opposite_faces_opposite():
    assert len(set(ORIENTATIONS)) == 24
    assert ORIENTATIONS[0] == (0, 1, 2, 3, 4, 5)
    for p in ORIENTATIONS:
        assert sorted(p) == list(range(6))
        for a, b in AXES:
            assert {p[a], p[b]} in [{x, y} for x, y in AXES]
        assert _det(p) == 1
    # and they are all of them: 48 face permutations keep opposites opposite, half are mirrors
    keeping = [
        p
        for p in itertools.permutations(range(6))
        if all({p[a], p[b]} in [{x, y} for x, y in AXES] for a, b in AXES)
    ]
    assert len(keeping) == 48
    assert sum(_det(p) == 1 for p in keeping) == 24


def test_the_orientations_form_a_group():
    for j, k in itertools.product(range(24), repeat=2):
        assert 0 <= orientation_of(j, ORIENTATIONS[k]) < 24


def test_orient_and_front_right_lookup_agree():
    for k in range(24):
        shown = orient(DIE, k)
        assert sorted(shown) == sorted(DIE)
        f, r = ORIENTATIONS[k][1], ORIENTATIONS[k][2]
        assert BY_FRONT_RIGHT[f][r] == k
    assert orient(DIE, 0) == tuple(DIE)
    assert len({orient(DIE, k) for k in range(24)}) == 24


def test_stack_symmetries_keep_the_vertical_axis():
    assert len(STACK_SYMMETRIES) == 8
    for g in STACK_SYMMETRIES:
        assert {g[0], g[5]} == {0, 5}


def test_canonical_look_identifies_a_turned_tower():
    dice = [DIE, list("abcdef")]
    stack = (3, 17)
    key = canonical_look(dice, stack)
    for g in STACK_SYMMETRIES:
        turned = tuple(orientation_of(k, g) for k in stack)
        assert canonical_look(dice, turned) == key
    assert canonical_look(dice, (3, 18)) != key


def _write(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = """kind = "dice"
name = "Two"
dice = [
  ["r", "g", "r", "g", "r", "g"],
  ["g", "r", "g", "r", "g", "r"],
]
"""


def test_load_a_file_with_default_and_custom_colours(tmp_path):
    p = load_dice(_write(tmp_path, GOOD + '\n[colors]\nr = "#FF0000"\n'))
    assert isinstance(p, DicePuzzle)
    assert p.name == "Two" and p.n == 2
    assert p.dice[1] == ["g", "r", "g", "r", "g", "r"]
    assert p.colors == {"r": "#ff0000", "g": "#2ca02c"}


def test_unknown_colour_names_get_distinct_display_colours():
    p = DicePuzzle("x", [["navy", "teal", "navy", "teal", "navy", "teal"]] * 2)
    assert set(p.colors) == {"navy", "teal"}
    assert len(set(p.colors.values())) == 2
    assert all(v.startswith("#") and len(v) == 7 for v in p.colors.values())


def test_dump_reads_back_the_same(tmp_path):
    p = load_dice(_write(tmp_path, GOOD + '\n[colors]\ng = "#00ff00"\n'))
    again = load_dice(_write(tmp_path, dump_dice(p, "a comment"), "q.toml"))
    assert (again.name, again.dice, again.colors) == (p.name, p.dice, p.colors)


BAD = [
    (GOOD.replace('["g", "r", "g", "r", "g", "r"]', '["g", "r", "g", "r"]'), 5, "has 4 faces"),
    (GOOD.replace('name = "Two"', 'colour = "Two"'), 2, "unknown key 'colour'"),
    (GOOD.replace('["g", "r", "g", "r", "g", "r"]', '["g", "r", "b", "r", "g", "r"]'), 5, "'b'"),
    (GOOD.replace('kind = "dice"', 'kind = "polycube"'), 1, "a polycube puzzle, not a dice"),
    (GOOD.replace('kind = "dice"', "kind = true"), 1, "unknown kind True (known: "),
    (GOOD.replace('"g", "r", "g", "r", "g", "r"', '"g", "r", "g", "r", "g", 7'), 5, "7"),
    (GOOD + '\n[colors]\nr = "red"\n', 9, "'#rrggbb'"),
    ('kind = "dice"\ndice = [\n  "rgrgrg",\n]\n', 2, "die 1 must be a list"),
    ('kind = "dice"\ndice = []\n', 2, "non-empty"),
    ('kind = "dice"\nname = "x"\n', 1, "missing key 'dice'"),
]


@pytest.mark.parametrize(("text", "line", "words"), BAD)
def test_bad_files_name_the_file_and_line(tmp_path, text, line, words):
    path = _write(tmp_path, text)
    with pytest.raises(PuzzleError) as info:
        load_dice(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert words in info.value.message


def test_json_errors_point_at_the_die(tmp_path):
    text = '{"kind": "dice",\n "dice": [["a","b","a","b","a","b"],\n   ["a","b","a"]]}\n'
    with pytest.raises(PuzzleError) as info:
        load_dice(_write(tmp_path, text, "p.json"))
    assert info.value.line == 3 and "has 3 faces" in info.value.message


def test_one_line_dice_list_points_at_the_right_line(tmp_path):
    text = 'kind = "dice"\n# a comment with [brackets]\ndice = [["a","b","a","b","a","b"], ["a"]]\n'
    with pytest.raises(PuzzleError) as info:
        load_dice(_write(tmp_path, text))
    assert info.value.line == 3


def test_builtins_load_and_include_the_required_sets():
    names = [n for n in builtin_puzzles() if n.startswith("dice-") or n == "instant-insanity"]
    assert {"instant-insanity", "dice-five"} <= set(names)
    assert len(names) >= 4
    for name in names:
        p = load_dice(builtin_puzzles()[name])
        assert p.n == len(p.colour_names) >= 4
        assert all(c in p.colors for c in p.colour_names)
