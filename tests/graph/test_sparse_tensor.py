"""SparseTensor and SparseTensorValue: eager values, graph tensors fetched and fed through
Session.run, and sparse_tensor_to_dense (the SparseToDense op) against NumPy and TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.ops.sparse_ops import sparse_tensor_to_dense

IAE = of.errors.InvalidArgumentError


def _random_sparse(rng, shape, density=0.3, dtype=np.float32):
    mask = rng.random(shape) < density
    indices = np.argwhere(mask).astype(np.int64)  # row-major: lexicographic order
    values = rng.normal(size=len(indices)).astype(dtype) if dtype is not object else \
        np.array([rng.bytes(int(rng.integers(0, 5))) for _ in indices], dtype=object)
    return indices, values


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8])
@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4), (0, 3)])
def test_to_dense_against_numpy(dtype, shape):
    rng = np.random.default_rng(len(shape))
    indices, values = _random_sparse(rng, shape)
    values = (values * 10).astype(dtype)
    sp = of.SparseTensor(indices, values, np.array(shape, np.int64))
    want = np.full(shape, 3, dtype)
    want[tuple(indices.T)] = values
    np.testing.assert_array_equal(sparse_tensor_to_dense(sp, default_value=dtype(3)).numpy(), want)
    want[~np.isin(np.arange(want.size).reshape(shape), np.ravel_multi_index(tuple(indices.T), shape))] = 0
    np.testing.assert_array_equal(of.sparse.to_dense(sp).numpy(), want)


def test_to_dense_of_strings_and_bools():
    rng = np.random.default_rng(1)
    indices, values = _random_sparse(rng, (3, 4), dtype=object)
    got = sparse_tensor_to_dense(of.SparseTensor(indices, of.constant(values, dtype=of.string), [3, 4]), b"-")
    want = np.full((3, 4), b"-", dtype=object)
    want[tuple(indices.T)] = values
    assert got.numpy().tolist() == want.tolist()
    assert sparse_tensor_to_dense(of.SparseTensorValue([[1]], of.constant([b"x"]), [2])).numpy().tolist() == [b"", b"x"]
    got = sparse_tensor_to_dense(of.SparseTensor([[0], [2]], np.array([True, True]), [3]))
    assert got.numpy().tolist() == [True, False, True]


def test_to_dense_errors_as_tensorflow():
    sp = lambda idx: of.SparseTensor(np.array(idx, np.int64), np.ones(len(idx), np.float32), [3, 3])  # noqa: E731
    with pytest.raises(IAE, match=r"SparseToDense: indices\[1\] = \[0,1\] is out of order"):
        sparse_tensor_to_dense(sp([[1, 0], [0, 1]]))
    with pytest.raises(IAE, match=r"SparseToDense: indices\[1\] = \[1,0\] is repeated"):
        sparse_tensor_to_dense(sp([[1, 0], [1, 0]]))
    with pytest.raises(IAE, match=r"indices\[0\] = \[3,0\] is out of bounds: need 0 <= index < \[3,3\]"):
        sparse_tensor_to_dense(sp([[3, 0]]), validate_indices=False)
    # without validation, order does not matter
    assert sparse_tensor_to_dense(sp([[1, 0], [0, 1]]), validate_indices=False).numpy()[0, 1] == 1
    raw = of.raw_ops.SparseToDense
    with pytest.raises(IAE, match="sparse_values has incorrect shape"):
        raw(sparse_indices=np.array([[0]], np.int64), output_shape=np.array([2], np.int64),
            sparse_values=np.ones(2, np.float32), default_value=np.float32(0))
    with pytest.raises(IAE, match="default_value should be a scalar"):
        raw(sparse_indices=np.array([[0]], np.int64), output_shape=np.array([2], np.int64),
            sparse_values=np.ones(1, np.float32), default_value=np.zeros(1, np.float32))
    with pytest.raises(IAE, match="output_shape has incorrect number of elements: 1 should be: 2"):
        raw(sparse_indices=np.array([[0, 0]], np.int64), output_shape=np.array([2], np.int64),
            sparse_values=np.ones(1, np.float32), default_value=np.float32(0))
    with pytest.raises(IAE, match="sparse_indices should be a scalar, vector, or matrix"):
        raw(sparse_indices=np.zeros((1, 1, 1), np.int64), output_shape=np.array([2], np.int64),
            sparse_values=np.ones(1, np.float32), default_value=np.float32(0))
    with pytest.raises(IAE, match="has too many elements"):
        raw(sparse_indices=np.zeros((0, 3), np.int64), output_shape=np.array([2**40, 2**40, 2**40], np.int64),
            sparse_values=np.ones(0, np.float32), default_value=np.float32(0))
    # scalar and vector indices, a scalar value for all, int32 indices
    got = raw(sparse_indices=np.array([0, 3], np.int32), output_shape=np.array([5], np.int32),
              sparse_values=np.float32(2), default_value=np.float32(-1))
    assert got.numpy().tolist() == [2, -1, -1, 2, -1]
    got = raw(sparse_indices=np.int64(1), output_shape=np.array([3], np.int64), sparse_values=np.int32(4),
              default_value=np.int32(0))
    assert got.numpy().tolist() == [0, 4, 0]


def test_to_dense_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(2)
    indices, values = _random_sparse(rng, (6, 5, 4))
    theirs = tf.sparse.to_dense(tf.SparseTensor(indices, values, [6, 5, 4]), default_value=0.5).numpy()
    ours = of.sparse.to_dense(of.SparseTensor(indices, values, [6, 5, 4]), default_value=np.float32(0.5)).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_sparse_tensor_properties_and_rank_checks():
    sp = of.SparseTensor([[0, 1], [2, 3]], np.array([1.0, 2.0], np.float32), [3, 4])
    assert sp.dtype == of.float32 and sp.shape.as_list() == [3, 4] and sp.get_shape().as_list() == [3, 4]
    assert sp.indices.dtype == of.int64 and sp.dense_shape.dtype == of.int64
    value = sp.numpy()
    assert isinstance(value, of.SparseTensorValue) and value.indices.tolist() == [[0, 1], [2, 3]]
    assert of.SparseTensor.from_value(value).values.numpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="indices must have rank 2"):
        of.SparseTensor([0, 1], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="values must have rank 1"):
        of.SparseTensor([[0]], [[1.0]], [3])
    with pytest.raises(TypeError, match="expected a int64 tensor"):
        of.SparseTensor(of.constant([[0]], dtype=of.int32), [1.0], [3])
    assert "SparseTensorValue(indices=" in repr(value) and "SparseTensor(indices=" in repr(sp)


def test_session_fetches_and_feeds_sparse_tensors():
    with of.Graph().as_default():
        sp = of.sparse_placeholder(of.float32, shape=[None, 4])
        dense = of.sparse.to_dense(sp)
        doubled = of.SparseTensor(sp.indices, sp.values * 2.0, sp.dense_shape)
        assert doubled.shape.as_list() == [None, None]
        const = of.SparseTensor([[0, 0]], np.array([5], np.int64), [1, 2])
        assert const.shape.as_list() == [1, 2]
        feed = of.SparseTensorValue(np.array([[0, 1], [1, 3]], np.int64), np.array([1.5, -2.0], np.float32),
                                    np.array([2, 4], np.int64))
        with of.Session() as sess:
            got_dense, got_sp, got_const = sess.run([dense, doubled, const], {sp: feed})
            assert got_dense.tolist() == [[0, 1.5, 0, 0], [0, 0, 0, -2.0]]
            assert isinstance(got_sp, of.SparseTensorValue)
            assert got_sp.values.tolist() == [3.0, -4.0] and got_sp.dense_shape.tolist() == [2, 4]
            assert got_const.values.tolist() == [5]
            # a tuple feeds as well, and eval() fetches
            assert doubled.eval({sp: (feed.indices, feed.values, feed.dense_shape)}, session=sess).values.tolist() \
                == [3.0, -4.0]
            assert sess.run({"sp": doubled}, {sp: feed})["sp"].indices.tolist() == [[0, 1], [1, 3]]


@pytest.mark.parametrize("dtype", [np.float32, np.int64, object])
def test_reorder_against_numpy(dtype):
    rng = np.random.default_rng(3)
    indices, values = _random_sparse(rng, (5, 4, 3), dtype=dtype)
    perm = rng.permutation(len(indices))
    shuffled = of.SparseTensor(indices[perm], of.constant(values[perm], dtype=of.string) if dtype is object
                               else values[perm], [5, 4, 3])
    with pytest.raises(IAE, match="out of order"):
        of.sparse.to_dense(shuffled, default_value=b"" if dtype is object else None)
    ordered = of.sparse.reorder(shuffled)
    np.testing.assert_array_equal(ordered.indices.numpy(), indices)
    assert ordered.values.numpy().tolist() == values.tolist()
    assert ordered.dense_shape.numpy().tolist() == [5, 4, 3]
    # ties keep their order; a value tuple reorders too
    ties = of.sparse.sparse_reorder(of.SparseTensorValue([[1, 0], [0, 2], [1, 0]], np.array([1, 2, 3], np.int32), [2, 3]))
    assert ties.indices.numpy().tolist() == [[0, 2], [1, 0], [1, 0]] and ties.values.numpy().tolist() == [2, 1, 3]


def test_reorder_errors_and_tensorflow():
    raw = of.raw_ops.SparseReorder
    with pytest.raises(IAE, match=r"Index rank \(1\) and shape rank \(2\) do not match"):
        raw(input_indices=np.zeros((1, 1), np.int64), input_values=np.ones(1, np.float32),
            input_shape=np.array([3, 4], np.int64))
    with pytest.raises(IAE, match="Input indices should be a matrix"):
        raw(input_indices=np.zeros(3, np.int64), input_values=np.ones(3, np.float32), input_shape=np.array([3], np.int64))
    with pytest.raises(IAE, match=r"Number of values \(2\) and indices \(1\) do not match"):
        raw(input_indices=np.zeros((1, 1), np.int64), input_values=np.ones(2, np.float32),
            input_shape=np.array([3], np.int64))
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    # distinct indices: TensorFlow's sort does not keep the order of ties
    indices = rng.permutation(np.unique(rng.integers(0, 4, size=(30, 3)), axis=0)).astype(np.int64)
    values = rng.normal(size=len(indices)).astype(np.float32)
    theirs = tf.sparse.reorder(tf.SparseTensor(indices, values, [4, 4, 4]))
    ours = of.sparse.reorder(of.SparseTensor(indices, values, [4, 4, 4]))
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
