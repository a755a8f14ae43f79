"""TensorFlow's friendly array functions (of.concat, of.split, of.gather ...), tensor indexing
(``x[1:, ..., None, ::-2]``) eagerly and in graphs, and their gradients."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of

X = np.arange(60.0).reshape(3, 4, 5)

KEYS = [
    1, -1, (0, 2), (slice(None), 1), slice(1, None), slice(None, None, -1), slice(-2, 0, -1),
    (Ellipsis, 0), (Ellipsis, slice(None, None, -2)), (None, 0), (1, None, slice(None), None),
    (slice(None), None, Ellipsis, -1), (slice(0, 10, 2), slice(-100, 100), slice(4, None, -3)),
    (2, -1, -1), (slice(3, 1),), (np.int64(1), slice(np.int32(1), None)), Ellipsis, (Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    got = of.constant(X)[key]
    np.testing.assert_array_equal(got.numpy(), X[key])


@pytest.mark.parametrize("key", KEYS[:12], ids=[repr(k) for k in KEYS[:12]])
def test_getitem_gradient(key):
    x = of.constant(X)
    w = np.random.default_rng(0).uniform(size=X[key].shape)
    with of.GradientTape() as tape:
        tape.watch(x)
        loss = of.reduce_sum(of.mul(x[key], w))
    want = np.zeros_like(X)
    want[key] += w
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), want)


def test_getitem_errors():
    x = of.constant(X)
    with pytest.raises(of.InvalidArgumentError, match="StridedSlice"):
        x[3]
    with pytest.raises(of.InvalidArgumentError, match="StridedSlice"):
        x[0, 0, 0, 0]
    with pytest.raises(TypeError):
        x[[0, 1]]
    with pytest.raises(ValueError):
        x[::0]
    with pytest.raises(IndexError):
        x[..., ...]


def test_tensor_iteration():
    rows = list(of.constant(X))
    assert len(rows) == 3 and all(np.array_equal(r.numpy(), X[i]) for i, r in enumerate(rows))
    with pytest.raises(TypeError):
        list(of.constant(1.0))


def test_getitem_in_a_graph_with_unknown_dims():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float64, [None, 4, 5])
        y = x[:, 1:3, ::-1]
        z = x[0]
        loss = of.reduce_sum(of.mul(y, y))
        (dx,) = of.gradients(loss, [x])
    assert y.shape.as_list() == [None, 2, 5] and z.shape.as_list() == [4, 5]
    with of.Session(graph=g) as sess:
        yv, zv, dxv = sess.run([y, z, dx], {x: X})
    np.testing.assert_array_equal(yv, X[:, 1:3, ::-1])
    np.testing.assert_array_equal(zv, X[0])
    want = np.zeros_like(X)
    want[:, 1:3] = 2 * X[:, 1:3]
    np.testing.assert_allclose(dxv, want)


def test_friendly_functions_match_numpy():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    np.testing.assert_array_equal(of.concat([a, b], 1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(of.concat([a], 0).numpy(), a)
    np.testing.assert_array_equal(of.stack([a, b], axis=-1).numpy(), np.stack([a, b], -1))
    assert [t.numpy().tolist() for t in of.unstack(a)] == a.tolist()
    assert [t.shape for t in of.split(X, 2, axis=1)] == [(3, 2, 5)] * 2
    assert [t.shape for t in of.split(X, [1, -1, 2], axis=2)] == [(3, 4, 1), (3, 4, 2), (3, 4, 2)]
    np.testing.assert_array_equal(of.slice(X, [1, 0, 2], [-1, 2, 1]).numpy(), X[1:, 0:2, 2:3])
    np.testing.assert_array_equal(of.strided_slice(X, [0, 3], [3, 0], [2, -1]).numpy(), X[0:3:2, 3:0:-1])
    np.testing.assert_array_equal(of.gather(X, [3, 0], axis=1).numpy(), X[:, [3, 0]])
    idx = np.array([[0, 2], [1, 1], [3, 0]])
    np.testing.assert_array_equal(of.gather(X, idx, axis=1, batch_dims=1).numpy(),
                                  np.stack([X[i][idx[i]] for i in range(3)]))
    np.testing.assert_array_equal(of.gather_nd(X, [[0, 1], [2, 3]]).numpy(), X[[0, 2], [1, 3]])
    np.testing.assert_array_equal(of.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]).numpy(), [0, 4, 0, 2, 0])
    np.testing.assert_array_equal(of.pad(a, [[1, 0], [0, 2]], constant_values=-1).numpy(),
                                  np.pad(a, [[1, 0], [0, 2]], constant_values=-1))
    np.testing.assert_array_equal(of.tile(a, [2, 1]).numpy(), np.tile(a, [2, 1]))
    assert of.expand_dims(a, -1).shape == (2, 3, 1) and of.squeeze(np.ones((1, 2, 1)), axis=[0]).shape == (2, 1)
    oh = of.one_hot([0, 2, -1], 3, on_value=5, off_value=1, dtype=of.int32)
    assert oh.dtype == of.int32 and oh.numpy().tolist() == [[5, 1, 1], [1, 1, 5], [1, 1, 1]]
    assert of.one_hot([1], 2, axis=0).numpy().tolist() == [[0.0], [1.0]]
    np.testing.assert_array_equal(of.reverse(X, [0, -1]).numpy(), X[::-1, :, ::-1])
    np.testing.assert_array_equal(of.broadcast_to([1, 2, 3], [2, 3]).numpy(), np.broadcast_to([1, 2, 3], (2, 3)))
    np.testing.assert_array_equal(of.where(X > 50).numpy(), np.argwhere(X > 50))
    assert of.shape(X).numpy().tolist() == [3, 4, 5] and int(of.size(X)) == 60 and int(of.rank(X)) == 3
    assert of.shape(X, out_type=of.int64).dtype == of.int64
    np.testing.assert_array_equal(of.pad(a, [[1, 1], [1, 1]], mode="REFLECT").numpy(),
                                  np.pad(a, [[1, 1], [1, 1]], mode="reflect"))
    with pytest.raises(of.InvalidArgumentError):
        of.pad(a, [[1, 1], [1, 1]], mode="WRAP")


def test_where_with_three_arguments():
    rng = np.random.default_rng(3)
    c = rng.random((4, 1)) < 0.5
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((3,))
    np.testing.assert_array_equal(of.where(c, x, y).numpy(), np.where(c, x, y))  # broadcasting
    np.testing.assert_array_equal(of.math.softplus(x).numpy(), of.nn.softplus(x).numpy())
    with pytest.raises(ValueError):
        of.where(c, 1.0)


def test_stop_gradient():
    x = of.constant(np.array([1.0, 2.0]))
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.add(of.mul(x, x), of.stop_gradient(of.mul(x, 3.0)))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.stop_gradient(of.mul(x, x))
    assert tape.gradient(y, x) is None
    assert tape is not None


def test_graph_gradients_through_array_ops_with_unknown_batch():
    """An embedding lookup, concat and slicing in a graph whose batch size is unknown."""
    g = of.Graph()
    with g.as_default():
        ids = of.placeholder(of.int32, [None])
        emb = of.Variable(np.arange(12.0).reshape(6, 2), name="emb")
        feats = of.placeholder(of.float64, [None, 3])
        h = of.concat([of.gather(emb, ids), feats[:, 1:]], 1)  # [None, 4]
        loss = of.reduce_sum(of.mul(h, h))
        d_emb, d_feats = of.gradients(loss, [emb, feats])
        init = of.global_variables_initializer()
    assert h.shape.as_list() == [None, 4]
    with of.Session(graph=g) as sess:
        sess.run(init)
        ide, fv = np.array([1, 4, 1]), np.arange(9.0).reshape(3, 3)
        de, df = sess.run([d_emb, d_feats], {ids: ide, feats: fv})
    E = np.arange(12.0).reshape(6, 2)
    want = np.zeros_like(E)
    np.add.at(want, ide, 2 * E[ide])
    np.testing.assert_allclose(de, want)
    np.testing.assert_allclose(df, np.concatenate([np.zeros((3, 1)), 2 * fv[:, 1:]], 1))


def test_tf1_program_with_array_ops():
    import opforge.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.int64, [None])
        w = tf.Variable(tf.random_normal([2, 2], stddev=0.1))
        logits = tf.matmul(x, w)
        target = tf.one_hot(y, 2)
        loss = tf.reduce_mean(tf.square(logits - target))
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        first_col = tf.squeeze(tf.slice(logits, [0, 0], [-1, 1]), axis=[1])
        init = tf.global_variables_initializer()
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(64, 2)).astype(np.float32)
    ys = (xs[:, 0] > xs[:, 1]).astype(np.int64)
    with tf.Session(graph=g) as sess:
        sess.run(init)
        before = sess.run(loss, {x: xs, y: ys})
        for _ in range(100):
            sess.run(step, {x: xs, y: ys})
        after, col = sess.run([loss, first_col], {x: xs, y: ys})
    assert after < before * 0.8 and col.shape == (64,)


def test_graph_def_round_trip_of_array_and_random_ops():
    """Masks, list attrs, list outputs and seeds survive export and import."""
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float64, [None, 4, 5], name="x")
        a = of.identity(x[1:, ..., None, ::-2], name="a")
        parts = of.split(x, [1, 3], axis=1)
        b = of.identity(parts[1], name="b")
        c = of.squeeze(of.gather(x, [[2]], axis=2), axis=[2], name="c")
        r = of.ops.random_uniform(np.array([3], np.int32), of.float32, seed=3, seed2=4, name="r")
    gd = g.as_graph_def()
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(gd, name="")
    with of.Session(graph=g) as s1, of.Session(graph=g2) as s2:
        want = s1.run([a, b, c, r], {x: X})
        got = s2.run(["a:0", "b:0", "c:0", "r:0"], {"x:0": X})
    for w, v in zip(want, got):
        np.testing.assert_array_equal(w, v)
    np.testing.assert_array_equal(got[0], X[1:, ..., None, ::-2])


def _graph_grad_params():
    import array_cases
    from opmatrix import OPS_BY_NAME, cases
    for name in sorted(array_cases.TABLE_OPS):
        op = OPS_BY_NAME.get(name)
        if op is None or op.not_differentiable or "double" not in op.attr(next(
                a.type_attr for a in op.inputs if a.type_attr and op.attr(a.type_attr).type == "type"
                and any(o.type_attr == a.type_attr for o in op.outputs))).allowed:
            continue
        case = cases(op, "double", small=True)[0]
        yield pytest.param(name, case, id=f"{name}-{case.id}")


@pytest.mark.parametrize("op_name,case", list(_graph_grad_params()))
def test_graph_gradients_match_eager(op_name, case):
    """of.gradients in a graph (data inputs fed through placeholders) equals GradientTape."""
    from opmatrix import OPS_BY_NAME, build_inputs, data_inputs, as_outputs, seed_for, wrapper
    op = OPS_BY_NAME[op_name]
    rng = np.random.default_rng(seed_for("graph-grad", op_name))
    inputs = build_inputs(rng, op, "double", case)
    data = [a.name for a in data_inputs(op)]
    flat = [(n, i) for n in data for i in (range(len(inputs[n])) if isinstance(inputs[n], list) else [None])]

    def value(n, i):
        return inputs[n] if i is None else inputs[n][i]

    def run_op(feed):
        args = [[feed[(a.name, i)] for i in range(len(inputs[a.name]))] if a.name in data and
                isinstance(inputs[a.name], list) else feed[(a.name, None)] if a.name in data else inputs[a.name]
                for a in op.inputs]
        outs = as_outputs(wrapper(op)(*args, **case.attrs))
        return of.add_n([of.reduce_sum(of.mul(o, o)) for o in outs]) if len(outs) > 1 else \
            of.reduce_sum(of.mul(outs[0], outs[0]))

    tensors = {k: of.constant(value(*k)) for k in flat}
    with of.GradientTape() as tape:
        tape.watch(list(tensors.values()))
        loss = run_op(tensors)
    want = tape.gradient(loss, [tensors[k] for k in flat])
    g = of.Graph()
    with g.as_default():
        phs = {k: of.placeholder(of.float64, np.shape(value(*k))) for k in flat}
        grads = of.gradients(run_op(phs), [phs[k] for k in flat])
    with of.Session(graph=g) as sess:
        got = sess.run(grads, {phs[k]: value(*k) for k in flat})
    for k, w, v in zip(flat, want, got):
        np.testing.assert_allclose(v, w.numpy(), rtol=1e-12, atol=1e-12, err_msg=str(k))


@pytest.mark.parametrize("shape", [(70_001,), (3, 70_001), (2, 1, 131_079), (70_001, 2)])
def test_long_rows_are_split_between_threads_without_changing_values(shape):
    """A copy that merges into fewer rows than threads (a full reverse, a whole-tensor tile or
    concat piece) is cut into pieces of rows; every piece must land where NumPy puts it."""
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    t = of.constant(x)
    for axes in [[a] for a in range(len(shape))] + [list(range(len(shape)))]:
        np.testing.assert_array_equal(of.reverse(t, axes).numpy(), np.flip(x, axes))
    reps = [2] + [1] * (len(shape) - 1)
    np.testing.assert_array_equal(of.tile(t, reps).numpy(), np.tile(x, reps))
    np.testing.assert_array_equal(of.concat([t, t], -1).numpy(), np.concatenate([x, x], -1))
    np.testing.assert_array_equal(t[::-1].numpy(), x[::-1])
