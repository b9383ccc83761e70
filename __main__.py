"""`python -m tessera`: the same as the `tessera` command."""

import sys

from tessera.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
