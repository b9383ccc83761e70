"""`tessera design [PUZZLE] [--soma] [--screenshot F.png]`: the window, opened in Design mode.

Draw pieces and a target cube by cube, with a live count of the solutions; any polycube file
(TOML, JSON, BurrTools `.xmpuzzle`, yass `.soma`) or built-in name opens into it. The window
lives in `tessera.viewer._qt.design`, imported only when the command runs, so `tessera --help` and
every headless command stay free of Qt.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `design` subcommand."""
    design = sub.add_parser(
        "design", help="draw pieces and a target, with a live solution count (a window)"
    )
    design.add_argument(
        "puzzle", nargs="?", help="a polycube file or built-in name to edit (default: a new one)"
    )
    design.add_argument(
        "--soma", action="store_true", help="start a new Soma figure: the seven pieces, no target"
    )
    design.add_argument(
        "--screenshot", metavar="FILE.png", help="open, wait for the count, save a grab, quit"
    )
    design.set_defaults(func=cmd_design)


def cmd_design(args: argparse.Namespace) -> int:
    from tessera.cli.output import check_writable
    from tessera.cli.viewer import check_display

    if args.screenshot:
        check_writable(args.screenshot)
    check_display("design")
    from tessera.viewer._qt.design.app import run

    return run(args.puzzle, screenshot=args.screenshot, soma=args.soma, argv=sys.argv[:1])
