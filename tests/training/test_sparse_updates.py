"""Gradients of gathers (embedding lookups) update only the rows they touch, as TensorFlow
applies IndexedSlices: GradientDescentOptimizer turns a gather's gradient into ScatterSub of
lr * rows (repeated rows add), and the scatter kernels update a variable in place when nothing
else holds its value. Checked against NumPy, and against the dense update."""

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _embedding_step(clip: bool):
    rng = np.random.default_rng(3)
    table = rng.standard_normal((50, 4)).astype(np.float32)
    ids = np.array([3, 7, 3, 49, 0, 7, 7], np.int32)  # repeated rows add
    w = rng.standard_normal((4, 1)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        emb = tf.Variable(table, name="emb")
        x = tf.nn.embedding_lookup(emb, tf.constant(ids))
        loss = tf.reduce_sum(tf.square(tf.matmul(x, tf.constant(w))))
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads = opt.compute_gradients(loss, [emb])
        if clip:  # a transformed gradient is dense: the dense update
            grads = [(tf.clip_by_norm(gr, 1e6), v) for gr, v in grads]
        train = opt.apply_gradients(grads)
        types = {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            held = sess.run(emb)  # a fetched value keeps its numbers
            sess.run(train)
            after = sess.run(emb)
    # NumPy: d loss / d x = 2 (x w) w^T, summed into the rows of the table
    xv = table[ids]
    dx = 2 * (xv @ w) @ w.T
    dense = np.zeros_like(table, dtype=np.float64)
    np.add.at(dense, ids, dx.astype(np.float64))
    return types, held, after, table - 0.1 * dense, table


@pytest.mark.parametrize("clip", [False, True])
def test_gradient_descent_updates_the_gathered_rows(clip):
    types, held, after, want, table = _embedding_step(clip)
    assert ("ScatterSub" in types) != clip and ("ApplyGradientDescent" in types) == clip
    np.testing.assert_allclose(after, want, rtol=1e-5, atol=1e-6)
    untouched = np.setdiff1d(np.arange(50), [0, 3, 7, 49])
    np.testing.assert_array_equal(after[untouched], table[untouched])
    np.testing.assert_array_equal(held, table)


def test_scatter_in_place_keeps_what_others_hold():
    """ScatterSub / ScatterAdd / ScatterUpdate write in place only when nothing else holds the
    variable's value: a fetched value and a value fed in stay as they were."""
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2), name="v")
        sub = tf.scatter_sub(v, tf.constant([1, 1, 4]), tf.constant(np.ones((3, 2), np.float32)))
        add = tf.scatter_add(v, tf.constant([0]), tf.constant(np.full((1, 2), 10, np.float32)))
        upd = tf.scatter_update(v, tf.constant([5]), tf.constant(np.zeros((1, 2), np.float32)))
        with tf.Session() as sess:
            sess.run(v.initializer)
            first = sess.run(v)
            sess.run(sub)
            second = sess.run(v)
            sess.run([add])
            sess.run(upd)
            last = sess.run(v)
    base = np.arange(12, dtype=np.float32).reshape(6, 2)
    np.testing.assert_array_equal(first, base)
    want = base.copy()
    want[1] -= 2
    want[4] -= 1
    np.testing.assert_array_equal(second, want)
    want[0] += 10
    want[5] = 0
    np.testing.assert_array_equal(last, want)


def test_scatter_into_a_variable_assigned_from_another_leaves_that_one():
    """After assign(b, a) the two variables may share a buffer: a scatter into b must not write
    into a's value."""
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="a")
        b = tf.Variable(np.zeros((4, 2), np.float32), name="b")
        copy = tf.assign(b, a)
        sub = tf.scatter_sub(b, tf.constant([2]), tf.constant(np.full((1, 2), 5, np.float32)))
        with tf.Session() as sess:
            sess.run([a.initializer, b.initializer])
            sess.run(copy)
            sess.run(sub)
            got_a, got_b = sess.run([a, b])
    base = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(got_a, base)
    base[2] -= 5
    np.testing.assert_array_equal(got_b, base)
