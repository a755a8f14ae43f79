"""ListDiff (tf.setdiff1d), LowerBound/UpperBound (tf.searchsorted) and UnravelIndex: NumPy on
random data, TensorFlow's answers where installed, static shapes, and each diagnostic."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops
from opforge.ops.search_ops import searchsorted, setdiff1d, unravel_index


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16])
def test_searchsorted_matches_numpy(dtype):
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(0, 20, (2, 3, 9)), axis=-1).astype(dtype)
    vals = rng.integers(-2, 22, (2, 3, 5)).astype(dtype)
    for side in ("left", "right"):
        got = searchsorted(seq, vals, side=side).numpy()
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq.reshape(6, 9), vals.reshape(6, 5))])
        np.testing.assert_array_equal(got, want.reshape(2, 3, 5))
        assert got.dtype == np.int32
    assert searchsorted(seq[0, 0], vals[0, 0], out_type=tf.int64).numpy().dtype == np.int64


def test_setdiff1d_matches_numpy():
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 10, 20), rng.integers(0, 10, 6)
    out, idx = setdiff1d(x, y)
    keep = ~np.isin(x, y)
    np.testing.assert_array_equal(out.numpy(), x[keep])
    np.testing.assert_array_equal(idx.numpy(), np.flatnonzero(keep))
    assert idx.numpy().dtype == np.int32
    out, idx = setdiff1d(np.array([b"a", b"b", b"c", b"a"]), np.array([b"b"]), index_dtype=tf.int64)
    assert out.numpy().tolist() == [b"a", b"c", b"a"] and idx.numpy().tolist() == [0, 2, 3]


def test_unravel_index_matches_numpy():
    rng = np.random.default_rng(2)
    dims = np.array([3, 4, 5], np.int64)
    flat = rng.integers(0, 60, 7)
    np.testing.assert_array_equal(unravel_index(flat, dims).numpy(), np.array(np.unravel_index(flat, (3, 4, 5))))
    np.testing.assert_array_equal(unravel_index(np.int32(59), dims.astype(np.int32)).numpy(), [2, 3, 4])
    grid = flat[:6].reshape(2, 3)  # indices of any shape are flattened, as TensorFlow does
    np.testing.assert_array_equal(unravel_index(grid, dims).numpy(), np.array(np.unravel_index(flat[:6], (3, 4, 5))))


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    seq = np.sort(rng.standard_normal((3, 8)).astype(np.float32), axis=-1)
    vals = rng.standard_normal((3, 4)).astype(np.float32)
    for side in ("left", "right"):
        np.testing.assert_array_equal(searchsorted(seq, vals, side=side).numpy(),
                                      tfx.searchsorted(seq, vals, side=side).numpy())
    x, y = rng.integers(0, 6, 12).astype(np.int32), np.array([1, 4], np.int32)
    for got, want in zip(setdiff1d(x, y), tfx.raw_ops.ListDiff(x=x, y=y)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(unravel_index(np.array([5, 11], np.int32), np.array([3, 4], np.int32)).numpy(),
                                  tfx.unravel_index([5, 11], [3, 4]).numpy())


def test_static_shapes(graph):
    out, idx = tf.setdiff1d(tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [3]))
    assert out.shape.as_list() == [None] and idx.shape.as_list() == [None]
    vals = tf.placeholder(tf.float32, [4, None])
    assert ops.lower_bound(tf.placeholder(tf.float32, [4, 9]), vals).shape.as_list() == [4, None]
    assert tf.unravel_index(tf.placeholder(tf.int32, [7]), np.array([2, 3], np.int32)).shape.as_list() == [2, 7]
    assert tf.unravel_index(tf.placeholder(tf.int64, []), tf.placeholder(tf.int64, [None])).shape.as_list() == [None]
    with pytest.raises(of.InvalidArgumentError, match="ListDiff: x must be a vector"):
        tf.setdiff1d(tf.placeholder(tf.int32, [2, 2]), np.int32([1]))
    with pytest.raises(of.InvalidArgumentError, match="UpperBound: values must be at least 1-D"):
        ops.upper_bound(tf.placeholder(tf.float32, [1, 3]), tf.placeholder(tf.float32, []))
    assert tf.unravel_index(tf.placeholder(tf.int32, [2, 3]), np.int32([4, 4])).shape.as_list() == [2, 6]
    with pytest.raises(of.InvalidArgumentError, match="UnravelIndex: dims must be a vector"):
        tf.unravel_index(tf.placeholder(tf.int32, [2]), np.int32(4))


def test_diagnostics():
    with pytest.raises(of.InvalidArgumentError, match="LowerBound: the leading dims of sorted_inputs and values"):
        ops.lower_bound(np.zeros((2, 3), np.float32), np.zeros((3, 1), np.float32))
    with pytest.raises(of.InvalidArgumentError, match="UpperBound: sorted_inputs and values must be matrices"):
        ops.upper_bound(np.zeros((1, 2, 3), np.float32), np.zeros((1, 1), np.float32))
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        searchsorted(np.zeros(3), np.zeros(2), side="middle")
    with pytest.raises(of.InvalidArgumentError, match=r"UnravelIndex: index 12 \(position 1\) is out of bounds"):
        unravel_index(np.array([0, 12], np.int32), np.array([3, 4], np.int32))
    with pytest.raises(of.InvalidArgumentError, match=r"UnravelIndex: index -1 \(position 0\)"):
        unravel_index(np.array([-1], np.int32), np.array([3, 4], np.int32))
    with pytest.raises(of.InvalidArgumentError, match=r"UnravelIndex: dims\[1\] = 0 must be positive"):
        unravel_index(np.int32(0), np.array([3, 0], np.int32))
    with pytest.raises(of.InvalidArgumentError, match="ListDiff: y must be a vector"):
        setdiff1d(np.array([1, 2]), np.array([[1]]))
