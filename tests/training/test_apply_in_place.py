"""The Apply* update ops write a variable in place only when nothing else holds its buffer:
values fetched before an update, NumPy arrays a variable was loaded or initialized from, and
constants keep their values; the updates themselves are right whichever way they are made."""

import numpy as np

import opforge as of
import opforge.compat.v1 as tf1


def _momentum_graph(init):
    g = of.Graph()
    with g.as_default():
        v = tf1.Variable(init, name="v")
        grad = tf1.placeholder(tf1.float32, init.shape)
        opt = tf1.train.MomentumOptimizer(0.1, 0.9)
        step = opt.apply_gradients([(grad, v)])
        accum = opt.get_slot(v, "momentum")
        setup = tf1.global_variables_initializer()
    return g, v, grad, step, accum, setup


def _reference(init, grads, lr=0.1, momentum=0.9):
    v, a = init.astype(np.float64), np.zeros_like(init, np.float64)
    for gr in grads:
        a = a * momentum + gr
        v = v - lr * a
    return v


def test_updates_are_right_and_fetched_values_keep_theirs():
    rng = np.random.default_rng(0)
    init = rng.standard_normal((64, 33)).astype(np.float32)
    grads = [rng.standard_normal(init.shape).astype(np.float32) for _ in range(4)]
    g, v, grad, step, _, setup = _momentum_graph(init)
    sess = tf1.Session(graph=g)
    sess.run(setup)
    seen = []
    for gr in grads:
        seen.append(sess.run(v))  # a fetched value (may share the variable's buffer)
        sess.run(step, {grad: gr})
    for k, value in enumerate(seen):  # never changed by the later updates
        np.testing.assert_allclose(value, _reference(init, grads[:k]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sess.run(v), _reference(init, grads), rtol=1e-5, atol=1e-6)


def test_an_array_loaded_into_the_variable_is_not_written():
    rng = np.random.default_rng(1)
    init = rng.standard_normal((50, 7)).astype(np.float32)
    g, v, grad, step, _, setup = _momentum_graph(np.zeros_like(init))
    sess = tf1.Session(graph=g)
    sess.run(setup)
    loaded = init.copy()
    v.load(loaded, sess)
    gr = rng.standard_normal(init.shape).astype(np.float32)
    for _ in range(3):
        sess.run(step, {grad: gr})
    np.testing.assert_array_equal(loaded, init)
    np.testing.assert_allclose(sess.run(v), _reference(init, [gr] * 3), rtol=1e-5, atol=1e-6)


def test_the_initial_value_constant_is_not_written():
    """The variable starts as its initializer's constant; updating it must leave the constant
    (run again by a second initialization) as it was."""
    rng = np.random.default_rng(2)
    init = rng.standard_normal((40, 9)).astype(np.float32)
    g, v, grad, step, accum, setup = _momentum_graph(init)
    sess = tf1.Session(graph=g)
    sess.run(setup)
    sess.run(step, {grad: np.ones_like(init)})
    sess.run(setup)
    np.testing.assert_array_equal(sess.run(v), init)
    np.testing.assert_array_equal(sess.run(accum), np.zeros_like(init))


def test_a_variable_owns_what_is_assigned_to_it():
    """An array loaded or fed into a variable is copied, as TensorFlow does: changing the array
    afterwards leaves the variable's value alone (it shared the array's memory before)."""
    rng = np.random.default_rng(3)
    init = rng.standard_normal((20, 5)).astype(np.float32)
    g, v, grad, step, _, setup = _momentum_graph(np.zeros_like(init))
    with g.as_default():
        fed = tf1.placeholder(tf1.float32, init.shape)
        assign = tf1.assign(v, fed)
    sess = tf1.Session(graph=g)
    sess.run(setup)
    loaded = init.copy()
    v.load(loaded, sess)
    loaded += 1.0
    np.testing.assert_array_equal(sess.run(v), init)
    value = init * 2
    sess.run(assign, {fed: value})
    value[:] = -1.0
    np.testing.assert_array_equal(sess.run(v), init * 2)
    sess.run(step, {grad: np.ones_like(init)})  # and it trains from there
    np.testing.assert_allclose(sess.run(v), init * 2 - 0.1, rtol=1e-6)
