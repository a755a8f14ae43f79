"""TF1 names of the complex-number and spectral work: the complex dtypes, tf.complex / real /
imag / conj / angle (and their tf.math names), tf.to_complex64 / 128, the FFT functions
(tf.fft ... tf.irfftnd, tf.spectral.*, tf.signal.*), tf.signal's framing, windows, STFT, mel
and DCT functions and tf.linalg's circulant operators (opforge/ops/complex_ops.py,
spectral_ops.py, signal_ops.py, linear_operator_circulant.py)."""

from opforge.compat import _namespace
from opforge.compat.v1 import _tf1
from opforge.framework.dtypes import complex64, complex128
from opforge.compat.v1 import _tf1_linop
from opforge.ops import complex_ops as _c
from opforge.ops import linear_operator_circulant as _circulant
from opforge.ops import signal_ops as _sig
from opforge.ops import spectral_ops as _sp

_g = _namespace.in_default_graph

complex = _g(_c.complex)  # noqa: A001 (TensorFlow's name)
real, imag, conj, angle = _g(_c.real), _g(_c.imag), _g(_c.conj), _g(_c.angle)
to_complex64, to_complex128 = _g(_c.to_complex64), _g(_c.to_complex128)
for _n in ("real", "imag", "conj", "angle"):
    setattr(_tf1.math, _n, globals()[_n])

fft, ifft, fft2d, ifft2d, fft3d, ifft3d = (_g(getattr(_sp, n)) for n in ("fft", "ifft", "fft2d", "ifft2d", "fft3d",
                                                                         "ifft3d"))
fftnd, ifftnd = _g(_sp.raw_fftnd), _g(_sp.raw_ifftnd)  # TF1's tf.fftnd takes the op's arguments
rfftnd, irfftnd = _g(_sp.raw_rfftnd), _g(_sp.raw_irfftnd)

_SPECTRAL = ("fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
             "irfft3d")
spectral = _namespace.Namespace("spectral", {n: getattr(_sp, n) for n in _SPECTRAL}, dct=_sig.dct, idct=_sig.idct)
signal = _namespace.Namespace(
    "signal", {n: getattr(_sp, n) for n in _sp.__all__},
    **{n: getattr(_sig, n) for n in _sig.__all__ if n != "inverse_stft_window_fn"},
    inverse_stft_window_fn=_sig.inverse_stft_window_fn)  # returns a window function: built when called

for _n in _circulant.__all__:  # tf.linalg.LinearOperatorCirculant, 2D, 3D
    setattr(_tf1.linalg, _n, _tf1_linop._compat_class(getattr(_circulant, _n)))

__all__ = ["complex64", "complex128", "complex", "real", "imag", "conj", "angle", "to_complex64", "to_complex128",
           "fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "fftnd", "ifftnd", "rfftnd", "irfftnd", "spectral",
           "signal"]
