"""tf.nn.raw_rnn and tf.nn.static_state_saving_rnn (opforge/layers/rnn_raw.py): raw_rnn driven
like dynamic_rnn gives dynamic_rnn's outputs and states; its loop state and emit structure; the
state saver's state read before and written after the unrolled RNN."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf


def test_raw_rnn_reproduces_dynamic_rnn_with_sequence_lengths():
    steps, batch, depth, units = 4, 3, 2, 5
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [steps, batch, depth])
        lengths = tf.placeholder(tf.int32, [batch])
        cell = tf.nn.rnn_cell.BasicRNNCell(units)
        inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)

        def loop_fn(time, cell_output, cell_state, loop_state):
            state = cell.zero_state(batch, tf.float32) if cell_output is None else cell_state
            count = tf.constant(0, tf.int32) if loop_state is None else loop_state + 1
            finished = time >= lengths
            nxt = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([batch, depth]),
                          lambda: inputs.read(tf.minimum(time, steps - 1)))
            return finished, nxt, state, cell_output, count

        emit, final, loops = tf.nn.raw_rnn(cell, loop_fn)
        outputs = emit.stack()
        want, want_state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, time_major=True, dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: rng.normal(size=(steps, batch, depth)), lengths: [2, 4, 3]}
            got, got_state, n, ref, ref_state = sess.run([outputs, final, loops, want, want_state], feed)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_state, ref_state, rtol=1e-6, atol=1e-7)
    assert got[2:, 0].max() == 0 and n == 4  # a finished sequence emits zeros; four steps ran


def test_raw_rnn_emits_a_structure_of_its_own():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(3)

        def loop_fn(time, cell_output, cell_state, loop_state):
            state = cell.zero_state(2, tf.float32) if cell_output is None else cell_state
            emit = tf.zeros([2, 1]) if cell_output is None else tf.reduce_sum(cell_output, 1, keepdims=True)
            return time >= 3, tf.ones([2, 4]), state, emit, None

        emit, _, loops = tf.nn.raw_rnn(cell, loop_fn)
        assert loops is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(emit.stack())
    assert out.shape == (3, 2, 1)
    with pytest.raises(TypeError, match="callable"):
        tf.nn.raw_rnn(cell, None)


class _Saver:
    """A state saver over variables: state(name) reads, save_state(name, value) assigns."""

    def __init__(self, batch, sizes):
        self.vars = {n: tf.Variable(np.full((batch, s), 0.5, np.float32), name=n) for n, s in sizes.items()}

    def state(self, name):
        return self.vars[name].read_value() if hasattr(self.vars[name], "read_value") else tf.identity(self.vars[name])

    def save_state(self, name, value):
        return tf.assign(self.vars[name], value)


def _lstm():
    return tf.nn.rnn_cell.LSTMCell(3, initializer=tf.constant_initializer(0.3))


def test_static_state_saving_rnn_reads_and_saves_the_state():
    xs = np.random.default_rng(1).normal(size=(3, 2, 4)).astype(np.float32)
    with tf.Graph().as_default():  # the reference: static_rnn from the saver's initial values
        init = tf.nn.rnn_cell.LSTMStateTuple(tf.fill([2, 3], 0.5), tf.fill([2, 3], 0.5))
        ref_out, ref_state = tf.nn.static_rnn(_lstm(), [tf.constant(x) for x in xs], initial_state=init)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want, want_state = sess.run([ref_out[-1], ref_state])
    with tf.Graph().as_default():
        cell, saver = _lstm(), _Saver(2, {"c": 3, "h": 3})
        inputs = [tf.constant(x) for x in xs]
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, saver, ("c", "h"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, got_state = sess.run([outputs[-1], state])
            saved = sess.run([saver.vars["c"], saver.vars["h"]])  # written by the run
        with pytest.raises(ValueError, match="same type"):
            tf.nn.static_state_saving_rnn(cell, inputs, saver, "c")
    np.testing.assert_allclose(got, want, rtol=1e-6)
    for g, w, s in zip(got_state, want_state, saved):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        np.testing.assert_allclose(s, w, rtol=1e-6)
