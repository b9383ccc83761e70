"""Where the tests find the shared ground truth (read in place, never copied)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def expected() -> dict:
    return tomllib.loads((CONFORMANCE / "expected.toml").read_text(encoding="utf-8"))
