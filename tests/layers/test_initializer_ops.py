"""Random initializers are random ops, as TensorFlow's are: each run of the variables'
initializer draws afresh, a saved graph holds the ops rather than the values, and the ops are
named under the variable's ``Initializer`` scope. Samplers name their result as TensorFlow does
(``tf.random_normal(..., name="noise")`` is ``noise:0``, the scaled value)."""

import numpy as np
import pytest

import opforge.compat.v1 as tf

RANDOM = {
    "truncated_normal": lambda: tf.truncated_normal_initializer(stddev=0.1),
    "random_normal": lambda: tf.random_normal_initializer(mean=1.0, stddev=0.5),
    "random_uniform": lambda: tf.random_uniform_initializer(-0.3, 0.7),
    "glorot_uniform": tf.glorot_uniform_initializer,
    "glorot_normal": tf.glorot_normal_initializer,
    "he_normal": tf.initializers.he_normal,
    "variance_scaling_untruncated": lambda: tf.variance_scaling_initializer(2.0, distribution="untruncated_normal"),
    "uniform_unit_scaling": lambda: tf.uniform_unit_scaling_initializer(1.5),
    "orthogonal": tf.orthogonal_initializer,
}


def _draws(make, shape=(60, 40), runs=2):
    with tf.Graph().as_default() as g:
        w = tf.get_variable("w", list(shape), initializer=make())
        init = tf.global_variables_initializer()
        with tf.Session(graph=g) as sess:
            out = []
            for _ in range(runs):
                sess.run(init)
                out.append(sess.run(w))
    return g, out


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_each_initializer_run_draws_afresh(name):
    g, (a, b) = _draws(RANDOM[name])
    assert a.shape == (60, 40) and a.dtype == np.float32
    assert np.mean(a != b) > 0.99
    types = {op.type for op in g.get_operations() if op.name.startswith("w/Initializer/")}
    assert types & {"RandomStandardNormal", "TruncatedNormal", "RandomUniform"}, types
    assert "Const" not in {op.type for op in g.get_operations() if op.outputs and op.outputs[0].shape.num_elements()
                           == 60 * 40}


def test_distributions():
    """Moments and bounds of the drawn values (TensorFlow's formulas)."""
    _, (t,) = _draws(RANDOM["truncated_normal"], (300, 200), 1)
    assert np.abs(t).max() <= 0.2 and abs(t.std() - 0.1 * 0.8796) < 0.004
    _, (n,) = _draws(RANDOM["random_normal"], (300, 200), 1)
    assert abs(n.mean() - 1.0) < 0.01 and abs(n.std() - 0.5) < 0.01
    _, (u,) = _draws(RANDOM["random_uniform"], (300, 200), 1)
    assert u.min() >= -0.3 and u.max() < 0.7 and abs(u.mean() - 0.2) < 0.01
    _, (gl,) = _draws(RANDOM["glorot_uniform"], (300, 200), 1)
    limit = np.sqrt(6.0 / 500)
    assert np.abs(gl).max() <= limit and abs(gl.std() - limit / np.sqrt(3)) < 0.02 * limit
    _, (he,) = _draws(RANDOM["he_normal"], (300, 200), 1)
    assert abs(he.std() - np.sqrt(2.0 / 300)) < 0.03 * np.sqrt(2.0 / 300)
    assert np.abs(he).max() <= 2 * np.sqrt(2.0 / 300) / 0.87962566103423978 + 1e-6


@pytest.mark.parametrize("shape,gain", [((64, 32), 1.0), ((32, 64), 1.0), ((3, 3, 4, 16), 2.0)])
def test_orthogonal(shape, gain):
    with tf.Graph().as_default() as g:
        w = tf.get_variable("w", list(shape), initializer=tf.orthogonal_initializer(gain=gain))
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            m = sess.run(w).reshape(-1, shape[-1]).astype(np.float64)
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, gain**2 * np.eye(small), atol=1e-5)


def test_saved_graph_holds_ops_not_values():
    with tf.Graph().as_default() as g:
        tf.get_variable("big", [512, 512], initializer=tf.truncated_normal_initializer(stddev=0.1))
        tf.layers.dense(tf.placeholder(tf.float32, [None, 512]), 256)
        assert len(g.as_graph_def().SerializeToString()) < 20_000


def test_seeded_graphs_repeat_and_op_seed_differs():
    def weights(graph_seed, op_seed=None):
        with tf.Graph().as_default() as g:
            tf.set_random_seed(graph_seed)
            w = tf.get_variable("w", [8, 5], initializer=tf.random_normal_initializer(seed=op_seed))
            with tf.Session(graph=g) as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(w)
    np.testing.assert_array_equal(weights(5), weights(5))
    assert not np.array_equal(weights(5), weights(6))
    np.testing.assert_array_equal(weights(5, 3), weights(5, 3))
    assert not np.array_equal(weights(5, 3), weights(5, 4))


def test_initializer_names_and_dtype_errors():
    with tf.Graph().as_default() as g:
        tf.get_variable("w", [4, 3], initializer=tf.truncated_normal_initializer(stddev=0.1))
        names = {op.name for op in g.get_operations()}
        assert "w/Initializer/truncated_normal" in names
        assert "w/Initializer/truncated_normal/TruncatedNormal" in names
        with pytest.raises(ValueError, match="floating point"):
            tf.get_variable("i", [3], dtype=tf.int32, initializer=tf.random_normal_initializer())
        k = tf.get_variable("k", [3], dtype=tf.int32, initializer=tf.random_uniform_initializer(0, 10))
        with tf.Session(graph=g) as sess:
            sess.run(k.initializer)
            v = sess.run(k)
        assert v.dtype == np.int32 and v.min() >= 0 and v.max() < 10


def test_initializers_inside_a_while_loop_cell():
    """A cell first called inside dynamic_rnn's loop makes its random initializer outside the
    loop: running the initializer needs no loop frame."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4, 3])
        cell = tf.nn.rnn_cell.GRUCell(5, kernel_initializer=tf.orthogonal_initializer(),
                                      bias_initializer=tf.constant_initializer(0.25))
        out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            weights = {v.name: sess.run(v) for v in tf.trainable_variables()}
            y = sess.run(out, {x: np.random.default_rng(0).standard_normal((2, 4, 3))})
    assert y.shape == (2, 4, 5)
    gate = next(w for n, w in weights.items() if "gates/kernel" in n)
    assert gate.shape == (8, 10)  # wide: orthonormal rows, from the user's kernel initializer
    np.testing.assert_allclose(gate @ gate.T, np.eye(8), atol=1e-5)
    for n, w in weights.items():
        if "bias" in n:
            np.testing.assert_array_equal(w, np.full(w.shape, 0.25, np.float32))


def test_sampler_names_are_the_scaled_value():
    with tf.Graph().as_default() as g:
        z = tf.random_normal([1000], mean=3.0, stddev=5.0, name="noise")
        u = tf.random_uniform([1000], minval=tf.constant(2.0), maxval=4.0)
        t = tf.truncated_normal([1000], stddev=2.0, name="tn")
        assert (z.name, u.name, t.name) == ("noise:0", "random_uniform:0", "tn:0")
        with tf.Session(graph=g) as sess:
            zv, uv, tv = sess.run([g.get_tensor_by_name("noise:0"), u, g.get_tensor_by_name("tn:0")])
    assert abs(zv.mean() - 3.0) < 0.6 and abs(zv.std() - 5.0) < 0.6
    assert uv.min() >= 2.0 and uv.max() < 4.0
    assert np.abs(tv).max() <= 4.0 and tv.std() > 1.2


def test_a_name_scope_name_names_an_op_exactly():
    """TensorFlow's rule: an op given a name ending in "/" (a name scope's) takes it whole."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])
        with g.name_scope("outer"):
            with g.name_scope("inner") as scope:
                y = tf.identity(x, name=scope)
        assert y.name == "outer/inner:0"
