"""Recurrent networks: dynamic_rnn / static_rnn / bidirectional_dynamic_rnn with the TF1 cells,
against a NumPy LSTM/GRU, float64 gradients checked numerically, a training run, and (when
TensorFlow and its legacy Keras, tf_keras, are installed) against TensorFlow 1's cells: the
same variable names, outputs, final states and gradients."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1

rnn_cell = tf1.nn.rnn_cell


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm(x, kernel, bias, seq=None, forget_bias=1.0):
    """TF1's BasicLSTMCell over x [batch, time, depth]."""
    b, t, _ = x.shape
    n = bias.shape[0] // 4
    c, h = np.zeros((b, n)), np.zeros((b, n))
    outs = np.zeros((b, t, n))
    for k in range(t):
        i, j, f, o = np.split(np.concatenate([x[:, k], h], 1) @ kernel + bias, 4, axis=1)
        nc = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
        nh = np.tanh(nc) * _sigmoid(o)
        live = np.ones(b, bool) if seq is None else k < seq
        c, h = np.where(live[:, None], nc, c), np.where(live[:, None], nh, h)
        outs[:, k] = np.where(live[:, None], nh, 0)
    return outs, c, h


def _np_gru(x, gk, gb, ck, cb):
    b, t, _ = x.shape
    n = cb.shape[0]
    h = np.zeros((b, n))
    outs = []
    for k in range(t):
        r, u = np.split(_sigmoid(np.concatenate([x[:, k], h], 1) @ gk + gb), 2, axis=1)
        c = np.tanh(np.concatenate([x[:, k], r * h], 1) @ ck + cb)
        h = u * h + (1 - u) * c
        outs.append(h)
    return np.stack(outs, 1), h


def _values(session, cell):
    return [session.run(v) for v in cell.variables]


@pytest.mark.parametrize("with_lengths", [False, True])
def test_dynamic_rnn_lstm_matches_numpy(with_lengths):
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(3, 6, 4))
    seqv = np.array([6, 2, 4], np.int32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [None, None, 4])
        seq = tf1.placeholder(of.int32, [None])
        cell = rnn_cell.BasicLSTMCell(5)
        out, state = tf1.nn.dynamic_rnn(cell, x, sequence_length=seq if with_lengths else None, dtype=of.float64)
        init = tf1.global_variables_initializer()
    s = tf1.Session(graph=g)
    s.run(init)
    assert [v.name for v in cell.variables] == ["rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]
    kernel, bias = _values(s, cell)
    bias = rng.normal(size=bias.shape)
    cell.variables[1].load(bias, s)
    feed = {x: xv, seq: seqv}
    ov, (cv, hv) = s.run([out, state], feed)
    ref, rc, rh = _np_lstm(xv, kernel, bias, seqv if with_lengths else None)
    np.testing.assert_allclose(ov, ref, atol=1e-12)
    np.testing.assert_allclose(cv, rc, atol=1e-12)
    np.testing.assert_allclose(hv, rh, atol=1e-12)


def test_gru_time_major_and_static_rnn_agree_with_numpy():
    rng = np.random.default_rng(1)
    xv = rng.normal(size=(2, 5, 3))
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [2, 5, 3])
        cell = rnn_cell.GRUCell(4)
        out_tm, h_tm = tf1.nn.dynamic_rnn(cell, of.transpose(x, [1, 0, 2]), dtype=of.float64, time_major=True)
        outs, h_static = tf1.nn.static_rnn(cell, of.unstack(x, axis=1), dtype=of.float64)
        init = tf1.global_variables_initializer()
    s = tf1.Session(graph=g)
    s.run(init)
    assert len(cell.variables) == 4  # the static run reused the cell's variables
    ref, rh = _np_gru(xv, *_values(s, cell))
    o, h, so, sh = s.run([out_tm, h_tm, outs, h_static], {x: xv})
    np.testing.assert_allclose(np.transpose(o, (1, 0, 2)), ref, atol=1e-12)
    np.testing.assert_allclose(np.stack(so, 1), ref, atol=1e-12)
    np.testing.assert_allclose(h, rh, atol=1e-12)
    np.testing.assert_allclose(sh, rh, atol=1e-12)


def test_bidirectional_reverses_each_sequence_within_its_length():
    rng = np.random.default_rng(2)
    xv = rng.normal(size=(2, 5, 3))
    seqv = np.array([5, 3], np.int32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [None, 5, 3])
        seq = tf1.placeholder(of.int32, [None])
        fw, bw = rnn_cell.GRUCell(4), rnn_cell.GRUCell(4)
        (ofw, obw), (sfw, sbw) = tf1.nn.bidirectional_dynamic_rnn(fw, bw, x, sequence_length=seq, dtype=of.float64)
        init = tf1.global_variables_initializer()
    s = tf1.Session(graph=g)
    s.run(init)
    got_bw, got_sbw = s.run([obw, sbw], {x: xv, seq: seqv})
    params = _values(s, bw)
    for b, n in enumerate(seqv):
        rev = xv[b:b + 1, :n][:, ::-1]
        ref, rh = _np_gru(rev, *params)
        np.testing.assert_allclose(got_bw[b, :n], ref[0, ::-1], atol=1e-12)
        assert not got_bw[b, n:].any()
        np.testing.assert_allclose(got_sbw[b], rh[0], atol=1e-12)


@pytest.mark.parametrize("make_cell", [
    lambda: rnn_cell.BasicLSTMCell(3),
    lambda: rnn_cell.LSTMCell(3, use_peepholes=True, num_proj=2, cell_clip=0.8),
    lambda: rnn_cell.GRUCell(3),
    lambda: rnn_cell.MultiRNNCell([rnn_cell.BasicRNNCell(3), rnn_cell.BasicLSTMCell(3)]),
], ids=["basic_lstm", "lstm_peephole_projection", "gru", "multi"])
def test_dynamic_rnn_gradients_match_numeric(make_cell):
    rng = np.random.default_rng(3)
    xv = rng.normal(size=(2, 4, 3))
    seqv = np.array([4, 3], np.int32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [None, None, 3])
        cell = make_cell()
        out, _ = tf1.nn.dynamic_rnn(cell, x, sequence_length=seqv, dtype=of.float64)
        loss = of.reduce_sum(of.sin(out))
        grads = of.gradients(loss, [x] + cell.variables)
        init = tf1.global_variables_initializer()
    s = tf1.Session(graph=g)
    s.run(init)
    got = s.run(grads, {x: xv})

    def loss_at(values, xx):
        for v, val in zip(cell.variables, values):
            v.load(val, s)
        return s.run(loss, {x: xx})

    params = _values(s, cell)
    eps = 1e-6
    for k, target in enumerate([xv] + params):
        idx = tuple(rng.integers(0, d) for d in target.shape)  # one random element per tensor
        plus, minus = [p.copy() for p in params], [p.copy() for p in params]
        xp, xm = xv.copy(), xv.copy()
        if k == 0:
            xp[idx] += eps
            xm[idx] -= eps
        else:
            plus[k - 1][idx] += eps
            minus[k - 1][idx] -= eps
        numeric = (loss_at(plus, xp) - loss_at(minus, xm)) / (2 * eps)
        np.testing.assert_allclose(got[k][idx], numeric, atol=1e-6)


def test_lstm_trains_with_dropout():
    rng = np.random.default_rng(4)
    xv = rng.normal(size=(16, 6, 2)).astype(np.float32)
    yv = (xv[:, :, 0].sum(1, keepdims=True) > 0).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float32, [None, 6, 2])
        y = tf1.placeholder(of.float32, [None, 1])
        keep = tf1.placeholder(of.float32, [])
        cell = rnn_cell.DropoutWrapper(rnn_cell.BasicLSTMCell(8), output_keep_prob=keep)
        out, state = tf1.nn.dynamic_rnn(cell, x, dtype=of.float32)
        w = of.Variable(rng.normal(size=(8, 1)).astype(np.float32) * 0.1)
        logits = of.matmul(state.h, w)
        loss = of.reduce_mean(of.square(of.sigmoid(logits) - y))
        step = tf1.train.AdamOptimizer(0.05).minimize(loss)
        init = tf1.global_variables_initializer()
    s = tf1.Session(graph=g)
    s.run(init)
    first = s.run(loss, {x: xv, y: yv, keep: 1.0})
    for _ in range(60):
        s.run(step, {x: xv, y: yv, keep: 0.8})
    assert s.run(loss, {x: xv, y: yv, keep: 1.0}) < 0.6 * first


def test_dynamic_rnn_eagerly():
    rng = np.random.default_rng(5)
    xv = rng.normal(size=(2, 3, 4))
    cell = of.nn.rnn_cell.BasicLSTMCell(5)  # of.*'s cells run eagerly; compat.v1's build graphs
    out, state = of.nn.dynamic_rnn(cell, of.constant(xv), dtype=of.float64)
    kernel, bias = (v.numpy() for v in cell.variables)
    ref, rc, rh = _np_lstm(xv, kernel, bias)
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-12)
    np.testing.assert_allclose(state.h.numpy(), rh, atol=1e-12)


def test_dynamic_rnn_needs_a_dtype_or_a_state():
    with of.Graph().as_default():
        x = tf1.placeholder(of.float32, [None, 3, 2])
        with pytest.raises(ValueError, match="dtype"):
            tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), x)
        with pytest.raises(ValueError, match="last dimension"):
            tf1.nn.dynamic_rnn(rnn_cell.GRUCell(2), tf1.placeholder(of.float32, [None, 3, None]), dtype=of.float32)


# ------------------------------------------------------------------------- against TensorFlow


@pytest.fixture(scope="module")
def tf_v1():
    pytest.importorskip("tf_keras")  # TF 2.21's tf.compat.v1.nn.rnn_cell lives in legacy Keras
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


CELLS = {
    "basic_lstm": lambda ns: ns.nn.rnn_cell.BasicLSTMCell(6),
    "lstm_peephole_projection": lambda ns: ns.nn.rnn_cell.LSTMCell(6, use_peepholes=True, num_proj=3, cell_clip=0.5),
    "gru": lambda ns: ns.nn.rnn_cell.GRUCell(6),
    "basic_rnn": lambda ns: ns.nn.rnn_cell.BasicRNNCell(6),
    "multi": lambda ns: ns.nn.rnn_cell.MultiRNNCell([ns.nn.rnn_cell.BasicLSTMCell(6), ns.nn.rnn_cell.GRUCell(6)]),
}


@pytest.mark.parametrize("name", list(CELLS))
def test_same_as_tensorflow(tf_v1, name):
    rng = np.random.default_rng(6)
    xv = rng.normal(size=(3, 5, 4)).astype(np.float32)
    seqv = np.array([5, 2, 4], np.int32)

    def build(ns, dtype, int32):
        x = ns.placeholder(dtype, [None, 5, 4])
        seq = ns.placeholder(int32, [None])
        out, state = ns.nn.dynamic_rnn(CELLS[name](ns), x, sequence_length=seq, dtype=dtype)
        loss = ns.reduce_sum(out * out)
        variables = ns.trainable_variables()
        return x, seq, out, state, ns.gradients(loss, [x] + variables), variables, ns.global_variables_initializer()

    import tensorflow as tf  # noqa: PLC0415
    tg = tf.Graph()
    with tg.as_default():
        x, seq, out, state, grads, variables, init = build(tf_v1, tf.float32, tf.int32)
        ts = tf_v1.Session(graph=tg)
        ts.run(init)
        values = ts.run(variables)
        names = [v.name for v in variables]
        ref = ts.run([out, grads, state], {x: xv, seq: seqv})
    g = of.Graph()
    with g.as_default():
        x, seq, out, state, grads, variables, init = build(tf1, of.float32, of.int32)
    s = tf1.Session(graph=g)
    s.run(init)
    assert [v.name for v in variables] == names
    for v, val in zip(variables, values):
        v.load(val, s)
    got = s.run([out, grads, state], {x: xv, seq: seqv})
    np.testing.assert_allclose(got[0], ref[0], atol=1e-5)
    for a, b in zip(got[1], ref[1]):
        np.testing.assert_allclose(a, b, atol=2e-5)
    flat = lambda s_: [np.asarray(v) for v in (s_ if isinstance(s_, (list, tuple)) else [s_])]  # noqa: E731
    for a, b in zip(flat(got[2]), flat(ref[2])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-5)
