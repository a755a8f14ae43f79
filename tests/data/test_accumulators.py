"""tf.ConditionalAccumulator and tf.SparseConditionalAccumulator (data/accumulators.py): mean and
sum of the gradients applied, stale gradients dropped, the global step, blocking take_grad,
against NumPy and, when installed, against TensorFlow; and the diagnostics."""

import threading

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _dense_program(m, grads, steps, reduction, take_after=None):
    """Applies grads (with local steps) to a ConditionalAccumulator of module m, takes the
    result; returns (num_accumulated before take, taken value, num_accumulated after)."""
    g = m.Graph()
    with g.as_default():
        acc = m.ConditionalAccumulator(m.float32, shape=grads[0].shape, reduction_type=reduction)
        x = m.placeholder(m.float32, grads[0].shape)
        step = m.placeholder(m.int64, [])
        apply = acc.apply_grad(x, local_step=step)
        take = acc.take_grad(take_after or 1)
        count = acc.num_accumulated()
        set_step = acc.set_global_step(5)
        with m.Session(graph=g) as sess:
            for v, s in zip(grads, steps):
                sess.run(apply, {x: v, step: s})
            before = sess.run(count)
            taken = sess.run(take)
            after = sess.run(count)
            sess.run(set_step)
            sess.run(apply, {x: grads[0], step: 4})  # stale now: dropped
            stale = sess.run(count)
            return before, taken, after, stale


def test_dense_mean_sum_and_stale_gradients(rng):
    grads = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    before, taken, after, stale = _dense_program(tf, grads, [0, 0, 0], "MEAN")
    assert (before, after, stale) == (3, 0, 0)
    np.testing.assert_allclose(taken, np.mean(grads, axis=0), rtol=1e-6)
    # after one take the global step is 1: a gradient of local step 0 is stale
    _, taken, _, _ = _dense_program(tf, grads, [0, 0, 0], "SUM")
    np.testing.assert_allclose(taken, np.sum(grads, axis=0), rtol=1e-6)


def test_dense_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow").compat.v1
    grads = [rng.standard_normal((3,)).astype(np.float32) for _ in range(4)]
    for reduction in ("MEAN", "SUM"):
        got = _dense_program(tf, grads, [0, 1, 0, 2], reduction)
        want = _dense_program(real, grads, [0, 1, 0, 2], reduction)
        assert got[0] == want[0] and got[2:] == want[2:]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def _sparse_program(m, applies, reduction):
    g = m.Graph()
    with g.as_default():
        acc = m.SparseConditionalAccumulator(m.float32, shape=[5, 2], reduction_type=reduction)
        idx = m.placeholder(m.int64, [None])
        vals = m.placeholder(m.float32, [None, 2])
        apply = acc.apply_grad(idx, vals, grad_shape=[5, 2])
        take = acc.take_grad(len(applies))
        with m.Session(graph=g) as sess:
            for i, v in applies:
                sess.run(apply, {idx: i, vals: v})
            return sess.run(take)


def test_sparse_mean_per_row_and_sum(rng):
    applies = [(np.array([0, 3]), rng.standard_normal((2, 2)).astype(np.float32)),
               (np.array([1, 3]), rng.standard_normal((2, 2)).astype(np.float32))]
    dense = np.zeros((5, 2), np.float32)
    counts = np.zeros(5)
    for i, v in applies:
        dense[i] += v
        counts[i] += 1
    for reduction in ("MEAN", "SUM"):
        indices, values, shape = _sparse_program(tf, applies, reduction)
        assert indices.tolist() == [0, 1, 3] and shape.tolist() == [5, 2]
        want = dense[[0, 1, 3]] / (counts[[0, 1, 3], None] if reduction == "MEAN" else 1)
        np.testing.assert_allclose(values, want, rtol=1e-6)


def test_sparse_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow").compat.v1
    applies = [(np.array([0, 2, 4]), rng.standard_normal((3, 2)).astype(np.float32)),
               (np.array([2, 3]), rng.standard_normal((2, 2)).astype(np.float32))]
    for reduction in ("MEAN", "SUM"):
        for a, b in zip(_sparse_program(tf, applies, reduction), _sparse_program(real, applies, reduction)):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_take_grad_blocks_until_enough_gradients(graph):
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    apply = acc.apply_grad(tf.constant([2., 4.]))
    take = acc.take_grad(2)
    with tf.Session() as sess:
        out = {}
        t = threading.Thread(target=lambda: out.setdefault("v", sess.run(take)))
        t.start()
        sess.run(apply)
        t.join(0.1)
        assert t.is_alive() and "v" not in out  # one gradient of the two it needs
        sess.run(apply)
        t.join(10)
        np.testing.assert_allclose(out["v"], [2., 4.])


def test_diagnostics(graph):
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    with pytest.raises(ValueError, match="Shape mismatch"):
        acc.apply_grad(tf.constant([1., 2., 3.]))
    with pytest.raises(ValueError, match="reduction_type"):
        tf.ConditionalAccumulator(tf.float32, reduction_type="MAX")
    x = tf.placeholder(tf.float32, None)
    apply = acc.apply_grad(x)
    bad = acc.take_grad(0)
    sparse = tf.sparse.SparseConditionalAccumulator(tf.float32, shape=[3, 2])
    out_of_range = sparse.apply_grad([4], [[1., 2.]], grad_shape=[3, 2])
    assert tf.SparseConditionalAccumulator is sparse.__class__
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(apply, {x: np.ones(3, np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_required must be positive"):
            sess.run(bad)
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            sess.run(out_of_range)
