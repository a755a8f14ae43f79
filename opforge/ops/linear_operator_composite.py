"""Linear operators built from other operators (tf.linalg.LinearOperatorAdjoint, Inversion,
Composition, Kronecker, BlockDiag, BlockLowerTriangular). They never form the dense matrix to
multiply or solve: a composition applies its factors in turn, a Kronecker product applies each
factor along its own axis of the reshaped argument, a block operator splits the argument into
the blocks' pieces (block-triangular solves by substitution), and determinants combine the
factors' (products, or powers for a Kronecker product)."""

from __future__ import annotations

import functools

import numpy as np

from .. import ops as _ops
from ..framework.tensor_shape import TensorShape, broadcast_static_shape
from .array_ops import concat, split
from .linear_operator import DERIVED, LinearOperator, broadcast_batch, scalar, static_dims, transpose_last_two

__all__ = ["LinearOperatorAdjoint", "LinearOperatorInversion", "LinearOperatorComposition",
           "LinearOperatorKronecker", "LinearOperatorBlockDiag", "LinearOperatorBlockLowerTriangular"]


def _hint(given, implied, what):
    """The hint given by the caller, or the one the factors imply; a contradiction is a ValueError."""
    if given is not None and implied is not None and bool(given) != bool(implied):
        raise ValueError(f"The hint {what}={given} contradicts the operator(s), which imply {what}={implied}.")
    return implied if given is None else given


def _all(ops, attr):
    values = [getattr(o, attr) for o in ops]
    return True if all(v is True for v in values) else None


def _is_adjoint_pair(x, y):
    if x is y and x.is_self_adjoint is not None:
        return bool(x.is_self_adjoint)
    return x.H is y or y.H is x


def _is_aat_form(operators):
    """operators of the form A @ A^H (possibly nested: A1 A2 A2^H A1^H)."""
    return not len(operators) % 2 and all(
        _is_adjoint_pair(operators[i], operators[-1 - i]) for i in range(len(operators) // 2))


def _check_operators(operators, what, cls):
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    for o in operators:
        if not isinstance(o, LinearOperator):
            raise TypeError(f"{cls}: every element of `{what}` must be a LinearOperator, got {o!r}")
    dtypes = {o.dtype for o in operators}
    if len(dtypes) > 1:
        raise TypeError(f"Expected all operators to have the same dtype. Found {sorted(d.name for d in dtypes)}.")
    return operators


def _batch(*shapes):
    return functools.reduce(broadcast_static_shape, shapes, TensorShape([]))


def _with_batch(x, batch: TensorShape):
    """x broadcast to the batch shape batch (its matrix dims kept)."""
    target = static_dims(batch.concatenate(x.shape[-2:]), "batch shape")
    if x.shape.as_list() == target:
        return x
    return _ops.broadcast_to(x, np.asarray(target, np.int64))


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (here the transpose) of operator, without forming it (tf.linalg.LinearOperatorAdjoint)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operator = _check_operators([operator], "operator", "LinearOperatorAdjoint")[0]
        super().__init__(
            operator.dtype, is_non_singular=_hint(is_non_singular, operator.is_non_singular, "is_non_singular"),
            is_self_adjoint=_hint(is_self_adjoint, operator.is_self_adjoint, "is_self_adjoint"),
            is_positive_definite=_hint(is_positive_definite, operator.is_positive_definite, "is_positive_definite"),
            is_square=_hint(is_square, operator.is_square, "is_square"),
            name=name or f"{operator.name}_adjoint", parameters=parameters)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        s = self._operator.shape
        return s[:-2].concatenate([s[-1], s[-2]])

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _determinant(self):
        return self._operator.determinant()

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        return self._operator.trace()

    def _diag_part(self):
        return self._operator.diag_part()

    def _to_dense(self):
        return transpose_last_two(self._operator.to_dense())

    def _eigvals(self):
        return self._operator.eigvals()

    def _linop_adjoint(self):
        return self._operator

    def _linop_inverse(self):
        return LinearOperatorAdjoint(self._operator.inverse())


class LinearOperatorInversion(LinearOperator):
    """The inverse of a square non-singular operator: products are its solves and solves its
    products (tf.linalg.LinearOperatorInversion)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operator = _check_operators([operator], "operator", "LinearOperatorInversion")[0]
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(f"operator and supplied hints must be non-singular. Found: "
                             f"{operator.is_non_singular}, {is_non_singular}")
        if operator.is_square is False or is_square is False:
            raise ValueError(f"operator and supplied hints must be square. Found: {operator.is_square}, {is_square}")
        super().__init__(
            operator.dtype, is_non_singular=_hint(is_non_singular, operator.is_non_singular, "is_non_singular"),
            is_self_adjoint=_hint(is_self_adjoint, operator.is_self_adjoint, "is_self_adjoint"),
            is_positive_definite=_hint(is_positive_definite, operator.is_positive_definite, "is_positive_definite"),
            is_square=_hint(is_square, operator.is_square, "is_square"),
            name=name or f"{operator.name}_inv", parameters=parameters)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.solvevec(x, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.matvec(rhs, adjoint=adjoint)

    def _determinant(self):
        return _ops.reciprocal(self._operator.determinant())

    def _log_abs_determinant(self):
        return _ops.neg(self._operator.log_abs_determinant())

    def _linop_inverse(self):
        return self._operator


class LinearOperatorComposition(LinearOperator):
    """operators[0] @ operators[1] @ ... applied factor by factor, right to left
    (tf.linalg.LinearOperatorComposition); its determinant is the factors' product."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operators = _check_operators(operators, "operators", "LinearOperatorComposition")
        for left, right in zip(self._operators, self._operators[1:]):
            d, r = left.domain_dimension, right.range_dimension
            if d is not None and r is not None and d != r:
                raise ValueError(f"Operators are incompatible: {left.name} has domain dimension {d}, {right.name} "
                                 f"range dimension {r}.")
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        aat = _is_aat_form(self._operators)
        if aat or (len(self._operators) == 1 and self._operators[0].is_self_adjoint):
            if is_self_adjoint is False:
                raise ValueError("The composition was determined to be self-adjoint but user provided incorrect "
                                 "`False` hint.")
            is_self_adjoint = True
        if aat:
            if is_square is False:
                raise ValueError("The composition was determined have the form A @ A.H, hence it must be square. "
                                 "The user provided an incorrect `False` hint.")
            is_square = True
            if is_non_singular:
                if is_positive_definite is False:
                    raise ValueError("The composition was determined to be non-singular and have the form A @ A.H, "
                                     "hence it must be positive-definite. The user provided an incorrect `False` "
                                     "hint.")
                is_positive_definite = True
        super().__init__(self._operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_o_".join(o.name for o in self._operators), parameters=parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        batch = _batch(*(o.batch_shape for o in self._operators))
        return batch.concatenate([self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else self._operators[::-1]
        y = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in order[1:]:
            y = o.matmul(y, adjoint=adjoint)
        return y

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = self._operators[::-1] if adjoint else self._operators
        y = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in order[1:]:
            y = o.solve(y, adjoint=adjoint)
        return y

    def _determinant(self):
        if all(o.is_square for o in self._operators):
            return functools.reduce(_ops.mul, [o.determinant() for o in self._operators])
        return super()._determinant()

    def _log_abs_determinant(self):
        if all(o.is_square for o in self._operators):
            return functools.reduce(_ops.add_v2, [o.log_abs_determinant() for o in self._operators])
        return super()._log_abs_determinant()

    def _to_dense(self):
        out = self._operators[-1].to_dense()
        for o in self._operators[-2::-1]:
            out = o.matmul(out)
        return out


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product operators[0] (x) operators[1] (x) ...: each factor applied along its own
    axis of the reshaped argument; det(A (x) B) = det(A)^n_B det(B)^n_A
    (tf.linalg.LinearOperatorKronecker)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operators = _check_operators(operators, "operators", "LinearOperatorKronecker")
        for attr in ("is_non_singular", "is_self_adjoint", "is_positive_definite"):
            if _all(self._operators, attr):
                if locals()[attr] is False:
                    raise ValueError(f"The Kronecker product of operators with {attr} is always {attr}.")
        is_non_singular = _hint(is_non_singular, _all(self._operators, "is_non_singular"), "is_non_singular")
        is_self_adjoint = _hint(is_self_adjoint, _all(self._operators, "is_self_adjoint"), "is_self_adjoint")
        is_positive_definite = _hint(is_positive_definite, _all(self._operators, "is_positive_definite"),
                                     "is_positive_definite")
        super().__init__(self._operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_x_".join(o.name for o in self._operators), parameters=parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        rows = [o.range_dimension for o in self._operators]
        cols = [o.domain_dimension for o in self._operators]
        prod = (lambda ds: None if any(d is None for d in ds) else int(np.prod(ds)))
        return _batch(*(o.batch_shape for o in self._operators)).concatenate([prod(rows), prod(cols)])

    def _apply(self, x, fn, adjoint, adjoint_arg, in_dim):
        """fn(operator, x, adjoint, adjoint_arg) applied as the Kronecker product of the factors."""
        x = transpose_last_two(x) if adjoint_arg else x
        return self._apply_factors(self._operators, x, fn, adjoint, in_dim)

    @staticmethod
    def _apply_factors(operators, x, fn, adjoint, in_dim):
        first, rest = operators[0], operators[1:]
        if not rest:
            return fn(first, x, adjoint)
        n0 = in_dim(first)
        n_rest = int(np.prod([in_dim(o) for o in rest]))
        dims = static_dims(x.shape, "LinearOperatorKronecker's argument")
        batch, r = dims[:-2], dims[-1]
        nb = len(batch)
        swap = np.asarray(list(range(nb)) + [nb + 1, nb, nb + 2], np.int32)
        # x[(i, j), r] with i over the first factor, j over the rest: apply the rest with j as rows.
        z = _ops.transpose(_ops.reshape(x, np.asarray(batch + [n0, n_rest, r], np.int64)), swap)
        z = _ops.reshape(z, np.asarray(batch + [n_rest, n0 * r], np.int64))
        z = LinearOperatorKronecker._apply_factors(rest, z, fn, adjoint, in_dim)
        zd = static_dims(z.shape, "LinearOperatorKronecker's argument")
        batch, m_rest = zd[:-2], zd[-2]
        nb = len(batch)
        swap = np.asarray(list(range(nb)) + [nb + 1, nb, nb + 2], np.int32)
        z = _ops.transpose(_ops.reshape(z, np.asarray(batch + [m_rest, n0, r], np.int64)), swap)
        z = fn(first, _ops.reshape(z, np.asarray(batch + [n0, m_rest * r], np.int64)), adjoint)
        zd = static_dims(z.shape, "LinearOperatorKronecker's argument")
        return _ops.reshape(z, np.asarray(zd[:-2] + [zd[-2] * m_rest, r], np.int64))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, lambda o, v, adj: o.matmul(v, adjoint=adj), adjoint, adjoint_arg,
                           lambda o: o.range_dimension if adjoint else o.domain_dimension)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, lambda o, v, adj: o.solve(v, adjoint=adj), adjoint, adjoint_arg,
                           lambda o: o.domain_dimension if adjoint else o.range_dimension)

    def _determinant(self):
        n = self.domain_dimension
        return functools.reduce(_ops.mul, [_ops.pow(o.determinant(), scalar(n // o.domain_dimension, self.dtype))
                                           for o in self._operators])

    def _log_abs_determinant(self):
        n = self.domain_dimension
        return functools.reduce(_ops.add_v2, [_ops.mul(o.log_abs_determinant(), scalar(n // o.domain_dimension,
                                                                                           self.dtype))
                                              for o in self._operators])

    def _trace(self):
        return functools.reduce(_ops.mul, [o.trace() for o in self._operators])

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for o in self._operators[1:]:
            right = o.to_dense()
            out, right = broadcast_batch(out, right)
            (m, n), (p, q) = out.shape.as_list()[-2:], right.shape.as_list()[-2:]
            batch = out.shape.as_list()[:-2]
            prod = _ops.mul(_ops.reshape(out, np.asarray(batch + [m, 1, n, 1], np.int64)),
                            _ops.reshape(right, np.asarray(batch + [1, p, 1, q], np.int64)))
            out = _ops.reshape(prod, np.asarray(batch + [m * p, n * q], np.int64))
        return out

    def _eigvals(self):
        vals = self._operators[0].eigvals()
        for o in self._operators[1:]:
            a, b = broadcast_batch(vals, o.eigvals(), rank_from_end=1)
            outer = _ops.mul(_ops.expand_dims(a, np.int32(-1)), _ops.expand_dims(b, np.int32(-2)))
            d = static_dims(outer.shape, "eigvals")
            vals = _ops.reshape(outer, np.asarray(d[:-2] + [d[-2] * d[-1]], np.int64))
        return vals

    def _linop_adjoint(self):
        return LinearOperatorKronecker([o.adjoint() for o in self._operators])

    def _linop_inverse(self):
        return LinearOperatorKronecker([o.inverse() for o in self._operators])

    def _linop_cholesky(self):
        return LinearOperatorKronecker([o.cholesky() for o in self._operators], is_non_singular=True)


def _split_rows(x, sizes):
    return split(x, [int(s) for s in sizes], axis=-2) if len(sizes) > 1 else [x]


def _assemble(rows, batch):
    """The dense matrix of a grid of dense blocks (each row a list of [..., m_i, n_j] tensors)."""
    return concat([concat([_with_batch(b, batch) for b in row], -1) for row in rows], -2)


def _zeros(batch, m, n, dtype):
    return _ops.identity(np.zeros(static_dims(batch, "batch shape") + [m, n], dtype.as_numpy_dtype))


class LinearOperatorBlockDiag(LinearOperator):
    """A block-diagonal operator of the given operators: each block acts on its piece of the
    argument (tf.linalg.LinearOperatorBlockDiag)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operators = _check_operators(operators, "operators", "LinearOperatorBlockDiag")
        for attr, given in (("is_non_singular", is_non_singular), ("is_self_adjoint", is_self_adjoint),
                            ("is_positive_definite", is_positive_definite)):
            if _all(self._operators, attr) and given is False:
                raise ValueError(f"The direct sum of operators with {attr} is always {attr}.")
        if all(o.is_square for o in self._operators):
            if is_square is False:
                raise ValueError("The direct sum of square operators is always square.")
            is_square = True
        else:
            is_square = None if is_square is True else is_square
        super().__init__(
            self._operators[0].dtype,
            is_non_singular=_hint(is_non_singular, _all(self._operators, "is_non_singular"), "is_non_singular"),
            is_self_adjoint=_hint(is_self_adjoint, _all(self._operators, "is_self_adjoint"), "is_self_adjoint"),
            is_positive_definite=_hint(is_positive_definite, _all(self._operators, "is_positive_definite"),
                                       "is_positive_definite"),
            is_square=is_square, name=name or "_ds_".join(o.name for o in self._operators), parameters=parameters)

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        rows = sum(static_dims(TensorShape([o.range_dimension]), "block")[0] for o in self._operators)
        cols = sum(static_dims(TensorShape([o.domain_dimension]), "block")[0] for o in self._operators)
        return _batch(*(o.batch_shape for o in self._operators)).concatenate([rows, cols])

    def _blockwise(self, x, fn, in_sizes, adjoint_arg):
        x = transpose_last_two(x) if adjoint_arg else x
        pieces = [fn(o, p) for o, p in zip(self._operators, _split_rows(x, in_sizes))]
        batch = _batch(*(p.shape[:-2] for p in pieces))
        return concat([_with_batch(p, batch) for p in pieces], -2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        sizes = [o.range_dimension if adjoint else o.domain_dimension for o in self._operators]
        return self._blockwise(x, lambda o, p: o.matmul(p, adjoint=adjoint), sizes, adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        sizes = [o.domain_dimension if adjoint else o.range_dimension for o in self._operators]
        return self._blockwise(rhs, lambda o, p: o.solve(p, adjoint=adjoint), sizes, adjoint_arg)

    def _determinant(self):
        return functools.reduce(_ops.mul, [o.determinant() for o in self._operators])

    def _log_abs_determinant(self):
        return functools.reduce(_ops.add_v2, [o.log_abs_determinant() for o in self._operators])

    def _trace(self):
        return functools.reduce(_ops.add_v2, [o.trace() for o in self._operators])

    def _concat_vectors(self, vectors):
        batch = _batch(*(v.shape[:-1] for v in vectors))
        return concat([_ops.broadcast_to(v, np.asarray(static_dims(batch.concatenate(v.shape[-1:]), "batch"),
                                                       np.int64)) for v in vectors], -1)

    def _diag_part(self):
        if not all(o.is_square for o in self._operators):
            return super()._diag_part()
        return self._concat_vectors([o.diag_part() for o in self._operators])

    def _eigvals(self):
        return self._concat_vectors([o.eigvals() for o in self._operators])

    def _to_dense(self):
        batch, ops = self.batch_shape, self._operators
        rows = [[o.to_dense() if i == j else _zeros(batch, o.range_dimension, c.domain_dimension, self.dtype)
                 for j, c in enumerate(ops)] for i, o in enumerate(ops)]
        return _assemble(rows, batch)

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag([o.adjoint() for o in self._operators], is_square=self.is_square)

    def _linop_inverse(self):
        return LinearOperatorBlockDiag([o.inverse() for o in self._operators])

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag([o.cholesky() for o in self._operators])


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator from rows of operators [[A11], [A21, A22], ...] with square
    diagonal blocks: products blockwise, solves by block forward (or, for the adjoint, backward)
    substitution, the determinant the diagonal blocks' product
    (tf.linalg.LinearOperatorBlockLowerTriangular)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        rows = [list(r) for r in operators]
        _check_operators([o for r in rows for o in r], "operators", "LinearOperatorBlockLowerTriangular")
        for i, row in enumerate(rows):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain {i + 1} blocks. Received: {len(row)}.")
        self._rows = rows
        self._sizes = [static_dims(TensorShape([r[-1].domain_dimension]), "diagonal block")[0] for r in rows]
        for i, row in enumerate(rows):
            for j, o in enumerate(row):
                if o.range_dimension not in (None, self._sizes[i]) or o.domain_dimension not in (None, self._sizes[j]):
                    raise ValueError(f"Block ({i}, {j}) has shape {o.shape}, expected [{self._sizes[i]}, "
                                     f"{self._sizes[j]}] matrices.")
            if row[-1].is_square is False:
                raise ValueError(f"The diagonal block {i} must be square.")
        if is_square is False:
            raise ValueError("A block lower triangular operator is always square.")
        diagonal = [r[-1] for r in rows]
        if all(o.is_non_singular for o in diagonal):
            if is_non_singular is False:
                raise ValueError("A block lower triangular operator with non-singular diagonal blocks is always "
                                 "non-singular.")
            is_non_singular = True
        elif any(o.is_non_singular is False for o in diagonal):
            if is_non_singular is True:
                raise ValueError("A block lower triangular operator with a singular diagonal block is singular.")
            is_non_singular = False
        super().__init__(rows[0][0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def operators(self):
        return [list(r) for r in self._rows]

    def _shape(self):
        n = sum(self._sizes)
        return _batch(*(o.batch_shape for r in self._rows for o in r)).concatenate([n, n])

    def _sum(self, terms):
        batch = _batch(*(t.shape[:-2] for t in terms))
        return functools.reduce(_ops.add_v2, [_with_batch(t, batch) for t in terms])

    def _finish(self, pieces):
        batch = _batch(*(p.shape[:-2] for p in pieces))
        return concat([_with_batch(p, batch) for p in pieces], -2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = transpose_last_two(x) if adjoint_arg else x
        xs, n = _split_rows(x, self._sizes), len(self._rows)
        if adjoint:  # y_j = sum over i >= j of A_ij^T x_i
            pieces = [self._sum([self._rows[i][j].matmul(xs[i], adjoint=True) for i in range(j, n)])
                      for j in range(n)]
        else:
            pieces = [self._sum([o.matmul(xs[j]) for j, o in enumerate(row)]) for row in self._rows]
        return self._finish(pieces)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = transpose_last_two(rhs) if adjoint_arg else rhs
        bs, n = _split_rows(rhs, self._sizes), len(self._rows)
        xs = [None] * n
        order = range(n - 1, -1, -1) if adjoint else range(n)
        for i in order:
            if adjoint:  # back substitution with the transposed blocks
                known = [self._rows[k][i].matmul(xs[k], adjoint=True) for k in range(i + 1, n)]
            else:
                known = [self._rows[i][j].matmul(xs[j]) for j in range(i)]
            b = _ops.sub(*broadcast_batch(bs[i], self._sum(known))) if known else bs[i]
            xs[i] = self._rows[i][i].solve(b, adjoint=adjoint)
        return self._finish(xs)

    def _determinant(self):
        return functools.reduce(_ops.mul, [r[-1].determinant() for r in self._rows])

    def _log_abs_determinant(self):
        return functools.reduce(_ops.add_v2, [r[-1].log_abs_determinant() for r in self._rows])

    def _diag_part(self):
        parts = [r[-1].diag_part() for r in self._rows]
        batch = _batch(*(p.shape[:-1] for p in parts))
        return concat([_ops.broadcast_to(p, np.asarray(static_dims(batch.concatenate(p.shape[-1:]), "batch"),
                                                       np.int64)) for p in parts], -1)

    def _trace(self):
        return functools.reduce(_ops.add_v2, [r[-1].trace() for r in self._rows])

    def _to_dense(self):
        batch, n = self.batch_shape, len(self._rows)
        grid = [[self._rows[i][j].to_dense() if j <= i else
                 _zeros(batch, self._sizes[i], self._sizes[j], self.dtype) for j in range(n)] for i in range(n)]
        return _assemble(grid, batch)


DERIVED.update(adjoint=LinearOperatorAdjoint, inversion=LinearOperatorInversion, composition=LinearOperatorComposition)
