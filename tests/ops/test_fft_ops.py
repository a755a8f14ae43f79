"""The FFT family (opdefs/spectral, kernels/cpu/spectral/fft_ops.cc) against np.fft on random
data: complex and real transforms in 1, 2, 3 and n dimensions, fft_length cropping and padding,
odd and prime lengths, graph-mode static shapes, typed errors, and gradients checked numerically
in complex128 / float64 through a real-valued loss."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge import ops

RNG = np.random.default_rng(32)


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def tol(dtype):
    return 1e-4 if dtype in (np.complex64, np.float32) else 1e-10


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_transforms_match_numpy(dtype):
    x = crandn(3, 5, 6, 7, dtype=dtype)  # 5, 7: odd and prime lengths
    cases = [(ops.fft, np.fft.fft(x)), (ops.ifft, np.fft.ifft(x)),
             (ops.fft2d, np.fft.fft2(x)), (ops.ifft2d, np.fft.ifft2(x)),
             (ops.fft3d, np.fft.fftn(x, axes=(-3, -2, -1))), (ops.ifft3d, np.fft.ifftn(x, axes=(-3, -2, -1)))]
    for fn, want in cases:
        got = fn(x).numpy()
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol(dtype), atol=tol(dtype) * 10)


@pytest.mark.parametrize("n", [8, 7, 4, 11])  # even, odd, cropped, padded (input length 9)
def test_rfft_irfft_match_numpy(n):
    x = RNG.standard_normal((2, 9))
    got = ops.rfft(x, [n], Tcomplex=of.complex128).numpy()
    np.testing.assert_allclose(got, np.fft.rfft(x, n), atol=1e-10)
    spec = crandn(2, 6)  # cropped or padded to n // 2 + 1
    np.testing.assert_allclose(ops.irfft(spec, [n], Treal=of.float64).numpy(), np.fft.irfft(spec, n), atol=1e-10)
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(ops.rfft(x32, [n]).numpy(), np.fft.rfft(x32, n), atol=1e-4)


def test_rfft2d_3d_and_nd_match_numpy():
    x = RNG.standard_normal((2, 4, 5, 6))
    np.testing.assert_allclose(ops.rfft2d(x, [3, 8], Tcomplex=of.complex128).numpy(),
                               np.fft.rfftn(x, s=[3, 8], axes=(-2, -1)), atol=1e-10)
    np.testing.assert_allclose(ops.rfft3d(x, [4, 5, 6], Tcomplex=of.complex128).numpy(),
                               np.fft.rfftn(x, axes=(-3, -2, -1)), atol=1e-10)
    s = crandn(2, 4, 5, 4)
    np.testing.assert_allclose(ops.irfft2d(s, [5, 6], Treal=of.float64).numpy(),
                               np.fft.irfftn(s, s=[5, 6], axes=(-2, -1)), atol=1e-10)
    np.testing.assert_allclose(ops.irfft3d(s, [3, 5, 7], Treal=of.float64).numpy(),
                               np.fft.irfftn(s, s=[3, 5, 7], axes=(-3, -2, -1)), atol=1e-10)
    # n-D over chosen axes (the last listed is the real one), lengths cropped and padded
    np.testing.assert_allclose(ops.rfftnd(x, [3, 6], [1, 0], Tcomplex=of.complex128).numpy(),
                               np.fft.rfftn(x, s=[3, 6], axes=(1, 0)), atol=1e-10)
    np.testing.assert_allclose(ops.irfftnd(s, [6, 3], [-1, 1], Treal=of.float64).numpy(),
                               np.fft.irfftn(s, s=[6, 3], axes=(-1, 1)), atol=1e-10)
    c = crandn(3, 4, 5)
    np.testing.assert_allclose(ops.fftnd(c, [2, 7], [0, 2]).numpy(), np.fft.fftn(c, s=[2, 7], axes=(0, 2)),
                               atol=1e-10)
    np.testing.assert_allclose(ops.ifftnd(c, [4, 4], [-1, -2]).numpy(), np.fft.ifftn(c, s=[4, 4], axes=(-1, -2)),
                               atol=1e-10)


def test_static_shapes_in_a_graph():
    with of.Graph().as_default():
        x = of.placeholder(of.float32, [None, 10])
        assert ops.rfft(x, [10]).shape.as_list() == [None, 6]
        n = of.placeholder(of.int32, [1])
        assert ops.rfft(x, n).shape.as_list() == [None, None]
        c = of.placeholder(of.complex64, [2, None, 5])
        assert ops.fft2d(c).shape.as_list() == [2, None, 5]
        assert ops.irfft2d(c, [4, 8]).shape.as_list() == [2, 4, 8]
        assert ops.fftnd(c, [3], [0]).shape.as_list() == [3, None, 5]


def test_bad_input_raises_typed_errors_naming_the_op():
    with pytest.raises(of.InvalidArgumentError, match="FFT2D.*rank of at least 2"):
        ops.fft2d(crandn(4))
    with pytest.raises(of.InvalidArgumentError, match="RFFT.*fft_length must have 1 elements"):
        ops.rfft(RNG.standard_normal(4), [4, 4], Tcomplex=of.complex128)
    with pytest.raises(of.InvalidArgumentError, match="IRFFT.*non-negative"):
        ops.irfft(crandn(4), [-2], Treal=of.float64)
    with pytest.raises(of.InvalidArgumentError, match="RFFT.*Tcomplex"):
        ops.rfft(RNG.standard_normal(4), [4], Tcomplex=of.complex64)  # float64 with complex64
    with pytest.raises(of.InvalidArgumentError, match="FFTND.*same number"):
        ops.fftnd(crandn(3, 3), [3, 3], [0])
    with pytest.raises(of.InvalidArgumentError, match="FFTND.*repeat"):
        ops.fftnd(crandn(3, 3), [3, 3], [0, -2])
    with pytest.raises(of.InvalidArgumentError, match="FFTND.*axis 2 is out of range"):
        ops.fftnd(crandn(3, 3), [3], [2])
    with pytest.raises((of.InvalidArgumentError, TypeError), match="FFT"):
        ops.fft(RNG.standard_normal(4).astype(np.float32))  # a real input


def numeric_grad(f, x, eps=1e-6):
    """d f / d x for a real scalar f: dRe + i dIm for complex x (TensorFlow's convention)."""
    g = np.zeros(x.shape, x.dtype)
    for idx in np.ndindex(x.shape):
        for unit in ((1, 1j) if np.iscomplexobj(x) else (1,)):
            d = np.zeros(x.shape, x.dtype)
            d[idx] = eps * unit
            g[idx] += unit * (f(x + d) - f(x - d)) / (2 * eps)
    return g


def check_grad(fn, x):
    """Compares tape gradients of loss = sum(Re(w * fn(x))) (w random complex or real) with
    central differences."""
    w = None

    def loss_np(v):
        return float(np.sum(np.real(w * fn(of.constant(v)).numpy())))

    y = fn(of.constant(x)).numpy()
    w = crandn(*y.shape) if np.iscomplexobj(y) else RNG.standard_normal(y.shape)
    xt = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt)
        wt = of.constant(w.astype(np.complex128) if np.iscomplexobj(w) else w)
        prod = ops.mul(y, wt)
        loss = ops.sum(ops.real(prod, Tout=of.float64) if np.iscomplexobj(w) else prod, [0, 1])
    got = tape.gradient(loss, xt).numpy()
    np.testing.assert_allclose(got, numeric_grad(loss_np, x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn", [
    lambda x: ops.fft(x), lambda x: ops.ifft2d(x),
    lambda x: ops.fftnd(x, [2, 5], [0, 1]), lambda x: ops.ifftnd(x, [4, 3], [1, 0]),
    lambda x: ops.irfft(x, [5], Treal=of.float64), lambda x: ops.irfft2d(x, [3, 6], Treal=of.float64),
], ids=["fft", "ifft2d", "fftnd-crop-pad", "ifftnd", "irfft-odd", "irfft2d-even"])
def test_complex_input_gradients(fn):
    check_grad(fn, crandn(3, 4))


@pytest.mark.parametrize("fn", [
    lambda x: ops.rfft(x, [6], Tcomplex=of.complex128), lambda x: ops.rfft(x, [3], Tcomplex=of.complex128),
    lambda x: ops.rfft2d(x, [3, 5], Tcomplex=of.complex128), lambda x: ops.rfftnd(x, [2, 4], [1, 0],
                                                                                   Tcomplex=of.complex128),
], ids=["rfft-pad", "rfft-crop", "rfft2d", "rfftnd"])
def test_real_input_gradients(fn):
    check_grad(fn, RNG.standard_normal((3, 4)))


def test_tensorflow_parity():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    np.testing.assert_allclose(ops.rfft(x, [6]).numpy(), tf.signal.rfft(x, [6]).numpy(), atol=1e-5)
    c = crandn(2, 3, 4, dtype=np.complex64)
    np.testing.assert_allclose(ops.ifft2d(c).numpy(), tf.signal.ifft2d(c).numpy(), atol=1e-5)
    s = crandn(2, 4, dtype=np.complex64)
    np.testing.assert_allclose(ops.irfft(s, [6]).numpy(), tf.signal.irfft(s, [6]).numpy(), atol=1e-5)
    # TensorFlow's gradient of IRFFT (its mask), on a loss through every output
    xs = tf.constant(s)
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = tf.reduce_sum(tf.signal.irfft(xs, [6]) * np.arange(6, dtype=np.float32))
    want = tape.gradient(loss, xs).numpy()
    xo = of.constant(s)
    with of.GradientTape() as t2:
        t2.watch(xo)
        lo = ops.sum(ops.mul(ops.irfft(xo, [6]), np.arange(6, dtype=np.float32)), [0, 1])
    np.testing.assert_allclose(t2.gradient(lo, xo).numpy(), want, atol=1e-5)
