"""`tessera`: every solve, count and export without a window; no arguments opens the app.

Each family's registry entry (`solvers.registry`) names the module that adds its subcommands;
the viewer's and the printable models' commands come after them. This file only dispatches and
turns the errors users can cause into one line and an exit code:
2 for bad input (`PuzzleError`), 1 for a puzzle with no solution, 130 for Ctrl-C.

Building the parser must stay cheap: `tessera --help` and every `tessera COMMAND --help` load
no numpy, numba, networkx, VTK or Qt. Each module in cli/ imports only argparse, the standard
library, `models.errors`, `models.atomic` and the light registry at the top, and the solvers,
models and viewer it needs inside the command function (tests/test_cli_startup.py checks).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tessera.models.errors import NoSolution, PuzzleError
from tessera.solvers.registry import FAMILIES

#: Commands that belong to no one family.
GENERAL_MODULES = ("tessera.cli.viewer", "tessera.cli.stl", "tessera.cli.design")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        """Usage errors are bad input too: one line and exit 2, with where to read more
        (argparse's usage block would bury the line that says what is wrong)."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tessera",
        description="A 3D puzzle workbench: polycubes, Instant Insanity dice, dominoes, KenKen.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = [entry.cli_module for entry in FAMILIES.values()] + list(GENERAL_MODULES)
    for name in modules:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        argv = ["view"]
    try:
        # The command's own imports (numpy, numba) happen inside args.func: Ctrl-C there
        # is a clean exit too, not a traceback.
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except PuzzleError as exc:
        print(f"tessera: error: {exc}", file=sys.stderr)
        return 2
    except NoSolution as exc:
        print(str(exc) or "no solution", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        from tessera.cli.interrupt import interrupted

        interrupted()
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
