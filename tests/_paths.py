"""Where the tests find the shared ground truth (read in place, never copied)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def expected() -> dict:
    return tomllib.loads((CONFORMANCE / "expected.toml").read_text(encoding="utf-8"))


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """`tessera ARGV` in this process: exit code, stdout, stderr."""
    from tessera.cli.main import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
