"""The float32 fast paths that training graphs lean on, against NumPy on random data: column
sums (Sum / Mean over leading axes: bias gradients, batch moments, global average pools),
AddN, Relu6, ReluGrad / Relu6Grad, LeakyRelu / LeakyReluGrad and BroadcastTo of an input repeated whole. Lengths cross the
vector widths (tails) and the blocks the column sums split rows into."""

import numpy as np
import pytest

import opforge as of

R = of.raw_ops


@pytest.mark.parametrize("shape, axes", [
    ((3, 5), [0]), ((1000, 7), [0]), ((4001, 16), [0]), ((40000, 16), [0]), ((70001, 3), [0]), ((2, 3, 37, 21), [0, 1, 2]),
    ((4, 513, 33), [1]), ((6, 9, 9, 64), [1, 2]), ((5, 1030), [0]), ((129, 2000), [0])])
@pytest.mark.parametrize("op", ["Sum", "Mean"])
def test_column_sums_match_numpy(shape, axes, op):
    rng = np.random.default_rng(len(shape) * 7 + shape[-1])
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    for keep in (False, True):
        got = getattr(R, op)(input=of.constant(x), axis=of.constant(np.array(axes, np.int32)), keep_dims=keep).numpy()
        ref = x.astype(np.float64).sum(axis=tuple(axes), keepdims=keep)
        if op == "Mean":
            ref = ref / np.prod([shape[a] for a in axes])
        np.testing.assert_allclose(got, ref.astype(np.float32), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu6_clips_keeps_nan_and_gives_positive_zero(dtype):
    """Relu6 as TensorFlow: min(max(x, 0), 6), NaN stays NaN, -0 gives +0; lengths past the
    vector widths and a parallel split."""
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(100_003) * 5).astype(dtype)
    x[:9] = [np.nan, -0.0, 0.0, -1.0, 3.0, 6.0, 7.0, np.inf, -np.inf]
    got = R.Relu6(features=x).numpy()
    want = np.where(np.isnan(x), x, np.clip(x, 0, 6)) + dtype(0)  # + 0: -0 -> +0
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[1])


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000, 4099])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_add_n_adds_in_input_order(n, k):
    rng = np.random.default_rng(n + k)
    xs = [rng.standard_normal(n).astype(np.float32) * np.float32(10.0 ** rng.integers(-3, 4)) for _ in range(k)]
    want = xs[0].copy()
    for x in xs[1:]:
        want = want + x  # float32, input 0, then 1, 2, ...: the same bits
    got = R.AddN(inputs=[of.constant(x) for x in xs]).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [3, 8, 29, 1024, 50001])
def test_relu_grads_multiply_by_the_mask(n):
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(np.float32)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    g[: n // 3: 2] = np.inf  # inf times a zero mask is NaN, as in TensorFlow
    x[0] = 0.0
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(R.ReluGrad(gradients=g, features=x).numpy(), g * (x > 0).astype(np.float32))
        np.testing.assert_array_equal(R.Relu6Grad(gradients=g, features=x).numpy(),
                                      g * ((x > 0) & (x < 6)).astype(np.float32))


@pytest.mark.parametrize("n", [3, 8, 29, 1024, 50001])
@pytest.mark.parametrize("alpha", [0.2, 1.7])
def test_leaky_relu_and_its_gradient_select_by_sign(n, alpha):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    g = rng.standard_normal(n).astype(np.float32)
    x[:4 if n > 4 else 1] = [0.0, -0.0, np.nan, -np.inf][:4 if n > 4 else 1]
    a = np.float32(alpha)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(R.LeakyRelu(features=x, alpha=alpha).numpy(), np.where(x > 0, x, a * x))
        np.testing.assert_array_equal(R.LeakyReluGrad(gradients=g, features=x, alpha=alpha).numpy(),
                                      np.where(x > 0, g, a * g))
    # -0.0 stays -0.0 (alpha * -0.0), as TensorFlow's select gives
    assert np.signbit(R.LeakyRelu(features=np.array([-0.0] * 9, np.float32), alpha=alpha).numpy()).all()


@pytest.mark.parametrize("src, dst, dtype", [
    ((16,), (5, 7, 16), np.float32), ((1, 1, 1, 16), (32, 8, 8, 16), np.float32), ((2, 3), (7, 2, 3), np.int64),
    ((1, 3), (9, 4, 3), np.bool_), ((3,), (1, 3), np.float16), ((3, 1), (2, 3, 4), np.float32),
    ((1, 3, 1), (4, 3, 5), np.int32), ((5,), (5,), np.float32)])
def test_broadcast_to_matches_numpy(src, dst, dtype):
    rng = np.random.default_rng(len(dst))
    x = (rng.standard_normal(src) * 5).astype(dtype)
    got = R.BroadcastTo(input=of.constant(x), shape=of.constant(np.array(dst, np.int32))).numpy()
    np.testing.assert_array_equal(got, np.broadcast_to(x, dst))


def _log_softmax64(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("cols", [1, 7, 8, 9, 33, 1000])
def test_float32_softmax_rows_match_numpy(cols):
    """Softmax, LogSoftmax and SparseSoftmaxCrossEntropyWithLogits over float32 rows (the
    vectorized exp): large logits, a -inf logit (probability 0), row lengths across 8 lanes."""
    rng = np.random.default_rng(cols)
    x = (rng.standard_normal((13, cols)) * 20).astype(np.float32)
    if cols > 1:
        x[3, 0] = -np.inf
    labels = rng.integers(0, cols, 13).astype(np.int32)
    if cols > 1:
        labels[3] = 1
    log_p = _log_softmax64(x)
    np.testing.assert_allclose(R.Softmax(logits=x).numpy(), np.exp(log_p), rtol=2e-5, atol=1e-30)
    np.testing.assert_allclose(R.LogSoftmax(logits=x).numpy(), log_p, rtol=2e-5, atol=2e-5)
    loss, backprop = R.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=labels)
    np.testing.assert_allclose(loss.numpy(), -log_p[np.arange(13), labels], rtol=2e-5, atol=2e-5)
    want = np.exp(log_p)
    want[np.arange(13), labels] -= 1
    np.testing.assert_allclose(backprop.numpy(), want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("cols", [1, 7, 9, 33, 1000])
def test_float32_dense_cross_entropy_matches_numpy(cols):
    """SoftmaxCrossEntropyWithLogits over float32 rows (the vectorized exp): soft labels against
    float64, labels broadcast along the rows, and one-hot labels giving the sparse op's bits."""
    rng = np.random.default_rng(cols + 100)
    x = (rng.standard_normal((13, cols)) * 20).astype(np.float32)
    if cols > 1:
        x[3, 0] = -np.inf  # a zero probability; its label is 0 below
    soft = rng.random((13, cols)).astype(np.float32) + 0.01
    if cols > 1:
        soft[3, 0] = 0.0
    soft /= soft.sum(axis=1, keepdims=True)
    log_p = _log_softmax64(x)
    for labels in (soft, soft[5:6]):  # [13, cols], and one row broadcast over the 13
        loss, backprop = R.SoftmaxCrossEntropyWithLogits(features=x, labels=labels)
        lab = np.broadcast_to(labels.astype(np.float64), x.shape)
        with np.errstate(invalid="ignore"):  # 0 * -inf, masked out
            want_loss = -np.where(lab != 0, lab * log_p, 0.0).sum(axis=1)
        np.testing.assert_allclose(loss.numpy(), want_loss, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(backprop.numpy(), np.exp(log_p) - lab, rtol=2e-5, atol=1e-6)
    classes = rng.integers(0, cols, 13).astype(np.int32)
    dense = R.SoftmaxCrossEntropyWithLogits(features=x, labels=np.eye(cols, dtype=np.float32)[classes])
    sparse = R.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=classes)
    for a, b in zip(dense, sparse):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_float32_softmax_row_with_nan_is_nan():
    x = np.array([[1.0, np.nan, 2.0, 0.5, 3.0, 1.0, 1.0, 2.0, 9.0], [1.0] * 9], np.float32)
    assert np.isnan(R.Softmax(logits=x).numpy()[0]).all() and not np.isnan(R.Softmax(logits=x).numpy()[1]).any()
    loss, backprop = R.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=np.array([2, 2], np.int32))
    assert np.isnan(loss.numpy()[0]) and np.isnan(backprop.numpy()[0]).all()


@pytest.mark.parametrize("n", [1, 7, 8, 9, 100003])
def test_l2_loss_sums_squares_in_double(n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    want = (x.astype(np.float64) ** 2).sum() / 2
    np.testing.assert_allclose(R.L2Loss(t=x).numpy(), np.float32(want), rtol=1e-6)


def test_cross_entropy_gradient_skips_the_softmax_of_an_unused_backprop():
    """The gradient of a loss through SparseSoftmaxCrossEntropyWithLogits is grad * backprop: the
    zeros filled in for its backprop output (which nothing differentiates) are known zeros, so no
    Softmax is recomputed (as in TensorFlow). When the backprop output is differentiated too, its
    softmax Jacobian term is there."""
    import opforge.compat.v1 as tf1

    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 6))
    labels = rng.integers(0, 6, 5).astype(np.int32)
    w = rng.standard_normal((5, 6))
    g = tf1.Graph()
    with g.as_default():
        logits = tf1.constant(x)
        loss, backprop = R.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
        (d_loss,) = tf1.gradients(tf1.reduce_mean(loss), [logits])
        assert not [op for op in g.get_operations() if op.type == "Softmax"]
        (d_both,) = tf1.gradients(tf1.reduce_mean(loss) + tf1.reduce_sum(backprop * w), [logits])
        assert [op for op in g.get_operations() if op.type == "Softmax"]
        with tf1.Session() as sess:
            got_loss, got_both = sess.run([d_loss, d_both])
    s = np.exp(_log_softmax64(x))
    onehot = np.eye(6)[labels]
    np.testing.assert_allclose(got_loss, (s - onehot) / 5, rtol=1e-10)
    jac_term = s * (w - (w * s).sum(axis=1, keepdims=True))  # d/dx sum(w * softmax(x))
    np.testing.assert_allclose(got_both, (s - onehot) / 5 + jac_term, rtol=1e-9, atol=1e-12)


def _max_pool_grad_reference(x, gy, ksize, strides, padding):
    """Each output's gradient to the first maximum of its window (rows, then columns; a value
    wins only when greater than the best so far, so a NaN wins only as the window's first)."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    oh, ow = gy.shape[1:3]
    pt = max((oh - 1) * sh + kh - h, 0) // 2 if padding == "SAME" else 0
    pl = max((ow - 1) * sw + kw - w, 0) // 2 if padding == "SAME" else 0
    dx = np.zeros_like(x)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                rows = range(max(i * sh - pt, 0), min(i * sh - pt + kh, h))
                cols = range(max(j * sw - pl, 0), min(j * sw - pl + kw, w))
                taps = [(r, q) for r in rows for q in cols]
                for ch in range(c):
                    best, won = x[b, taps[0][0], taps[0][1], ch], taps[0]
                    for r, q in taps[1:]:
                        if x[b, r, q, ch] > best:
                            best, won = x[b, r, q, ch], (r, q)
                    dx[b, won[0], won[1], ch] += gy[b, i, j, ch]
    return dx


def _max_pool_reference(x, ksize, strides, padding):
    """The max of each window's real elements, NaN if any is NaN."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    oh = -(-h // sh) if padding == "SAME" else (h - kh) // sh + 1
    ow = -(-w // sw) if padding == "SAME" else (w - kw) // sw + 1
    pt = max((oh - 1) * sh + kh - h, 0) // 2 if padding == "SAME" else 0
    pl = max((ow - 1) * sw + kw - w, 0) // 2 if padding == "SAME" else 0
    y = np.empty((n, oh, ow, c), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = x[:, max(i * sh - pt, 0):i * sh - pt + kh, max(j * sw - pl, 0):j * sw - pl + kw]
            y[:, i, j] = win.max(axis=(1, 2))  # (NumPy's max propagates NaN)
    return y


@pytest.mark.parametrize("shape, ksize, strides, padding", [
    ((2, 6, 6, 32), (2, 2), (2, 2), "VALID"), ((2, 7, 5, 13), (2, 2), (2, 2), "SAME"),
    ((1, 9, 8, 8), (2, 3), (3, 3), "VALID"), ((3, 5, 7, 1), (3, 3), (3, 3), "SAME"), ((1, 4, 4, 20), (1, 1), (2, 2), "SAME")])
def test_max_pool_grad_disjoint_windows(shape, ksize, strides, padding):
    """Float32 MaxPool and MaxPoolGrad with windows that do not overlap (one pass per output row,
    eight channels at a time): ties (small integers), NaN as a window's first tap and as a later
    one, channel tails, partial windows at a SAME edge, input pixels in no window (stride >
    window)."""
    rng = np.random.default_rng(shape[3] + ksize[1])
    x = rng.integers(-2, 3, shape).astype(np.float32)
    x.flat[::17] = np.nan
    kw = dict(ksize=[1, *ksize, 1], strides=[1, *strides, 1], padding=padding)
    y = R.MaxPool(input=x, **kw).numpy()
    np.testing.assert_array_equal(y, _max_pool_reference(x, ksize, strides, padding))
    gy = rng.standard_normal(y.shape).astype(np.float32)
    got = R.MaxPoolGrad(orig_input=x, orig_output=y, grad=gy, **kw).numpy()
    np.testing.assert_array_equal(got, _max_pool_grad_reference(x, gy, ksize, strides, padding))
