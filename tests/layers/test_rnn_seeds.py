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
