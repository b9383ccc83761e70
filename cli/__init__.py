"""The `tessera` command: every solve, count and export without a window.

One module per family (named by the family's registry entry) plus the viewer's, the STL and
the editor's commands; `main` dispatches and turns what users can get wrong into one line and
an exit code. Modules import their solvers and the viewer inside the commands, so `--help`
loads no numpy; the window (Qt) is imported only by `tessera view` and `tessera design`. May
import everything below it: `tessera.viewer`, `tessera.solvers`, `tessera.models`.
"""
