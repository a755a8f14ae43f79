"""Gradients of the band-diagonal matrix ops (MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*;
their opdefs name these with ``gradient_fn``), TensorFlow's array_grad.py formulas: reading a band
and writing one are each other's adjoints. Every version reduces to the V3 ops, V1 being the main
diagonal and V2 the LEFT_LEFT alignment. padding_value gets the sum of the gradient over the
padded entries (TensorFlow gives it none; opforge's PadV2 does the same); k, num_rows and
num_cols get none.
"""

from __future__ import annotations

import numpy as np


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _band(op):
    """(k, align) of a band op: V1 ops have the main diagonal, V1 and V2 the LEFT_LEFT layout."""
    k = op.inputs[2] if op.type.startswith("MatrixSetDiagV") else (op.inputs[1] if op.type[-2:] in ("V2", "V3")
                                                                    else np.int32(0))
    return k, op.attrs.get("align", "LEFT_LEFT") if op.type.endswith("V3") else "LEFT_LEFT"


def _zero(x):
    return np.zeros((), x.dtype.as_numpy_dtype)


def _unused(op, used):
    return (None,) * (len(op.inputs) - used)


def _sum(x):
    ops = _ops()
    return ops.sum(x, ops.range(np.int32(0), ops.rank(x), np.int32(1)))


def matrix_diag_part_grad(op, grads):
    """d input: the diagonals' gradient written onto zeros of the input's shape."""
    ops = _ops()
    k, align = _band(op)
    x, g = op.inputs[0], grads[0]
    dx = ops.matrix_set_diag_v3(ops.zeros_like(x), g, k, align=align)
    if len(op.inputs) == 1:
        return (dx,)
    real = ops.matrix_diag_part_v3(ops.ones_like(x), k, _zero(x), align=align)  # 1 where an entry, 0 padding
    return dx, None, ops.sub(_sum(g), _sum(ops.mul(g, real)))


def matrix_diag_grad(op, grads):
    """d diagonal: the band of the matrices' gradient."""
    ops = _ops()
    k, align = _band(op)
    g = grads[0]
    dd = ops.matrix_diag_part_v3(g, k, _zero(g), align=align)
    if len(op.inputs) == 1:
        return (dd,)
    return dd, None, None, None, ops.sub(_sum(g), _sum(dd))  # dd is 0 at its padding: the band's sum


def matrix_set_diag_grad(op, grads):
    """d input: the gradient with the band zeroed; d diagonal: the gradient's band."""
    ops = _ops()
    k, align = _band(op)
    g, d = grads[0], op.inputs[1]
    return (ops.matrix_set_diag_v3(g, ops.zeros_like(d), k, align=align),
            ops.matrix_diag_part_v3(g, k, _zero(g), align=align)) + _unused(op, 2)
