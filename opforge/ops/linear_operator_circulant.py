"""Circulant linear operators (tf.linalg.LinearOperatorCirculant, 2D, 3D): an operator defined by
its spectrum H, the DFT of its convolution kernel. A block circulant matrix of block_depth d acts
on vectors of N = n1 * ... * nd entries by an n1 x ... x nd circular convolution, so it is applied
with FFTs: y = IFFTd(H * FFTd(x)) per column of x (the adjoint uses conj(H), the inverse 1 / H),
and its determinant is the product of the spectrum, its diagonal the spectrum's mean."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.tensor_shape import TensorShape
from . import complex_ops as _c
from . import spectral_ops as _sp
from .linear_operator import LinearOperator, as_tensor, static_dims, transpose_last_two

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D"]

_FFT = {1: (_sp.fft, _sp.ifft), 2: (_sp.fft2d, _sp.ifft2d), 3: (_sp.fft3d, _sp.ifft3d)}


class _BaseLinearOperatorCirculant(LinearOperator):
    """Shared by the 1-, 2- and 3-D circulant operators: spectrum [..., n1, ..., nd]."""

    _BLOCK_DEPTH = 1

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant"):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if is_square is False:
            raise ValueError("A circulant operator is always square.")
        spectrum = as_tensor(spectrum)
        sdt = _dtypes.as_dtype(spectrum.dtype)
        if sdt.name not in ("float32", "float64", "complex64", "complex128"):
            raise TypeError(f"spectrum must be float32, float64, complex64 or complex128, got {sdt.name}")
        if not sdt.is_complex:
            spectrum = _ops.cast(spectrum, DstT=_dtypes.complex64 if sdt.name == "float32" else _dtypes.complex128)
        if spectrum.shape.rank is not None and spectrum.shape.rank < self._BLOCK_DEPTH:
            raise ValueError(f"spectrum must have rank at least {self._BLOCK_DEPTH}, got shape {spectrum.shape}")
        self._spectrum = spectrum
        self._block_shape = static_dims(spectrum.shape[-self._BLOCK_DEPTH:], "spectrum's block shape")
        super().__init__(input_output_dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name, parameters=parameters)

    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_depth(self) -> int:
        return self._BLOCK_DEPTH

    def block_shape_tensor(self):
        return np.asarray(self._block_shape, np.int32)

    @property
    def block_shape(self) -> TensorShape:
        return TensorShape(self._block_shape)

    def convolution_kernel(self, name="convolution_kernel"):
        """The kernel h with H = DFT(h) (real when the operator's dtype is)."""
        del name
        h = _FFT[self._BLOCK_DEPTH][1](self._spectrum)
        return self._to_io(h)

    def _shape(self):
        n = int(np.prod(self._block_shape))
        return self._spectrum.shape[:-self._BLOCK_DEPTH].concatenate([n, n])

    def _to_io(self, t):
        """A complex result in the operator's dtype (the real part for a real dtype)."""
        if self.dtype.is_complex:
            return t if t.dtype == self.dtype else _ops.cast(t, DstT=self.dtype)
        return _ops.cast(_c.real(t), DstT=self.dtype)

    def _apply_spectrum(self, x, spectrum, adjoint_arg):
        """IFFT(spectrum * FFT(x)) over the block dims of each column of x [..., N, R]."""
        if adjoint_arg:
            x = _c.conj(transpose_last_two(x))
        cdt = _dtypes.as_dtype(spectrum.dtype)
        if x.dtype != cdt:
            x = _ops.cast(x, DstT=cdt)
        rank = x.shape.rank
        cols = transpose_last_two(x)  # [..., R, N]
        dims = static_dims(cols.shape[:-1], "the argument's shape")
        blocks = _ops.reshape(cols, np.asarray(dims + self._block_shape, np.int64))
        fft, ifft = _FFT[self._BLOCK_DEPTH]
        h = _ops.expand_dims(spectrum, np.int32(-self._BLOCK_DEPTH - 1))  # a column axis to broadcast over
        y = ifft(_ops.mul(h, fft(blocks)))
        y = _ops.reshape(y, np.asarray(static_dims(y.shape[:-self._BLOCK_DEPTH], "result") + [-1], np.int64))
        del rank
        return self._to_io(transpose_last_two(y))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        spectrum = _c.conj(self._spectrum) if adjoint else self._spectrum
        return self._apply_spectrum(x, spectrum, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        spectrum = _c.conj(self._spectrum) if adjoint else self._spectrum
        return self._apply_spectrum(rhs, _ops.reciprocal(spectrum), adjoint_arg)

    def _block_axes(self):
        return np.arange(-self._BLOCK_DEPTH, 0, dtype=np.int32)

    def _determinant(self):
        # the product of the spectrum, as exp(sum(log H)) (complex log: the phases add up)
        return self._to_io(_ops.exp(_ops.sum(_ops.log(self._spectrum), self._block_axes())))

    def _log_abs_determinant(self):
        rdt = _dtypes.as_dtype(self._spectrum.dtype).real_dtype
        log_abs = _ops.log(_ops.complex_abs(self._spectrum, Tout=rdt))
        return _ops.cast(_ops.sum(log_abs, self._block_axes()), DstT=self.dtype.real_dtype)

    def _trace(self):
        return self._to_io(_ops.sum(self._spectrum, self._block_axes()))

    def _diag_part(self):
        n = int(np.prod(self._block_shape))
        mean = _ops.mean(self._spectrum, self._block_axes(), keep_dims=False)
        diag = _ops.mul(_ops.expand_dims(mean, np.int32(-1)), np.ones([n], _dtypes.as_dtype(mean.dtype).as_numpy_dtype))
        return self._to_io(diag)

    def _to_dense(self):
        n = int(np.prod(self._block_shape))
        eye = np.eye(n).astype(_dtypes.as_dtype(self._spectrum.dtype).as_numpy_dtype)
        return self._apply_spectrum(as_tensor(eye), self._spectrum, False)


class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """A circulant matrix [..., N, N] from its spectrum [..., N] (tf.linalg.LinearOperatorCirculant)."""

    _BLOCK_DEPTH = 1

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)


class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """A block circulant matrix with circulant blocks, from its spectrum [..., N0, N1]."""

    _BLOCK_DEPTH = 2

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant2D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)


class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """A doubly nested block circulant matrix, from its spectrum [..., N0, N1, N2]."""

    _BLOCK_DEPTH = 3

    def __init__(self, spectrum, input_output_dtype=_dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant3D"):
        super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)
