"""TensorScatterUpdate/Add/Sub/Min/Max (tf.tensor_scatter_nd_*): NumPy on random data,
TensorFlow's answers where installed, float64 gradients by central differences, partial static
shapes, and each diagnostic."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from numeric_check import numeric_grad  # tests/numeric_check.py
from opforge import ops

NP = {"update": None, "add": np.add.at, "sub": np.subtract.at, "min": np.minimum.at, "max": np.maximum.at}
WRAP = {"update": ops.tensor_scatter_update, "add": ops.tensor_scatter_add, "sub": ops.tensor_scatter_sub,
        "min": ops.tensor_scatter_min, "max": ops.tensor_scatter_max}


def _reference(kind, tensor, indices, updates):
    out = tensor.copy()
    where = tuple(np.moveaxis(indices, -1, 0))
    if kind == "update":
        out[where] = updates
    else:
        NP[kind](out, where, updates)
    return out


def _case(rng, dtype, k, unique):
    tensor = (rng.standard_normal((5, 4, 3)) * 10).astype(dtype)
    n = 4 if unique else 6
    if unique:  # Update: the order of duplicates is TensorFlow's to choose; keep them apart
        flat = rng.choice(int(np.prod(tensor.shape[:k])), n, replace=False)
        indices = np.stack(np.unravel_index(flat, tensor.shape[:k]), axis=-1)
    else:
        indices = np.stack([rng.integers(0, tensor.shape[d], n) for d in range(k)], axis=-1)
    updates = (rng.standard_normal((n,) + tensor.shape[k:]) * 10).astype(dtype)
    return tensor, indices.astype(np.int32), updates


@pytest.mark.parametrize("kind", sorted(NP))
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_matches_numpy(kind, dtype):
    rng = np.random.default_rng(len(kind))
    for k in (1, 2, 3):
        tensor, indices, updates = _case(rng, dtype, k, unique=kind == "update")
        got = WRAP[kind](tensor, indices, updates).numpy()
        np.testing.assert_array_equal(got, _reference(kind, tensor, indices, updates))
        assert got.dtype == dtype


def test_compat_names_and_int64_indices(graph):
    t = np.zeros((3, 2), np.float64)
    added = tf.tensor_scatter_nd_add(t, np.array([[2], [2]], np.int64), np.ones((2, 2)))
    updated = tf.tensor_scatter_update(np.array([True, False]), np.array([[1]], np.int16), np.array([True]))
    with tf.Session(graph=graph) as sess:
        got_added, got_updated = sess.run([added, updated])
    np.testing.assert_array_equal(got_added, [[0, 0], [0, 0], [2, 2]])
    np.testing.assert_array_equal(got_updated, [True, True])


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(7)
    for kind in sorted(NP):
        tensor, indices, updates = _case(rng, np.float32, 2, unique=True)
        want = getattr(tfx, f"tensor_scatter_nd_{kind}")(tensor, indices, updates).numpy()
        np.testing.assert_array_equal(WRAP[kind](tensor, indices, updates).numpy(), want)


@pytest.mark.parametrize("kind", sorted(NP))
def test_gradients_float64(kind):
    rng = np.random.default_rng(3)
    tensor = rng.standard_normal((4, 3))
    indices = np.array([[0], [2], [0]] if kind != "update" else [[0], [2]], np.int32)
    updates = rng.standard_normal((len(indices), 3))
    if kind in ("min", "max"):  # a tie on each side, shared equally
        updates[0, 0] = tensor[0, 0]
        updates[-1, 1] = updates[0, 1]
    w = rng.standard_normal((4, 3))
    t, u = of.constant(tensor), of.constant(updates)
    with of.GradientTape() as tape:
        tape.watch(t)
        tape.watch(u)
        y = ops.mul(WRAP[kind](t, indices, u), of.constant(w))
    gt, gu = tape.gradient(y, [t, u])
    f = lambda a, b: float(np.sum(WRAP[kind](a, indices, b).numpy() * w))  # noqa: E731
    if kind in ("min", "max"):  # at a tie the one-sided slopes differ: compare with their mean
        np.testing.assert_allclose(gt.numpy(), numeric_grad(lambda a: f(a, updates), tensor), atol=1e-6)
        np.testing.assert_allclose(gu.numpy(), numeric_grad(lambda b: f(tensor, b), updates), atol=1e-6)
    else:
        np.testing.assert_allclose(gt.numpy(), numeric_grad(lambda a: f(a, updates), tensor), atol=1e-7)
        np.testing.assert_allclose(gu.numpy(), numeric_grad(lambda b: f(tensor, b), updates), atol=1e-7)


def test_static_shapes(graph):
    t = tf.placeholder(tf.float32, [None, 4, 3])
    out = tf.tensor_scatter_nd_max(t, tf.placeholder(tf.int32, [None, 2]), tf.placeholder(tf.float32, [None, 3]))
    assert out.shape.as_list() == [None, 4, 3]
    out = tf.tensor_scatter_nd_add(tf.placeholder(tf.float32), tf.placeholder(tf.int32, [2, 1]),
                                   tf.placeholder(tf.float32, [2, 3]))
    assert out.shape.rank is None
    with pytest.raises(of.InvalidArgumentError, match=r"TensorScatterSub: updates must have shape"):
        tf.tensor_scatter_nd_sub(t, tf.placeholder(tf.int32, [5, 1]), tf.placeholder(tf.float32, [4, 4, 3]))


def test_bad_index_is_refused_and_ignore_drops_it():
    t = np.arange(6, dtype=np.float32).reshape(3, 2)
    with pytest.raises(of.InvalidArgumentError, match=r"TensorScatterUpdate: indices\[1\] = \[3 at position 0\]"):
        ops.tensor_scatter_update(t, np.array([[0], [3]], np.int32), np.ones((2, 2), np.float32))
    with pytest.raises(of.InvalidArgumentError, match=r"TensorScatterMin: indices\[0\] = \[-1 at position 1\]"):
        ops.tensor_scatter_min(t, np.array([[0, -1]], np.int32), np.ones(1, np.float32))
    got = ops.tensor_scatter_add(t, np.array([[0], [3]], np.int32), np.ones((2, 2), np.float32),
                                 bad_indices_policy="IGNORE")
    np.testing.assert_array_equal(got.numpy(), t + [[1, 1], [0, 0], [0, 0]])


def test_diagnostics():
    t = np.zeros((3, 2), np.float32)
    with pytest.raises(of.InvalidArgumentError, match="TensorScatterAdd: unknown bad_indices_policy 'SKIP'"):
        ops.tensor_scatter_add(t, np.array([[0]], np.int32), np.ones((1, 2), np.float32), bad_indices_policy="SKIP")
    with pytest.raises(of.InvalidArgumentError, match=r"TensorScatterMax: the last dimension of indices \(3\) exceeds"):
        ops.tensor_scatter_max(t, np.zeros((1, 3), np.int32), np.ones(1, np.float32))
    with pytest.raises(of.InvalidArgumentError, match="TensorScatterUpdate: updates must have shape"):
        ops.tensor_scatter_update(t, np.array([[0]], np.int32), np.ones((1, 3), np.float32))
    with pytest.raises(of.InvalidArgumentError, match="TensorScatterSub: indices must be at least 1-D"):
        ops.tensor_scatter_sub(t, np.int32(0), np.ones(2, np.float32))
    with pytest.raises(of.InvalidArgumentError, match="TensorScatterAdd.*bool"):
        ops.tensor_scatter_add(np.array([True]), np.array([[0]], np.int32), np.array([True]))
