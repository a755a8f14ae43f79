"""opforge.compat.v1: TF1 programs run unchanged but for the import line."""

import os
import subprocess
import sys

import numpy as np
import pytest

import opforge.compat.v1 as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def g():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


@pytest.mark.parametrize("script", ["linear_regression.py", "housing_regression.py"])
def test_examples_run(script, tmp_path):
    path = os.path.join(ROOT, "examples", "tf1", script)
    env = dict(os.environ)
    # Run from a neutral directory so the installed package (not the source tree) is imported.
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, path], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "least squares" in proc.stdout


def test_tf1_program_on_default_graph():
    """The classic program, written against the global default graph."""
    tf.reset_default_graph()
    W = tf.Variable(0.3, tf.float32)
    b = tf.Variable(-0.3, tf.float32)
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32)
    linear_model = W * x + b
    loss = tf.reduce_sum(tf.square(linear_model - y))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    x_train, y_train = [1, 2, 3, 4], [0, -1, -2, -3]
    init = tf.global_variables_initializer()
    sess = tf.Session()
    sess.run(init)
    for _ in range(1000):
        sess.run(train, {x: x_train, y: y_train})
    cw, cb, cl = sess.run([W, b, loss], {x: x_train, y: y_train})
    sess.close()
    A = np.vstack([x_train, np.ones(4)]).T
    ref = np.linalg.lstsq(A, np.array(y_train, float), rcond=None)[0]
    assert abs(cw - ref[0]) < 1e-3 and abs(cb - ref[1]) < 1e-3 and cl < 1e-5
    assert W.graph is tf.get_default_graph()
    tf.reset_default_graph()
    assert tf.get_default_graph() is not W.graph


def test_mlp_with_adam_and_nn(g):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(128, 2)).astype(np.float32)
    Y = (X[:, :1] * X[:, 1:] > 0).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    t = tf.placeholder(tf.float32, [None, 1], name="t")
    w1 = tf.get_variable("hidden_w", [2, 16], initializer=tf.glorot_uniform_initializer(seed=1))
    b1 = tf.get_variable("hidden_b", [16], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    w2 = tf.get_variable("out_w", [16, 1], initializer=tf.glorot_uniform_initializer(seed=2))
    b2 = tf.get_variable("out_b", [1], initializer=tf.zeros_initializer())
    p = tf.nn.sigmoid(tf.matmul(h, w2) + b2)
    loss = tf.reduce_mean(tf.square(p - t))
    step = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        l0 = sess.run(loss, {x: X, t: Y})
        for _ in range(200):
            sess.run(step, {x: X, t: Y})
        l1 = sess.run(loss, {x: X, t: Y})
    assert l1 < 0.5 * l0


def test_get_variable_initializers(g):
    c = tf.get_variable("c", [2, 3], initializer=tf.constant_initializer(1.5))
    cl = tf.get_variable("cl", [2, 2], initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0]))
    z = tf.get_variable("z", [4], initializer=tf.zeros_initializer())
    o = tf.get_variable("o", [4], dtype=tf.float64, initializer=tf.ones_initializer())
    gl = tf.get_variable("gl", [30, 20], initializer=tf.glorot_uniform_initializer(seed=0))
    default = tf.get_variable("default", [10, 10])
    i64 = tf.get_variable("i", [2], dtype=tf.int64, initializer=tf.initializers.zeros())
    assert c.name == "c:0" and c.dtype == tf.float32
    assert o.dtype == tf.float64 and i64.dtype == tf.int64
    assert gl.shape.as_list() == [30, 20]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        cv, clv, zv, ov, glv, dv, iv = sess.run([c, cl, z, o, gl, default, i64])
    np.testing.assert_array_equal(cv, np.full((2, 3), 1.5))
    np.testing.assert_array_equal(clv, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(zv, np.zeros(4))
    np.testing.assert_array_equal(ov, np.ones(4))
    np.testing.assert_array_equal(iv, [0, 0])
    limit = np.sqrt(6.0 / 50)
    assert np.all(np.abs(glv) <= limit) and glv.std() > limit / 4
    assert np.all(np.abs(dv) <= np.sqrt(6.0 / 20)) and dv.std() > 0




def test_variable_scope_names_variables_and_ops_until_it_exits():
    with tf.Graph().as_default():
        with tf.variable_scope("scope") as scope:
            assert scope.name == tf.get_variable_scope().name == "scope"
            v = tf.get_variable("v", [1])
            c = tf.constant(1.0, name="c")
            with tf.variable_scope("inner"):
                assert tf.get_variable_scope().name == "scope/inner"
                d = tf.add(c, 1.0)
        e = tf.constant(2.0, name="c")
        assert tf.get_variable_scope().name == ""
    assert (v.op.name, c.op.name, d.op.name, e.op.name) == ("scope/v", "scope/c", "scope/inner/Add", "c")


def test_variable_scope_reuse(g):
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [3], initializer=tf.zeros_initializer())
    with tf.variable_scope("layer", reuse=True):
        w_again = tf.get_variable("w", [3])
    assert w_again is w
    with pytest.raises(ValueError):  # creating it again without reuse
        with tf.variable_scope("layer"):
            tf.get_variable("w", [3])
    with pytest.raises(ValueError):  # reuse of a variable that does not exist
        with tf.variable_scope("layer", reuse=True):
            tf.get_variable("missing", [3])

    def tower(inp, reuse):
        with tf.variable_scope("tower", reuse=reuse):
            k = tf.get_variable("k", [2, 2], initializer=tf.constant_initializer(1.0))
            return tf.matmul(inp, k), k
    x = tf.placeholder(tf.float32, [None, 2])
    y1, k1 = tower(x, None)
    y2, k2 = tower(x * 2.0, True)
    assert k1 is k2
    assert len(tf.trainable_variables()) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([y1, y2], {x: [[1.0, 2.0]]})
    np.testing.assert_array_equal(a, [[3.0, 3.0]])
    np.testing.assert_array_equal(b, [[6.0, 6.0]])


def test_variable_scope_names(g):
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [3], initializer=tf.zeros_initializer())
        s = tf.add(w, w)
    assert w.name == "layer/w:0"
    assert s.op.name.startswith("layer/")
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            v = tf.get_variable("v", [], initializer=tf.constant_initializer(2.0))
    assert v.name == "outer/inner/v:0"


def test_variable_scope_auto_reuse(g):
    def make():
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            return tf.get_variable("a", [1], initializer=tf.ones_initializer())
    first = make()
    assert make() is first


def test_same_name_in_other_graph_is_independent():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        a = tf.get_variable("shared_name", [1], initializer=tf.zeros_initializer())
    with g2.as_default():
        b = tf.get_variable("shared_name", [1], initializer=tf.ones_initializer())
    assert a is not b and a.graph is g1 and b.graph is g2


def test_tf1_api_surface(g):
    x = tf.placeholder(tf.float32, shape=[None, 2], name="inp")
    c = tf.constant([[1.0, 2.0]], name="c")
    y = tf.identity(tf.maximum(x, c) + tf.exp(tf.zeros([1, 2])), name="y")
    assert isinstance(y, tf.Tensor) and isinstance(y.op, tf.Operation)
    assert tf.get_default_graph() is g
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [[0.0, 5.0]]}), [[2.0, 6.0]])
        np.testing.assert_array_equal(sess.run(tf.shape(x), {x: np.zeros((3, 2))}), [3, 2])
    with pytest.raises(tf.InvalidArgumentError):
        with tf.Session() as sess:
            sess.run(y)
    tf.disable_eager_execution()
    tf.disable_v2_behavior()


def test_interactive_session_and_eval(g):
    v = tf.Variable([1.0, 2.0], name="iv")
    sess = tf.InteractiveSession()
    try:
        sess.run(tf.initialize_all_variables())
        np.testing.assert_array_equal(v.eval(), [1.0, 2.0])
        np.testing.assert_array_equal((v * 2.0).eval(), [2.0, 4.0])
    finally:
        sess.close()
    assert tf.get_default_session() is None or tf.get_default_session() is not sess


# ---- TF1's legacy keywords (issue 14)

def test_reductions_take_tf1_keywords(g):
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    p = tf.placeholder(tf.float32, [None, 4, 5])
    with tf.Session() as sess:
        for fn, ref in [(tf.reduce_sum, np.sum), (tf.reduce_mean, np.mean), (tf.reduce_max, np.max),
                        (tf.reduce_min, np.min), (tf.reduce_prod, np.prod)]:
            got = sess.run(fn(p, reduction_indices=[0, 2], keep_dims=True), {p: x})
            np.testing.assert_allclose(got, ref(x, axis=(0, 2), keepdims=True), rtol=1e-5)
            got = sess.run(fn(p, 1, None), {p: x})  # TF1's keepdims=None is False
            np.testing.assert_allclose(got, ref(x, axis=1), rtol=1e-5)
        b = x > 0
        pb = tf.placeholder(tf.bool, [3, 4, 5])
        assert sess.run(tf.reduce_all(pb, reduction_indices=1), {pb: b}).tolist() == b.all(1).tolist()
        assert sess.run(tf.reduce_any(pb, keep_dims=True), {pb: b}).shape == (1, 1, 1)


def test_both_spellings_is_an_error(g):
    p = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
        tf.reduce_sum(p, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keepdims' and 'keep_dims'"):
        tf.reduce_mean(p, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match="'axis' and 'dimension'"):
        tf.argmax(p, axis=0, dimension=0)


def test_argmax_dimension_expand_dims_dim(g):
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    p = tf.placeholder(tf.float32, [4, 6])
    with tf.Session() as sess:
        assert sess.run(tf.argmax(p, dimension=1), {p: x}).tolist() == x.argmax(1).tolist()
        assert sess.run(tf.argmin(p, dimension=0), {p: x}).tolist() == x.argmin(0).tolist()
        assert sess.run(tf.arg_max(p, 1), {p: x}).tolist() == x.argmax(1).tolist()
        assert sess.run(tf.argmax(p, 1, "am", None, tf.int32), {p: x}).dtype == np.int32  # TF1 order
        assert sess.run(tf.expand_dims(p, dim=1), {p: x}).shape == (4, 1, 6)
        assert sess.run(tf.squeeze(tf.expand_dims(p, 0), squeeze_dims=[0]), {p: x}).shape == (4, 6)


def test_raw_ops_in_compat_v1_is_raw_ops():
    import opforge as of
    assert tf.raw_ops is of.raw_ops
    np.testing.assert_allclose(tf.raw_ops.Sum(input=np.ones((2, 3), np.float32), axis=1).numpy(), [3, 3])


def test_get_variable_whose_name_a_node_already_has_is_uniquified():
    """tf.Variable(name='scalar') then tf.get_variable('scalar'): a second variable, its node
    named scalar_1 (TensorFlow's graph-name rule), found again by get_variable under reuse."""
    with tf.Graph().as_default():
        first = tf.Variable(2, name="scalar")
        second = tf.get_variable("scalar", initializer=tf.constant(3))
        assert (first.name, second.name) == ("scalar:0", "scalar_1:0")
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("scalar") is second
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([first, second]) == [2, 3]


def test_default_op_names_are_tensorflow_1s():
    """Ops get TensorFlow 1's default names, so a program's get_tensor_by_name("add:0") finds
    what `x + y` made: the operators' add / sub / mul / truediv / pow / floordiv / mod (on
    tensors and variables), tf.add's Add, concat, stack, one_hot, strided_slice (case-insensitive
    uniqueness, as TensorFlow's: "Add" after "add" is "Add_1")."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(np.ones((2, 1), np.float32), name="w")
        y = tf.matmul(x, w) + 1.0
        i = tf.constant([1, 2])
        with tf.name_scope("layer"):
            q = (y * 2.0 - 1.0) / 3.0
        got = [y, q, y ** 2, i // 2, i % 2, w + 1.0, 2.0 * w, tf.add(y, y), tf.concat([y, y], 1),
               tf.stack([y, y]), tf.one_hot([1], 3), y[0]]
        assert [t.op.name for t in got] == [
            "add", "layer/truediv", "pow", "floordiv", "mod", "add_1", "mul", "Add_2", "concat", "stack", "one_hot",
            "strided_slice"]
        assert g.get_tensor_by_name("add:0") is not None and g.get_tensor_by_name("layer/mul:0") is not None
        assert g.get_tensor_by_name("layer/sub:0").op.type == "Sub"
