"""Values kernels derive from graph constants (packed and Winograd-transformed convolution
filters) are kept across Session runs while the constant lives, and never for anything that
can change between runs (updated variables, feeds)."""

import gc

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as v1
from opforge import _C



def reference_conv(x, f, padding):
    kh, kw = f.shape[:2]
    if padding == "SAME":
        x = np.pad(x, ((0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)))  # TF: the odd one after
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros(x.shape[:1] + (oh, ow, f.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,cd->nhwd", x[:, i:i + oh, j:j + ow].astype(np.float64), f[i, j])
    return out


# (input, filter) shapes reaching each forward path that keeps a derived filter: pointwise
# GEMM, im2col tiles (a 2x2 window over more than 16 channels: fewer go to the direct kernel,
# which reads the filter as it is), Winograd.
CASES = [((2, 9, 9, 24), (1, 1, 24, 40)), ((1, 11, 13, 24), (2, 2, 24, 20)), ((2, 20, 20, 24), (3, 3, 24, 32))]


@pytest.mark.parametrize("xshape,fshape", CASES)
def test_constant_filter_is_cached_and_results_stay_right(xshape, fshape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xshape).astype(np.float32)
    f = rng.standard_normal(fshape).astype(np.float32)
    of.config.empty_cache()
    g = of.Graph()
    with g.as_default():
        xp = v1.placeholder(of.float32, xshape)
        y = of.nn.conv2d(xp, of.constant(f), strides=1, padding="SAME")
    with v1.Session(graph=g) as sess:
        first = sess.run(y, {xp: x})
        held = _C._testing.constant_cache_bytes()
        if _C._testing.sgemm_kernel() == "avx512":
            assert held >= f.size * 4
        x2 = rng.standard_normal(xshape).astype(np.float32)
        second = sess.run(y, {xp: x2})
        assert _C._testing.constant_cache_bytes() == held  # found again, not derived twice
    # Tolerance on the outputs' scale (sums of up to 216 unit-normal products): Winograd
    # F(4x4, 3x3) rounds its transforms to ~1e-5 of it; a wrong derived filter is off by O(1).
    for got, xin in ((first, x), (second, x2)):
        want = reference_conv(xin, f, "SAME")
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=3e-5 * np.abs(want).max())
    del sess, g, y, xp
    gc.collect()
    assert _C._testing.constant_cache_bytes() == 0  # the constant is gone, so is what came from it


def test_variable_filter_follows_its_updates():
    # Assign shares the assigned tensor's buffer (a constant's, here), which never changes; an
    # update (AssignAdd, the optimizers) writes a new buffer, which is not a constant's, so
    # nothing derived from the old value is used again.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 10, 10, 8)).astype(np.float32)
    f1 = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    f2 = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    delta = rng.standard_normal((3, 3, 8, 16)).astype(np.float32)
    of.config.empty_cache()
    g = of.Graph()
    with g.as_default():
        w = v1.Variable(f1)
        y = of.nn.conv2d(of.constant(x), w, strides=1, padding="VALID")
        assign = w.assign(f2)
        add = w.assign_add(delta)
    with v1.Session(graph=g) as sess:
        sess.run(w.initializer)
        a = sess.run(y)
        sess.run(assign)
        b = sess.run(y)
        held = _C._testing.constant_cache_bytes()
        sess.run(add)
        c = sess.run(y)
        assert _C._testing.constant_cache_bytes() == held
    np.testing.assert_allclose(a, reference_conv(x, f1, "VALID"), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b, reference_conv(x, f2, "VALID"), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(c, reference_conv(x, f2 + delta, "VALID"), rtol=1e-4, atol=1e-4)


def test_fed_filter_follows_the_array():
    # A fed array is borrowed, not copied: changing it between runs must change the result.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 8, 8, 4)).astype(np.float32)
    f = rng.standard_normal((1, 1, 4, 12)).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        fp = v1.placeholder(of.float32, f.shape)
        y = of.nn.conv2d(of.constant(x), fp, strides=1, padding="VALID")
    with v1.Session(graph=g) as sess:
        a = sess.run(y, {fp: f})
        f *= -2.0
        b = sess.run(y, {fp: f})
    np.testing.assert_allclose(b, -2.0 * a, rtol=1e-5, atol=1e-5)


def test_empty_cache_drops_packed_filters():
    rng = np.random.default_rng(3)
    f = rng.standard_normal((3, 3, 24, 16)).astype(np.float32)
    x = rng.standard_normal((1, 12, 12, 24)).astype(np.float32)
    g = of.Graph()
    with g.as_default():
        xp = v1.placeholder(of.float32, x.shape)
        y = of.nn.conv2d(xp, of.constant(f), strides=1, padding="SAME")
    with v1.Session(graph=g) as sess:
        a = sess.run(y, {xp: x})
        if _C._testing.sgemm_kernel() == "avx512":
            assert of.config.memory_stats()["constant_cache_bytes"] > 0
        of.config.empty_cache()
        assert of.config.memory_stats()["constant_cache_bytes"] == 0
        b = sess.run(y, {xp: x})  # packed again
    np.testing.assert_array_equal(a, b)
