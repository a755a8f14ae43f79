"""The float32 fast paths that training graphs lean on, against NumPy on random data: column
sums (Sum / Mean over leading axes: bias gradients, batch moments, global average pools),
AddN, ReluGrad / Relu6Grad, LeakyRelu / LeakyReluGrad and BroadcastTo of an input repeated whole. Lengths cross the
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
