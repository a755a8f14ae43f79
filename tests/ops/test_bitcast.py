"""Bitcast (tf.bitcast): NumPy's views on random data, TensorFlow's answers where installed,
static shapes (widening adds a dim, narrowing removes one), and each diagnostic."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops


@pytest.mark.parametrize("src,dst", [(np.float32, np.uint8), (np.uint8, np.float64), (np.int32, np.float32),
                                     (np.int64, np.int16), (np.float16, np.int8)])
def test_matches_numpy_views(src, dst):
    rng = np.random.default_rng(0)
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    x = rng.integers(0, 100, (3, max(1, b // a) if a < b else 2)).astype(src)
    got = ops.bitcast(x, type=tf.as_dtype(dst)).numpy()
    want_shape = x.shape + (a // b,) if a > b else x.shape[:-1] if a < b else x.shape
    assert got.shape == want_shape and got.dtype == dst
    np.testing.assert_array_equal(got.reshape(-1), x.reshape(-1).view(dst))


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(ops.bitcast(x, type=tf.uint8).numpy(), tfx.bitcast(x, tfx.uint8).numpy())
    b = tfx.bitcast(x, tfx.int16).numpy()
    np.testing.assert_array_equal(ops.bitcast(b, type=tf.float32).numpy(), x)


def test_static_shapes(graph):
    assert tf.bitcast(tf.placeholder(tf.float64, [None, 3]), tf.int16).shape.as_list() == [None, 3, 4]
    assert tf.bitcast(tf.placeholder(tf.uint8, [2, None]), tf.float32).shape.as_list() == [2]
    assert tf.bitcast(tf.placeholder(tf.int32), tf.float32).shape.rank is None
    with pytest.raises(of.InvalidArgumentError, match="Bitcast: cannot bitcast a tensor of shape \\[2,3\\] from "
                                                      "1-byte to 2-byte elements: the last dimension must be 2"):
        tf.bitcast(tf.placeholder(tf.uint8, [2, 3]), tf.int16)


def test_diagnostics():
    with pytest.raises(of.InvalidArgumentError, match="Bitcast: cannot bitcast a tensor of shape \\[\\]"):
        ops.bitcast(np.uint8(1), type=tf.float32)
    with pytest.raises(of.InvalidArgumentError, match="Bitcast.*bool"):
        ops.bitcast(np.array([True]), type=tf.uint8)
