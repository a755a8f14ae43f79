"""NumPy references of the band-diagonal matrix ops (opdefs/linalg/matrix_*: their ``reference``
expressions call these), written from TensorFlow's documentation with np.diagonal: diagonal d of
a matrix holds the entries (i, j) with j - i = d; a band k = (k0, k1) stacks diagonals k1 down to
k0; a diagonal shorter than the longest sits at the left or right of its row as ``align`` says
(first word: superdiagonals, second: subdiagonals)."""

from __future__ import annotations

import numpy as np


def _band(k):
    ks = np.ravel(np.asarray(k)).astype(int)
    return int(ks[0]), int(ks[-1])


def _right(d, align):
    return (align.split("_")[0] if d >= 0 else align.split("_")[1]) == "RIGHT"


def diag_part(x, k, padding_value, align):
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    max_len = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
    out = np.full(x.shape[:-2] + (hi - lo + 1, max_len), padding_value, x.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        diag = np.diagonal(x, d, -2, -1) if -rows < d < cols else np.zeros(x.shape[:-2] + (0,), x.dtype)
        n = diag.shape[-1]
        start = max_len - n if _right(d, align) else 0
        out[..., r, start:start + n] = diag
    return out[..., 0, :] if lo == hi else out


def diag(diagonal, k, num_rows, num_cols, padding_value, align):
    lo, hi = _band(k)
    d = np.asarray(diagonal)
    band = d if lo < hi else d[..., None, :]
    max_len = band.shape[-1]
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    rows = min_rows if rows == -1 else rows
    cols = min_cols if cols == -1 else cols
    return set_diag(np.full(band.shape[:-2] + (rows, cols), padding_value, d.dtype), d, k, align)


def set_diag(x, diagonal, k, align):
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    out = np.array(x, copy=True)
    d = np.asarray(diagonal)
    band = d if lo < hi else d[..., None, :]
    max_len = band.shape[-1]
    for r, dd in enumerate(range(hi, lo - 1, -1)):
        n = max(0, min(rows + min(dd, 0), cols - max(dd, 0)))
        start = max_len - n if _right(dd, align) else 0
        t = np.arange(n)
        out[..., t - min(dd, 0), t + max(dd, 0)] = band[..., r, start:start + n]
    return out


def band_part(x, num_lower, num_upper):
    rows, cols = x.shape[-2:]
    below = np.subtract.outer(np.arange(rows), np.arange(cols))  # i - j
    keep = ((int(num_lower) < 0) | (below <= int(num_lower))) & ((int(num_upper) < 0) | (-below <= int(num_upper)))
    return np.where(keep, x, np.zeros((), x.dtype))
