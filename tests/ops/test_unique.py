"""Unique and UniqueWithCounts (tf.unique, tf.unique_with_counts) against NumPy: first-occurrence
order, numbers and strings, eagerly and in graphs."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.ops.array_ops import unique, unique_with_counts

RNG = np.random.default_rng(77)


def _reference(x):
    order, first = [], {}
    for v in x.tolist():
        if v not in first:
            first[v] = len(order)
            order.append(v)
    idx = np.array([first[v] for v in x.tolist()])
    counts = np.bincount(idx, minlength=len(order))
    return np.array(order, dtype=x.dtype), idx, counts


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.uint8])
@pytest.mark.parametrize("out_idx", [of.int32, of.int64])
def test_numbers(dtype, out_idx):
    x = RNG.integers(0, 6, 40).astype(dtype)
    y, idx, count = unique_with_counts(x, out_idx=out_idx)
    want_y, want_idx, want_count = _reference(x)
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_array_equal(count.numpy(), want_count)
    assert idx.dtype == out_idx and count.dtype == out_idx
    np.testing.assert_array_equal(y.numpy()[idx.numpy()], x)  # x[i] == y[idx[i]]


def test_strings_and_graph_shapes():
    words = np.array([b"the", b"cat", b"the", b"", b"cat", b"mat"], dtype=object)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        u = tf.unique(x)
        assert u.y.shape.as_list() == [None] and u.idx.shape.as_list() == [None]
        assert tf.unique_with_counts(tf.placeholder(tf.int32, [7])).idx.shape.as_list() == [7]
        with tf.Session() as sess:
            y, idx = sess.run(u, {x: words})
    np.testing.assert_array_equal(y, np.array([b"the", b"cat", b"", b"mat"], dtype=object))
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 1, 3])


def test_nan_is_its_own_value_and_empty_input():
    y, idx = unique(np.array([np.nan, 1.0, np.nan, 1.0]))
    assert y.numpy().shape == (3,) and np.isnan(y.numpy()[[0, 2]]).all()
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 2, 1])
    y, idx = unique(np.zeros(0, np.int32))
    assert y.numpy().shape == (0,) and idx.numpy().shape == (0,)


def test_bad_input_names_the_op():
    with pytest.raises(of.errors.InvalidArgumentError, match="Unique: .*vector"):
        unique(np.zeros((2, 2), np.int32))


def test_same_as_tensorflow():
    tfm = pytest.importorskip("tensorflow")
    x = RNG.integers(-3, 3, 30).astype(np.int64)
    ours, theirs = unique_with_counts(x), tfm.unique_with_counts(x)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
