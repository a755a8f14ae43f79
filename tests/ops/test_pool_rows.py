"""Float32 max and average pooling, computed row by row (window rows reduced, then window
columns from stride phases), against the NumPy reference: channel counts that fill no vector
(11, 44), strides that leave unread columns, SAME borders (averages divide by the real
elements), explicit padding, and NaN propagation."""

import numpy as np
import pytest

import opforge as of
from tests.ops import nn_reference as ref

# (input h, w, channels, window, stride, padding)
CASES = [(15, 13, 11, 3, 2, "VALID"), (14, 14, 44, 3, 1, "SAME"), (16, 17, 32, 1, 2, "VALID"),
         (9, 12, 5, 3, 3, "SAME"), (10, 11, 7, 4, 2, "SAME"), (7, 7, 20, 7, 1, "VALID"), (12, 9, 3, 2, 1, "SAME")]


@pytest.mark.parametrize("h,w,c,k,s,padding", CASES)
def test_pools_match_numpy(h, w, c, k, s, padding):
    rng = np.random.default_rng(h * 100 + c)
    x = rng.standard_normal((2, h, w, c)).astype(np.float32)
    ksize, strides = [1, k, k, 1], [1, s, s, 1]
    np.testing.assert_allclose(of.raw_ops.MaxPool(input=x, ksize=ksize, strides=strides, padding=padding).numpy(),
                               ref.max_pool(x, ksize, strides, padding), rtol=0, atol=0)
    np.testing.assert_allclose(of.raw_ops.AvgPool(value=x, ksize=ksize, strides=strides, padding=padding).numpy(),
                               ref.avg_pool(x, ksize, strides, padding), rtol=1e-5, atol=1e-6)


def test_max_pool_explicit_padding_matches_numpy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 9, 10, 11)).astype(np.float32)
    kw = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0])
    np.testing.assert_array_equal(of.raw_ops.MaxPool(input=x, **kw).numpy(), ref.max_pool(x, **kw))


def test_nan_in_a_window_propagates():
    x = np.random.default_rng(0).standard_normal((1, 6, 6, 11)).astype(np.float32)
    x[0, 2, 3, 4] = np.nan
    for padding in ("SAME", "VALID"):
        got = of.raw_ops.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding=padding).numpy()
        want = ref.max_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], padding)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        assert np.isnan(got).sum() == 9 if padding == "SAME" else np.isnan(got).any()
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
        avg = of.raw_ops.AvgPool(value=x, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding=padding).numpy()
        np.testing.assert_array_equal(np.isnan(avg), np.isnan(got))
