"""tf.linalg.LinearOperator: a matrix (batch) known by what it does rather than by its entries.

A subclass says its static shape (``_shape``) and how it multiplies (``_matmul``); everything else
has a dense default here (solve through MatrixSolve or Cholesky, determinants through
LogMatrixDeterminant, the diagonal through the dense matrix) that the structured subclasses
(linear_operator_basic, _composite, _structured) replace by what their structure makes cheap.
The hints (is_non_singular, is_self_adjoint, is_positive_definite, is_square) are promises by the
caller, checked for consistency as TensorFlow does and used to pick algorithms; the assert_*
methods build ops that check them at run time.

opforge's dtypes are real, so the adjoint is the transpose. Batch dims broadcast between the
operator and its argument as in TensorFlow; opforge needs them known when the graph is built.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.api import name_scope
from ..framework.tensor_shape import TensorShape, broadcast_static_shape
from . import check_ops
from .array_ops import broadcast_to, expand_dims, squeeze
from .linalg_decompositions import cholesky, cholesky_solve, eigvalsh, slogdet, solve, svd
from .linalg_ops import diag_part as _dense_diag_part
from .math_ops import _as_tensor, matmul, reduce_max, reduce_sum

__all__ = ["LinearOperator"]


def as_tensor(value, dtype=None):
    """value as a tensor of dtype (an existing tensor's dtype must match)."""
    t = _as_tensor(value, None if dtype is None else _dtypes.as_dtype(dtype))
    if dtype is not None and t.dtype != _dtypes.as_dtype(dtype):
        raise TypeError(f"expected a tensor of dtype {_dtypes.as_dtype(dtype).name}, got {t.dtype.name}")
    return t


def transpose_last_two(x):
    """The adjoint of each matrix of x (the transpose: opforge's dtypes are real)."""
    rank = x.shape.rank
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return _ops.transpose(x, np.asarray(perm, np.int32))


def static_dims(shape: TensorShape, what: str) -> list:
    if shape.rank is None or any(d is None for d in shape.as_list()):
        raise ValueError(f"{what}: opforge needs this shape when the graph is built, got {shape}")
    return shape.as_list()


def broadcast_batch(*tensors, rank_from_end: int = 2):
    """The tensors with their batch dims (all but the last rank_from_end) broadcast to one shape."""
    shapes = [t.shape for t in tensors]
    batch = TensorShape([])
    for s in shapes:
        batch = broadcast_static_shape(batch, s[:-rank_from_end])
    out = []
    for t in tensors:
        target = static_dims(batch.concatenate(t.shape[-rank_from_end:]), "broadcasting batch dims")
        out.append(t if t.shape.as_list() == target else broadcast_to(t, np.asarray(target, np.int64)))
    return out


# The operator classes derived operators are made of (adjoint, inverse, Cholesky factor, products
# and solves of operators), registered by the modules that define them (opforge.ops.linalg imports
# them all), so this base imports none of its subclasses.
DERIVED: dict = {}


def _derived(kind: str):
    if kind not in DERIVED:
        raise NotImplementedError(f"the {kind} operator class is not loaded: import opforge.ops.linalg "
                                  "(of.linalg) for the LinearOperator classes")
    return DERIVED[kind]


def scalar(value, dtype):
    return np.asarray(value, _dtypes.as_dtype(dtype).as_numpy_dtype)


class LinearOperator:
    """The base of TensorFlow's linear operators (tf.linalg.LinearOperator). Subclasses implement
    ``_shape`` and ``_matmul``; the other underscore methods have dense defaults."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = list(graph_parents or [])
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters or {})
        self._name = name or type(self).__name__

    # ---- properties ----
    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def graph_parents(self) -> list:
        return list(self._graph_parents)

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        auto = self.range_dimension == self.domain_dimension if (
            self.range_dimension is not None and self.domain_dimension is not None) else None
        hint = self._is_square_set_or_implied_by_hints
        if auto is not None and hint is not None and auto != hint:
            raise ValueError(f"User-set is_square hint conflicts with the operator's shape {self.shape}.")
        return hint if auto is None else auto

    def _name_scope(self, name):
        return name_scope(f"{self.name}/{name}")

    # ---- shapes ----
    def _shape(self) -> TensorShape:
        raise NotImplementedError("_shape is not implemented.")

    @property
    def shape(self) -> TensorShape:
        """The static shape, batch_shape + [range_dimension, domain_dimension]."""
        return TensorShape(self._shape())

    def _shape_tensor(self):
        return _ops.identity(np.asarray(static_dims(self.shape, f"{self.name}.shape_tensor"), np.int32))

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 tensor."""
        with self._name_scope(name):
            return self._shape_tensor()

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            return self._shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.rank

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            return _ops.identity(np.int32(self.shape.rank))

    @property
    def domain_dimension(self):
        return self.shape[-1] if self.shape.rank is not None else None

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._name_scope(name):
            return self._shape_tensor()[-1]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.rank is not None else None

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._name_scope(name):
            return self._shape_tensor()[-2]

    # ---- assertions ----
    def _max_condition_number_to_be_non_singular(self):
        eps = float(np.finfo(self.dtype.as_numpy_dtype).eps)
        dims = [d for d in (self.domain_dimension, self.range_dimension) if d is not None]
        return scalar(1.0 / (max([100.0] + dims) * eps), self.dtype)

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        s = svd(self.to_dense(), compute_uv=False)
        cond = _ops.real_div(reduce_max(s, -1), _ops.min(s, np.int32(-1)))
        return check_ops.assert_less(cond, self._max_condition_number_to_be_non_singular(),
                                     message="Singular matrix up to precision epsilon.")

    def assert_non_singular(self, name="assert_non_singular"):
        """An op failing (InvalidArgumentError) when run if the operator is singular."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return check_ops.assert_positive(_dense_diag_part(cholesky(self.to_dense())),
                                             message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """An op failing when run if the operator is not positive definite."""
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return check_ops.assert_equal(dense, transpose_last_two(dense),
                                      message="Matrix was not equal to its adjoint.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """An op failing when run if the operator is not exactly equal to its adjoint."""
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype.name}. Found: {arg.dtype.name} in "
                            f"tensor {arg}.")

    def _check_dims(self, got, want, what):
        if got is not None and want is not None and got != want:
            raise ValueError(f"{self.name}: {what} dimensions do not match: {got} vs {want}")

    # ---- products ----
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """self @ x (adjoint(self) @ x with adjoint; x's adjoint with adjoint_arg); x is a
        tensor of shape [..., N, R] or another LinearOperator (the result is then an operator)."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            self._check_dims(right.range_dimension, left.domain_dimension, "Operator shapes are incompatible:")
            return left._linop_matmul(left, right)
        with self._name_scope(name):
            x = as_tensor(x, self.dtype)
            self._check_input_dtype(x)
            self._check_dims(x.shape[-1] if adjoint_arg else x.shape[-2],
                             self.range_dimension if adjoint else self.domain_dimension, "operator and argument")
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, left, right):
        return _derived("composition")([left, right])

    def __matmul__(self, other):
        return self.matmul(other)

    def _matvec(self, x, adjoint=False):
        return squeeze(self.matmul(expand_dims(x, -1), adjoint=adjoint), [-1])

    def matvec(self, x, adjoint=False, name="matvec"):
        """self @ x for a vector (batch) x of shape [..., N]."""
        with self._name_scope(name):
            x = as_tensor(x, self.dtype)
            self._check_input_dtype(x)
            self._check_dims(x.shape[-1], self.range_dimension if adjoint else self.domain_dimension,
                             "operator and argument")
            return self._matvec(x, adjoint=adjoint)

    # ---- determinants ----
    def _can_use_cholesky(self):
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def _determinant(self):
        if self._can_use_cholesky():
            return _ops.exp(self.log_abs_determinant())
        return _ops.matrix_determinant(self.to_dense())

    def _require_square(self, what):
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is expected to not be square.")

    def determinant(self, name="det"):
        """The determinant of each matrix of the batch."""
        self._require_square("Determinant")
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = _dense_diag_part(cholesky(self.to_dense()))
            return _ops.mul(scalar(2, self.dtype), reduce_sum(_ops.log(diag), -1))
        return slogdet(self.to_dense())[1]

    def log_abs_determinant(self, name="log_abs_det"):
        """log|det| of each matrix of the batch."""
        self._require_square("Determinant")
        with self._name_scope(name):
            return self._log_abs_determinant()

    # ---- solves ----
    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = transpose_last_two(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            chol, rhs = broadcast_batch(cholesky(self.to_dense()), rhs)
            return cholesky_solve(chol, rhs)
        matrix, rhs = broadcast_batch(self.to_dense(), rhs)
        return solve(matrix, rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _require_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be "
                                      "square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with self @ X = rhs (adjoint(self) with adjoint, rhs's adjoint with adjoint_arg); rhs
        a tensor [..., M, R] or an operator (the result is then an operator)."""
        self._require_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return left._linop_solve(left, right)
        with self._name_scope(name):
            rhs = as_tensor(rhs, self.dtype)
            self._check_input_dtype(rhs)
            self._check_dims(rhs.shape[-1] if adjoint_arg else rhs.shape[-2],
                             self.domain_dimension if adjoint else self.range_dimension, "operator and rhs")
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left, right):
        return _derived("composition")([left.inverse(), right])

    def _solvevec(self, rhs, adjoint=False):
        return squeeze(self.solve(expand_dims(rhs, -1), adjoint=adjoint), [-1])

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with self @ x = rhs for a vector (batch) rhs of shape [..., M]."""
        self._require_solvable()
        with self._name_scope(name):
            rhs = as_tensor(rhs, self.dtype)
            self._check_input_dtype(rhs)
            self._check_dims(rhs.shape[-1], self.domain_dimension if adjoint else self.range_dimension,
                             "operator and rhs")
            return self._solvevec(rhs, adjoint=adjoint)

    # ---- derived operators ----
    def adjoint(self, name="adjoint"):
        """The adjoint operator (self when self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        return self._linop_adjoint()

    def _linop_adjoint(self):
        return _derived("adjoint")(self, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                   is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    H = property(adjoint, None)

    def inverse(self, name="inverse"):
        """The inverse operator (solves become products and products solves)."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return self._linop_inverse()

    def _linop_inverse(self):
        return _derived("inversion")(self, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                                     is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def cholesky(self, name="cholesky"):
        """The lower-triangular Cholesky factor L (self = L L^H) as an operator."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        return self._linop_cholesky()

    def _linop_cholesky(self):
        return _derived("lower_triangular")(cholesky(self.to_dense()), is_non_singular=True, is_self_adjoint=False,
                                            is_square=True)

    # ---- dense views ----
    def _to_dense(self):
        n = self.domain_dimension
        if n is None:
            raise ValueError(f"{self.name}.to_dense: opforge needs the domain dimension, got shape {self.shape}")
        eye = np.eye(n, dtype=self.dtype.as_numpy_dtype)
        batch = static_dims(self.batch_shape, f"{self.name}.to_dense")
        return self.matmul(np.broadcast_to(eye, tuple(batch) + (n, n)).copy())

    def to_dense(self, name="to_dense"):
        """The dense matrix (batch) the operator stands for."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self):
        return _dense_diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        """The main diagonal of each matrix, shape batch_shape + [min(M, N)]."""
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self):
        return reduce_sum(self.diag_part(), -1)

    def trace(self, name="trace"):
        """The trace of each matrix of the batch."""
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x):
        return _ops.add_v2(self.to_dense(), x)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """self's dense matrix + x."""
        with self._name_scope(name):
            x = as_tensor(x, self.dtype)
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self):
        return eigvalsh(self.to_dense())

    def eigvals(self, name="eigvals"):
        """The eigenvalues of each (self-adjoint) matrix, ascending."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self):
        if not self.is_self_adjoint:
            s = svd(self.to_dense(), compute_uv=False)
        else:
            s = _ops.abs(self.eigvals())
        return _ops.real_div(reduce_max(s, -1), _ops.min(s, np.int32(-1)))

    def cond(self, name="cond"):
        """The condition number (largest over smallest singular value) of each matrix."""
        with self._name_scope(name):
            return self._cond()

    def __repr__(self):
        return f"<of.linalg.{type(self).__name__} '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def matmul_dense(a, x, adjoint=False, adjoint_arg=False):
    """a @ x with adjoints, batch dims broadcast (BatchMatMulV2)."""
    return matmul(a, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)
