"""TensorArray in TF1 graphs (carried by while_loop and cond, written in a loop's body, read from
an array unstacked or scattered outside it) with float64 gradients checked against NumPy and
central differences, against TensorFlow's own TF1 program when TensorFlow is installed, and TF1
GraphDefs holding TensorArrayV3 ops imported as TensorList ops."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import UnimplementedError
from numeric_check import numeric_grad as _numeric_grad

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.nn.rnn_cell needs Keras 2


# ---------------------------------------------------------------------------- graphs

T, B, D, H = 5, 2, 3, 4


def _rnn_values(seed=7):
    rng = np.random.default_rng(seed)
    return {"W": rng.normal(size=(D, H)) * 0.6, "U": rng.normal(size=(H, H)) * 0.5,
            "b": rng.normal(size=H) * 0.3, "v": rng.normal(size=H)}


def _rnn_program(tf, vals, fill):
    """A TF1 program (``tf`` is opforge.compat.v1 or tensorflow.compat.v1): an RNN over x's
    first dimension in tf.while_loop, the input TensorArray filled outside the loop (unstack, or
    scatter in reverse) and read inside it, two output TensorArrays written each step (one of
    fixed size, one dynamic_size from 0). Returns the feeds, the outputs and the gradients."""
    x = tf.placeholder(tf.float64, [None, None, D], name="x")
    h0 = tf.placeholder(tf.float64, [None, H], name="h0")
    W = tf.Variable(vals["W"], name="W")
    U = tf.Variable(vals["U"], name="U")
    b = tf.Variable(vals["b"], name="b")
    n = tf.shape(x)[0]
    inp = tf.TensorArray(tf.float64, size=n)
    inp = inp.unstack(x) if fill == "unstack" else inp.scatter(tf.range(n - 1, -1, -1), x)
    out = tf.TensorArray(tf.float64, size=n)
    norms = tf.TensorArray(tf.float64, size=0, dynamic_size=True)

    def body(t, h, out, norms):
        h = tf.tanh(tf.matmul(inp.read(t), W) + tf.matmul(h, U) + b)
        return t + 1, h, out.write(t, h), norms.write(t, tf.reduce_sum(h * h, axis=1))

    _, h_last, out, norms = tf.while_loop(lambda t, h, o, m: t < n, body, [tf.constant(0), h0, out, norms])
    ys, ns = out.stack(), norms.stack()
    loss = tf.reduce_sum(ys * vals["v"]) + 0.5 * tf.reduce_sum(h_last * h_last) + tf.reduce_sum(tf.cos(ns))
    grads = tf.gradients(loss, [x, h0, W, U, b])
    return (x, h0), [ys, ns, loss], grads


def _rnn_numpy(xv, h0v, W, U, b, v, fill):
    xs = xv if fill == "unstack" else xv[::-1]
    h, ys = h0v, []
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ W + h @ U + b)
        ys.append(h)
    ys = np.stack(ys)
    ns = (ys * ys).sum(axis=2)
    return ys, ns, (ys * v).sum() + 0.5 * (h * h).sum() + np.cos(ns).sum()


def _run_rnn(tf, vals, fill, feeds):
    g = tf.Graph()
    with g.as_default():
        (x, h0), outs, grads = _rnn_program(tf, vals, fill)
        with tf.Session(graph=g) as s:
            s.run(tf.global_variables_initializer())
            return [s.run([outs, grads], {x: xv, h0: hv}) for xv, hv in feeds]


def _rnn_feeds(seed=8):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(n, B, D)), rng.normal(size=(B, H)) * 0.5) for n in (T, 3)]


@pytest.mark.parametrize("fill", ["unstack", "scatter"])
def test_rnn_loop_outputs_and_gradients(fill):
    vals = _rnn_values()
    feeds = _rnn_feeds()
    results = _run_rnn(tf1, vals, fill, feeds)
    for (xv, hv), ((ys, ns, loss), grads) in zip(feeds, results):
        want_ys, want_ns, want_loss = _rnn_numpy(xv, hv, vals["W"], vals["U"], vals["b"], vals["v"], fill)
        np.testing.assert_allclose(ys, want_ys, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(ns, want_ns, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
        args = [xv, hv, vals["W"], vals["U"], vals["b"]]
        for k, got in enumerate(grads):
            def f(a, k=k):
                call = list(args)
                call[k] = a
                return _rnn_numpy(*call, vals["v"], fill)[2]
            np.testing.assert_allclose(got, _numeric_grad(f, args[k]), atol=1e-7, rtol=1e-6)


def test_graph_dynamic_size_loop_data_dependent_length():
    rng = np.random.default_rng(9)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [3])
        n = tf1.placeholder(of.int32, [])
        ta = tf1.TensorArray(of.float64, size=0, dynamic_size=True)
        assert ta.flow.graph is g  # compat.v1's TensorArray builds into the default graph

        def body(t, ta):
            return t + 1, ta.write(t, x * of.cast(t + 1, of.float64))

        _, ta = tf1.while_loop(lambda t, ta: t < n, body, [0, ta])
        stacked, size = ta.stack(), ta.size()
        (gx,) = tf1.gradients(of.reduce_sum(of.sin(stacked)), [x])
    s = tf1.Session(graph=g)
    xv = rng.normal(size=3)
    for k in (1, 4, 7):
        got, got_size, got_g = s.run([stacked, size, gx], {x: xv, n: k})
        want = xv[None, :] * np.arange(1, k + 1)[:, None]
        assert got_size == k
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got_g, (np.cos(want) * np.arange(1, k + 1)[:, None]).sum(0), rtol=1e-10)


def test_gather_scatter_split_concat_gradients():
    rng = np.random.default_rng(10)
    w1, w2, w3, w4 = (rng.normal(size=s) for s in ((4, 2), (6, 2), (3, 2), (5, 2)))
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [6, 2])
        z = tf1.placeholder(of.float64, [3, 2])
        sc = tf1.TensorArray(of.float64, size=5).write(1, x[5]).scatter([4, 0, 2], z)
        ga = sc.gather([2, 1, 4, 0])
        st = sc.stack()
        sp = tf1.TensorArray(of.float64, size=3).split(x, [1, 3, 2])
        cc = sp.concat()
        rd = sp.read(1)
        loss = (of.reduce_sum(of.sin(ga) * w1) + of.reduce_sum(cc * cc * w2) + of.reduce_sum(rd * w3)
                + of.reduce_sum(of.exp(st * 0.3) * w4))
        gx, gz = tf1.gradients(loss, [x, z])
    s = tf1.Session(graph=g)
    xv, zv = rng.normal(size=(6, 2)), rng.normal(size=(3, 2))

    def f(xx, zz):
        lst = np.zeros((5, 2))
        lst[1] = xx[5]
        lst[[4, 0, 2]] = zz
        return ((np.sin(lst[[2, 1, 4, 0]]) * w1).sum() + (xx * xx * w2).sum() + (xx[1:4] * w3).sum()
                + (np.exp(lst * 0.3) * w4).sum())

    got_loss, got_cc, got_rd, got_gx, got_gz = s.run([loss, cc, rd, gx, gz], {x: xv, z: zv})
    np.testing.assert_allclose(got_loss, f(xv, zv), rtol=1e-12)
    np.testing.assert_array_equal(got_cc, xv)
    np.testing.assert_array_equal(got_rd, xv[1:4])
    np.testing.assert_allclose(got_gx, _numeric_grad(lambda a: f(a, zv), xv), atol=1e-8)
    np.testing.assert_allclose(got_gz, _numeric_grad(lambda a: f(xv, a), zv), atol=1e-8)


def test_gather_repeated_indices_gradient():
    rng = np.random.default_rng(11)
    w = rng.normal(size=(4, 2))
    idx = [2, 1, 4, 4]
    g = of.Graph()
    with g.as_default():
        z = tf1.placeholder(of.float64, [3, 2])
        ga = tf1.TensorArray(of.float64, size=5).scatter([4, 0, 2], z).gather(idx)
        (gz,) = tf1.gradients(of.reduce_sum(ga * w), [z])
    zv = rng.normal(size=(3, 2))
    want = np.zeros((5, 2))
    np.add.at(want, idx, w)
    np.testing.assert_allclose(tf1.Session(graph=g).run(gz, {z: zv}), want[[4, 0, 2]], rtol=1e-12)


def test_gather_repeated_indices_gradient_of_unstacked_array():
    """An array unstacked from a tensor (and not written since) gathers from the tensor: its
    gradient sums over repeated indices."""
    rng = np.random.default_rng(19)
    w = rng.normal(size=(5, 2))
    idx = [2, 0, 2, 2, 1]
    g = of.Graph()
    with g.as_default():
        z = tf1.placeholder(of.float64, [3, 2])
        ga = tf1.TensorArray(of.float64, size=3).unstack(z).gather(idx)
        (gz,) = tf1.gradients(of.reduce_sum(ga * w), [z])
    zv = rng.normal(size=(3, 2))
    want = np.zeros((3, 2))
    np.add.at(want, idx, w)
    got_ga, got_gz = tf1.Session(graph=g).run([ga, gz], {z: zv})
    np.testing.assert_array_equal(got_ga, zv[idx])
    np.testing.assert_allclose(got_gz, want, rtol=1e-12)


def test_scatter_repeated_indices_gradient():
    rng = np.random.default_rng(20)
    w = rng.normal(size=(3, 2))
    g = of.Graph()
    with g.as_default():
        z = tf1.placeholder(of.float64, [3, 2])
        st = tf1.TensorArray(of.float64, size=3).scatter([1, 1, 0], z).stack()
        (gz,) = tf1.gradients(of.reduce_sum(st * w), [z])
    zv = rng.normal(size=(3, 2))
    got_st, got_gz = tf1.Session(graph=g).run([st, gz], {z: zv})
    np.testing.assert_array_equal(got_st, np.stack([zv[2], zv[1], np.zeros(2)]))  # the last write wins
    np.testing.assert_allclose(got_gz, np.stack([np.zeros(2), w[1], w[0]]), rtol=1e-12)


def test_cond_returns_tensor_array():
    rng = np.random.default_rng(12)
    wv = rng.normal(size=(4, 3))
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [4, 3])
        p = tf1.placeholder(of.bool, [])
        ta = tf1.TensorArray(of.float64, size=4).unstack(x)
        out = tf1.cond(p, lambda: ta.write(0, ta.read(3) * 2.0), lambda: ta.write(2, of.sin(ta.read(1))))
        assert isinstance(out, of.TensorArray)
        assert out.element_shape.as_list() == [3]
        y = out.stack()
        loss = of.reduce_sum(y * y * wv)
        (gx,) = tf1.gradients(loss, [x])
    s = tf1.Session(graph=g)
    xv = rng.normal(size=(4, 3))

    def f(xx, pv):
        r = xx.copy()
        if pv:
            r[0] = xx[3] * 2.0
        else:
            r[2] = np.sin(xx[1])
        return r

    for pv in (True, False):
        got_y, got_g = s.run([y, gx], {x: xv, p: pv})
        np.testing.assert_allclose(got_y, f(xv, pv), rtol=1e-12)
        np.testing.assert_allclose(got_g, _numeric_grad(lambda a: (f(a, pv) ** 2 * wv).sum(), xv), atol=1e-8)


# ---------------------------------------------------------------------------- against TensorFlow


@pytest.fixture
def tf_cf():
    """TensorFlow with control flow v1 or v2 as asked (restored afterwards)."""
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import control_flow_util  # noqa: PLC0415
    old = control_flow_util.ENABLE_CONTROL_FLOW_V2

    def use(v2: bool):
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = v2
        return tf

    try:
        yield use
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = old


@pytest.mark.parametrize("fill", ["unstack", "scatter"])
@pytest.mark.parametrize("cf_v2", [False, True], ids=["cf_v1", "cf_v2"])
def test_rnn_program_matches_tensorflow(tf_cf, cf_v2, fill):
    tf = tf_cf(cf_v2)
    vals = _rnn_values(13)
    feeds = _rnn_feeds(14)
    want = _run_rnn(tf.compat.v1, vals, fill, feeds)
    got = _run_rnn(tf1, vals, fill, feeds)
    for (w_outs, w_grads), (g_outs, g_grads) in zip(want, got):
        for a, b in zip(w_outs + w_grads, g_outs + g_grads):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-12)


# ---------------------------------------------------------------------------- GraphDef import


def _lstm_cell(tf, units):
    try:
        return tf.compat.v1.nn.rnn_cell.LSTMCell(units)
    except AttributeError:  # TensorFlow imported before TF_USE_LEGACY_KERAS was set
        from tf_keras.src.layers.rnn.legacy_cells import LSTMCell  # noqa: PLC0415
        return LSTMCell(units)


@pytest.mark.filterwarnings("ignore:.*LSTMCell.*deprecated")
def test_import_tf1_tensor_array_graph_def(tf_cf):
    tf = tf_cf(False)
    v1 = tf.compat.v1
    rng = np.random.default_rng(15)
    g = tf.Graph()
    with g.as_default():
        v1.set_random_seed(0)
        x = v1.placeholder(tf.float32, [None, 6, 5], name="x")
        p = v1.placeholder(tf.bool, [], name="p")
        n = v1.placeholder(tf.int32, [], name="n")
        out, _ = v1.nn.dynamic_rnn(_lstm_cell(tf, 7), x, dtype=tf.float32)
        tf.identity(out, name="rnn_out")
        sp = v1.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[None, 5])
        sp = sp.split(tf.reshape(x, [-1, 5]), lengths=tf.fill([tf.shape(x)[0]], np.int64(6)))
        tf.identity(sp.concat() * 2.0, name="concat_out")
        sc = v1.TensorArray(tf.float32, size=8, clear_after_read=False)
        sc = sc.scatter(tf.range(6)[::-1], tf.transpose(x, [1, 0, 2]))
        tf.identity(sc.gather([0, 2, 5]), name="gather_out")
        tf.identity(sc.size(), name="size_out")
        branched = v1.cond(p, lambda: sc.write(6, sc.read(5) * 2.0).write(7, sc.read(0)),
                           lambda: sc.write(7, -sc.read(4)).write(6, sc.read(1) + 1.0))
        tf.identity(branched.stack(), name="cond_out")
        dyn = v1.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, dyn = v1.while_loop(lambda t, d: t < n,
                               lambda t, d: (t + 1, d.write(t, tf.reduce_sum(x, [1, 2]) * tf.cast(t, tf.float32))),
                               [0, dyn])
        tf.identity(dyn.stack(), name="loop_out")
        tf.identity(dyn.size(), name="loop_size")
        names = ["rnn_out", "concat_out", "gather_out", "size_out", "cond_out", "loop_out", "loop_size"]
        sess = v1.Session(graph=g)
        sess.run(v1.global_variables_initializer())
        gd = v1.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), names)
        feeds = [(rng.normal(size=(3, 6, 5)).astype(np.float32), True, 4),
                 (rng.normal(size=(2, 6, 5)).astype(np.float32), False, 2)]
        fetches = [k + ":0" for k in names]
        want = [sess.run(fetches, {x: xv, p: pv, n: nv}) for xv, pv, nv in feeds]
        sess.close()
    ta_ops = {nd.op for nd in gd.node if nd.op.startswith("TensorArray")}
    assert {"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayScatterV3",
            "TensorArrayGatherV3", "TensorArraySplitV3", "TensorArrayConcatV3", "TensorArraySizeV3"} <= ta_ops
    og = of.Graph()
    with og.as_default():
        of.import_graph_def(gd, name="")
    assert not any(o.type.startswith("TensorArray") for o in og.get_operations())
    with of.Session(graph=og) as s:
        for (xv, pv, nv), w in zip(feeds, want):
            got = s.run(fetches, {"x:0": xv, "p:0": pv, "n:0": nv})
            for name, a, b in zip(names, w, got):
                assert np.shape(a) == np.shape(b), name
                np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5, err_msg=name)


def _graph_def_with_constants(**consts):
    g = of.Graph()
    with g.as_default():
        for k, v in consts.items():
            tf1.constant(v, name=k)
    return g.as_graph_def()


def _add_node(gd, name, op, inputs, **attrs):
    nd = gd.node.add(name=name, op=op)
    nd.input.extend(inputs)
    for k, v in attrs.items():
        if k in ("dtype", "T"):
            nd.attr[k].type = v
        elif isinstance(v, bool):
            nd.attr[k].b = v
        else:  # a shape
            nd.attr[k].shape.SetInParent()
            for d in v:
                nd.attr[k].shape.dim.add().size = d
    return nd


_DT_FLOAT = 1


def test_import_hand_built_tensor_array_graph_def():
    """TensorArrayV3 ops in a GraphDef import without TensorFlow: scatter, read, gather, size,
    split, concat, close."""
    rng = np.random.default_rng(16)
    vals = rng.normal(size=(3, 2)).astype(np.float32)
    gd = _graph_def_with_constants(size=np.int32(3), vals=vals, idx=np.array([2, 0, 1], np.int32),
                                   one=np.int32(1), gidx=np.array([2, 1], np.int32),
                                   lengths=np.array([1, 2], np.int64), two=np.int32(2))
    _add_node(gd, "ta", "TensorArrayV3", ["size"], dtype=_DT_FLOAT, element_shape=[2], dynamic_size=False)
    _add_node(gd, "scatter", "TensorArrayScatterV3", ["ta", "idx", "vals", "ta:1"], T=_DT_FLOAT)
    _add_node(gd, "read", "TensorArrayReadV3", ["ta", "one", "scatter"], dtype=_DT_FLOAT)
    _add_node(gd, "gather", "TensorArrayGatherV3", ["ta", "gidx", "scatter"], dtype=_DT_FLOAT, element_shape=[2])
    _add_node(gd, "size_out", "TensorArraySizeV3", ["ta", "scatter"])
    _add_node(gd, "ta2", "TensorArrayV3", ["two"], dtype=_DT_FLOAT, dynamic_size=False)
    _add_node(gd, "split", "TensorArraySplitV3", ["ta2", "vals", "lengths", "ta2:1"], T=_DT_FLOAT)
    _add_node(gd, "concat", "TensorArrayConcatV3", ["ta2", "split"], dtype=_DT_FLOAT, element_shape_except0=[2])
    _add_node(gd, "close", "TensorArrayCloseV3", ["ta2"])
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd, name="")
    s = of.Session(graph=g)
    read, gather, size, concat, lengths = s.run(["read:0", "gather:0", "size_out:0", "concat:0", "concat:1"])
    lst = np.zeros((3, 2), np.float32)
    lst[[2, 0, 1]] = vals
    np.testing.assert_array_equal(read, lst[1])
    np.testing.assert_array_equal(gather, lst[[2, 1]])
    assert size == 3
    np.testing.assert_array_equal(concat, vals)
    np.testing.assert_array_equal(lengths, [1, 2])
    s.run("close")


def test_tensor_array_grad_v3_in_graph_def_is_unimplemented():
    gd = _graph_def_with_constants(size=np.int32(2), i=np.int32(0), v=np.float32([1.5, -2.0]))
    _add_node(gd, "ta", "TensorArrayV3", ["size"], dtype=_DT_FLOAT, element_shape=[2], dynamic_size=False)
    grad = _add_node(gd, "ta_grad_of_loss", "TensorArrayGradV3", ["ta", "ta:1"])
    grad.attr["source"].s = b"gradients"
    _add_node(gd, "grad_write", "TensorArrayWriteV3", ["ta_grad_of_loss", "i", "v", "ta_grad_of_loss:1"],
              T=_DT_FLOAT)
    g = of.Graph()
    with g.as_default(), pytest.raises(UnimplementedError, match=r"ta_grad_of_loss") as info:
        of.import_graph_def(gd, name="")
    assert "TensorArrayGradV3" in str(info.value)
    assert not g.get_operations()
    with pytest.raises(UnimplementedError, match="TensorArrayGradV3"):
        of.TensorArray(of.float32, size=2).grad("gradients")


def test_unwritten_elements_take_the_written_shape():
    """A TensorArray written only up to step 3 of 5 (TF1's dynamic_rnn with sequence_length
    shorter than the time steps) stacks the rest as zeros of the written elements' shape, as
    TensorFlow's list kernels do, though element_shape is only partly known."""
    with tf1.Graph().as_default() as g:
        x = tf1.placeholder(tf1.float32, [None, 3])
        ta = tf1.TensorArray(tf1.float32, size=5, element_shape=tf1.TensorShape([None, 3]))
        for i in range(3):
            ta = ta.write(i, x * float(i + 1))
        stacked, gathered = ta.stack(), ta.gather([4, 1])
        with tf1.Session(graph=g) as sess:
            xv = np.arange(6, dtype=np.float32).reshape(2, 3)
            s, gv = sess.run([stacked, gathered], {x: xv})
    assert s.shape == (5, 2, 3)
    np.testing.assert_array_equal(s[:3], [xv, 2 * xv, 3 * xv])
    np.testing.assert_array_equal(s[3:], np.zeros((2, 2, 3)))
    np.testing.assert_array_equal(gv, [np.zeros((2, 3)), 2 * xv])
