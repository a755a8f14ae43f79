"""Test setup: import the installed opforge, never the source folder of the same name.

The repository root holds opforge/ (the Python sources, without the compiled runtime or the
generated wrappers), so it must not shadow the installed package when pytest runs from the
root. Install first: pip install '.[test]'.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
for name in [m for m in sys.modules if m == "opforge" or m.startswith("opforge.")]:
    del sys.modules[name]
if ROOT not in sys.path:
    sys.path.append(ROOT)  # for `import codegen` (the generator run from the checkout)

import opforge  # noqa: E402

if not os.path.exists(os.path.join(os.path.dirname(opforge.__file__), "generated")):
    raise RuntimeError(f"imported opforge from {opforge.__file__}, which is not an installed build; "
                       "run pip install '.[test]' first")
