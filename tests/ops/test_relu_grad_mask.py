"""ReluGrad and Relu6Grad multiply by the mask, as TensorFlow does (the float32 kernel builds the
mask with vector compares): values on random data of odd lengths (vector tails), and the
special values: an inf gradient where the mask is 0 gives NaN, a NaN activation masks to 0."""

import numpy as np
import pytest

import opforge as of


@pytest.mark.parametrize("n", [1, 7, 1000, 65537])
@pytest.mark.parametrize("six", [False, True])
def test_mask_times_gradient_on_random_data(n, six):
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(np.float32)
    x = (rng.standard_normal(n) * 5).astype(np.float32)
    op = of.raw_ops.Relu6Grad if six else of.raw_ops.ReluGrad
    got = op(gradients=g, features=x).numpy()
    mask = (x > 0) & (x < 6) if six else x > 0
    np.testing.assert_array_equal(got, g * mask.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    g = np.array([np.inf, -np.inf, np.nan, 2.0, -3.0, 1.0, 1.0], dtype)
    x = np.array([-1.0, 0.0, -2.0, np.nan, 0.5, np.inf, 6.0], dtype)
    with np.errstate(invalid="ignore"):
        want_relu = g * (x > 0).astype(dtype)
        want_six = g * ((x > 0) & (x < 6)).astype(dtype)
    np.testing.assert_array_equal(of.raw_ops.ReluGrad(gradients=g, features=x).numpy(), want_relu)
    np.testing.assert_array_equal(of.raw_ops.Relu6Grad(gradients=g, features=x).numpy(), want_six)
