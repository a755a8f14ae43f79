"""Structured linear operators (tf.linalg.LinearOperatorLowRankUpdate, Toeplitz, Tridiag,
Permutation, Householder). A permutation multiplies by a gather (its adjoint by the inverse
permutation's), a Householder reflection by one dot product per column.

LowRankUpdate L + U D V^T never forms the N x N matrix: it multiplies through the factors, solves
by the Woodbury identity and takes determinants by the matrix determinant lemma, both over the
K x K capacitance matrix C = D^-1 + V^T L^-1 U (solved by Cholesky when the update keeps the
operator symmetric positive definite, as TensorFlow does). Tridiag multiplies by its three
diagonals (tf.linalg.tridiagonal_matmul) and solves with tf.linalg.tridiagonal_solve.

Toeplitz: TensorFlow multiplies by embedding the matrix in a circulant one and using FFTs; opforge
has no FFT (its dtypes are real), so the Toeplitz matrix is formed (a gather of its 2N - 1
distinct entries) and multiplied densely: the same results, O(N^2) per column instead of
O(N log N). Its solves and determinants are dense, as TensorFlow's are."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.tensor_shape import broadcast_static_shape
from .array_ops import concat, expand_dims, gather, stack
from .linalg_compositions import tridiagonal_matmul, tridiagonal_solve
from .linear_operator import (
    LinearOperator, as_tensor, broadcast_batch, matmul_dense, scalar, static_dims, transpose_last_two,
)
from .linear_operator_basic import (
    LinearOperatorDiag, LinearOperatorFullMatrix, _float_tensor, _full, _min_rank, _no_op, _ops_errors,
)
from .math_ops import reduce_sum

__all__ = ["LinearOperatorLowRankUpdate", "LinearOperatorToeplitz", "LinearOperatorTridiag", "LinearOperatorPermutation",
           "LinearOperatorHouseholder"]


class LinearOperatorLowRankUpdate(LinearOperator):
    """base_operator + u diag(diag_update) v^T (v = u when not given; diag_update = ones when not
    given), for u, v [..., N, K] (tf.linalg.LinearOperatorLowRankUpdate)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if not isinstance(base_operator, LinearOperator):
            raise TypeError(f"Argument `base_operator` must be a LinearOperator, got {base_operator!r}")
        dtype = base_operator.dtype
        self._base_operator = base_operator
        self._u = _float_tensor(u, "u", dtype)
        _min_rank(self._u, 2, "u")
        self._v = self._u if v is None else _float_tensor(v, "v", dtype)
        _min_rank(self._v, 2, "v")
        self._use_diag_update = diag_update is not None
        self._is_diag_update_positive = is_diag_update_positive
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError("Default diagonal is the identity, which is positive. However, user set "
                                 "`is_diag_update_positive` to False.")
            self._is_diag_update_positive = True
            k = static_dims(self._u.shape[-1:], "u")[0]
            self._diag_update = None
            self._diag_operator = None
            self._diag_inv = _ops.identity(np.ones(k, dtype.as_numpy_dtype))
        else:
            self._diag_update = _float_tensor(diag_update, "diag_update", dtype)
            self._diag_operator = LinearOperatorDiag(self._diag_update, is_positive_definite=is_diag_update_positive)
            self._diag_inv = _ops.reciprocal(self._diag_update)
        for what, t in (("u", self._u), ("v", self._v)):
            r, n = t.shape[-2], base_operator.range_dimension if what == "u" else base_operator.domain_dimension
            if r is not None and n is not None and r != n:
                raise ValueError(f"Argument `{what}` has {r} rows; the base operator needs {n}.")
        if v is None and base_operator.is_self_adjoint:
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint, is always self-adjoint.")
            is_self_adjoint = True
            if base_operator.is_positive_definite and self._is_diag_update_positive:
                if is_positive_definite is False:
                    raise ValueError("A = L + UDU^H with L and D positive definite is always positive definite.")
                is_positive_definite = True
        if base_operator.is_square is False:
            raise ValueError("The base operator must be square.")
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def base_operator(self):
        return self._base_operator

    @property
    def diag_operator(self):
        return self._diag_operator

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        batch = self._base_operator.batch_shape
        for t in (self._u, self._v) + ((self._diag_update,) if self._use_diag_update else ()):
            batch = broadcast_static_shape(batch, t.shape[:-2] if t is not self._diag_update else t.shape[:-1])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _scale(self, x):
        """diag(diag_update) @ x."""
        return _ops.mul(expand_dims(self._diag_update, -1), x) if self._use_diag_update else x

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        base_x = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        v_x = matmul_dense(v, x, adjoint=True, adjoint_arg=adjoint_arg)
        return _ops.add_v2(*broadcast_batch(base_x, matmul_dense(u, self._scale(v_x))))

    def _capacitance(self):
        """C = D^-1 + V^T L^-1 U, a K x K operator (Cholesky-solvable when self is SPD)."""
        l_inv_u = self._base_operator.solve(self._u)
        vt_l_inv_u = matmul_dense(self._v, l_inv_u, adjoint=True)
        c = _ops.add_v2(vt_l_inv_u, _dense_diag(self._diag_inv))
        spd = bool(self.is_self_adjoint and self.is_positive_definite)
        return LinearOperatorFullMatrix(c, is_self_adjoint=spd or None, is_positive_definite=spd or None)

    def _log_abs_determinant(self):
        logdet = _ops.add_v2(*broadcast_scalars(self._capacitance().log_abs_determinant(),
                                                self._base_operator.log_abs_determinant()))
        if self._use_diag_update:
            logdet = _ops.add_v2(*broadcast_scalars(logdet, self._diag_operator.log_abs_determinant()))
        return logdet

    def _determinant(self):
        det = _ops.mul(*broadcast_scalars(self._capacitance().determinant(), self._base_operator.determinant()))
        if self._use_diag_update:
            det = _ops.mul(*broadcast_scalars(det, self._diag_operator.determinant()))
        return det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self._base_operator.is_non_singular is False:
            raise ValueError("Solve is not supported for a singular base operator.")
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        # Woodbury: (L + U D V^T)^-1 = L^-1 - L^-1 U C^-1 V^T L^-1.
        l_inv_rhs = self._base_operator.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        l_inv_u = self._base_operator.solve(u, adjoint=adjoint)
        c_inv = self._capacitance().solve(matmul_dense(v, l_inv_rhs, adjoint=True), adjoint=adjoint)
        return _ops.sub(*broadcast_batch(l_inv_rhs, matmul_dense(l_inv_u, c_inv)))

    def _diag_part(self):
        uv = reduce_sum(_ops.mul(self._u, self._v if not self._use_diag_update else
                                 _ops.mul(self._v, expand_dims(self._diag_update, -2))), -1)
        return _ops.add_v2(*broadcast_batch(self._base_operator.diag_part(), uv, rank_from_end=1))

    def _to_dense(self):
        update = matmul_dense(self._u, _ops.mul(expand_dims(self._diag_update, -1), transpose_last_two(self._v))
                              if self._use_diag_update else transpose_last_two(self._v))
        return _ops.add_v2(*broadcast_batch(self._base_operator.to_dense(), update))


def _dense_diag(d):
    n = static_dims(d.shape[-1:], "diagonal")[0]
    return _ops.mul(expand_dims(d, -2), np.eye(n, dtype=d.dtype.as_numpy_dtype))


def broadcast_scalars(a, b):
    """a and b (batch-shaped) broadcast against each other."""
    shape = static_dims(broadcast_static_shape(a.shape, b.shape), "batch shape")
    target = np.asarray(shape, np.int64)
    return [t if t.shape.as_list() == shape else _ops.broadcast_to(t, target) for t in (a, b)]


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column col and first row row, [..., N] each: T[i, j] =
    col[i - j] for i >= j, row[j - i] above the diagonal (row[0] is not read)
    (tf.linalg.LinearOperatorToeplitz). Multiplied densely (see the module docstring)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._col = _float_tensor(col, "col")
        self._row = _float_tensor(row, "row", self._col.dtype)
        _min_rank(self._col, 1, "col")
        _min_rank(self._row, 1, "row")
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        n, m = self._col.shape[-1], self._row.shape[-1]
        if n is not None and m is not None and n != m:
            raise ValueError(f"Arguments `row` and `col` must have the same last dimension, got {m} and {n}.")
        super().__init__(self._col.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        v = broadcast_static_shape(self._col.shape, self._row.shape)
        return v.concatenate(v[-1:])

    def _to_dense(self):
        col, row = broadcast_batch(self._col, self._row, rank_from_end=1)
        n = static_dims(col.shape[-1:], "col")[0]
        elements = concat([_ops.reverse_v2(col, np.asarray([-1], np.int32)), row[..., 1:]], -1)
        indices = (np.arange(n)[None, :] + np.arange(n - 1, -1, -1)[:, None]) % max(2 * n - 1, 1)
        return gather(elements, indices.astype(np.int32), axis=elements.shape.rank - 1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return matmul_dense(self._to_dense(), x, adjoint, adjoint_arg)

    def _diag_part(self):
        d = static_dims(self.shape[:-1], "diagonal")
        return _ops.broadcast_to(self._col[..., :1], np.asarray(d, np.int64))

    def _trace(self):
        return _ops.mul(self._col[..., 0], np.asarray(self.shape[-1], self.dtype.as_numpy_dtype))


_FORMATS = ("compact", "matrix", "sequence")


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from its diagonals, in tf.linalg.tridiagonal_matmul's formats: "compact"
    [..., 3, N] (superdiagonal, diagonal, subdiagonal), "sequence" (the three [..., N] tensors) or
    "matrix" [..., N, N] (tf.linalg.LinearOperatorTridiag)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if diagonals_format not in _FORMATS:
            raise ValueError(f"Argument `diagonals_format` must be one of {_FORMATS}, got {diagonals_format!r}")
        if diagonals_format == "sequence":
            diagonals = list(diagonals)
            if len(diagonals) != 3:
                raise ValueError(f"Expected 3 diagonals, got {len(diagonals)}.")
            first = _float_tensor(diagonals[1], "diagonals")
            self._diagonals = [_float_tensor(d, "diagonals", first.dtype) for d in diagonals]
            dtype = first.dtype
        else:
            self._diagonals = _float_tensor(diagonals, "diagonals")
            _min_rank(self._diagonals, 2, "diagonals")
            dtype = self._diagonals.dtype
            if diagonals_format == "compact" and self._diagonals.shape[-2] not in (None, 3):
                raise ValueError(f"Compact diagonals must be [..., 3, N], got {self._diagonals.shape}")
        if is_square is False:
            raise ValueError("Only square tridiagonal operators currently supported.")
        self._diagonals_format = diagonals_format
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._diagonals_format

    def _three(self):
        """(superdiagonal, diagonal, subdiagonal) broadcast to one [..., N] shape."""
        if self._diagonals_format == "sequence":
            return broadcast_batch(*self._diagonals, rank_from_end=1)
        if self._diagonals_format == "compact":
            d = self._diagonals
            return [d[..., 0, :], d[..., 1, :], d[..., 2, :]]
        m = self._diagonals
        n = static_dims(m.shape[-1:], "diagonals")[0]
        dt = self.dtype.as_numpy_dtype
        return [reduce_sum(_ops.mul(m, np.eye(n, k=k, dtype=dt)), -1) for k in (1, 0, -1)]

    def _shape(self):
        if self._diagonals_format == "sequence":
            s = self._diagonals[1].shape
            for d in (self._diagonals[0], self._diagonals[2]):
                s = broadcast_static_shape(s, d.shape)
            return s.concatenate(s[-1:])
        if self._diagonals_format == "compact":
            s = self._diagonals.shape
            return s[:-2].concatenate([s[-1], s[-1]])
        return self._diagonals.shape

    def _adjoint_compact(self):
        """The transpose's (superdiagonal, diagonal, subdiagonal) as [..., 3, N]."""
        sup, main, sub = self._three()
        zero = _ops.zeros_like(main[..., :1])
        new_sup = concat([sub[..., 1:], zero], -1)  # sub[i + 1] sits at (i, i + 1) of the transpose
        new_sub = concat([zero, sup[..., :-1]], -1)
        return stack([new_sup, main, new_sub], axis=-2)

    def _compact(self, adjoint):
        return self._adjoint_compact() if adjoint else stack(self._three(), axis=-2)

    def _assert_self_adjoint(self):
        sup, _, sub = self._three()
        from . import check_ops  # noqa: PLC0415
        return check_ops.assert_equal(sup[..., :-1], sub[..., 1:],
                                      message="This matrix is not self-adjoint: superdiagonal != subdiagonal.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = transpose_last_two(x) if adjoint_arg else x
        diagonals, x = broadcast_batch(self._compact(adjoint), x)
        return tridiagonal_matmul(diagonals, x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = transpose_last_two(rhs) if adjoint_arg else rhs
        diagonals, rhs = broadcast_batch(self._compact(adjoint), rhs)
        return tridiagonal_solve(diagonals, rhs)

    def _diag_part(self):
        return self._three()[1]

    def _to_dense(self):
        if self._diagonals_format == "matrix":
            from .linalg_decompositions import band_part  # noqa: PLC0415
            return band_part(self._diagonals, 1, 1)
        sup, main, sub = self._three()
        n = static_dims(main.shape[-1:], "diagonals")[0]
        dt = self.dtype.as_numpy_dtype
        col = lambda v: expand_dims(v, -1)  # noqa: E731
        return _ops.add_v2(_ops.add_v2(_ops.mul(col(main), np.eye(n, dtype=dt)),
                                       _ops.mul(col(sup), np.eye(n, k=1, dtype=dt))),
                           _ops.mul(col(sub), np.eye(n, k=-1, dtype=dt)))


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P[..., i, perm[i]] = 1: (P x)[i] = x[perm[i]], a gather; its
    adjoint gathers by the inverse permutation (tf.linalg.LinearOperatorPermutation)."""

    def __init__(self, perm, dtype="float32", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._perm = as_tensor(perm)
        _min_rank(self._perm, 1, "perm")
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm.dtype.name}.")
        if hasattr(self._perm, "numpy"):
            p = np.asarray(self._perm.numpy())
            if np.any(np.sort(p, axis=-1) != np.arange(p.shape[-1])):
                raise ValueError(f"Argument `perm` must be a vector of unique integers from 0 to {p.shape[-1] - 1}.")
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name, parameters=parameters)

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        return self._perm.shape.concatenate(self._perm.shape[-1:])

    def _assert_non_singular(self):
        return _no_op("assert_non_singular")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        perm = self._perm
        if adjoint and not self.is_self_adjoint:
            n = static_dims(perm.shape[-1:], "perm")[0]
            perm = _ops.top_kv2(_ops.neg(perm), np.int32(n))[1]  # the inverse permutation (argsort)
        x = transpose_last_two(x) if adjoint_arg else x
        x, perm3 = broadcast_batch(x, expand_dims(perm, -1))
        perm = _ops.squeeze(perm3, axis=[-1])
        return gather(x, perm, axis=x.shape.rank - 2, batch_dims=x.shape.rank - 2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _log_abs_determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 0))

    def _to_dense(self):
        n = static_dims(self._perm.shape[-1:], "perm")[0]
        return _ops.cast(_ops.equal(np.arange(n, dtype=self._perm.dtype.as_numpy_dtype), expand_dims(self._perm, -1)),
                         DstT=self.dtype)

    def _diag_part(self):
        n = static_dims(self._perm.shape[-1:], "perm")[0]
        return _ops.cast(_ops.equal(np.arange(n, dtype=self._perm.dtype.as_numpy_dtype), self._perm), DstT=self.dtype)

    def _cond(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 1))


class LinearOperatorHouseholder(LinearOperator):
    """The reflection I - 2 v v^T / (v^T v) about the hyperplane orthogonal to reflection_axis v:
    its own inverse and adjoint, determinant -1 (tf.linalg.LinearOperatorHouseholder)."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        self._reflection_axis = _float_tensor(reflection_axis, "reflection_axis")
        _min_rank(self._reflection_axis, 1, "reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        super().__init__(self._reflection_axis.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=False, is_square=True, name=name, parameters=parameters)

    @property
    def reflection_axis(self):
        return self._reflection_axis

    def _shape(self):
        s = self._reflection_axis.shape
        return s.concatenate(s[-1:])

    def _unit_axis(self):
        v = self._reflection_axis
        return _ops.mul(v, _ops.rsqrt(reduce_sum(_ops.square(v), -1, keepdims=True)))

    def _assert_non_singular(self):
        return _no_op("assert_non_singular")

    def _assert_positive_definite(self):
        raise _ops_errors().InvalidArgumentError("Householder operators are always non-positive definite.",
                                                 "LinearOperatorHouseholder")

    def _assert_self_adjoint(self):
        return _no_op("assert_self_adjoint")

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = transpose_last_two(x) if adjoint_arg else x
        u = expand_dims(self._unit_axis(), -1)
        u_dot_x = reduce_sum(_ops.mul(u, x), -2, keepdims=True)
        return _ops.sub(x, _ops.mul(_ops.mul(scalar(2, self.dtype), u), u_dot_x))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _trace(self):
        n = static_dims(self.shape[-1:], "reflection_axis")[0]
        return _ops.identity(_full(self.batch_shape, self.dtype, n - 2))

    def _determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, -1))

    def _log_abs_determinant(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 0))

    def _to_dense(self):
        u = self._unit_axis()
        n = static_dims(self.shape[-1:], "reflection_axis")[0]
        outer = _ops.mul(expand_dims(u, -1), expand_dims(u, -2))
        return _ops.sub(np.eye(n, dtype=self.dtype.as_numpy_dtype), _ops.mul(scalar(2, self.dtype), outer))

    def _diag_part(self):
        u = self._unit_axis()
        return _ops.sub(scalar(1, self.dtype), _ops.mul(scalar(2, self.dtype), _ops.square(u)))

    def _eigvals(self):
        dims = static_dims(self._reflection_axis.shape, "reflection_axis")
        return _ops.identity(np.concatenate([np.full(dims[:-1] + [1], -1.0), np.ones(dims[:-1] + [dims[-1] - 1])],
                                            -1).astype(self.dtype.as_numpy_dtype))

    def _cond(self):
        return _ops.identity(_full(self.batch_shape, self.dtype, 1))

