"""The linear operators held by their entries or a few numbers (tf.linalg.LinearOperatorFullMatrix,
Diag, Identity, ScaledIdentity, Zeros, LowerTriangular). Each uses its structure as TensorFlow
does: a diagonal multiplies and solves elementwise and its determinant is a product, a triangular
matrix solves by substitution (MatrixTriangularSolve) and its determinant is its diagonal's
product."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.tensor_shape import TensorShape, broadcast_static_shape
from . import check_ops
from .array_ops import expand_dims
from .linalg_decompositions import band_part, triangular_solve
from .linalg_ops import diag as _dense_diag, diag_part as _dense_diag_part, set_diag
from .linear_operator import (
    DERIVED, LinearOperator, as_tensor, broadcast_batch, matmul_dense, scalar, static_dims, transpose_last_two,
)
from .math_ops import reduce_sum

__all__ = ["LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
           "LinearOperatorZeros", "LinearOperatorLowerTriangular"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _float_tensor(value, what, dtype=None):
    t = as_tensor(value, dtype)
    if t.dtype.name not in _FLOATS:
        raise TypeError(f"Argument `{what}` must have dtype in {list(_FLOATS)}. Received: {t.dtype.name}")
    return t


def _min_rank(t, rank, what):
    if t.shape.rank is not None and t.shape.rank < rank:
        raise ValueError(f"Argument `{what}` must have at least {rank} dimension(s). Received: shape {t.shape}")


def _no_op(name):
    return _ops.no_op(name=name)


def _full(batch_shape, dtype, value):
    return np.full(tuple(static_dims(batch_shape, "batch shape")), value, _dtypes.as_dtype(dtype).as_numpy_dtype)


class LinearOperatorFullMatrix(LinearOperator):
    """A dense matrix (batch) [..., M, N] as an operator (tf.linalg.LinearOperatorFullMatrix)."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._matrix = _float_tensor(matrix, "matrix")
        _min_rank(self._matrix, 2, "matrix")
        super().__init__(self._matrix.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square, name=name,
                         parameters=parameters)

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return _ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return matmul_dense(self._matrix, x, adjoint, adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """diag(d) for a vector (batch) d [..., N]: products and solves elementwise, the determinant a
    product (tf.linalg.LinearOperatorDiag)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorDiag"):
        parameters = dict(diag=diag, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._diag = _float_tensor(diag, "diag")
        _min_rank(self._diag, 1, "diag")
        if is_self_adjoint is False:
            raise ValueError("A real diagonal operator is always self adjoint.")
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=is_positive_definite, is_square=True, name=name, parameters=parameters)

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _assert_non_singular(self):
        return check_ops.assert_none_equal(self._diag, scalar(0, self.dtype), message="Singular operator: "
                                           "Diagonal contained zero values.")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(self._diag, message="Operator was not positive definite: diagonal "
                                         "contained non-positive values.")

    def _assert_self_adjoint(self):
        return _no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = transpose_last_two(x) if adjoint_arg else x
        return _ops.mul(expand_dims(self._diag, -1), x)

    def _matvec(self, x, adjoint=False):
        return _ops.mul(self._diag, x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = transpose_last_two(rhs) if adjoint_arg else rhs
        return _ops.real_div(rhs, expand_dims(self._diag, -1))

    def _solvevec(self, rhs, adjoint=False):
        return _ops.real_div(rhs, self._diag)

    def _determinant(self):
        return _ops.prod(self._diag, np.int32(-1))

    def _log_abs_determinant(self):
        return reduce_sum(_ops.log(_ops.abs(self._diag)), -1)

    def _to_dense(self):
        return _dense_diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return set_diag(x, _ops.add_v2(_dense_diag_part(x), self._diag))

    def _eigvals(self):
        return self._diag

    def _cond(self):
        a = _ops.abs(self._diag)
        return _ops.real_div(_ops.max(a, np.int32(-1)), _ops.min(a, np.int32(-1)))

    def _linop_inverse(self):
        return LinearOperatorDiag(_ops.reciprocal(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=True, is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return LinearOperatorDiag(_ops.sqrt(self._diag), is_non_singular=True, is_self_adjoint=True,
                                  is_positive_definite=True)

    def _linop_matmul(self, left, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(_ops.mul(left.diag, right.diag))
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(_ops.real_div(right.diag, left.diag))
        return super()._linop_solve(left, right)


def _num_rows(value, what):
    if hasattr(value, "numpy"):
        value = value.numpy()
    v = np.asarray(value)
    if v.ndim != 0 or not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"Argument `{what}` must be a 0-D integer, got {value!r}")
    if int(v) < 0:
        raise ValueError(f"Argument `{what}` must be non-negative. Received: {int(v)}")
    return int(v)


def _batch_shape_arg(batch_shape):
    if batch_shape is None:
        return TensorShape([])
    dims = np.asarray(batch_shape.numpy() if hasattr(batch_shape, "numpy") else batch_shape)
    if dims.ndim != 1 or (dims.size and not np.issubdtype(dims.dtype, np.integer)):
        raise ValueError(f"Argument `batch_shape` must be a 1-D integer vector, got {batch_shape!r}")
    if np.any(dims < 0):
        raise ValueError(f"Argument `batch_shape` must be non-negative. Received: {dims.tolist()}")
    return TensorShape([int(d) for d in dims])


class LinearOperatorIdentity(LinearOperator):
    """The identity of size num_rows, repeated over batch_shape (tf.linalg.LinearOperatorIdentity).
    Products return the argument (broadcast to the batch shape)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        for hint, what in ((is_self_adjoint, "self-adjoint"), (is_positive_definite, "positive definite"),
                           (is_non_singular, "non-singular"), (is_square, "square")):
            if not hint:
                raise ValueError(f"An identity operator is always {what}.")
        self._num_rows = _num_rows(num_rows, "num_rows")
        self._batch_shape_arg = _batch_shape_arg(batch_shape)
        self._assert_proper_shapes = assert_proper_shapes
        super().__init__(dtype or "float32", is_non_singular=True, is_self_adjoint=True, is_positive_definite=True,
                         is_square=True, name=name, parameters=parameters)

    def _shape(self):
        return self._batch_shape_arg.concatenate([self._num_rows, self._num_rows])

    def _broadcast_to_batch(self, x):
        if self._batch_shape_arg.rank == 0:
            return x
        like = _ops.identity(np.zeros(static_dims(self.shape, self.name), self.dtype.as_numpy_dtype))
        return broadcast_batch(x, like)[0]

    def _assert_non_singular(self):
        return _no_op("assert_non_singular")

    def _assert_positive_definite(self):
        return _no_op("assert_positive_definite")

    def _assert_self_adjoint(self):
        return _no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._broadcast_to_batch(transpose_last_two(x) if adjoint_arg else x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 1))

    def _log_abs_determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 0))

    def _to_dense(self):
        eye = np.eye(self._num_rows, dtype=self.dtype.as_numpy_dtype)
        return _ops.identity(np.broadcast_to(eye, tuple(self.shape.as_list())).copy())

    def _diag_part(self):
        return _ops.identity(_full(self.shape[:-1], self.dtype, 1))

    def _trace(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, self._num_rows))

    def _add_to_tensor(self, x):
        return _ops.add_v2(x, self._to_dense())

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 1))

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self

    def _linop_matmul(self, left, right):
        if isinstance(left, LinearOperatorIdentity) and left.batch_shape.rank == 0:
            return right
        return super()._linop_matmul(left, right)


class LinearOperatorScaledIdentity(LinearOperator):
    """multiplier * I of size num_rows, the batch shape multiplier's
    (tf.linalg.LinearOperatorScaledIdentity)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        parameters = dict(num_rows=num_rows, multiplier=multiplier, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        if is_self_adjoint is False:
            raise ValueError("A real diagonal operator is always self adjoint.")
        self._multiplier = _float_tensor(multiplier, "multiplier")
        self._num_rows = _num_rows(num_rows, "num_rows")
        self._assert_proper_shapes = assert_proper_shapes
        super().__init__(self._multiplier.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        return self._multiplier.shape.concatenate([self._num_rows, self._num_rows])

    def _m(self, extra_dims=2):
        m = self._multiplier
        for _ in range(extra_dims):
            m = expand_dims(m, -1)
        return m

    def _assert_non_singular(self):
        return check_ops.assert_positive(_ops.abs(self._multiplier), message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(self._multiplier, message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        return _no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _ops.mul(self._m(), transpose_last_two(x) if adjoint_arg else x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return _ops.real_div(transpose_last_two(rhs) if adjoint_arg else rhs, self._m())

    def _determinant(self):
        return _ops.pow(self._multiplier, scalar(self._num_rows, self.dtype))

    def _log_abs_determinant(self):
        return _ops.mul(scalar(self._num_rows, self.dtype), _ops.log(_ops.abs(self._multiplier)))

    def _to_dense(self):
        return _ops.mul(self._m(), np.eye(self._num_rows, dtype=self.dtype.as_numpy_dtype))

    def _diag_part(self):
        return _ops.mul(self._m(1), np.ones(self._num_rows, self.dtype.as_numpy_dtype))

    def _trace(self):
        return _ops.mul(self._multiplier, scalar(self._num_rows, self.dtype))

    def _add_to_tensor(self, x):
        return set_diag(x, _ops.add_v2(_dense_diag_part(x), self._m(1)))

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 1))

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(self._num_rows, _ops.reciprocal(self._multiplier),
                                            is_non_singular=self.is_non_singular,
                                            is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(self._num_rows, _ops.sqrt(self._multiplier), is_non_singular=True,
                                            is_positive_definite=True)


class LinearOperatorZeros(LinearOperator):
    """The num_rows x num_columns zero matrix, repeated over batch_shape (tf.linalg.LinearOperatorZeros)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        if not is_self_adjoint and is_square:
            raise ValueError("A zero operator is always self adjoint.")
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        self._num_rows = _num_rows(num_rows, "num_rows")
        self._num_columns = self._num_rows if num_columns is None else _num_rows(num_columns, "num_columns")
        self._batch_shape_arg = _batch_shape_arg(batch_shape)
        self._assert_proper_shapes = assert_proper_shapes
        if self._num_rows != self._num_columns and is_square:
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got num_rows({self._num_rows}) "
                             f"!= num_columns({self._num_columns})")
        super().__init__(dtype or "float32", is_non_singular=False, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=False, is_square=is_square, name=name, parameters=parameters)

    def _shape(self):
        return self._batch_shape_arg.concatenate([self._num_rows, self._num_columns])

    def _assert_non_singular(self):
        raise _ops_errors().InvalidArgumentError("Zero operators are always non-invertible.", "LinearOperatorZeros")

    def _assert_positive_definite(self):
        raise _ops_errors().InvalidArgumentError("Zero operators are always non-positive definite.",
                                                 "LinearOperatorZeros")

    def _assert_self_adjoint(self):
        return _no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = transpose_last_two(x) if adjoint_arg else x
        rows = self._num_columns if adjoint else self._num_rows
        batch = broadcast_static_shape(x.shape[:-2], self.batch_shape)
        out = static_dims(batch.concatenate([rows, x.shape[-1]]), f"{self.name}.matmul")
        return _ops.identity(np.zeros(out, self.dtype.as_numpy_dtype))

    def _determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 0))

    def _log_abs_determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, -np.inf))

    def _to_dense(self):
        return _ops.identity(np.zeros(static_dims(self.shape, f"{self.name}.to_dense"), self.dtype.as_numpy_dtype))

    def _diag_part(self):
        n = min(self._num_rows, self._num_columns)
        return _ops.identity(_full(self.batch_shape.concatenate([n]), self.dtype, 0))

    def _trace(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 0))

    def _add_to_tensor(self, x):
        return broadcast_batch(x, self._to_dense())[0]

    def _eigvals(self):
        return self._diag_part()

    def _linop_adjoint(self):
        return LinearOperatorZeros(self._num_columns, self._num_rows, self._batch_shape_arg.as_list(), self.dtype,
                                   is_self_adjoint=self.is_self_adjoint, is_square=self.is_square)


def _ops_errors():
    from ..framework import errors  # noqa: PLC0415
    return errors


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of tril [..., N, N] (the rest is not read): solves by substitution, the
    determinant the diagonal's product (tf.linalg.LinearOperatorLowerTriangular)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        parameters = dict(tril=tril, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = _float_tensor(tril, "tril")
        _min_rank(self._tril, 2, "tril")
        super().__init__(self._tril.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def tril(self):
        return self._tril

    def _lower(self):
        return band_part(self._tril, -1, 0)

    def _shape(self):
        return self._tril.shape

    def _assert_non_singular(self):
        return check_ops.assert_none_equal(_dense_diag_part(self._tril), scalar(0, self.dtype),
                                           message="Singular operator: Diagonal contained zero values.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return matmul_dense(self._lower(), x, adjoint, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = transpose_last_two(rhs) if adjoint_arg else rhs
        return triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return _ops.prod(_dense_diag_part(self._tril), np.int32(-1))

    def _log_abs_determinant(self):
        return reduce_sum(_ops.log(_ops.abs(_dense_diag_part(self._tril))), -1)

    def _to_dense(self):
        return self._lower()

    def _diag_part(self):
        return _dense_diag_part(self._tril)

    def _eigvals(self):
        return _dense_diag_part(self._tril)


DERIVED["lower_triangular"] = LinearOperatorLowerTriangular
