"""Command line for the domino family (filled in by its issue)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add this family's subcommands."""
