"""approx_top_k / approx_max_k / approx_min_k: exact top-k (as TensorFlow's CPU kernel), on
random data against NumPy along every dimension, TensorFlow's answers where installed, and the
diagnostics."""

import numpy as np
import pytest

from opforge.ops.search_ops import approx_max_k, approx_min_k, approx_top_k


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_matches_numpy(dim):
    x = np.random.default_rng(dim + 5).permutation(60).reshape(3, 5, 4).astype(np.float32)
    for f, order in ((approx_max_k, -1), (approx_min_k, 1)):
        values, indices = (t.numpy() for t in f(x, 2, reduction_dimension=dim))
        want_idx = np.take(np.argsort(order * x, axis=dim, kind="stable"), [0, 1], axis=dim)
        np.testing.assert_array_equal(indices, want_idx)
        np.testing.assert_array_equal(values, np.take_along_axis(x, want_idx, axis=dim))
        assert indices.dtype == np.int32


def test_matches_tensorflow():
    tfx = pytest.importorskip("tensorflow")
    x = np.random.default_rng(1).standard_normal((4, 9)).astype(np.float32)
    for got, want in zip(approx_max_k(x, 3), tfx.math.approx_max_k(x, 3)):  # TF's CPU: last dim, max only
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = approx_top_k(x, 3, is_max_k=True, recall_target=0.5)
    np.testing.assert_array_equal(got[0].numpy(), tfx.approx_top_k(x, 3, recall_target=0.5)[0].numpy())


def test_diagnostics():
    with pytest.raises(ValueError, match="reduction_dimension 2 is out of range for rank 2"):
        approx_max_k(np.zeros((2, 3), np.float32), 1, reduction_dimension=2)
    with pytest.raises(ValueError, match="rank of the input must be known and at least 1"):
        approx_max_k(np.float32(1), 1)
    with pytest.raises(TypeError, match="approx_min_k: operand must be a floating-point tensor"):
        approx_min_k(np.zeros((2, 3), np.int32), 1)
