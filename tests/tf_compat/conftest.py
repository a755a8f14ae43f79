"""tests/tf_compat: opforge against TensorFlow (tf.raw_ops), when tensorflow is installed.

The cases come from the op test matrix (tests/ops/opmatrix.py: shapes and attrs chosen from
each opdef's shape function, random and IEEE special values), plus integer and subnormal edge
values. Both libraries are called with the same keyword arguments; known differences live in
known_differences.py, each with its reason.
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))  # opmatrix and its case tables
sys.path.insert(0, HERE)

collect_ignore = []
try:
    import tensorflow  # noqa: F401
except ImportError:
    collect_ignore = ["test_differential.py", "test_signatures.py"]


def pytest_report_header(config):
    try:
        import tensorflow as tf
        return f"tf_compat: TensorFlow {tf.__version__}"
    except ImportError:
        return "tf_compat: tensorflow not installed, TensorFlow comparisons skipped"


@pytest.fixture(scope="session")
def tf():
    import tensorflow as tf
    return tf
