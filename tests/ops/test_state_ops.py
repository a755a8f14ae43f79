"""The Scatter* variable updates (opforge/ops/state_ops.py, kernels/cpu/state/scatter_ops.cc)
against NumPy, in Session graphs as TF1 programs use them; errors leave the variable as it was."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf

RNG = np.random.default_rng(41)

ROW_OPS = {
    "scatter_update": lambda a, b: b, "scatter_add": np.add, "scatter_sub": np.subtract,
    "scatter_mul": np.multiply, "scatter_div": np.divide, "scatter_min": np.minimum, "scatter_max": np.maximum,
}


def _run(build, init):
    with tf.Graph().as_default():
        v = tf.Variable(init)
        op = build(v)
        with tf.Session() as sess:
            sess.run(v.initializer)
            out = sess.run(op)
            return out, sess.run(v)


@pytest.mark.parametrize("name", sorted(ROW_OPS))
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_row_scatter_matches_numpy(name, index_dtype):
    init = RNG.uniform(1, 2, (5, 3)).astype(np.float32)
    indices = np.array([3, 0, 3, 1], index_dtype)  # a duplicate: combined in order
    updates = RNG.uniform(1, 2, (4, 3)).astype(np.float32)
    want = init.copy()
    for i, row in zip(indices, updates):
        want[i] = ROW_OPS[name](want[i], row)
    out, value = _run(lambda v: getattr(tf, name)(v, indices, updates), init)
    np.testing.assert_allclose(value, want, rtol=1e-6)
    np.testing.assert_allclose(out, want, rtol=1e-6)  # the op outputs the updated variable


@pytest.mark.parametrize("name,fn", [("scatter_nd_update", lambda a, b: b), ("scatter_nd_add", np.add),
                                     ("scatter_nd_sub", np.subtract)])
def test_nd_scatter_matches_numpy(name, fn):
    init = RNG.standard_normal((4, 3, 2)).astype(np.float64)
    indices = np.array([[1, 2], [3, 0], [1, 2]], np.int64)  # slices [2]
    updates = RNG.standard_normal((3, 2))
    want = init.copy()
    for (i, j), u in zip(indices, updates):
        want[i, j] = fn(want[i, j], u)
    _, value = _run(lambda v: getattr(tf, name)(v, indices, updates), init)
    np.testing.assert_allclose(value, want)
    scalars = np.array([[0, 0, 1], [3, 2, 0]], np.int32)  # full indices: single elements
    want2 = init.copy()
    for (i, j, k), u in zip(scalars, [5.0, -1.0]):
        want2[i, j, k] = fn(want2[i, j, k], u)
    _, value = _run(lambda v: getattr(tf, name)(v, scalars, [5.0, -1.0]), init)
    np.testing.assert_allclose(value, want2)


def test_variable_methods_and_batch_scatter_update():
    init = np.arange(12, dtype=np.float32).reshape(2, 6)
    with tf.Graph().as_default():
        v = tf.Variable(init)
        rows = tf.IndexedSlices(tf.constant([[9.0] * 6]), tf.constant([1]))
        up = v.scatter_update(rows)
        batch = tf.batch_scatter_update(v, [[0, 5], [2, 2]], [[-1.0, -2.0], [-3.0, -4.0]])
        nd = v.scatter_nd_add([[0, 1]], [100.0])
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(up)[1], [9.0] * 6)
            sess.run(v.initializer)
            got = sess.run(batch)
            want = init.copy()
            want[0, 0], want[0, 5], want[1, 2] = -1.0, -2.0, -4.0
            np.testing.assert_array_equal(got, want)
            assert sess.run(nd)[0, 1] == want[0, 1] + 100


def test_static_shapes_and_bad_calls():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((4, 3), np.float32))
        assert tf.scatter_add(v, [0, 1], np.ones((2, 3), np.float32)).shape.as_list() == [4, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="ScatterAdd: updates must have shape"):
            tf.scatter_add(v, [0, 1], np.ones((2, 2), np.float32))
        with pytest.raises(tf.errors.InvalidArgumentError, match="ScatterNdUpdate: the last dimension of indices"):
            tf.scatter_nd_update(v, [[0, 0, 0]], [1.0])
        idx = tf.placeholder(tf.int32, [None])
        bad = tf.scatter_update(v, idx, tf.ones([2, 3]))
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"ScatterUpdate: indices\[1\] = 4 is not in \[0, 4\)"):
                sess.run(bad, {idx: [0, 4]})
            np.testing.assert_array_equal(sess.run(v), np.zeros((4, 3)))  # nothing written
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(tf.scatter_update(tf.Variable(np.zeros(2, np.float32)), [0], [1.0]))
    with tf.Graph().as_default():
        w = tf.Variable(np.array([4, 6], np.int32))
        with tf.Session() as sess:
            sess.run(w.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="ScatterDiv: integer division by zero"):
                sess.run(tf.scatter_div(w, [0], [0]))
            assert sess.run(tf.scatter_div(w, [1], [4]))[1] == 1


def test_same_as_tensorflow():
    tfm = pytest.importorskip("tensorflow")
    tf1 = tfm.compat.v1
    init = RNG.standard_normal((6, 2)).astype(np.float32)
    idx, upd = np.array([5, 1, 5]), RNG.standard_normal((3, 2)).astype(np.float32)
    with tf1.Graph().as_default():
        v = tf1.Variable(init, use_resource=False)
        op = tf1.scatter_max(v, idx, upd)
        with tf1.Session() as sess:
            sess.run(v.initializer)
            want = sess.run(op)
    _, got = _run(lambda v: tf.scatter_max(v, idx, upd), init)
    np.testing.assert_array_equal(got, want)


def test_nd_scatter_with_empty_index_vectors_replaces_the_whole_variable():
    """indices of shape [2, 0]: two updates, each of ref's full shape (the last one wins)."""
    init = np.zeros((2, 3), np.float32)
    updates = np.stack([np.ones((2, 3)), 2 * np.ones((2, 3))]).astype(np.float32)
    _, value = _run(lambda v: tf.scatter_nd_add(v, np.zeros((2, 0), np.int32), updates), init)
    np.testing.assert_array_equal(value, np.full((2, 3), 3.0))
