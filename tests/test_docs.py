"""The documentation cannot drift from the program: every ```console example in README.md and
docs/*.md is run and its printed lines compared, and the MkDocs site must build with --strict.

Console blocks follow one convention (docs/development.md, "Writing docs examples"):

* a line starting with `$ tessera ...` is a command (a trailing backslash continues it on the
  next line); the lines after it, up to the next `$ ` line, are what it prints, stdout and
  stderr together, as a terminal shows them;
* a line `...` stands for any number of lines (none included);
* `# exit N` at the end of a command says it exits with N (without it, the exit must be 0);
* a fenced block with `title="NAME"` in its info string (```toml title="bad.toml") is written
  to NAME in the page's scratch folder before the page's commands run, so examples can use
  small files shown on the page. The commands of one page share that folder, in page order.

Only `$ tessera` commands may appear in console blocks (other shell lines belong in ```sh
blocks, which are not run), and none may open a window.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)(?P<info>.*)$")
TITLE = re.compile(r'title="(?P<name>[^"]+)"')
EXIT = re.compile(r"#\s*exit\s+(?P<code>\d+)\s*$")
WINDOW_COMMANDS = {"view", "design"}
COMMAND_SECONDS = 60  # each example should take a second or two; this is only a ceiling
#: The caller's environment, without what would add to what the examples print.
ENV = {k: v for k, v in os.environ.items() if k != "TESSERA_PROGRESS"}


@dataclass
class Example:
    page: str
    line: int  # 1-based line of the `$ tessera` line in the page
    command: str
    expected: list[str] = field(default_factory=list)
    exit_code: int = 0


@dataclass
class Page:
    path: Path
    files: dict[str, str] = field(default_factory=dict)
    examples: list[Example] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def fenced_blocks(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number of the first content line, info string, content lines) per fenced block;
    the fence's indentation is removed from its lines."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"].strip()
        body, start = [], i + 2
        i += 1
        while i < len(lines):
            closing = FENCE.match(lines[i])
            if closing and closing["fence"].startswith(fence) and not closing["info"].strip():
                break
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        blocks.append((start, info, body))
        i += 1
    return blocks


def parse_page(path: Path) -> Page:
    page = Page(path)
    name = path.relative_to(ROOT).as_posix()
    for start, info, body in fenced_blocks(path.read_text(encoding="utf-8")):
        title = TITLE.search(info)
        if title:
            page.files[title["name"]] = "\n".join(body) + "\n"
        if info.split(" ")[0] != "console":
            continue
        current: Example | None = None
        continuing = False
        for offset, line in enumerate(body):
            if continuing and current is not None:
                current.command += " " + line.strip().rstrip("\\").strip()
                continuing = line.rstrip().endswith("\\")
                continue
            if line.startswith("$ "):
                command = line[2:].rstrip()
                where = f"{name}:{start + offset}"
                if not command.startswith("tessera ") and command != "tessera":
                    page.problems.append(f"{where}: only `$ tessera` commands in console blocks")
                    current = None
                    continue
                continuing = command.endswith("\\")
                current = Example(name, start + offset, command.rstrip("\\").strip())
                page.examples.append(current)
            elif current is not None:
                current.expected.append(line.rstrip())
            elif line.strip():
                page.problems.append(f"{name}:{start + offset}: output before any `$ tessera`")
    for example in page.examples:
        code = EXIT.search(example.command)
        if code:
            example.exit_code = int(code["code"])
        while example.expected and not example.expected[-1].strip():
            example.expected.pop()
    return page


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, exactly, with `...` standing for any run of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(matches(rest, actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and matches(rest, actual[1:])


def run_example(example: Example, cwd: Path) -> str | None:
    """None when the example holds, else a description of the difference."""
    argv = shlex.split(example.command, comments=True)
    where = f"{example.page}:{example.line}: $ {example.command}"
    if len(argv) > 1 and argv[1] in WINDOW_COMMANDS and "--help" not in argv:
        return f"{where}\n  opens a window: docs examples must stay headless"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tessera", *argv[1:]],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=ENV,
            timeout=COMMAND_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"{where}\n  took more than {COMMAND_SECONDS} s: docs examples must be quick"
    actual = [line.rstrip() for line in done.stdout.splitlines()]
    while actual and not actual[-1].strip():
        actual.pop()
    problems = []
    if done.returncode != example.exit_code:
        problems.append(f"exit {done.returncode}, the page says {example.exit_code}")
    if not matches(example.expected, actual):
        problems.append("printed something else")
    if not problems:
        return None
    shown = "\n".join(f"    | {line}" for line in actual[:60])
    wanted = "\n".join(f"    | {line}" for line in example.expected)
    return f"{where}\n  {'; '.join(problems)}\n  page:\n{wanted}\n  printed:\n{shown}"


PARSED = {page.relative_to(ROOT).as_posix(): parse_page(page) for page in PAGES}
WITH_EXAMPLES = [name for name, page in PARSED.items() if page.examples or page.problems]


@pytest.mark.timeout(60)
def test_console_blocks_are_found():
    """The parser sees the examples (an empty run would prove nothing)."""
    assert PARSED["README.md"].examples, "README.md shows no `$ tessera` example"
    assert sum(len(page.examples) for page in PARSED.values()) >= 20


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_console_examples(name, tmp_path):
    page = PARSED[name]
    for file_name, content in page.files.items():
        target = tmp_path / file_name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    failures = list(page.problems)
    for example in page.examples:
        failure = run_example(example, tmp_path)
        if failure:
            failures.append(failure)
    assert not failures, "\n\n".join(failures)


@pytest.mark.timeout(60)
def test_matcher():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["..."], [])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])


@pytest.mark.timeout(300)
def test_mkdocs_build_strict(tmp_path):
    """The site builds with every warning an error: broken links, missing anchors, pages not
    in the nav, a hook that fails."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=ENV | {"NO_MKDOCS_2_WARNING": "1"},
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").exists()
    benchmarks = (tmp_path / "site" / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert "The results table is generated from" not in benchmarks, "the hook did not run"


@pytest.mark.timeout(60)
def test_every_page_is_in_the_nav():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, str):
            listed.add(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)

    walk(config["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.glob("*.md")}
    assert pages == listed, f"not in the nav: {pages - listed}; missing: {listed - pages}"


@pytest.mark.timeout(60)
def test_readme_stays_short_and_self_contained():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "../shared" not in text, "users who clone the project have no ../shared"
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to a missing file: {target}"


def _gen_benchmarks():
    spec = importlib.util.spec_from_file_location("gen_benchmarks", DOCS / "gen_benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(60)
def test_benchmark_page_without_results(tmp_path):
    text = _gen_benchmarks().render(tmp_path / "results.json")
    assert "no benchmark results recorded yet; run `make bench`" in text


@pytest.mark.timeout(60)
def test_benchmark_page_renders_results(tmp_path):
    rows = [
        {
            "benchmark": "bench_polycube",
            "name": "soma, fixed: count",
            "ours_s": 0.0123,
            "reference": "xcover",
            "reference_s": 0.0246,
            "ratio": 0.5,
            "note": "11520 solutions",
            "machine": {"cores": 2, "python": "3.11", "platform": "Linux"},
            "date": "2025-01-01T00:00:00+00:00",
        },
        {  # recorded before the keys were shortened: still rendered
            "benchmark": "bench_kenken",
            "name": "kenken 9x9: median",
            "ours_seconds": 0.005,
            "reference": None,
            "reference_seconds": None,
            "ratio": None,
            "note": "",
            "machine": {"cores": 2, "python": "3.11", "platform": "Linux"},
            "date": "2025-01-01T00:00:00+00:00",
        },
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    text = _gen_benchmarks().render(path)
    assert "| soma, fixed: count | 12.3 ms | xcover | 24.6 ms | 0.50 | 11520 solutions |" in text
    assert "| kenken 9x9: median | 5.0 ms | – | – | – |  |" in text
    assert "no benchmark results" not in text


@pytest.mark.timeout(60)
def test_benchmark_rows_go_from_main_to_the_page(tmp_path, monkeypatch):
    """A script's main() returns its rows; the runner stamps and saves them, keeps the rows of
    a script that returned none, and the page shows a missing reference as a dash."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    record = importlib.import_module("record")
    toy = tmp_path / "bench_toy.py"
    toy.write_text(
        "from record import row\n"
        "def main():\n"
        "    return [row('same work', 0.5, 'them', 2.0, 'n'),\n"
        "            row('alone', 0.25, 'them', None, 'them: absent')]\n",
        encoding="utf-8",
    )
    silent = tmp_path / "bench_silent.py"
    silent.write_text("def main():\n    print('a table')\n", encoding="utf-8")
    results = tmp_path / "results.json"
    earlier = {"benchmark": "bench_silent", "name": "kept", "ours_s": 1.0, "reference": None}
    results.write_text(json.dumps([earlier]), encoding="utf-8")

    rows = record.run_benchmark(toy)
    assert record.run_benchmark(silent) is None
    assert [r["ratio"] for r in rows] == [0.25, None]
    assert {r["benchmark"] for r in rows} == {"bench_toy"}
    assert all("machine" in r and "date" in r for r in rows)
    record.save(rows, ["bench_toy"], results)
    saved = json.loads(results.read_text(encoding="utf-8"))
    assert [r["name"] for r in saved] == ["kept", "same work", "alone"]

    text = _gen_benchmarks().render(results)
    assert "| same work | 500 ms | them | 2.00 s | 0.25 | n |" in text
    assert "| alone | 250 ms | them | – | – | them: absent |" in text
