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

#: Commands that belong to no one family, by the module that adds them.
GENERAL_COMMANDS = {
    "tessera.cli.viewer": ("view", "render", "animate"),
    "tessera.cli.stl": ("stl",),
    "tessera.cli.design": ("design",),
}
GENERAL_MODULES = tuple(GENERAL_COMMANDS)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        """Usage errors are bad input too: one line and exit 2, with where to read more
        (argparse's usage block would bury the line that says what is wrong)."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def command_modules() -> dict[str, str]:
    """The module that adds each command: the families' as the registry declares them, then
    the general ones."""
    owners = {}
    for entry in FAMILIES.values():
        owners |= dict.fromkeys(entry.commands, entry.cli_module)
    for module, commands in GENERAL_COMMANDS.items():
        owners |= dict.fromkeys(commands, module)
    return owners


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; or, given the command line of a known command that asks for no help,
    a parser with that command alone, so a run imports only its own command's module (all of
    them cost a `tessera solve` about 15 ms: the dice family's models, tomllib, every
    subparser). Help and unknown commands get the whole parser, so they read as always."""
    parser = _Parser(
        prog="tessera",
        description="A 3D puzzle workbench: polycubes, Instant Insanity dice, dominoes, KenKen.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = [entry.cli_module for entry in FAMILIES.values()] + list(GENERAL_MODULES)
    owner = command_modules().get(argv[0]) if argv else None
    if owner is not None and not any(a in ("-h", "--help") for a in argv):
        modules = [owner]
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
        parser = build_parser(argv)
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
        return _interrupted()
    except RuntimeError as exc:
        # Ctrl-C while a module being imported makes a dataclass: Python 3.11 wraps what a
        # field's `__set_name__` raised ("Error calling __set_name__ on 'Field' instance")
        if not isinstance(exc.__cause__, KeyboardInterrupt):
            raise
        return _interrupted()
    except BrokenPipeError:
        return 0


def _interrupted() -> int:
    from tessera.cli.interrupt import interrupted

    interrupted()
    return 130


if __name__ == "__main__":
    sys.exit(main())
