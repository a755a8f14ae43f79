"""Runs the opforge codegen of this installed opforge (``opforge_add_op_library`` calls it).

The codegen package sits at ../../../codegen (in an editable install: the checkout's, named
by opforge_checkout.txt beside this file); it is imported by path under its own name, so
neither the opforge package (and its native runtime) nor anything else beside it is imported.
"""

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))), "codegen")
if not os.path.isdir(_PKG):  # an editable install: the codegen is the checkout's
    with open(os.path.join(_HERE, "opforge_checkout.txt"), encoding="utf-8") as f:
        _PKG = os.path.join(f.read().strip(), "codegen")

spec = importlib.util.spec_from_file_location("codegen", os.path.join(_PKG, "__init__.py"),
                                              submodule_search_locations=[_PKG])
codegen = importlib.util.module_from_spec(spec)
sys.modules["codegen"] = codegen
spec.loader.exec_module(codegen)

from codegen.cli import main  # noqa: E402

sys.exit(main())
