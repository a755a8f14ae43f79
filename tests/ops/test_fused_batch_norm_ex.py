"""_FusedBatchNormEx (TensorFlow's remapper op: inference batch norm + side input + Relu in one
pass) against NumPy, in both layouts and the 16-bit floats, and its diagnostics."""

import numpy as np
import pytest

import opforge as of

raw = of.raw_ops


def _stats(rng, c):
    return [rng.random(c, dtype=np.float32) + 0.5, rng.standard_normal(c).astype(np.float32),
            rng.standard_normal(c).astype(np.float32), rng.random(c, dtype=np.float32) + 0.5]


def _ref(x, scale, offset, mean, var, eps, side, relu, fmt):
    shape = (1, -1, 1, 1) if fmt == "NCHW" else (-1,)
    y = (x.astype(np.float64) - mean.reshape(shape)) * (scale / np.sqrt(var.astype(np.float64) + eps)).reshape(shape)
    y = y + offset.reshape(shape)
    if side is not None:
        y = y + side
    return np.maximum(y, 0) if relu else y


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("side", [False, True])
@pytest.mark.parametrize("mode", ["Identity", "Relu"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_matches_numpy(fmt, side, mode, dtype):
    rng = np.random.default_rng(3)
    shape = (2, 5, 7, 19) if fmt == "NHWC" else (2, 19, 5, 7)
    x = rng.standard_normal(shape).astype(dtype)
    s = rng.standard_normal(shape).astype(dtype) if side else None
    stats = _stats(rng, 19)
    out = raw._FusedBatchNormEx(x=x, scale=stats[0], offset=stats[1], mean=stats[2], variance=stats[3],
                                side_input=[s] if side else [], epsilon=0.001, activation_mode=mode,
                                data_format=fmt, is_training=False)
    tol = 1e-5 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(out[0].numpy().astype(np.float64), _ref(x, *stats, 0.001, s, mode == "Relu", fmt),
                               rtol=tol, atol=tol)
    assert out[0].dtype == of.as_dtype(dtype)
    np.testing.assert_array_equal(out[1].numpy(), stats[2])  # mean and variance pass through
    np.testing.assert_array_equal(out[4].numpy(), stats[3])
    assert out[5].shape.as_list() == [0]


def test_nan_propagates_through_relu():
    x = np.full((1, 1, 2, 3), np.nan, np.float32)
    ones, zeros = np.ones(3, np.float32), np.zeros(3, np.float32)
    y = raw._FusedBatchNormEx(x=x, scale=ones, offset=zeros, mean=zeros, variance=ones, side_input=[], epsilon=0.0,
                              activation_mode="Relu", is_training=False)[0].numpy()
    assert np.isnan(y).all()


def test_errors_name_the_op():
    x = np.ones((1, 2, 2, 3), np.float32)
    v = np.ones(3, np.float32)
    kw = dict(x=x, scale=v, offset=v, mean=v, variance=v, epsilon=0.001)
    with pytest.raises(of.errors.UnimplementedError, match="_FusedBatchNormEx.*inference only"):
        raw._FusedBatchNormEx(side_input=[], is_training=True, **kw)
    with pytest.raises(of.errors.InvalidArgumentError, match="_FusedBatchNormEx.*activation_mode"):
        raw._FusedBatchNormEx(side_input=[], activation_mode="Elu", is_training=False, **kw)
    with pytest.raises(of.errors.InvalidArgumentError, match="_FusedBatchNormEx.*side_input"):
        raw._FusedBatchNormEx(side_input=[x, x], is_training=False, **kw)
    with pytest.raises(of.errors.InvalidArgumentError, match="_FusedBatchNormEx.*side_input"):
        raw._FusedBatchNormEx(side_input=[np.ones((1, 2, 3, 3), np.float32)], is_training=False, **kw)
    with pytest.raises(of.errors.InvalidArgumentError, match="_FusedBatchNormEx.*scale"):
        raw._FusedBatchNormEx(x=x, scale=np.ones(4, np.float32), offset=v, mean=v, variance=v, side_input=[],
                              is_training=False)
