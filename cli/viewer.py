"""Command line for the viewer family (filled in by its issue)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add this family's subcommands."""
