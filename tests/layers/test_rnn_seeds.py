"""RNN cells draw their default initial weights from the graph's seed, as every initializer
does: a program that calls set_random_seed builds the same weights in every graph and process
(they came from an unseeded generator before)."""

import numpy as np
import pytest

import opforge.compat.v1 as tf

CELLS = {
    "BasicRNNCell": lambda: tf.nn.rnn_cell.BasicRNNCell(5),
    "BasicLSTMCell": lambda: tf.nn.rnn_cell.BasicLSTMCell(5),
    "LSTMCell": lambda: tf.nn.rnn_cell.LSTMCell(5),
    "GRUCell": lambda: tf.nn.rnn_cell.GRUCell(5),
}


def _weights(make_cell, seed):
    with tf.Graph().as_default() as g:
        if seed is not None:
            tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 4, 3])
        tf.nn.dynamic_rnn(make_cell(), x, dtype=tf.float32)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(tf.trainable_variables())


@pytest.mark.parametrize("name", sorted(CELLS))
def test_seeded_weights_repeat(name):
    a, b = _weights(CELLS[name], 7), _weights(CELLS[name], 7)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    other = _weights(CELLS[name], 8)
    assert any(not np.array_equal(x, y) for x, y in zip(a, other) if x.ndim == 2)
    kernels = [w for w in a if w.ndim == 2]
    assert kernels and all(np.abs(w).max() > 0 for w in kernels)  # random, not zeros


def test_unseeded_weights_differ():
    a, b = _weights(CELLS["BasicRNNCell"], None), _weights(CELLS["BasicRNNCell"], None)
    assert not np.array_equal(a[0], b[0])


def test_global_seed_seeds_a_graph_without_its_own():
    """A graph with no seed of its own takes the global seed (of.random.set_seed), for its
    initializers as for its random ops; the corpus harness relies on it for programs that
    build their own tf.Graph()."""
    from opforge.ops import random_ops

    def weights_and_noise():
        with tf.Graph().as_default() as g:
            w = tf.get_variable("w", [6, 4], initializer=tf.glorot_uniform_initializer())
            u = tf.random_uniform([3])
            with tf.Session(graph=g) as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run([w, u])

    saved = random_ops._state.seed
    try:
        random_ops._state.seed = 11
        a, b = weights_and_noise(), weights_and_noise()
        random_ops._state.seed = 12
        c = weights_and_noise()
    finally:
        random_ops._state.seed = saved
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0]) and not np.array_equal(a[1], c[1])
