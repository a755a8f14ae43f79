"""tf.signal beyond the FFTs: framing (frame, overlap_and_add), windows (hann, hamming), the
short-time Fourier transform and its inverse, mel filterbanks, DCTs and MFCCs: compositions
over existing ops, as TensorFlow writes them. Lengths, steps and the framed axis's size must be
known statically (Python ints, as TF1 programs pass them)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.api import constant as _to_tensor
from ..gradients.helpers import constant_value
from . import spectral_ops as _spectral


def _tensor(x):
    return x if hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray) else _to_tensor(x)


def _dims(t):
    dims = getattr(t.shape, "dims", t.shape)
    return None if dims is None else [None if d is None else int(d) for d in dims]


def _static_int(op, name, v) -> int:
    value = v.numpy() if hasattr(v, "numpy") else v
    try:
        return int(np.asarray(value).reshape(()))
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{op}: {name} must be a static integer, got {v!r}", op) from None


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of frame_length every frame_step along axis: [..., frames, frame_length, ...]."""
    del name
    signal = _tensor(signal)
    length = _static_int("frame", "frame_length", frame_length)
    step = _static_int("frame", "frame_step", frame_step)
    dims = _dims(signal)
    if dims is None or not dims:
        raise InvalidArgumentError("frame: the signal must have a known rank of at least 1", "GatherV2")
    axis = _static_int("frame", "axis", axis) % len(dims)
    n = dims[axis]
    if n is None:
        raise InvalidArgumentError(f"frame: dim {axis} of the signal must be known", "GatherV2")
    if length <= 0 or step <= 0:
        raise InvalidArgumentError(f"frame: frame_length and frame_step must be positive, got {length}, {step}",
                                   "GatherV2")
    if pad_end:
        frames = -(-n // step)
        padded = max(0, (frames - 1) * step + length - n)
        if padded:
            paddings = np.zeros((len(dims), 2), np.int32)
            paddings[axis, 1] = padded
            signal = _ops.pad_v2(signal, paddings, np.asarray(pad_value, _dtypes.as_dtype(signal.dtype).as_numpy_dtype))
    else:
        frames = max(0, 1 + (n - length) // step)
    index = (step * np.arange(frames)[:, None] + np.arange(length)[None, :]).astype(np.int32)
    return _ops.gather_v2(signal, index, np.int32(axis))


def overlap_and_add(signal, frame_step, name=None):
    """The frames of signal [..., frames, frame_length] added back at frame_step intervals:
    [..., (frames - 1) * frame_step + frame_length]."""
    del name
    signal = _tensor(signal)
    step = _static_int("overlap_and_add", "frame_step", frame_step)
    dims = _dims(signal)
    if dims is None or len(dims) < 2 or dims[-1] is None or dims[-2] is None:
        raise InvalidArgumentError("overlap_and_add: the signal must have rank >= 2 with known frames and "
                                   "frame_length", "MatMul")
    frames, length = dims[-2], dims[-1]
    out_len = max(0, (frames - 1) * step + length) if frames else 0
    scatter = np.zeros((frames * length, out_len), _dtypes.as_dtype(signal.dtype).as_numpy_dtype)
    for f in range(frames):
        scatter[f * length + np.arange(length), f * step + np.arange(length)] = 1
    flat = _ops.reshape(signal, np.asarray([-1, frames * length], np.int32))
    out = _ops.mat_mul(flat, scatter)
    shape = _ops.concat_v2([_ops.strided_slice(_ops.shape(signal), np.int32([0]), np.int32([-2]), np.int32([1])),
                            np.asarray([out_len], np.int32)], np.int32(0))
    return _ops.reshape(out, shape)


def _raised_cosine(window_length, periodic, dtype, a, b):
    n = _static_int("window", "window_length", window_length)
    dt = _dtypes.as_dtype(dtype)
    if n == 1:
        return _to_tensor(np.ones(1, dt.as_numpy_dtype))
    denom = n if periodic else n - 1
    w = a - b * np.cos(2 * np.pi * np.arange(n) / denom) if n else np.zeros(0)
    return _to_tensor(w.astype(dt.as_numpy_dtype))


def hann_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hann window 0.5 - 0.5 cos(2 pi n / N) (N = length if periodic, else length - 1)."""
    del name
    return _raised_cosine(window_length, bool(periodic), dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hamming window 0.54 - 0.46 cos(2 pi n / N)."""
    del name
    return _raised_cosine(window_length, bool(periodic), dtype, 0.54, 0.46)


def _default_fft_length(frame_length: int) -> int:
    return 1 << max(0, int(np.ceil(np.log2(frame_length)))) if frame_length > 0 else 0


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real signals [..., samples]:
    [..., frames, fft_length // 2 + 1] (windowed frames, RFFT)."""
    del name
    signals = _tensor(signals)
    length = _static_int("stft", "frame_length", frame_length)
    n = _default_fft_length(length) if fft_length is None else _static_int("stft", "fft_length", fft_length)
    framed = frame(signals, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = _ops.mul(framed, window_fn(length, dtype=signals.dtype))
    return _spectral.rfft(framed, [n])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """The inverse of stft (with window_fn=inverse_stft_window_fn(frame_step) it reconstructs the
    signal): IRFFT of each frame, windowed, overlapped and added."""
    del name
    stfts = _tensor(stfts)
    length = _static_int("inverse_stft", "frame_length", frame_length)
    n = _default_fft_length(length) if fft_length is None else _static_int("inverse_stft", "fft_length", fft_length)
    frames = _spectral.irfft(stfts, [n])
    dims = _dims(frames)
    if n > length:
        begin = np.zeros(len(dims), np.int32)
        size = np.full(len(dims), -1, np.int32)
        size[-1] = length
        frames = _ops.slice(frames, begin, size)
    elif n < length:
        paddings = np.zeros((len(dims), 2), np.int32)
        paddings[-1, 1] = length - n
        frames = _ops.pad(frames, paddings)
    if window_fn is not None:
        frames = _ops.mul(frames, window_fn(length, dtype=frames.dtype))
    return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window_fn for inverse_stft that inverts stft's forward window: the forward window over
    the sum of its squares at every frame_step overlap."""
    del name
    step = _static_int("inverse_stft_window_fn", "frame_step", frame_step)

    def inverse_window(frame_length, dtype):
        length = _static_int("inverse_stft_window_fn", "frame_length", frame_length)
        w = constant_value(forward_window_fn(length, dtype=dtype))
        if w is None:
            raise InvalidArgumentError("inverse_stft_window_fn: the forward window must be a constant", "Const")
        w = np.asarray(w, np.float64)
        overlaps = -(-length // step)
        denom = np.pad(np.square(w), (0, overlaps * step - length)).reshape(overlaps, step).sum(0)
        denom = np.tile(denom, overlaps)[:length]
        return _to_tensor((w / denom).astype(_dtypes.as_dtype(dtype).as_numpy_dtype))

    return inverse_window


def _hertz_to_mel(f):
    return 1127.0 * np.log1p(np.asarray(f, np.float64) / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=_dtypes.float32, name=None):
    """A [num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters (TensorFlow's
    HTK-style mel scale, the DC bin weighted 0)."""
    del name
    bins, mels = int(num_spectrogram_bins), int(num_mel_bins)
    if mels <= 0 or bins <= 0 or not 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2:
        raise InvalidArgumentError("linear_to_mel_weight_matrix: needs positive bins and 0 <= lower_edge_hertz < "
                                   "upper_edge_hertz <= sample_rate / 2", "Const")
    linear = np.linspace(0.0, sample_rate / 2.0, bins)[1:]
    spec_mel = _hertz_to_mel(linear)[:, None]
    edges = np.linspace(_hertz_to_mel(lower_edge_hertz), _hertz_to_mel(upper_edge_hertz), mels + 2)
    lower, center, upper = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    weights = np.maximum(0.0, np.minimum((spec_mel - lower) / (center - lower), (upper - spec_mel) / (upper - center)))
    weights = np.pad(weights, [[1, 0], [0, 0]])
    return _to_tensor(weights.astype(_dtypes.as_dtype(dtype).as_numpy_dtype))


def _dct_matrix(kind: int, n_in: int, norm, np_dtype) -> np.ndarray:
    """M with dct(x) = x @ M over the last axis (SciPy's / TensorFlow's definitions)."""
    n = np.arange(n_in)[:, None].astype(np.float64)
    k = np.arange(n_in)[None, :].astype(np.float64)
    N = float(n_in)
    if kind == 1:
        m = 2 * np.cos(np.pi * k * n / (N - 1))
        m[0, :] = 1
        m[-1, :] = (-1.0) ** np.arange(n_in)
    elif kind == 2:
        m = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * N))
        if norm == "ortho":
            m[:, 0] *= np.sqrt(1 / (4 * N))
            m[:, 1:] *= np.sqrt(1 / (2 * N))
    elif kind == 3:
        m = 2 * np.cos(np.pi * n * (2 * k + 1) / (2 * N))
        m[0, :] = 1
        if norm == "ortho":
            m[0, :] = 1 / np.sqrt(N)
            m[1:, :] *= np.sqrt(1 / (2 * N))
    else:
        m = 2 * np.cos(np.pi * (2 * k + 1) * (2 * n + 1) / (4 * N))
        if norm == "ortho":
            m *= np.sqrt(1 / (2 * N))
    return m.astype(np_dtype)


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The discrete cosine transform (types 1-4) of the inner-most dim, cropped or zero-padded
    to n; norm None or "ortho" (not for type 1)."""
    del name
    x = _tensor(input)
    if axis != -1:
        raise InvalidArgumentError("dct: only axis=-1 is supported (as in TensorFlow)", "MatMul")
    if type not in (1, 2, 3, 4):
        raise InvalidArgumentError(f"dct: type must be 1, 2, 3 or 4, got {type!r}", "MatMul")
    if norm not in (None, "ortho") or (norm == "ortho" and type == 1):
        raise InvalidArgumentError(f"dct: norm must be None or 'ortho' (not for type 1), got {norm!r}", "MatMul")
    dt = _dtypes.as_dtype(x.dtype)
    if dt.name not in ("float32", "float64"):
        raise InvalidArgumentError(f"dct: input must be float32 or float64, got {dt.name}", "MatMul")
    dims = _dims(x)
    if dims is None or not dims or dims[-1] is None:
        raise InvalidArgumentError("dct: the inner-most dim of the input must be known", "MatMul")
    size = dims[-1] if n is None else int(n)
    if size <= 0 or (type == 1 and size < 2):
        raise InvalidArgumentError(f"dct: the length must be positive (at least 2 for type 1), got {size}", "MatMul")
    if size != dims[-1]:
        begin = np.zeros(len(dims), np.int32)
        keep = np.full(len(dims), -1, np.int32)
        keep[-1] = min(size, dims[-1])
        x = _ops.slice(x, begin, keep)
        if size > dims[-1]:
            paddings = np.zeros((len(dims), 2), np.int32)
            paddings[-1, 1] = size - dims[-1]
            x = _ops.pad(x, paddings)
    flat = _ops.reshape(x, np.asarray([-1, size], np.int32))
    out = _ops.mat_mul(flat, _dct_matrix(type, size, norm, dt.as_numpy_dtype))
    return _ops.reshape(out, _ops.shape(x))


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT: the DCT of the inverse type (2 <-> 3); without norm it is scaled by
    1 / (2 N) relative to an exact inverse, as TensorFlow's."""
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}.get(type, type), n=n, axis=axis, norm=norm, name=name)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-scaled DCT-II of log mel spectrograms [..., num_mel_bins]."""
    del name
    x = _tensor(log_mel_spectrograms)
    dims = _dims(x)
    if dims is None or not dims or dims[-1] is None or dims[-1] <= 0:
        raise InvalidArgumentError("mfccs_from_log_mel_spectrograms: num_mel_bins must be known and positive",
                                   "MatMul")
    scale = np.asarray(1 / np.sqrt(2.0 * dims[-1]), _dtypes.as_dtype(x.dtype).as_numpy_dtype)
    return _ops.mul(dct(x, type=2), scale)


__all__ = ["dct", "frame", "hamming_window", "hann_window", "idct", "inverse_stft", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "overlap_and_add", "stft"]
