"""Linear-algebra functions built from other ops (TensorFlow's linalg_ops and the matrix
functions of array_ops/math_ops): ``of.eye``, ``of.norm``, ``of.linalg.diag``,
``of.linalg.diag_part``, ``of.linalg.set_diag``, ``of.linalg.trace``, ``of.linalg.tensor_diag``,
``of.linalg.tensor_diag_part``. Shapes they work on must be known when a graph is built, but
for diag, diag_part and set_diag (the MatrixDiag ops)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.tensor import convert_to_tensor
from .math_ops import reduce_max, reduce_sum
from .matrix_diag_band import matrix_diag, matrix_diag_part, matrix_set_diag


def _as_tensor(v, dtype=None):
    return v if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)) else convert_to_tensor(v, dtype)


def _known_dims(x, what: str, min_rank: int = 0) -> list:
    dims = x.shape.dims
    if dims is None or any(d is None for d in dims):
        raise ValueError(f"{what}: opforge needs the input's shape when the graph is built, got {x.shape}")
    if len(dims) < min_rank:
        raise ValueError(f"{what}: the input must have rank >= {min_rank}, got shape {x.shape}")
    return list(dims)


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    """An identity matrix, num_rows x num_columns (square by default), repeated over batch_shape
    (tf.eye). The sizes are Python ints."""
    m = np.eye(int(num_rows), None if num_columns is None else int(num_columns),
               dtype=_dtypes.as_dtype(dtype).as_numpy_dtype)
    if batch_shape is not None:
        m = np.broadcast_to(m, tuple(int(d) for d in batch_shape) + m.shape).copy()
    return _ops.identity(m, name=name)


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched diagonal matrices: out[..., i, i] = diagonal[..., i], zero elsewhere; a band k,
    sizes and padding as MatrixDiagV3 takes them (tf.linalg.diag; matrix_diag_band.matrix_diag)."""
    return matrix_diag(diagonal, name=name, k=k, num_rows=num_rows, num_cols=num_cols, padding_value=padding_value,
                       align=align)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002 (TensorFlow's name)
    """The main diagonals of a batch of matrices: out[..., i] = input[..., i, i] for i below
    min(rows, columns); a band k as MatrixDiagPartV3 takes it (tf.linalg.diag_part)."""
    return matrix_diag_part(input, name=name, k=k, padding_value=padding_value, align=align)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002 (TensorFlow's names)
    """input with the diagonals k (an int, or a band (k0, k1)) of each matrix replaced by
    diagonal (tf.linalg.set_diag, TensorFlow 1's tf.matrix_set_diag; MatrixSetDiagV3): k = 0 the
    main diagonal, k > 0 above it, k < 0 below; diagonal laid out as diag_part gives it."""
    return matrix_set_diag(input, diagonal, name=name, k=k, align=align)


def trace(x, name=None):
    """The sum of the main diagonal of each matrix of x (tf.linalg.trace)."""
    return reduce_sum(diag_part(x), -1, name=name)


def tensor_diag(diagonal, name=None):
    """The tensor of rank 2k with diagonal on its diagonal (tf.linalg.tensor_diag, TensorFlow
    1's tf.diag): out[i1..ik, i1..ik] = diagonal[i1..ik], zero elsewhere."""
    diagonal = _as_tensor(diagonal)
    dims = _known_dims(diagonal, "linalg.tensor_diag", 1)
    n = int(np.prod(dims))
    flat = _ops.reshape(diagonal, np.array([1, n], np.int64))
    square = _ops.mul(flat, np.eye(n, dtype=diagonal.dtype.as_numpy_dtype))
    return _ops.reshape(square, np.array(dims + dims, np.int64), name=name)


def tensor_diag_part(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The diagonal of a tensor of shape s + s (tf.linalg.tensor_diag_part, TensorFlow 1's
    tf.diag_part): out[i1..ik] = input[i1..ik, i1..ik]."""
    x = _as_tensor(input)
    dims = _known_dims(x, "linalg.tensor_diag_part", 2)
    k = len(dims) // 2
    if len(dims) % 2 or dims[:k] != dims[k:]:
        raise ValueError(f"linalg.tensor_diag_part: the input's shape must be s + s, got {x.shape}")
    n = int(np.prod(dims[:k]))
    square = _ops.reshape(x, np.array([n, n], np.int64))
    flat = reduce_sum(_ops.mul(square, np.eye(n, dtype=x.dtype.as_numpy_dtype)), 1)
    return _ops.reshape(flat, np.array(dims[:k], np.int64), name=name)


def _spectral_norm(x, axis):
    """The largest singular value of the matrices over the axis pair, keeping both axes (size 1)."""
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"norm: the spectral norm needs the input's rank, got shape {x.shape}")
    rows, cols = (a % rank for a in axis)
    rest = [d for d in range(rank) if d not in (rows, cols)]
    s, _, _ = _ops.svd(_ops.transpose(x, np.array(rest + [rows, cols], np.int32)), compute_uv=False)
    out = reduce_max(s, -1)
    for a in sorted((rows, cols)):  # back in place as size-1 dims
        out = _ops.expand_dims(out, np.int32(a))
    return out


_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002 (TensorFlow's names)
    """Vector and matrix norms (tf.norm, tf.linalg.norm).

    axis None (all entries as one vector) or an int: a vector norm, ord "euclidean" (= 2), 1,
    np.inf or any real p > 0 ((sum |x|^p)^(1/p)). axis a pair of ints: a matrix norm, ord
    "euclidean"/"fro" (Frobenius), 1 (largest column sum), np.inf (largest row sum), 2 (the
    spectral norm: the largest singular value, from the Svd op)."""
    x = _as_tensor(tensor)
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not all(isinstance(a, (int, np.integer)) for a in axis) or axis[0] == axis[1]:
            raise ValueError(f"norm: a matrix norm's axis must be 2 distinct ints, got {axis}")
        if ord not in _MATRIX_ORDS:
            raise ValueError(f"norm: ord {ord!r} is not a supported matrix norm ({_MATRIX_ORDS})")
    else:
        if isinstance(axis, (tuple, list)) and len(axis) == 1:
            axis = axis[0]
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}")
        if ord not in _VECTOR_ORDS and not (isinstance(ord, (int, float)) and not isinstance(ord, bool)
                                            and ord > 0):
            raise ValueError(f"norm: ord must be a supported vector norm, got {ord!r}")
    magnitude = _ops.abs(x)
    if matrix and ord == 2:
        out = _spectral_norm(x, axis)
    elif ord in ("euclidean", "fro") or (ord == 2 and not matrix):
        out = _ops.sqrt(reduce_sum(_ops.mul(x, x), axis, keepdims=True))
    elif matrix and ord == 1:  # the largest column sum
        out = reduce_max(reduce_sum(magnitude, axis[0], keepdims=True), axis[1], keepdims=True)
    elif matrix:  # np.inf: the largest row sum
        out = reduce_max(reduce_sum(magnitude, axis[1], keepdims=True), axis[0], keepdims=True)
    elif ord == 1:
        out = reduce_sum(magnitude, axis, keepdims=True)
    elif ord == np.inf:
        out = reduce_max(magnitude, axis, keepdims=True)
    else:
        p = np.asarray(ord, x.dtype.as_numpy_dtype)
        out = _ops.pow(reduce_sum(_ops.pow(magnitude, p), axis, keepdims=True), np.reciprocal(p))
    if not keepdims:  # drop the reduced (size-1) dimensions
        out = reduce_sum(out, list(axis) if matrix else axis)
    return _ops.identity(out, name=name)
