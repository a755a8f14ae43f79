"""tf.GradientTape in graph mode (gradients only through the nodes built while recording, from
watched sources) and eagerly (opforge's tape), checked against NumPy derivatives and, where
installed, against TensorFlow's tape in a tf.function."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.gradients.graph_tape import GradientTape


def _run(graph, fetches, feeds=None):
    with of.Session(graph=graph) as s:
        s.run(of.global_variables_initializer())
        return s.run(fetches, feeds)


def test_graph_tape_matches_numpy(graph):
    xv = np.random.rand(4)
    wv = np.random.rand(4)
    x = of.placeholder(of.float64, [4])
    w = of.Variable(wv, name="w")
    with GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(of.sin(x) * w)
    gx, gw = tape.gradient(y, [x, w])
    assert tape.watched_variables() == (w,)
    rx, rw = _run(graph, [gx, gw], {x: xv})
    np.testing.assert_allclose(rx, np.cos(xv) * wv)
    np.testing.assert_allclose(rw, np.sin(xv))


def test_only_recorded_nodes_and_watched_sources(graph):
    x = of.placeholder(of.float64, [3])
    before = x * 5.0  # built before the tape: not recorded
    with GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * 7.0
        total = of.reduce_sum(y + z + before)
    v = of.Variable(np.ones(3), name="v")
    unwatched = of.placeholder(of.float64, [3])
    g = tape.gradient(total, x)
    nothing = tape.gradient(total, [unwatched, v])
    zeros = tape.gradient(total, unwatched, unconnected_gradients="zero")
    assert nothing == [None, None] and tape.watched_variables() == ()
    xv = np.array([1.0, -2.0, 3.0])
    rg, rz = _run(graph, [g, zeros], {x: xv, unwatched: xv})
    np.testing.assert_allclose(rg, 2 * xv)  # neither z nor `before` contributes
    np.testing.assert_array_equal(rz, np.zeros(3))


def test_nested_sources_output_gradients_and_one_shot(graph):
    a = of.placeholder(of.float64, [2])
    b = of.placeholder(of.float64, [2])
    with GradientTape() as tape:
        tape.watch({"a": a, "b": [b]})
        y = a * b
    grads = tape.gradient(y, {"a": a, "b": [b]}, output_gradients=of.constant(np.array([1.0, 10.0])))
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, a)
    av, bv = np.array([2.0, 3.0]), np.array([5.0, 7.0])
    ra, (rb,) = _run(graph, [grads["a"], grads["b"]], {a: av, b: bv})
    np.testing.assert_allclose(ra, bv * [1, 10])
    np.testing.assert_allclose(rb, av * [1, 10])


def test_stop_recording_outside_the_tape_raises(graph):
    tape = GradientTape()
    with pytest.raises(ValueError, match="only applies when the tape is recording"):
        with tape.stop_recording():
            pass


def test_eager_tape_is_opforges():
    x = of.constant(np.array([1.0, 2.0]))
    with GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(x * x * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * np.array([1.0, 4.0]))


def test_against_tensorflow_tape(graph):
    tf = pytest.importorskip("tensorflow")
    xv = np.random.rand(3)

    @tf.function
    def theirs(x):
        pre = x * 2.0
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.exp(x) * pre)
        return t.gradient(y, x)

    x = of.placeholder(of.float64, [3])
    pre = x * 2.0
    with GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(of.exp(x) * pre)
    ours = _run(graph, tape.gradient(y, x), {x: xv})
    np.testing.assert_allclose(ours, theirs(tf.constant(xv)).numpy())
