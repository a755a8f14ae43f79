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


@pytest.mark.parametrize("repeats, axis", [([1, 0, 2], 0), (2, -1), (3, None), ([2, 1, 0, 3], 1)])
def test_repeat_matches_numpy_in_a_graph(repeats, axis):
    value = np.random.default_rng(7).standard_normal((3, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.repeat(x, repeats, axis=axis)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: value}), np.repeat(value, repeats, axis=axis))


def test_repeat_gradient_sums_the_copies():
    value = np.random.default_rng(8).standard_normal((3, 2))
    weights = np.random.default_rng(9).standard_normal((6, 2))
    x = of.constant(value)
    with of.GradientTape() as tape:
        tape.watch(x)
        loss = of.reduce_sum(of.repeat(x, [1, 3, 2], axis=0) * weights)
    expected = np.add.reduceat(weights, [0, 1, 4], axis=0)  # d loss / d x[i] = sum of its copies' weights
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), expected, rtol=1e-12)


def test_repeat_rejects_bad_counts_with_typed_errors():
    x = np.zeros((3, 2), np.float32)
    with pytest.raises(of.errors.InvalidArgumentError, match="BroadcastTo"):
        of.repeat(x, [1, 2], axis=0)
    with pytest.raises(of.errors.InvalidArgumentError, match="repeat: repeats must be integers"):
        of.repeat(x, 1.5, axis=0)
    with pytest.raises(of.errors.InvalidArgumentError, match="repeat: repeats must be a scalar or a vector"):
        of.repeat(x, [[1]], axis=0)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
def test_bitwise_namespace_matches_numpy_in_a_graph(dtype):
    rng = np.random.default_rng(11)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, (4,), dtype=dtype, endpoint=True)
    bits = 8 * np.dtype(dtype).itemsize
    shift = rng.integers(0, bits, (4,)).astype(dtype)
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")
    with tf.Graph().as_default():
        px = tf.placeholder(tf.as_dtype(dtype), [None, 4])
        fetches = [tf.bitwise.bitwise_and(px, y), tf.bitwise.bitwise_or(px, y), tf.bitwise.bitwise_xor(px, y),
                   tf.bitwise.invert(px), tf.bitwise.left_shift(px, shift), tf.bitwise.right_shift(px, shift)]
        with tf.Session() as sess:
            got = sess.run(fetches, {px: x})
    expected = [x & y, x | y, x ^ y, ~x, (x.astype(unsigned) << shift.astype(unsigned)).astype(dtype), x >> shift]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_shifts_clamp_out_of_range_amounts_as_tensorflow():
    x = np.array([-5, 3, 127, -128], np.int8)
    y = np.array([1, 9, -1, 7], np.int8)  # TensorFlow's answers, from tf.bitwise on these values
    np.testing.assert_array_equal(of.ops.left_shift(x, y).numpy(), [-10, -128, 127, 0])
    np.testing.assert_array_equal(of.ops.right_shift(x, y).numpy(), [-3, 0, 127, -1])
    np.testing.assert_array_equal(of.ops.population_count(x).numpy(), [7, 2, 7, 1])


def test_bitwise_ops_reject_floats_with_typed_errors():
    with pytest.raises(of.errors.InvalidArgumentError, match="BitwiseAnd"):
        of.ops.bitwise_and(np.float32([1.0]), np.float32([2.0]))
    with pytest.raises(of.errors.InvalidArgumentError, match="PopulationCount"):
        of.ops.population_count(np.float64([1.0]))
