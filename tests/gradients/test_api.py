"""TensorFlow's Python gradient API over opforge's registry (opforge/gradients/api.py):
RegisterGradient with gradient_override_map, NotDifferentiable, custom_gradient (graph and eager
tape), grad_pass_through, hessians, and tf.gradients' TF keywords; checked against closed forms
and NumPy on random data."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.gradients.api import custom_gradient


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def _run(fetches, feed):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _data(n=5, seed=0):
    return np.random.default_rng(seed).normal(size=(n,))


def test_register_gradient_and_override_map(graph):
    @tf.RegisterGradient("TimesThreeGrad_test")
    def _grad(op, grad):
        assert op.type == "Sign" and op.get_attr("T") == tf.float64
        return grad * 3.0

    x = tf.placeholder(tf.float64, [5])
    with graph.gradient_override_map({"Sign": "TimesThreeGrad_test"}):
        y = tf.sign(x)
    plain = tf.sign(x)  # outside the map: Sign's own gradient (zero)
    g, gp = _run([tf.gradients(y, x)[0], tf.gradients(plain, x)[0]], {x: _data()})
    np.testing.assert_array_equal(g, np.full(5, 3.0))
    np.testing.assert_array_equal(gp, np.zeros(5))


def test_register_gradient_errors(graph):
    with pytest.raises(KeyError, match="Registering two gradient with name 'MatMul'"):
        tf.RegisterGradient("MatMul")(lambda op, g: g)
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.RegisterGradient(3)
    with pytest.raises(TypeError, match="op_type_map must be a dictionary"):
        with graph.gradient_override_map({"Sign": 1}):
            pass

    @tf.RegisterGradient("WrongCountGrad_test")
    def _bad(op, grad):
        return grad, grad

    x = tf.placeholder(tf.float64, [2])
    with graph.gradient_override_map({"Neg": "WrongCountGrad_test"}):
        y = tf.negative(x)
    with pytest.raises(of.errors.InvalidArgumentError, match="returned 2 gradients for 1 inputs"):
        tf.gradients(y, x)


def test_not_differentiable(graph):
    tf.NotDifferentiable("NoGradOverride_test")
    x = tf.placeholder(tf.float64, [3])
    with graph.gradient_override_map({"Square": "NoGradOverride_test"}):
        y = tf.square(x)
    assert tf.gradients(y + x, x)[0] is not None and tf.gradients(y, x) == [None]
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.no_gradient(None)


def test_custom_gradient_in_a_graph(graph):
    @tf.custom_gradient
    def log1pexp(v):
        e = tf.exp(v)
        return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    a = _data()
    x = tf.placeholder(tf.float64, [5])
    y = log1pexp(x)
    val, g = _run([y, tf.gradients(tf.reduce_sum(y * y), x)[0]], {x: a})
    np.testing.assert_allclose(val, np.log1p(np.exp(a)))
    np.testing.assert_allclose(g, 2 * np.log1p(np.exp(a)) / (1 + np.exp(-a)))


def test_custom_gradient_on_the_eager_tape():
    @custom_gradient
    def clip_grad(v):
        return v * v, lambda dy: of.clip_by_value(dy * 2 * v, -1.0, 1.0)

    w = of.constant(_data(seed=2))
    with of.GradientTape() as tape:
        tape.watch(w)
        y = clip_grad(w)
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), np.clip(2 * w.numpy(), -1, 1))


def test_grad_pass_through(graph):
    a = _data(seed=3)
    x = tf.placeholder(tf.float64, [5])
    y = tf.grad_pass_through(tf.round)(x * 2.0)
    val, g = _run([y, tf.gradients(y, x)[0]], {x: a})
    np.testing.assert_array_equal(val, np.round(a * 2.0))
    np.testing.assert_array_equal(g, np.full(5, 2.0))


def test_hessians(graph):
    a = np.random.default_rng(4).normal(size=(2, 2))
    x = tf.placeholder(tf.float64, [2, 2])
    (h,) = tf.hessians(tf.reduce_sum(x ** 3) + tf.reduce_prod(x), x)
    got = _run(h, {x: a})
    flat = a.reshape(-1)
    want = np.diag(6 * flat)
    for i in range(4):
        for j in range(4):
            if i != j:
                want[i, j] += np.prod(np.delete(flat, [i, j]))
    np.testing.assert_allclose(got, want.reshape(2, 2, 2, 2))
    with pytest.raises(ValueError, match="must be fully known"):
        tf.hessians(tf.reduce_sum(x), tf.placeholder(tf.float64, [None]))


def test_gradients_keywords(graph):
    x = tf.placeholder(tf.float64, [3])
    unrelated = tf.constant(1.0, tf.float64)
    (z,) = tf.gradients(unrelated, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    (n,) = tf.gradients(unrelated, x, unconnected_gradients="none")
    assert n is None
    (s,) = tf.gradients(x * x + x, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE,
                        colocate_gradients_with_ops=True, gate_gradients=True)
    a = _data(3, seed=5)
    gz, gs = _run([z, s], {x: a})
    np.testing.assert_array_equal(gz, np.zeros(3))
    np.testing.assert_allclose(gs, 2 * a + 1)
    with pytest.raises(ValueError, match="Invalid aggregation_method"):
        tf.gradients(x, x, aggregation_method=7)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tf.gradients(x, x, unconnected_gradients="zeros")
