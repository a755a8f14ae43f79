"""tf.guarantee_const and tf.timestamp (GuaranteeConst, Timestamp) under opforge.compat.v1."""

import time

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_guarantee_const_passes_values_through_in_a_graph(dtype):
    rng = np.random.default_rng(32)
    value = (rng.standard_normal((4, 3)) * 10).astype(dtype)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.as_dtype(dtype), [None, 3])
        y = tf.guarantee_const(x, name="kept")
        assert y.shape.as_list() == [None, 3]
        assert y.op.type == "GuaranteeConst"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: value}), value)


def test_guarantee_const_eager_and_not_differentiable():
    x = of.constant(np.arange(6.0).reshape(2, 3))
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.ops.guarantee_const(x)
    np.testing.assert_array_equal(y.numpy(), np.arange(6.0).reshape(2, 3))
    assert tape.gradient(y, x) is None


def test_guarantee_const_rejects_a_bad_dtype_with_a_typed_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.variant, [])
        with pytest.raises(of.errors.InvalidArgumentError, match="GuaranteeConst: dtype variant is not supported"):
            tf.guarantee_const(x)


def test_timestamp_reads_the_clock_on_every_run():
    with tf.Graph().as_default():
        t = tf.timestamp()
        assert t.dtype == tf.float64 and t.shape.as_list() == []
        with tf.Session() as sess:
            before = time.time()
            first = sess.run(t)
            second = sess.run(t)
            after = time.time()
    assert before - 1e-3 <= first <= second <= after + 1e-3
    assert isinstance(first, (float, np.floating))
