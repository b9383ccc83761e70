"""Render benchmarks/results.json (written by `make bench`) as the generated part of
docs/benchmarks.md. The MkDocs hook (docs/hooks.py) calls `render` while the site builds;
`python docs/gen_benchmarks.py` prints the same Markdown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results.json"
EMPTY = "no benchmark results recorded yet; run `make bench`"
START = "<!-- benchmarks:generated:start -->"
END = "<!-- benchmarks:generated:end -->"


def seconds(value: float | None) -> str:
    """A time in the unit that reads best: 0.45 ms, 12.3 ms, 200 ms, 1.23 s, 54.4 s."""
    if value is None:
        return "–"
    if value >= 10:
        return f"{value:.1f} s"
    if value >= 1:
        return f"{value:.2f} s"
    ms = value * 1000
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 1:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def ratio(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def field(row: dict, key: str) -> float | None:
    """`ours_s` / `reference_s`, or their longer names in rows recorded before the rename."""
    return row.get(key, row.get(key.replace("_s", "_seconds")))


def cell(text: object) -> str:
    return str(text if text is not None else "–").replace("|", "\\|").replace("\n", " ")


def machine(info: dict) -> str:
    """'2 cores, AMD EPYC, Linux x86_64, Python 3.11.7, load 2.1' from the recorded fields."""
    parts = []
    if "cores" in info:
        parts.append(f"{info['cores']} cores")
    parts += [str(info[k]) for k in ("cpu", "platform") if k in info]
    if "python" in info:
        parts.append(f"Python {info['python']}")
    if "load" in info:
        parts.append(f"load {info['load']}")
    return ", ".join(parts) if parts else "an unrecorded machine"


def render(path: Path = RESULTS) -> str:
    """The Markdown for the rows in `path`, or the note that there are none yet."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"!!! note\n    {EMPTY}.\n"
    if not rows:
        return f"!!! note\n    {EMPTY}.\n"
    out = []
    by_bench: dict[str, list[dict]] = {}
    for row in rows:
        by_bench.setdefault(row.get("benchmark", "other"), []).append(row)
    for bench, group in by_bench.items():
        first = group[0]
        out.append(f"### `{bench}`")
        out.append("")
        out.append(f"Run {first.get('date', '?')} on {machine(first.get('machine', {}))}.")
        out.append("")
        out.append("| what | ours | reference | reference time | ratio | note |")
        out.append("|---|---|---|---|---|---|")
        for row in group:
            out.append(
                f"| {cell(row['name'])} | {seconds(field(row, 'ours_s'))} "
                f"| {cell(row.get('reference'))} | {seconds(field(row, 'reference_s'))} "
                f"| {ratio(row.get('ratio'))} | {cell(row.get('note') or '')} |"
            )
        out.append("")
    missing = sorted(p.stem for p in path.parent.glob("bench_*.py") if p.stem not in by_bench)
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        out.append(f"No results recorded yet for {names}: run `make bench`.")
        out.append("")
    return "\n".join(out)


def replace_generated(markdown: str, path: Path = RESULTS) -> str:
    """`markdown` with the text between the START and END markers replaced by `render`."""
    head, found, rest = markdown.partition(START)
    if not found:
        return markdown
    _, found_end, tail = rest.partition(END)
    if not found_end:
        raise ValueError(f"{START} without {END}")
    return f"{head}{START}\n{render(path)}\n{END}{tail}"


if __name__ == "__main__":
    sys.stdout.write(render(Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS))
