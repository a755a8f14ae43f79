"""tf.sets over SetSize and the Dense/Sparse SetOperation ops: every combination of dense and
sparse inputs against Python's sets, TensorFlow's answers when installed, and the diagnostics."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework.sparse_tensor import SparseTensorValue
from opforge.ops import set_ops


def _sparse(dense, rng):
    keep = rng.random(dense.shape) < 0.7
    return SparseTensorValue(np.argwhere(keep).astype(np.int64), dense[keep], np.array(dense.shape, np.int64))


def _groups(x):
    """{leading index: set} of a dense array or a SparseTensorValue."""
    if isinstance(x, SparseTensorValue):
        out: dict = {}
        for i, v in zip(x.indices.tolist(), x.values.tolist()):
            out.setdefault(tuple(i[:-1]), set()).add(v)
        return out
    return {k: set(x[k].tolist()) for k in np.ndindex(x.shape[:-1])}


def _expected(a, b, op, lead):
    ga, gb = _groups(a), _groups(b)
    rows = {}
    for k in np.ndindex(lead):
        sa, sb = ga.get(k, set()), gb.get(k, set())
        r = {"a-b": sa - sb, "b-a": sb - sa, "intersection": sa & sb, "union": sa | sb}[op]
        if r:
            rows[k] = sorted(r)
    indices = [list(k) + [j] for k, r in rows.items() for j in range(len(r))]
    values = [v for r in rows.values() for v in r]
    return indices, values, list(lead) + [max((len(r) for r in rows.values()), default=0)]


def _check(got, want):
    indices, values, shape = want
    assert np.asarray(got.indices).reshape(-1, len(shape)).tolist() == indices
    assert np.asarray(got.values).tolist() == values
    assert np.asarray(got.dense_shape).tolist() == shape


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, object])
def test_operations_against_python_sets(rng, dtype):
    shape = (2, 3, 5)
    a, b = (rng.integers(0, 6, shape) for _ in range(2))
    if dtype is object:
        a, b = (np.vectorize(lambda v: b"w%d" % v, otypes=[object])(x) for x in (a, b))
    else:
        a, b = a.astype(dtype), b.astype(dtype)
    for x in (a, _sparse(a, rng)):
        for y in (b, _sparse(b, rng)):
            _check(set_ops.set_intersection(x, y), _expected(x, y, "intersection", shape[:-1]))
            _check(set_ops.set_union(x, y), _expected(x, y, "union", shape[:-1]))
            _check(set_ops.set_difference(x, y), _expected(x, y, "a-b", shape[:-1]))
            _check(set_ops.set_difference(x, y, aminusb=False), _expected(x, y, "b-a", shape[:-1]))
    s = _sparse(a, rng)
    sizes = np.asarray(set_ops.set_size(s))
    assert sizes.dtype == np.int32 and sizes.tolist() == [[len(_groups(s).get((i, j), ())) for j in range(3)]
                                                         for i in range(2)]


def test_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow")
    a, b = (rng.integers(0, 5, (3, 6)).astype(np.int64) for _ in range(2))
    sa = _sparse(a, rng)
    real_sa = real.SparseTensor(*sa)
    for name in ("set_intersection", "set_union", "set_difference"):
        for x, rx in ((a, a), (sa, real_sa)):
            got, want = getattr(set_ops, name)(x, b), getattr(real.compat.v1.sets, name)(rx, b)
            for g, w in zip((got.indices, got.values, got.dense_shape), (want.indices, want.values, want.dense_shape)):
                np.testing.assert_array_equal(np.asarray(g), w.numpy())
    np.testing.assert_array_equal(np.asarray(set_ops.set_size(sa)), real.sets.size(real_sa).numpy())


def test_compat_namespace_and_static_shapes(graph):
    assert tf.sets.intersection.__wrapped__ is set_ops.set_intersection is tf.sets.set_intersection.__wrapped__
    r = tf.sets.union(tf.placeholder(tf.int32, [None, 4]), tf.placeholder(tf.int32, [2, None]))
    assert r.indices.shape.as_list() == [None, 2] and r.dense_shape.shape.as_list() == [2]
    with pytest.raises(of.InvalidArgumentError, match="rank >= 2"):
        tf.sets.union(tf.placeholder(tf.int32, [4]), tf.placeholder(tf.int32, [4]))


def test_diagnostics():
    a = np.array([[1, 2], [3, 4]], np.int32)
    with pytest.raises(TypeError, match="Types don't match"):
        set_ops.set_union(a, a.astype(np.int64))
    with pytest.raises(TypeError, match="invalid dtype"):
        set_ops.set_union(a.astype(np.float32), a.astype(np.float32))
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        set_ops.set_size(a)
    with pytest.raises(of.InvalidArgumentError, match="DenseToDenseSetOperation.*leading dimensions"):
        set_ops.set_union(a, np.ones((3, 2), np.int32))
    with pytest.raises(of.InvalidArgumentError, match="DenseToDenseSetOperation.*Invalid set_operation"):
        of.ops.dense_to_dense_set_operation(a, a, set_operation="xor")
    unordered = SparseTensorValue(np.array([[1, 0], [0, 0]]), np.array([1, 2], np.int32), np.array([2, 2]))
    with pytest.raises(of.InvalidArgumentError, match="SetSize.*out of order"):
        set_ops.set_size(unordered)
    set_ops.set_size(unordered, validate_indices=False)
    outside = SparseTensorValue(np.array([[0, 5]]), np.array([1], np.int32), np.array([2, 2]))
    with pytest.raises(of.InvalidArgumentError, match="DenseToSparseSetOperation.*out of bounds"):
        set_ops.set_union(a, outside)
