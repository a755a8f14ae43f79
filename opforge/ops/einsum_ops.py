"""``of.einsum`` (TensorFlow's tf.einsum and its Einsum op), composed of the generated ops.

An equation with one or two operands is planned in Python and computed by ops that exist
already, so it runs eagerly and in graphs and has gradients without an op of its own:

- labels that only one operand has and the output lacks are summed out first (Sum);
- a label repeated within one operand is its diagonal (MatrixDiagPart over the two axes);
- two operands: each is transposed to [batch labels, its free labels, contracted labels] and
  reshaped to 3-D, one BatchMatMulV2 contracts them, and the result is reshaped and transposed
  to the output's order; one operand: a Transpose.
- ``...`` (ellipsis) stands for the leading dimensions, broadcast between the operands as
  batch dimensions.

Shapes may be unknown when a graph is built (a frozen model's batch dimension): the reshapes
then take their sizes from Shape ops at run time. GraphDefs with TensorFlow's Einsum op import
through the same plan (io/graph_def.py).
"""

from __future__ import annotations

import string

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError, UnimplementedError

_LETTERS = set(string.ascii_letters)


def _bad(message):
    return InvalidArgumentError(f"Einsum: {message}", "Einsum")


def _parse(equation: str, ranks: list[int]):
    """Labels per operand and for the output, with the ellipsis expanded into labels "0", "1",
    ... (one per broadcast dimension, aligned from the right)."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->", 1)
        implicit = False
    else:
        lhs, out, implicit = eq, "", True
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise _bad(f"equation '{equation}' has {len(terms)} operands, got {len(ranks)} inputs")
    labels, ell = [], 0
    for term, rank in zip(terms, ranks):
        if term.count("...") > 1 or (term.replace("...", "") and not set(term.replace("...", "")) <= _LETTERS):
            raise _bad(f"invalid operand '{term}' in equation '{equation}'")
        named = term.replace("...", "")
        if "..." in term:
            n = rank - len(named)
            if n < 0:
                raise _bad(f"operand '{term}' has more labels than the input's rank {rank}")
            ell = max(ell, n)
            before, after = term.split("...")
            labels.append(list(before) + [str(ell_i) for ell_i in range(-n, 0)] + list(after))
        else:
            if len(named) != rank:
                raise _bad(f"operand '{term}' has {len(named)} labels but the input has rank {rank}")
            labels.append(list(named))
    ell_labels = [str(i) for i in range(-ell, 0)]
    if implicit:
        counts = {}
        for lab in labels:
            for c in lab:
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell_labels + sorted(c for c, k in counts.items() if k == 1 and c in _LETTERS)
    else:
        if out.count("...") > 1 or (out.replace("...", "") and not set(out.replace("...", "")) <= _LETTERS):
            raise _bad(f"invalid output '{out}' in equation '{equation}'")
        if ell and "..." not in out and any(c.lstrip("-").isdigit() for lab in labels for c in lab):
            raise _bad(f"output '{out}' must have '...' where the inputs do")
        if "..." in out:
            before, after = out.split("...")
            out_labels = list(before) + ell_labels + list(after)
        else:
            out_labels = list(out)
        seen_all = {c for lab in labels for c in lab}
        for c in out_labels:
            if c not in seen_all:
                raise _bad(f"output label '{c}' is in no input of equation '{equation}'")
        if len(set(out_labels)) != len(out_labels):
            raise _bad(f"output '{out}' repeats a label")
    return labels, out_labels


def _diagonals(x, lab):
    """x with each label repeated within it (e.g. "bii") taken along its diagonal: the two axes
    moved last and read by MatrixDiagPart, the label once, last. Returns (x, labels)."""
    lab = list(lab)
    while len(set(lab)) != len(lab):
        c = next(c for c in lab if lab.count(c) > 1)
        i = lab.index(c)
        j = lab.index(c, i + 1)
        dims = _dims(x)
        if dims[i] is not None and dims[j] is not None and dims[i] != dims[j]:
            raise _bad(f"label '{c}' repeated within an operand names dimensions of sizes {dims[i]} and {dims[j]}")
        rest = [a for a in range(len(lab)) if a not in (i, j)]
        x = _ops.matrix_diag_part_v3(_transpose(x, rest + [i, j]), np.int32(0), np.zeros((), x.dtype.as_numpy_dtype))
        lab = [lab[a] for a in rest] + [c]
    return x, lab


def _dims(x):
    shape = x.shape
    dims = shape.dims if hasattr(shape, "dims") and not isinstance(shape, tuple) else list(shape)
    return None if dims is None else [None if d is None or d < 0 else int(d) for d in dims]


def _size_vector(x, axes):
    """The sizes of x's axes as an int64 vector: a NumPy constant when known, else a tensor."""
    dims = _dims(x)
    if dims is not None and all(dims[a] is not None for a in axes):
        return np.array([dims[a] for a in axes], np.int64)
    shape = _ops.shape(x, out_type="int64")
    return _ops.gather_v2(shape, np.array(axes, np.int64), np.int64(0))


def _prod(v):
    if isinstance(v, np.ndarray):
        return np.array([int(np.prod(v))], np.int64)
    return _ops.reshape(_ops.prod(v, np.int32(0), keep_dims=False), np.array([1], np.int64))


def _concat(parts):
    if all(isinstance(p, np.ndarray) for p in parts):
        return np.concatenate(parts).astype(np.int64)
    return _ops.concat_v2(list(parts), np.int32(0))


def _transpose(x, perm):
    if list(perm) == list(range(len(perm))):
        return x
    return _ops.transpose(x, np.array(perm, np.int32))


def einsum(equation, *inputs, name=None, **kwargs):
    """Tensor contraction over the labels of ``equation`` (tf.einsum), e.g. "ij,jk->ik",
    "bqhd,bkhd->bhqk", "...ij,...jk->...ik", "bii->bi" (a diagonal), "ii" (a trace)."""
    del name, kwargs  # optimize= and name= are accepted as TensorFlow does
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if len(inputs) not in (1, 2):
        raise UnimplementedError(f"Einsum: {len(inputs)} operands (only 1 or 2 are supported yet)", "Einsum")
    ranks = []
    for x in inputs:
        d = _dims(x)
        if d is None:
            raise _bad("the rank of every input must be known")
        ranks.append(len(d))
    labels, out = _parse(equation, ranks)
    xs = list(inputs)
    for k in range(len(xs)):  # a label repeated within an operand: its diagonal
        if len(set(labels[k])) != len(labels[k]):
            xs[k], labels[k] = _diagonals(_ops.identity(xs[k]), labels[k])
    # Sum out the labels only this operand has and the output lacks.
    for k, lab in enumerate(labels):
        others = set(out)
        for j, other in enumerate(labels):
            if j != k:
                others |= set(other)
        axes = [i for i, c in enumerate(lab) if c not in others]
        if axes:
            xs[k] = _ops.sum(xs[k], np.array(axes, np.int32), keep_dims=False)
            labels[k] = [c for c in lab if c in others]
    if len(xs) == 1:
        return _transpose(xs[0], [labels[0].index(c) for c in out])
    (a, la), (b, lb) = (xs[0], labels[0]), (xs[1], labels[1])
    batch = [c for c in out if c in la and c in lb]
    free_a = [c for c in out if c in la and c not in lb]
    free_b = [c for c in out if c in lb and c not in la]
    contract = [c for c in la if c in lb and c not in out]
    if a.dtype != b.dtype:
        raise _bad(f"inputs must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
    # Batch labels broadcast (a size-1 dimension against a larger one): BatchMatMulV2 does that
    # when they are laid out as its leading dimensions, so they stay separate dimensions.
    a_t = _transpose(a, [la.index(c) for c in batch + free_a + contract])
    b_t = _transpose(b, [lb.index(c) for c in batch + contract + free_b])
    nb = len(batch)
    a_batch = _size_vector(a_t, list(range(nb)))
    b_batch = _size_vector(b_t, list(range(nb)))
    m = _prod(_size_vector(a_t, list(range(nb, nb + len(free_a)))))
    k = _prod(_size_vector(a_t, list(range(nb + len(free_a), nb + len(free_a) + len(contract)))))
    n = _prod(_size_vector(b_t, list(range(nb + len(contract), nb + len(contract) + len(free_b)))))
    a3 = _ops.reshape(a_t, _concat([a_batch, m, k]))
    b3 = _ops.reshape(b_t, _concat([b_batch, k, n]))
    c = _ops.batch_mat_mul_v2(a3, b3)
    # [batch (broadcast), M, N] -> [batch, free_a, free_b] -> output order
    c_batch = _size_vector(c, list(range(nb)))
    free_a_sizes = _size_vector(a_t, list(range(nb, nb + len(free_a))))
    free_b_sizes = _size_vector(b_t, list(range(nb + len(contract), nb + len(contract) + len(free_b))))
    c = _ops.reshape(c, _concat([c_batch, free_a_sizes, free_b_sizes]))
    order = batch + free_a + free_b
    return _transpose(c, [order.index(x) for x in out])
