"""opforge.util.compat (tf.compat): bytes/text helpers, type tuples, paths, the forward-compatibility
window, and tf.compat.v1 inside compat.v1, checked against TensorFlow's own where it is installed."""
import pathlib

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.util import compat


def test_bytes_and_text():
    assert compat.as_bytes("é") == "é".encode()
    assert compat.as_bytes(bytearray(b"ab")) == b"ab"
    assert compat.as_text(b"\xc3\xa9") == "é"
    assert compat.as_str(b"x", encoding="ascii") == "x"
    assert compat.as_str_any(b"x") == "x" and compat.as_str_any(3) == "3"
    with pytest.raises(TypeError, match="Expected binary or unicode string"):
        compat.as_bytes(3)
    with pytest.raises(TypeError, match="Expected binary or unicode string"):
        compat.as_text(None)


def test_type_tuples_and_paths():
    assert isinstance(np.int64(1), compat.integral_types) and not isinstance(1.5, compat.integral_types)
    assert isinstance(np.float32(1), compat.real_types) and isinstance(1j, compat.complex_types)
    assert compat.path_to_str(pathlib.Path("a/b")) == "a/b" and compat.path_to_str(3) == 3


def test_forward_compatibility_horizon():
    assert compat.forward_compatible(2019, 1, 1)
    with compat.forward_compatibility_horizon(2019, 1, 2):
        assert compat.forward_compatible(2019, 1, 1) and not compat.forward_compatible(2019, 1, 2)
    assert compat.forward_compatible(2019, 1, 2)


def test_tf_compat_namespace_in_compat_v1():
    """Transitional TF1 code spells tf.compat.v1.Session (word2vec_basic); tf.compat.v1 is compat.v1."""
    assert tf1.compat.v1 is tf1
    x = tf1.placeholder(tf1.float32, [None, 3])
    assert tf1.compat.dimension_value(x.shape[1]) == 3 and tf1.compat.dimension_value(x.shape[0]) is None
    assert tf1.compat.dimension_at_index(x.shape, 1) == 3


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    names = {n for n in dir(tf.compat) if not n.startswith("_")} - {"v2"}
    assert names <= set(dir(tf1.compat)), names - set(dir(tf1.compat))
    for value in ("abc", b"abc", "é"):
        assert compat.as_bytes(value) == tf.compat.as_bytes(value)
        assert compat.as_text(value) == tf.compat.as_text(value)
    assert compat.as_str_any(b"q") == tf.compat.as_str_any(b"q")
