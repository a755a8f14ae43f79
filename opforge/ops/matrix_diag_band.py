"""TensorFlow's band-diagonal matrix functions over the native ops (opdefs/linalg/matrix_*):
tf.linalg.diag / diag_part / set_diag with MatrixDiagV3's band k = (k0, k1), matrix size, padding
value and alignment of diagonals shorter than the longest (TF1's tf.matrix_diag,
tf.matrix_diag_part, tf.matrix_set_diag), and tf.linalg.band_part (tf.matrix_band_part). Shapes
may be unknown until the graph runs; gradients are the ops' own (gradients/matrix_diag_grads.py).
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from .math_ops import _as_tensor

__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag", "matrix_band_part"]

_ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _check_align(align, op):
    if align not in _ALIGNS:
        raise InvalidArgumentError(f"{op}: align must be one of {list(_ALIGNS)}, got {align!r}", op)


def _k(k):
    """k as the ops take it: an int32 scalar or pair (a tensor passes through)."""
    if hasattr(k, "dtype") and not isinstance(k, (np.ndarray, np.generic)):
        return k if k.dtype.name == "int32" else _ops.cast(k, "int32")
    return np.asarray(k, np.int32)


def _int32(v):
    return v if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)) else np.int32(v)


def _int64(v):
    if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)):
        return v if v.dtype.name == "int64" else _ops.cast(v, "int64")
    return np.int64(v)


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the given diagonals k0..k1 (tf.linalg.diag, tf.matrix_diag): diagonal is
    [..., max_len] for one diagonal, [..., k1 - k0 + 1, max_len] for a band (top row: k1); the
    rest is padding_value. num_rows / num_cols of -1 are inferred as TensorFlow does."""
    _check_align(align, "MatrixDiagV3")
    d = _as_tensor(diagonal)
    return _ops.matrix_diag_v3(d, _k(k), _int32(num_rows), _int32(num_cols), _as_tensor(padding_value, d.dtype),
                               align=align, name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 (TF's names)
    """The diagonals k0..k1 of each matrix (tf.linalg.diag_part, tf.matrix_diag_part): [...,
    max_len] for one diagonal, [..., k1 - k0 + 1, max_len] for a band (top row: k1); shorter
    diagonals are padded with padding_value on the side align says."""
    _check_align(align, "MatrixDiagPartV3")
    x = _as_tensor(input)
    return _ops.matrix_diag_part_v3(x, _k(k), _as_tensor(padding_value, x.dtype), align=align, name=name)


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 (TF's names)
    """input with its diagonals k0..k1 replaced by diagonal, laid out as matrix_diag_part gives
    them (tf.linalg.set_diag, tf.matrix_set_diag)."""
    _check_align(align, "MatrixSetDiagV3")
    x = _as_tensor(input)
    return _ops.matrix_set_diag_v3(x, _as_tensor(diagonal, x.dtype), _k(k), align=align, name=name)


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002 (TF's names)
    """Each matrix with everything outside a band set to 0 (tf.linalg.band_part,
    tf.matrix_band_part): entry (i, j) stays where (num_lower < 0 or i - j <= num_lower) and
    (num_upper < 0 or j - i <= num_upper). num_lower = -1 keeps the whole lower triangle."""
    return _ops.matrix_band_part(_as_tensor(input), _int64(num_lower), _int64(num_upper), name=name)
