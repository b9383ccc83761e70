"""Domino puzzles: model, file format, Dominosa IDs, generator, solver, grading and the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tessera.models.domino import (
    ORIENTED,
    load_domino,
    make_puzzle,
    max_cells,
    normalise,
    solution_problem,
    suits_for,
    tile_count,
    to_toml,
)
from tessera.models.dominosa_id import parse_dominosa_id, to_dominosa_id
from tessera.models.errors import PuzzleError
from tessera.solvers.domino import (
    Deducer,
    DominoSolver,
    count_solutions,
    deduce,
    exact_cover_problem,
    first_solution,
    placements,
    solve,
)
from tessera.solvers.domino_generate import generate, layout_flips, layout_matching, random_board
from tessera.solvers.exact_cover import Cancelled
from tessera.solvers.trace import EventKind, stack_at
from tests._paths import CONFORMANCE, needs_conformance, run_cli


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tessera: error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]


# -- the facts table -------------------------------------------------------------------------
def _facts_table() -> list[tuple[int, int, int]]:
    """The table of ../shared/conformance/README.md (read in place)."""
    rows = []
    for line in (CONFORMANCE / "README.md").read_text(encoding="utf-8").splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            rows.append(tuple(int(p) for p in parts))
    return rows


@needs_conformance
def test_set_sizes_match_the_conformance_table():
    table = _facts_table()
    assert len(table) == 7
    for suits, tiles, cells in table:
        assert tile_count(suits) == tiles
        assert max_cells(suits) == cells
        assert suits_for(cells) == suits


# -- generator + solver ------------------------------------------------------------------------
def _random_spec(rng: random.Random) -> tuple[int, int, int, bool]:
    while True:
        cols, rows = rng.randint(1, 11), rng.randint(1, 11)
        if (cols * rows) % 2 or cols * rows > max_cells(13):
            continue
        low = suits_for(cols * rows)
        oriented = rng.random() < 0.5
        # spare suits make plain boards very ambiguous (thousands of tilings): keep those close
        spare = 3 if oriented else 1
        return cols, rows, rng.randint(low, min(13, low + spare)), oriented


def test_500_generated_boards_are_solved_and_the_generators_tiling_is_found():
    rng = random.Random(2024)
    sizes, suit_counts = set(), set()
    for _ in range(500):
        cols, rows, suits, oriented = _random_spec(rng)
        sizes.add((cols, rows))
        suit_counts.add(suits)
        puzzle = random_board(cols, rows, suits, rng, oriented_pips=oriented)
        assert solution_problem(puzzle, puzzle.solution) is None
        want = normalise(puzzle.solution)
        found = False
        for n, pairs in enumerate(DominoSolver(puzzle).solutions()):
            assert solution_problem(puzzle, pairs) is None
            if normalise(pairs) == want:
                found = True
                break
            assert n < 20_000, f"{cols}x{rows} k={suits}: too many solutions before ours"
        assert found, f"{cols}x{rows} k={suits}: the generator's tiling was not found"
    assert len(sizes) > 40 and len(suit_counts) >= 10


@pytest.mark.parametrize("method", ["matching", "flips"])
def test_layouts_are_tilings_and_vary(method):
    rng = random.Random(1)
    layout = layout_matching if method == "matching" else layout_flips
    seen = set()
    for _ in range(20):
        pairs = layout(7, 8, rng)
        covered = [cell for pair in pairs for cell in pair]
        assert sorted(covered) == [(r, c) for r in range(7) for c in range(8)]
        assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in pairs)
        seen.add(tuple(normalise(pairs)))
    assert len(seen) == 20


def test_seed_reproduces_a_board_and_different_seeds_differ():
    a = generate(8, 7, seed=42)
    b = generate(8, 7, seed=42)
    c = generate(8, 7, seed=43)
    assert a.numbers == b.numbers and a.solution == b.solution
    assert a.numbers != c.numbers


def test_oriented_marks_follow_the_tiles():
    puzzle = generate(10, 11, seed=5)
    for (r1, c1), (r2, c2) in puzzle.solution:
        for r, c in ((r1, c1), (r2, c2)):
            want = ("h" if r1 == r2 else "v") if puzzle.numbers[r][c] in ORIENTED else ""
            assert puzzle.marks[r][c] == want


@pytest.mark.parametrize(
    "cols,rows,suits,oriented",
    [(8, 7, 7, True), (8, 7, 7, False), (10, 11, 10, True), (6, 5, 5, False), (4, 4, 6, False),
     (2, 1, 1, False), (3, 2, 2, False), (12, 11, 12, True), (5, 6, None, False)],
)  # fmt: skip
def test_unique_boards_have_exactly_one_solution(cols, rows, suits, oriented):
    for seed in range(3):
        puzzle = generate(cols, rows, suits, unique=True, seed=seed, oriented_pips=oriented)
        assert count_solutions(puzzle) == 1  # no limit: the whole tree is searched
        assert normalise(first_solution(puzzle)) == normalise(puzzle.solution)
        assert puzzle.meta["tries"] >= 1
        assert puzzle.difficulty in ("trivial", "basic", "hard", "extreme")
        result = deduce(puzzle)
        if result.status == "solved":
            assert normalise(result.pairs) == normalise(puzzle.solution)
        else:
            assert result.status == "stuck" and puzzle.difficulty == "extreme"


def test_deductions_never_rule_out_a_real_solution():
    rng = random.Random(7)
    for _ in range(150):
        cols, rows, suits, oriented = _random_spec(rng)
        if cols * rows > 40:
            continue
        puzzle = random_board(cols, rows, suits, rng, oriented_pips=oriented)
        deducer = Deducer(puzzle)
        deducer.run()
        kept = {tuple(sorted((deducer.pl[i].a, deducer.pl[i].b))) for i in deducer.active}
        for n, pairs in enumerate(DominoSolver(puzzle).solutions()):
            assert {tuple(sorted(p)) for p in pairs} <= kept
            if n > 200:
                break


def test_grades_spread_over_levels_on_plain_double_six():
    grades = {
        generate(8, 7, 7, unique=True, seed=s, oriented_pips=False).difficulty for s in range(12)
    }
    assert len(grades) >= 3


def test_orientation_marks_restrict_placements():
    # 2 1 over 2 0 tiles both ways plainly; a mark on the 2s decides which
    plain = make_puzzle([[2, 1], [2, 0]], 3, oriented_pips=False)
    assert count_solutions(plain) == 2
    marked = load_text_puzzle('kind = "domino"\nsuits = 3\nrows = ["2h 1", "2h 0"]\n')
    assert count_solutions(marked) == 1
    assert normalise(first_solution(marked)) == [((0, 0), (0, 1)), ((1, 0), (1, 1))]
    along = load_text_puzzle('kind = "domino"\nsuits = 3\nrows = ["2v 1", "2v 0"]\n')
    assert count_solutions(along) == 1
    assert normalise(first_solution(along)) == [((0, 0), (1, 0)), ((0, 1), (1, 1))]
    # a marked cell never appears in a placement the wrong way round
    for p in placements(marked):
        assert p.horizontal or marked.numbers[p.a[0]][p.a[1]] not in ORIENTED


def test_tile_columns_are_primary_only_for_a_full_set():
    full = generate(4, 3, 3, seed=1)
    part = generate(4, 3, 4, seed=1)
    assert exact_cover_problem(full, placements(full)).n_primary == 12 + 6
    assert exact_cover_problem(part, placements(part)).n_primary == 12


def test_trace_events_decode_to_placements_and_replay_the_solution():
    puzzle = load_domino("domino-dominosa-hard")
    solver = DominoSolver(puzzle, trace=True)
    solution = next(solver.solutions())
    events = solver.events
    assert events and events[-1].kind is EventKind.SOLUTION
    stack = stack_at(events, len(events))
    assert normalise(solver.decode(r)[:2] for r in stack) == normalise(solution)
    for event in events:
        a, b, tile = solver.decode(event.choice)
        assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
        assert tile == puzzle.tile_at((a, b))
    rest = list(solver.solutions())  # finishing the search proves uniqueness by backtracking
    assert rest == [] and any(e.kind is EventKind.REMOVE for e in solver.events)


def test_cancel_and_count_limit():
    puzzle = make_puzzle([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]], 6, oriented_pips=False)
    solver = DominoSolver(puzzle)
    assert solver.count(limit=1) == 1
    solver = DominoSolver(puzzle)
    solver.cancel()
    with pytest.raises(Cancelled):
        solver.count()


# -- files ---------------------------------------------------------------------------------------
def load_text_puzzle(text: str, tmp: Path | None = None, name: str = "p.toml"):
    import tempfile

    folder = Path(tmp or tempfile.mkdtemp())
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return load_domino(path)


def test_builtins_load_solve_and_match_their_stored_solution():
    for name in ("domino-double-six", "domino-double-nine", "domino-dominosa-hard", "domino-small"):
        puzzle = load_domino(name)
        assert puzzle.solution is not None
        assert count_solutions(puzzle) == 1
        assert normalise(first_solution(puzzle)) == normalise(puzzle.solution)


def test_toml_round_trip(tmp_path):
    puzzle = generate(6, 5, seed=9)
    path = tmp_path / "board.toml"
    path.write_text(to_toml(puzzle), encoding="utf-8")
    again = load_domino(path)
    assert again.numbers == puzzle.numbers and again.marks == puzzle.marks
    assert again.suits == puzzle.suits and again.solution == puzzle.solution


def _error(tmp_path, text: str, name="bad.toml") -> PuzzleError:
    with pytest.raises(PuzzleError) as info:
        load_text_puzzle(text, tmp_path, name)
    return info.value


def test_bad_files_name_the_line(tmp_path):
    err = _error(tmp_path, 'kind = "domino"\nsuits = 4\nrows = [\n  "0 1 2h",\n  "0 1 x3",\n]\n')
    assert err.line == 5 and "unknown token 'x3'" in err.message
    err = _error(tmp_path, 'kind = "domino"\nsuits = 4\nrows = [\n  "0 1 1 0",\n  "0 1 1",\n]\n')
    assert err.line == 5 and "unequal length" in err.message
    err = _error(
        tmp_path, 'kind = "domino"\nsuits = 4\nrows = [\n  "0 1 1",\n  "0 1 1",\n  "1 1 0"]\n'
    )
    assert "both sides are odd" in err.message and err.line == 3
    err = _error(tmp_path, 'kind = "domino"\nsuits = 2\nrows = ["0 1 1 0", "0 1 1 0"]\n')
    assert "covers at most 6" in err.message and err.line == 3
    err = _error(tmp_path, 'kind = "domino"\nsuits = 3\nrows = ["0 1 2", "0 1 2h"]\n')
    assert "needs h or v" in err.message
    err = _error(tmp_path, 'kind = "domino"\nsuits = 3\noriented_pips = false\nrows = ["2h 0"]\n')
    assert "oriented_pips is false" in err.message
    err = _error(tmp_path, 'kind = "domino"\nsuits = 3\nrows = ["0 5"]\n')
    assert "outside the set" in err.message
    err = _error(tmp_path, 'kind = "domino"\nsuit = 3\nrows = ["0 1"]\n')
    assert "unknown key 'suit'" in err.message and err.line == 2
    err = _error(
        tmp_path, 'kind = "domino"\nsuits = 2\nrows = ["0 1"]\n[solution]\npairs = [[0, 0, 1, 0]]\n'
    )
    assert "solution is wrong" in err.message and err.line == 5


# -- Dominosa IDs --------------------------------------------------------------------------------
def test_known_small_dominosa_id():
    puzzle = parse_dominosa_id("1:011100")
    assert puzzle.numbers == [[0, 1, 1], [1, 0, 0]]
    assert (puzzle.n_cols, puzzle.n_rows, puzzle.suits) == (3, 2, 2)
    assert not puzzle.oriented_pips and puzzle.full_set
    assert normalise(first_solution(puzzle)) == [
        ((0, 0), (1, 0)),
        ((0, 1), (0, 2)),
        ((1, 1), (1, 2)),
    ]
    assert count_solutions(puzzle) == 1


def test_dominosa_ids_round_trip_including_bracketed_numbers():
    for n, seed in ((6, 1), (9, 2), (11, 3), (12, 4)):
        board = generate(n + 2, n + 1, n + 1, seed=seed, oriented_pips=False)
        ident = to_dominosa_id(board)
        assert ident.startswith(f"{n}:")
        if n >= 10:
            assert "[10]" in ident and f"[{n}]" in ident
        else:
            assert len(ident) == len(f"{n}:") + (n + 1) * (n + 2)
        back = parse_dominosa_id(ident)
        assert back.numbers == board.numbers
        assert normalise(first_solution(back)) is not None
    # the difficulty suffix of a full game ID is accepted
    assert parse_dominosa_id("1dt:011100").difficulty == "trivial"


@pytest.mark.parametrize(
    "ident,needle",
    [
        ("6:0123", "56 numbers, but this one has 4"),
        ("1:0111000", "6 numbers, but this one has 7"),
        ("1:01110", "6 numbers, but this one has 5"),
        ("10:[10", "missing ']'"),
        ("1:01x100", "unexpected character 'x'"),
        ("1:011000", "appears"),
        ("1:012100", "out of range"),
    ],
)
def test_bad_dominosa_ids(ident, needle, capsys):
    with pytest.raises(PuzzleError) as info:
        parse_dominosa_id(ident)
    assert needle in str(info.value)
    code, out, err = run_cli(["domino", "solve", ident], capsys)
    assert_one_line_error(code, err, needle)


# -- command line --------------------------------------------------------------------------------
def test_cli_generate_text_is_reproducible(capsys):
    code, out1, _ = run_cli(["domino", "generate", "--size", "8x7", "--seed", "3"], capsys)
    assert code == 0
    code, out2, _ = run_cli(["domino", "generate", "--size", "8x7", "--seed", "3"], capsys)
    assert out1 == out2 and "8x7, double-6 (7 suits), seed 3" in out1 and "answer:" in out1


def test_cli_generate_unique_json_reports_tries_and_grade(capsys):
    argv = ["domino", "generate", "--size", "8x7", "--unique", "--seed", "5", "--count", "3",
            "--no-oriented-pips", "--json"]  # fmt: skip
    code, out, _ = run_cli(argv, capsys)
    assert code == 0
    boards = json.loads(out)
    assert len(boards) == 3
    for data in boards:
        assert data["tries"] >= 1 and data["difficulty"] in ("trivial", "basic", "hard", "extreme")
        puzzle = parse_dominosa_id(data["dominosa_id"])
        assert puzzle.numbers == data["numbers"]
        assert count_solutions(puzzle) == 1
        pairs = [((a, b), (c, d)) for a, b, c, d in data["solution"]["pairs"]]
        assert normalise(first_solution(puzzle)) == normalise(pairs)


def test_cli_out_files_solve_back(tmp_path, capsys):
    toml_path, json_path = tmp_path / "b.toml", tmp_path / "b.json"
    for path in (toml_path, json_path):
        argv = ["domino", "generate", "--size", "10x11", "--seed", "8", "--out", str(path)]
        code, out, _ = run_cli(argv, capsys)
        assert code == 0 and f"wrote {path}" in out
    a, b = load_domino(toml_path), load_domino(json_path)
    assert a.numbers == b.numbers and a.marks == b.marks and a.solution == b.solution
    code, out, _ = run_cli(["domino", "solve", str(json_path), "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    pairs = [((p[0], p[1]), (p[2], p[3])) for p in data["solution"]["pairs"]]
    assert solution_problem(a, pairs) is None and isinstance(data["unique"], bool)


def test_cli_solve_and_count(capsys):
    code, out, _ = run_cli(["domino", "solve", "domino-dominosa-hard"], capsys)
    assert code == 0 and "unique solution (difficulty: hard)" in out
    code, out, _ = run_cli(["domino", "solve", "1:011100", "--count"], capsys)
    assert code == 0 and out.strip() == "1 solution"
    code, out, _ = run_cli(["domino", "solve", "domino-small", "--count", "--json"], capsys)
    assert code == 0 and json.loads(out) == {
        "name": "Double-two on 4x3",
        "solutions": 1,
        "limit_reached": False,
    }


def test_cli_count_limit_and_no_solution(tmp_path, capsys):
    many = tmp_path / "many.toml"
    many.write_text(
        'kind = "domino"\nsuits = 6\noriented_pips = false\nrows = ["0 1 2 3 4 5", "1 2 3 4 5 0"]\n'
    )
    code, out, _ = run_cli(["domino", "solve", str(many), "--count"], capsys)
    assert code == 0 and out.strip() == "13 solutions"
    assert (
        count_solutions(load_domino(many))
        == 13
        == len(set(map(tuple, map(normalise, solve(load_domino(many))))))
    )
    code, out, _ = run_cli(["domino", "solve", str(many), "--count", "--limit", "2"], capsys)
    assert code == 0 and out.strip() == "at least 2 solutions"
    none = tmp_path / "none.toml"
    none.write_text('kind = "domino"\nsuits = 2\nrows = ["0 0", "0 0"]\n')
    code, out, err = run_cli(["domino", "solve", str(none)], capsys)
    assert code == 1 and "no solution" in err


@pytest.mark.parametrize(
    "argv,needles",
    [
        (["domino", "generate", "--size", "5x7"], ["both sides are odd"]),
        (["domino", "generate", "--size", "8x8", "--suits", "7"], ["covers at most 56"]),
        (["domino", "generate", "--size", "14x14"], ["covers at most 182"]),
        (["domino", "generate", "--size", "8by7"], ["--size", "expected XxY"]),
        (["domino", "solve", "no-such-board.toml"], ["no-such-board.toml", "no such file"]),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(argv, needles, capsys):
    code, out, err = run_cli(argv, capsys)
    assert_one_line_error(code, err, *needles)


HEAD = 'kind = "domino"\nsuits = 4\n'


@pytest.mark.parametrize(
    "text,needles",
    [
        (HEAD + 'rows = [\n "0 1 3h",\n "0 1 2q",\n]\n', [":5:", "unknown token '2q'"]),
        (HEAD + 'rows = [\n "0 1 1 0",\n "0 1",\n]\n', [":5:", "unequal length"]),
        (HEAD + 'rows = ["0 1 1", "0 1 1", "1 0 0"]\n', [":3:", "both sides are odd"]),
        (HEAD + 'rows = ["0 1 1 0", "0 1 1 0", "0 1 1 0", "0 0 0 0", "0 0 0 0", "0 0 0 0"]\n',
         [":3:", "covers at most 20"]),
    ],
)  # fmt: skip
def test_cli_bad_files_are_one_line_exit_2(tmp_path, text, needles, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["domino", "solve", str(path)], capsys)
    assert_one_line_error(code, err, str(path), *needles)
