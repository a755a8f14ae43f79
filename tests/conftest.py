"""Test setup: import the installed opforge (a wheel install, `pip install '.[test]'`, or the
development install, `pip install --no-build-isolation -e .`), never a bare source folder.

The repository root holds opforge/ (the Python sources, without the compiled runtime or the
generated wrappers), so it must not shadow a wheel install when pytest runs from the root. An
editable install maps `opforge` to that folder itself, with the compiled parts in its build.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != ROOT]
for name in [m for m in sys.modules if m == "opforge" or m.startswith("opforge.")]:
    del sys.modules[name]
if ROOT not in sys.path:
    sys.path.append(ROOT)  # for `import codegen` (the generator run from the checkout)
# An editable install rebuilds what changed when opforge is imported and says so on stderr;
# the many tests that start Python subprocesses want that quiet.
os.environ.setdefault("SKBUILD_EDITABLE_VERBOSE", "0")

try:
    import opforge  # noqa: E402,F401
except ImportError as e:
    raise RuntimeError(f"opforge is not installed ({e}); run pip install '.[test]' first") from e


# ---- fixtures shared by the test folders (graph-mode tests build into their own fresh graph)
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def graph():
    g = opforge.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
