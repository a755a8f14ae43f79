"""FractionalMaxPool / FractionalAvgPool and their gradients: the pooling sequences have
TensorFlow's form (steps of k or k + 1, from 0 to the input size) and, deterministic with given
seeds, TensorFlow's values (tools/make_miscops_fixtures.py); the outputs equal a NumPy reference
given the returned sequences, deterministic ops pool the same regions each run, the
gradients check numerically in float64, and every bad input is a typed error naming the op."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.ops.fractional_pool_ops import fractional_avg_pool_v1, fractional_max_pool_v1

RNG = np.random.default_rng(32)
DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "miscops_expected.npz")
RATIO = [1.0, 1.44, 1.73, 1.0]


def reference(x, rows, cols, overlapping, pool):
    """NumPy: each output element pools rows[i]..rows[i+1]-1 (or ..rows[i+1], clipped, when
    overlapping) and the same for columns."""
    b, h, w, c = x.shape
    out = np.zeros((b, len(rows) - 1, len(cols) - 1, c), x.dtype)
    for i in range(len(rows) - 1):
        r1 = min(rows[i + 1] + (1 if overlapping else 0), h)
        for j in range(len(cols) - 1):
            c1 = min(cols[j + 1] + (1 if overlapping else 0), w)
            region = x[:, rows[i]:r1, cols[j]:c1, :]
            if pool == "max":
                out[:, i, j, :] = region.max(axis=(1, 2))
            elif np.issubdtype(x.dtype, np.integer):
                s = region.sum(axis=(1, 2))
                out[:, i, j, :] = np.trunc(s / region[0, :, :, 0].size).astype(x.dtype)
            else:
                out[:, i, j, :] = region.mean(axis=(1, 2))
    return out


def check_sequence(seq, size, ratio):
    out = int(np.floor(size / ratio))
    k = size // out
    assert seq.dtype == np.int64 and len(seq) == out + 1 and seq[0] == 0 and seq[-1] == size
    assert set(np.diff(seq)) <= {k, k + 1}


@pytest.mark.parametrize("pool, fn", [("max", fractional_max_pool_v1), ("avg", fractional_avg_pool_v1)])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_outputs_equal_the_reference_given_the_sequences(pool, fn, dtype):
    x = (RNG.normal(size=(2, 8, 11, 3)) * 20).astype(dtype)
    for pseudo_random in (False, True):
        for overlapping in (False, True):
            y, rows, cols = (t.numpy() for t in fn(of.constant(x), RATIO, pseudo_random, overlapping))
            check_sequence(rows, 8, RATIO[1])
            check_sequence(cols, 11, RATIO[2])
            np.testing.assert_allclose(y, reference(x, rows, cols, overlapping, pool), rtol=1e-12)


FRACTIONAL_CASES = [  # tools/make_miscops_fixtures.py's: (pooling_ratio, pseudo_random, overlapping, seed, seed2)
    ([1.0, 1.44, 1.73, 1.0], True, False, 1, 2), ([1.0, 2.5, 1.2, 1.0], False, True, 7, 0),
    ([1.0, 1.1, 3.3, 1.0], False, False, 123456789, 987654321), ([1.0, 1.5, 1.5, 1.0], True, True, 3, 3),
]


def test_deterministic_sequences_are_tensorflows():
    expected = np.load(DATA)
    x = expected["fractional_input"]
    for i, (ratio, pseudo, overlapping, seed, seed2) in enumerate(FRACTIONAL_CASES):
        for tag, op in (("fmp", of.raw_ops.FractionalMaxPool), ("fap", of.raw_ops.FractionalAvgPool)):
            out, rows, cols = op(value=x, pooling_ratio=ratio, pseudo_random=pseudo, overlapping=overlapping,
                                 deterministic=True, seed=seed, seed2=seed2)
            np.testing.assert_array_equal(rows.numpy(), expected[f"{tag}_{i}_rows"])
            np.testing.assert_array_equal(cols.numpy(), expected[f"{tag}_{i}_cols"])
            np.testing.assert_allclose(out.numpy(), expected[f"{tag}_{i}_out"], rtol=1e-6)


def test_integer_ratio_and_tensorflow_int_average():
    # a whole ratio pools fixed 2x2 blocks; TensorFlow's integer average truncates
    x = np.arange(9, dtype=np.int32).reshape(1, 3, 3, 1)
    y, rows, cols = fractional_avg_pool_v1(of.constant(x), [1, 1.5, 1.5, 1], overlapping=True)
    assert rows.numpy().tolist() == [0, 1, 3] or rows.numpy().tolist() == [0, 2, 3]
    np.testing.assert_array_equal(y.numpy(), reference(x, rows.numpy(), cols.numpy(), True, "avg"))
    y, rows, _ = fractional_max_pool_v1(of.constant(RNG.normal(size=(1, 6, 6, 2))), [1, 2, 3, 1])
    assert rows.numpy().tolist() == [0, 2, 4, 6] and y.shape == (1, 3, 2, 2)


def test_deterministic_runs_pool_the_same_regions_and_others_vary():
    x = of.constant(RNG.normal(size=(1, 30, 30, 1)))
    runs = [fractional_max_pool_v1(x, RATIO, deterministic=True, seed=5, seed2=7) for _ in range(3)]
    for y, r, c in runs[1:]:
        np.testing.assert_array_equal(r.numpy(), runs[0][1].numpy())
        np.testing.assert_array_equal(c.numpy(), runs[0][2].numpy())
    seqs = {tuple(fractional_max_pool_v1(x, RATIO)[1].numpy()) for _ in range(12)}
    assert len(seqs) > 1  # 30 rows in 20 regions: 184756 orders, one repeat in 12 draws is near impossible
    with of.Graph().as_default():
        ph = of.placeholder(of.float64, [None, 30, None, 1])
        y, r, c = fractional_max_pool_v1(ph, RATIO, deterministic=True)
        assert y.shape.as_list() == [None, 20, None, 1] and r.shape.as_list() == [21] and c.shape.as_list() == [None]
        with of.Session() as sess:
            feed = {ph: x.numpy()}
            first, again = sess.run(r, feed), sess.run(r, feed)
            np.testing.assert_array_equal(first, again)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("fn", [fractional_max_pool_v1, fractional_avg_pool_v1])
@pytest.mark.parametrize("overlapping", [False, True])
def test_gradients_check_numerically(fn, overlapping):
    x = RNG.permutation(60).reshape(1, 5, 4, 3).astype(np.float64) / 7  # distinct: a unique maximum
    kw = dict(pooling_ratio=[1, 1.6, 1.3, 1], pseudo_random=True, overlapping=overlapping, deterministic=True,
              seed=1, seed2=2)
    w = RNG.normal(size=fn(of.constant(x), **kw)[0].shape)
    t = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(t)
        loss = of.reduce_sum(of.multiply(fn(t, **kw)[0], of.constant(w)))
    got = tape.gradient(loss, t).numpy()
    want = numeric_grad(lambda v: float(np.sum(fn(of.constant(v), **kw)[0].numpy() * w)), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_grad_ops_against_reference():
    # FractionalAvgPoolGrad spreads each gradient evenly over its region; MaxPoolGrad routes it
    # to the region's first maximum
    rows, cols = np.array([0, 2, 3, 5]), np.array([0, 1, 3])
    g = RNG.normal(size=(2, 3, 2, 2))
    got = of.raw_ops.FractionalAvgPoolGrad(orig_input_tensor_shape=np.array([2, 5, 3, 2], np.int64), out_backprop=g,
                                           row_pooling_sequence=rows, col_pooling_sequence=cols).numpy()
    want = np.zeros((2, 5, 3, 2))
    for i in range(3):
        for j in range(2):
            n = (rows[i + 1] - rows[i]) * (cols[j + 1] - cols[j])
            want[:, rows[i]:rows[i + 1], cols[j]:cols[j + 1], :] += g[:, i:i + 1, j:j + 1, :] / n
    np.testing.assert_allclose(got, want, rtol=1e-12)
    x = np.ones((1, 2, 2, 1))  # ties: the first position wins
    got = of.raw_ops.FractionalMaxPoolGrad(orig_input=x, orig_output=np.ones((1, 1, 1, 1)),
                                           out_backprop=np.full((1, 1, 1, 1), 3.0), row_pooling_sequence=[0, 2],
                                           col_pooling_sequence=[0, 2]).numpy()
    assert got.ravel().tolist() == [3.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(pooling_ratio=[1, 0.5, 1.5, 1]), of.errors.InvalidArgumentError, "FractionalMaxPool.*smaller than 1"),
    (dict(pooling_ratio=[2, 1.5, 1.5, 1]), of.errors.UnimplementedError, "FractionalMaxPool.*batch nor channel"),
    (dict(pooling_ratio=[1, 9, 1.5, 1]), of.errors.InvalidArgumentError, "FractionalMaxPool.*higher than input"),
    (dict(pooling_ratio=[1, 1.5, 1.5]), of.errors.InvalidArgumentError, "FractionalMaxPool.*pooling_ratio"),
    (dict(pooling_ratio=RATIO, seed=3), of.errors.InvalidArgumentError, "FractionalMaxPool.*seed2 should be 0"),
])
def test_bad_attrs(kwargs, error, match):
    with pytest.raises(error, match=match):
        of.raw_ops.FractionalMaxPool(value=np.zeros((1, 4, 4, 1)), **kwargs)


def test_bad_inputs():
    with pytest.raises(of.errors.InvalidArgumentError, match="FractionalAvgPool.*4-dimensional"):
        of.raw_ops.FractionalAvgPool(value=np.zeros((4, 4, 1)), pooling_ratio=RATIO)
    with pytest.raises(of.errors.OpError, match="FractionalMaxPool"):
        of.raw_ops.FractionalMaxPool(value=np.zeros((1, 4, 4, 1), np.float16), pooling_ratio=RATIO)
    with pytest.raises(of.errors.InvalidArgumentError, match="FractionalMaxPoolGrad.*row_pooling_sequence must"):
        of.raw_ops.FractionalMaxPoolGrad(orig_input=np.zeros((1, 4, 4, 1)), orig_output=np.zeros((1, 2, 2, 1)),
                                         out_backprop=np.zeros((1, 2, 2, 1)), row_pooling_sequence=[0, 3, 9],
                                         col_pooling_sequence=[0, 2, 4])
    with pytest.raises(of.errors.InvalidArgumentError, match="FractionalAvgPoolGrad.*col_pooling_sequence must be"):
        of.raw_ops.FractionalAvgPoolGrad(orig_input_tensor_shape=np.array([1, 4, 4, 1], np.int64),
                                         out_backprop=np.zeros((1, 2, 2, 1)), row_pooling_sequence=[0, 2, 4],
                                         col_pooling_sequence=[0, 4])
    with pytest.raises(of.errors.InvalidArgumentError, match="FractionalAvgPoolGrad.*out_backprop"):
        of.raw_ops.FractionalAvgPoolGrad(orig_input_tensor_shape=np.array([1, 4, 4, 1], np.int64),
                                         out_backprop=np.zeros((2, 2, 2, 1)), row_pooling_sequence=[0, 2, 4],
                                         col_pooling_sequence=[0, 2, 4])
