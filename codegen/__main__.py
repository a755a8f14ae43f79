"""`python -m codegen` runs the opforge command line (the same as `opforge`)."""

import sys

from .cli import main

sys.exit(main())
