"""The one way Tessera says it was interrupted (Ctrl-C): shared by the command's entry point
(`tessera.__main__`, which catches a Ctrl-C while modules load) and `cli.main` (which catches
one while a command runs). Standard library only: it must import in an instant."""

from __future__ import annotations

import signal
import sys


def interrupted() -> None:
    """Say so once; a Ctrl-C still pending (one press can trip the handler again while C code
    unwinds) must not turn the exit into a traceback or a death by SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("tessera: interrupted", file=sys.stderr)
