"""Entry point of the `opforge` console script."""

import sys

from .codegen.cli import main

if __name__ == "__main__":
    sys.exit(main())
