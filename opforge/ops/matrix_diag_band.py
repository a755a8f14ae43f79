"""TensorFlow's band-diagonal matrix functions (the MatrixDiagV3 / MatrixDiagPartV3 semantics of
tf.linalg.diag / diag_part, TF1's tf.matrix_diag / matrix_diag_part): a band of diagonals k =
(k0, k1), the matrix size, a padding value and the alignment of diagonals shorter than the longest.

Both are one gather with indices computed when the graph is built (the sizes must be known then):
matrix_diag gathers each matrix entry from the flattened diagonals (or the padding value),
matrix_diag_part each diagonal entry from the flattened matrix. Gradients follow from GatherV2's."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from .array_ops import concat
from .math_ops import _as_tensor

__all__ = ["matrix_diag", "matrix_diag_part"]

_ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _band(k, op):
    ks = [int(v) for v in np.ravel(k.numpy() if hasattr(k, "numpy") else k)]
    if len(ks) not in (1, 2):
        raise InvalidArgumentError(f"{op}: k must be a scalar or a pair, got {ks}", op)
    lo, hi = ks[0], ks[-1]
    if lo > hi:
        raise InvalidArgumentError(f"{op}: lower diagonal index must not be larger than upper diagonal index: "
                                   f"{lo} > {hi}", op)
    return lo, hi


def _offset(d, length, max_len, align):
    left_super = align in ("LEFT_LEFT", "LEFT_RIGHT")
    left_sub = align in ("LEFT_LEFT", "RIGHT_LEFT")
    return 0 if (d >= 0 and left_super) or (d <= 0 and left_sub) else max_len - length


def _diag_len(d, rows, cols):
    return min(rows + min(0, d), cols - max(0, d))


def _check_align(align, op):
    if align not in _ALIGNS:
        raise InvalidArgumentError(f"{op}: align must be one of {list(_ALIGNS)}, got {align!r}", op)


def _known(t, op):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is None or any(d is None for d in dims):
        raise InvalidArgumentError(f"{op}: opforge needs the input's shape when the graph is built, got {t.shape}",
                                   op)
    return dims


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the given diagonals k0..k1 (tf.linalg.diag, tf.matrix_diag): diagonal is
    [..., max_len] for one diagonal, [..., k1 - k0 + 1, max_len] for a band (top row: k1); the
    rest is padding_value. num_rows / num_cols of -1 are inferred as TensorFlow does."""
    op = "MatrixDiagV3"
    _check_align(align, op)
    d = _as_tensor(diagonal)
    lo, hi = _band(k, op)
    dims = _known(d, op)
    band = lo != hi
    if len(dims) < (2 if band else 1) or (band and dims[-2] != hi - lo + 1):
        raise InvalidArgumentError(f"{op}: a band k = ({lo}, {hi}) needs diagonals of shape [..., {hi - lo + 1}, "
                                   f"max_len], got {d.shape}", op)
    max_len = dims[-1]
    rows, cols = int(num_rows), int(num_cols)
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise InvalidArgumentError(f"{op}: The number of rows or columns is not consistent with the specified "
                                   f"d_lower, d_upper, and diagonal.", op)
    n_diags = hi - lo + 1
    pad_at = n_diags * max_len
    index = np.full((rows, cols), pad_at, np.int64)
    for i in range(rows):
        for j in range(cols):
            dd = j - i
            if lo <= dd <= hi:
                length = _diag_len(dd, rows, cols)
                index[i, j] = (hi - dd) * max_len + _offset(dd, length, max_len, align) + min(i, j)
    batch = dims[:-2] if band else dims[:-1]
    flat = _ops.reshape(d, np.asarray(batch + [pad_at], np.int64))
    pad = _ops.broadcast_to(_as_tensor(padding_value, d.dtype), np.asarray(batch + [1], np.int64))
    source = concat([flat, pad], -1)
    return _ops.identity(_ops.gather_v2(source, index, np.int32(len(batch))), name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 (TF's names)
    """The diagonals k0..k1 of each matrix (tf.linalg.diag_part, tf.matrix_diag_part): [...,
    max_len] for one diagonal, [..., k1 - k0 + 1, max_len] for a band (top row: k1); shorter
    diagonals are padded with padding_value on the side align says."""
    op = "MatrixDiagPartV3"
    _check_align(align, op)
    x = _as_tensor(input)
    lo, hi = _band(k, op)
    dims = _known(x, op)
    if len(dims) < 2:
        raise InvalidArgumentError(f"{op}: input must be at least 2-dim, received shape: {x.shape}", op)
    rows, cols = dims[-2:]
    if not (-rows < lo <= hi < cols) and not (rows == 0 or cols == 0):
        raise InvalidArgumentError(f"{op}: the diagonal indices ({lo}, {hi}) must lie in ({-rows}, {cols})", op)
    max_len = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
    pad_at = rows * cols
    index = np.full((hi - lo + 1, max_len), pad_at, np.int64)
    for r, dd in enumerate(range(hi, lo - 1, -1)):
        length = max(0, _diag_len(dd, rows, cols))
        off = _offset(dd, length, max_len, align)
        for n in range(length):
            i, j = (n, n + dd) if dd >= 0 else (n - dd, n)
            index[r, off + n] = i * cols + j
    if lo == hi:
        index = index[0]
    batch = dims[:-2]
    flat = _ops.reshape(x, np.asarray(batch + [pad_at], np.int64))
    pad = _ops.broadcast_to(_as_tensor(padding_value, x.dtype), np.asarray(batch + [1], np.int64))
    source = concat([flat, pad], -1)
    return _ops.identity(_ops.gather_v2(source, index, np.int32(len(batch))), name=name)


