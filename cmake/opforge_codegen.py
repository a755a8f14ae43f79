"""Runs the opforge codegen of this installed opforge (``opforge_add_op_library`` calls it).

The codegen package sits at ../../../codegen; it is imported by path under its own name, so
neither the opforge package (and its native runtime) nor anything else beside it is imported.
"""

import importlib.util
import os
import sys

_PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "codegen")

spec = importlib.util.spec_from_file_location("codegen", os.path.join(_PKG, "__init__.py"),
                                              submodule_search_locations=[_PKG])
codegen = importlib.util.module_from_spec(spec)
sys.modules["codegen"] = codegen
spec.loader.exec_module(codegen)

from codegen.cli import main  # noqa: E402

sys.exit(main())
