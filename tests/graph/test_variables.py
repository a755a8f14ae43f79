"""Variables: graph (VariableV2/Assign/AssignAdd/AssignSub, per-session state) and eager."""

import numpy as np
import pytest

import opforge as of


def test_graph_variable_structure(graph):
    v = of.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    assert v.name == "w:0"
    assert v.op.type == "VariableV2" and v.op.name == "w"
    assert v.dtype == of.float32
    assert v.shape.as_list() == [2, 3]
    assert v.initializer.type == "Assign"
    assert v.initializer.name.startswith("w/")
    assert graph.get_operation_by_name("w/read").type == "Identity"
    assert v in of.global_variables() and v in of.trainable_variables()
    frozen = of.Variable(1.0, name="frozen", trainable=False)
    assert frozen in of.global_variables() and frozen not in of.trainable_variables()
    v2 = of.Variable(0.0, name="w")
    assert v2.op.name == "w_1"


def test_variable_dtype_argument(graph):
    v = of.Variable(3, dtype=of.float64, name="d")
    assert v.dtype == of.float64
    i = of.Variable(np.int32(3), name="i")
    assert i.dtype == of.int32
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        out = sess.run(v)
        assert out.dtype == np.float64 and out == 3.0


def test_initializer_and_read(graph):
    init_val = np.array([[1.0, 2.0], [3.0, 4.0]])
    v = of.Variable(init_val, name="v")
    y = of.matmul(v, v)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v), init_val)
        np.testing.assert_allclose(sess.run(y), init_val @ init_val)


def test_variable_from_graph_tensor_initial_value(graph):
    x = of.constant(np.float32(2.0)) * 3.0
    v = of.Variable(x, name="from_tensor")
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        assert sess.run(v) == 6.0


def test_assign_ops(graph):
    v = of.Variable(np.array([1.0, 2.0], np.float32), name="v")
    a = v.assign([10.0, 20.0])
    aa = v.assign_add([1.0, 1.0])
    asub = v.assign_sub([0.5, 0.5])
    assert a.op.type == "Assign" and aa.op.type == "AssignAdd" and asub.op.type == "AssignSub"
    fa = of.assign(v, [7.0, 7.0])
    assert fa.op.type == "Assign"
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(a), [10, 20])
        np.testing.assert_array_equal(sess.run(aa), [11, 21])
        np.testing.assert_array_equal(sess.run(aa), [12, 22])
        np.testing.assert_array_equal(sess.run(asub), [11.5, 21.5])
        np.testing.assert_array_equal(sess.run(v), [11.5, 21.5])
        np.testing.assert_array_equal(sess.run(fa), [7, 7])
        sess.run(aa.op)
        np.testing.assert_array_equal(sess.run(v), [8, 8])


def test_assign_from_placeholder(graph):
    v = of.Variable(np.zeros(3), name="v")
    p = of.placeholder(of.float64, [3])
    upd = v.assign(p)
    with of.Session() as sess:
        sess.run(v.initializer)
        sess.run(upd, {p: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(v), [1, 2, 3])


def test_sessions_hold_separate_state(graph):
    v = of.Variable(np.float32(0.0), name="v")
    inc = v.assign_add(1.0)
    s1, s2 = of.Session(), of.Session()
    s1.run(of.global_variables_initializer())
    s2.run(of.global_variables_initializer())
    for _ in range(3):
        s1.run(inc)
    s2.run(inc)
    assert s1.run(v) == 3.0 and s2.run(v) == 1.0
    s3 = of.Session()
    with pytest.raises(of.FailedPreconditionError) as exc:
        s3.run(v)
    assert "'v'" in str(exc.value) or " v" in str(exc.value)
    for s in (s1, s2, s3):
        s.close()


def test_reinitialize_resets(graph):
    v = of.Variable(np.float32(1.0), name="v")
    inc = v.assign_add(2.0)
    init = of.global_variables_initializer()
    with of.Session() as sess:
        sess.run(init)
        sess.run(inc)
        assert sess.run(v) == 3.0
        sess.run(init)
        assert sess.run(v) == 1.0


def test_variables_initializer_subset(graph):
    a = of.Variable(1.0, name="a")
    b = of.Variable(2.0, name="b")
    with of.Session() as sess:
        sess.run(of.variables_initializer([a]))
        assert sess.run(a) == 1.0
        with pytest.raises(of.FailedPreconditionError) as exc:
            sess.run(b)
        assert "b" in str(exc.value)


def test_global_variables_initializer_empty_graph(graph):
    init = of.global_variables_initializer()
    with of.Session() as sess:
        assert sess.run(init) is None


def test_assign_shape_mismatch_at_run_time(graph):
    v = of.Variable(np.zeros((2, 2), np.float32), name="v")
    p = of.placeholder(of.float32, name="p")
    a = v.assign(p, name="late_assign")
    aa = v.assign_add(p, name="late_add")
    with of.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(a, {p: np.ones(5, np.float32)})
        assert "late_assign" in str(exc.value)
        with pytest.raises(of.InvalidArgumentError) as exc:
            sess.run(aa, {p: np.ones(2, np.float32)})
        assert "late_add" in str(exc.value)
        np.testing.assert_array_equal(sess.run(v), np.zeros((2, 2)))  # unchanged


def test_assign_shape_mismatch_at_construction(graph):
    v = of.Variable(np.zeros((2, 2), np.float32), name="v")
    with pytest.raises(of.InvalidArgumentError):
        v.assign(np.zeros((3,), np.float32))


def test_variable_eval_and_load(graph):
    v = of.Variable(np.array([1.0, 2.0]), name="v")
    with of.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(v.eval(), [1, 2])
        v.load([5.0, 6.0], sess)
        np.testing.assert_array_equal(sess.run(v), [5, 6])


# ------------------------------------------------------------------ eager


def test_eager_variable_basics():
    v = of.Variable(np.array([1.0, 2.0, 3.0]), name="ev")
    assert not isinstance(v, of.GraphTensor)
    assert v.name == "ev:0"
    assert v.dtype == of.float64
    assert tuple(v.shape) == (3,)
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])
    v.assign([4.0, 5.0, 6.0])
    np.testing.assert_array_equal(v.numpy(), [4, 5, 6])
    v.assign_add([1.0, 1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [5, 6, 7])
    v.assign_sub([2.0, 2.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [3, 4, 5])
    np.testing.assert_array_equal(np.asarray(v), [3, 4, 5])
    np.testing.assert_array_equal((v * 2.0).numpy(), [6, 8, 10])
    np.testing.assert_array_equal(of.add(v, v).numpy(), [6, 8, 10])
    with pytest.raises(of.InvalidArgumentError):
        v.assign([1.0, 2.0])


def test_eager_variable_with_tape_is_watched(rng):
    w0 = rng.normal(size=(3, 2))
    x = rng.normal(size=(4, 3))
    w = of.Variable(w0, name="w")
    b = of.Variable(np.zeros(2), name="b")
    with of.GradientTape() as tape:
        loss = of.reduce_sum(of.square(of.matmul(of.constant(x), w) + b))
    gw, gb = tape.gradient(loss, [w, b])
    pred = x @ w0
    np.testing.assert_allclose(gw.numpy(), 2 * x.T @ pred, rtol=1e-10)
    np.testing.assert_allclose(gb.numpy(), 2 * pred.sum(0), rtol=1e-10)


def test_eager_non_trainable_not_watched():
    v = of.Variable(np.array([1.0, 2.0]), trainable=False)
    with of.GradientTape() as tape:
        y = of.reduce_sum(v * v)
    assert tape.gradient(y, v) is None


def test_eager_training_loop_with_assign(rng):
    """Linear regression by hand: tape gradients + assign_sub reach lstsq."""
    X = rng.normal(size=(50, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3
    w = of.Variable(np.zeros(3))
    b = of.Variable(0.0, dtype=of.float64)
    Xc, yc = of.constant(X), of.constant(y)
    for _ in range(300):
        with of.GradientTape() as tape:
            pred = of.reshape(of.matmul(Xc, of.reshape(w, [3, 1])), [-1]) + b
            loss = of.reduce_mean(of.square(pred - yc))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw.numpy())
        b.assign_sub(0.1 * gb.numpy())
    A = np.hstack([X, np.ones((50, 1))])
    ref = np.linalg.lstsq(A, y, rcond=None)[0]
    np.testing.assert_allclose(w.numpy(), ref[:3], atol=1e-6)
    np.testing.assert_allclose(b.numpy(), ref[3], atol=1e-6)


def test_numpy_array_times_variable_is_a_graph_op():
    """ndarray * RefVariable builds an op (NumPy defers to the variable, as to a tensor);
    before, NumPy made an object array of per-element products."""
    import opforge.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0])
        out = np.array([3.0, 4.0], np.float32) * v
        assert isinstance(out, tf.Tensor)
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(out), [3.0, 8.0])


def test_uniform_initial_values_are_fill_ops(graph):
    """A large initial value whose elements are all one value (zeros, ones, an optimizer's
    slots) is a Fill op, as TensorFlow's zeros are: the GraphDef holds one number, not a
    constant the variable's size. Small ones and non-uniform ones stay constants; values, load
    and the optimizer's slots behave as before."""
    import opforge.compat.v1 as tf1

    z = tf1.get_variable("z", [40, 50], initializer=tf1.zeros_initializer())
    o = of.Variable(np.full((3000,), 2.5, np.float64), name="o")
    small = of.Variable(np.zeros(999, np.float32), name="small")
    nan = of.Variable(np.full(2000, np.nan, np.float32), name="nan")
    w = of.Variable(np.random.default_rng(0).standard_normal((50, 40)).astype(np.float32), name="w")
    assert z.initial_value.op.type == "Fill" and o.initial_value.op.type == "Fill"
    assert small.initial_value.op.type == "Const" and nan.initial_value.op.type == "Const"
    assert w.initial_value.op.type == "Const"
    loss = tf1.reduce_sum(tf1.matmul(z, w)) + tf1.cast(tf1.reduce_sum(o), tf1.float32)
    train = tf1.train.AdamOptimizer(0.1).minimize(loss)
    slots = [v for v in tf1.global_variables() if "Adam" in v.op.name and v.shape.num_elements() >= 1000]
    assert slots and all(s.initial_value.op.type == "Fill" for s in slots)
    assert graph.as_graph_def().ByteSize() < 50_000  # w's 8 KB, and no array for z, o or the slots
    with of.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        assert sess.run(z).shape == (40, 50) and not sess.run(z).any()
        np.testing.assert_array_equal(sess.run(o), np.full(3000, 2.5))
        assert o.dtype == of.float64 and np.isnan(sess.run(nan)).all()
        sess.run(train)
        z.load(np.ones((40, 50), np.float32), sess)
        np.testing.assert_array_equal(sess.run(z), np.ones((40, 50)))
