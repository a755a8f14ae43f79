"""tf.linalg.LinearOperatorCirculant / 2D / 3D (opforge/ops/linear_operator_circulant.py)
against dense circulant matrices built in NumPy: to_dense, matmul (adjoint, adjoint_arg),
solve, determinant, log|det|, diag_part, trace, real input/output dtypes, and the compat class."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.ops.linear_operator_circulant import (
    LinearOperatorCirculant, LinearOperatorCirculant2D, LinearOperatorCirculant3D,
)

RNG = np.random.default_rng(5)


def circulant(h):
    """C[i, j] = h[(i - j) mod n]: C @ x is the circular convolution h * x."""
    n = len(h)
    return h[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def test_circulant_against_dense():
    h = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
    op = LinearOperatorCirculant(np.fft.fft(h), input_output_dtype="complex128")
    dense = circulant(h)
    np.testing.assert_allclose(op.to_dense().numpy(), dense, atol=1e-12)
    x = RNG.standard_normal((5, 2)) + 1j * RNG.standard_normal((5, 2))
    np.testing.assert_allclose(op.matmul(x).numpy(), dense @ x, atol=1e-12)
    np.testing.assert_allclose(op.matmul(x, adjoint=True).numpy(), dense.conj().T @ x, atol=1e-12)
    np.testing.assert_allclose(op.matmul(x.conj().T, adjoint_arg=True).numpy(), dense @ x, atol=1e-12)
    np.testing.assert_allclose(op.solve(x).numpy(), np.linalg.solve(dense, x), atol=1e-10)
    np.testing.assert_allclose(op.determinant().numpy(), np.linalg.det(dense), rtol=1e-10)
    np.testing.assert_allclose(op.log_abs_determinant().numpy(), np.log(abs(np.linalg.det(dense))), rtol=1e-10)
    np.testing.assert_allclose(op.diag_part().numpy(), np.diag(dense), atol=1e-12)
    np.testing.assert_allclose(op.trace().numpy(), np.trace(dense), atol=1e-12)


def test_real_dtype_and_blocks():
    h = RNG.standard_normal(4)
    op = LinearOperatorCirculant(np.fft.fft(h).astype(np.complex64), input_output_dtype="float32")
    assert op.dtype == tf.float32
    np.testing.assert_allclose(op.to_dense().numpy(), circulant(h), atol=1e-5)
    np.testing.assert_allclose(op.convolution_kernel().numpy(), h, atol=1e-5)
    spec = np.fft.fft2(RNG.standard_normal((2, 3, 4))).astype(np.complex128)  # a batch of 2
    op2 = LinearOperatorCirculant2D(spec, input_output_dtype="complex128")
    assert op2.shape.as_list() == [2, 12, 12] and op2.block_depth == 2
    x = RNG.standard_normal((2, 12, 1)) + 0j
    want = np.fft.ifft2(spec * np.fft.fft2(x[..., 0].reshape(2, 3, 4))).reshape(2, 12, 1)
    np.testing.assert_allclose(op2.matmul(x).numpy(), want, atol=1e-12)
    spec3 = np.fft.fftn(RNG.standard_normal((2, 2, 3)))
    op3 = LinearOperatorCirculant3D(spec3, input_output_dtype="complex128")
    np.testing.assert_allclose(op3.determinant().numpy(), np.linalg.det(op3.to_dense().numpy()), rtol=1e-10)
    with pytest.raises(ValueError, match="rank at least 3"):
        LinearOperatorCirculant3D(np.ones((2, 2), np.complex64))


def test_compat_class_builds_into_the_graph():
    with tf.Graph().as_default():
        op = tf.linalg.LinearOperatorCirculant(np.fft.fft([1.0, 2.0, 3.0]).astype(np.complex64))
        assert isinstance(op, tf.linalg.LinearOperator)
        dense = tf.Session().run(op.to_dense())
    np.testing.assert_allclose(dense, circulant(np.array([1.0, 2.0, 3.0])), atol=1e-5)
