"""`python -m tessera` and the `tessera` command (its console script calls `run`).

The command's modules are imported inside `run`, under the same Ctrl-C guard as the command
itself: pressed while numpy and numba load, Ctrl-C is a one-line exit 130, not a traceback.
"""

import gc
import os
import signal
import sys

from tessera.cli.interrupt import interrupted


def _terminated(signum: int, frame) -> None:
    """SIGTERM unwinds like an exit, so half-written exports remove their temporary files."""
    raise SystemExit(128 + signum)


def run() -> int:
    signal.signal(signal.SIGTERM, _terminated)
    if sys.stderr.isatty():
        from tessera.solvers.kernels import on_compile

        on_compile(_say_compiling)
    try:
        from tessera.cli.main import main

        code = main()
    except KeyboardInterrupt:
        interrupted()
        code = 130
    except RuntimeError as exc:
        # Ctrl-C while `cli.main`'s own imports make a dataclass (Python 3.11 wraps it: "Error
        # calling __set_name__ on 'Field' instance"); `main` catches the same inside a command
        if not isinstance(exc.__cause__, KeyboardInterrupt):
            raise
        interrupted()
        code = 130
    if code == 130:
        # Ctrl-C inside an import can leave CPython's "unhandled KeyboardInterrupt" flag set
        # (measured: 1 run in 6), and the interpreter then kills itself with SIGINT at exit
        # although the command handled it. After an interrupt there is nothing left to tidy
        # (exports clean up as they unwind): flush what was printed and leave with 130.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    # The command is done and has printed everything: a Ctrl-C from now on would only
    # interrupt the interpreter's shutdown (joining threads, before any atexit hook runs)
    # with a traceback, so it is ignored. And nothing made needs collecting any more:
    # frozen, the objects numpy and numba loaded are not walked again by the last
    # collections (0.12 s of every small command, a tenth of a batch of 300 figures).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    return code


def _say_compiling(kernel: str) -> None:
    """One line on a terminal before a kernel compiles, so a first run does not look hung."""
    print(
        f"tessera: compiling the {kernel} (once after installing; a few seconds)…",
        file=sys.stderr,
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(run())
