"""Hand-written gradients of the SparseTensor ops whose opdefs name them (``gradient_fn``), as
TensorFlow defines them (tensorflow/python/ops/sparse_grad.py, math_grad.py).

Only the values (and dense operands) get gradients; indices and shapes are integer inputs
(None). Each is built from the generated wrappers, so it works eagerly and in graphs.
"""

from __future__ import annotations

import numpy as np


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _column(indices, k):
    """Column k of an [n, rank] index matrix, as a vector."""
    return _ops().gather_v2(indices, np.int64(k), np.int32(1))


def sparse_add_grad(op, grads):
    """Each operand's values get the sum's gradient at their index (SparseAddGrad)."""
    a_indices, _, _, b_indices, _, _, _ = op.inputs
    ga, gb = _ops().sparse_add_grad(grads[1], a_indices, b_indices, op.outputs[0])
    return [None, ga, None, None, gb, None, None]


def sparse_tensor_dense_add_grad(op, grads):
    a_indices = op.inputs[0]
    return [None, _ops().gather_nd(grads[0], a_indices), None, grads[0]]


def sparse_reduce_sum_grad(op, grads):
    """Each value gets the output gradient at its index with the reduced dims dropped: the
    gradient reshaped to the kept-dims shape, gathered at the indices with the reduced
    columns zeroed (TensorFlow's formula, without its integer division)."""
    ops = _ops()
    indices, _, shape, axes = op.inputs
    rank = ops.size(shape, out_type="int32")
    axes = ops.floor_mod(ops.reshape(axes, np.array([-1], np.int64)), rank)
    reduced = ops.max(ops.one_hot(axes, rank, np.int64(1), np.int64(0)), np.int32(0), keep_dims=False)
    kept = ops.sub(np.int64(1), ops.reshape(reduced, np.array([-1], np.int64)))  # 1 for a kept dim
    kept_shape = ops.add_v2(ops.mul(shape, kept), ops.sub(np.int64(1), kept))   # reduced dims -> 1
    grad = ops.reshape(grads[0], kept_shape)
    return [None, ops.gather_nd(grad, ops.mul(indices, kept)), None, None]


def sparse_tensor_dense_mat_mul_grad(op, grads):
    """d values[e] = <grad row, b row> at the entry's (row, col); d b = op(A)^T @ grad."""
    ops = _ops()
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    grad = grads[0]
    b_grad = ops.sparse_tensor_dense_mat_mul(a_indices, a_values, a_shape, grad, adjoint_a=not adj_a)
    if adj_b:
        b_grad = ops.transpose(b_grad, np.array([1, 0], np.int32))
    rows, cols = _column(a_indices, 0), _column(a_indices, 1)
    parts_a = ops.gather_v2(grad, cols if adj_a else rows, np.int32(0))
    b_rows = ops.transpose(b, np.array([1, 0], np.int32)) if adj_b else b
    parts_b = ops.gather_v2(b_rows, rows if adj_a else cols, np.int32(0))
    a_values_grad = ops.sum(ops.mul(parts_a, parts_b), np.int32(1), keep_dims=False)
    return [None, a_values_grad, None, b_grad]


def sparse_fill_empty_rows_grad(op, grads):
    d_values, d_default = _ops().sparse_fill_empty_rows_grad(op.outputs[3], grads[1])
    return [None, d_values, None, d_default]


def sparse_slice_grad(op, grads):
    indices, _, _, start, _ = op.inputs
    val_grad = _ops().sparse_slice_grad(grads[1], indices, start, op.outputs[0])
    return [None, val_grad, None, None, None]


def sparse_softmax_grad(op, grads):
    """grad_x = (grad - sum(grad * y) over the row's values) * y."""
    ops = _ops()
    indices, _, shape = op.inputs
    y, g = op.outputs[0], grads[0]
    row_sums = ops.sparse_reduce_sum(indices, ops.mul(y, g), shape, np.array([-1], np.int32), keep_dims=True)
    shifted = ops.sparse_dense_cwise_add(indices, g, shape, ops.neg(row_sums))
    return [None, ops.mul(shifted, y), None]


def _dense_values(indices, shape, dense):
    """The dense operand's element at each sparse index (broadcast as the cwise ops do)."""
    ops = _ops()
    dense_shape = ops.shape(dense, out_type="int64")
    extra = ops.sub(ops.size(shape, out_type="int64"), ops.size(dense_shape, out_type="int64"))
    ones = ops.fill(ops.reshape(extra, np.array([1], np.int64)), np.int64(1))
    full = ops.concat_v2([ones, dense_shape], np.int32(0))
    is_one = ops.cast(ops.equal(full, np.int64(1)), "int64")
    picked = ops.mul(indices, ops.sub(np.int64(1), is_one))  # broadcast dims read index 0
    dense_ix = ops.slice(picked, ops.concat_v2([np.array([0], np.int64), ops.reshape(extra, np.array([1], np.int64))],
                                               np.int32(0)), np.array([-1, -1], np.int64))
    return dense_ix, ops.gather_nd(dense, dense_ix)


def _cwise_grad(op, grads, is_mul):
    ops = _ops()
    indices, values, shape, dense = op.inputs
    grad = grads[0]
    dense_ix, dense_vals = _dense_values(indices, shape, dense)
    if is_mul:
        dx, dy_vals = ops.mul(grad, dense_vals), ops.mul(grad, values)
    else:
        dx = ops.real_div(grad, dense_vals)
        dy_vals = ops.mul(grad, ops.real_div(ops.neg(values), ops.square(dense_vals)))
    dy = ops.scatter_nd(dense_ix, dy_vals, ops.shape(dense, out_type="int64"))  # repeated positions add
    return [None, dx, None, dy]


def sparse_dense_cwise_mul_grad(op, grads):
    return _cwise_grad(op, grads, True)


def sparse_dense_cwise_div_grad(op, grads):
    return _cwise_grad(op, grads, False)


def _rows(data):
    return _ops().cast(_ops().gather_v2(_ops().shape(data, out_type="int32"), np.int32(0), np.int32(0)), "int32")


def _segment_grad(op, grads, kind):
    data, indices, segment_ids = op.inputs[:3]
    fn = {"sum": "sparse_segment_sum_grad", "mean": "sparse_segment_mean_grad",
          "sqrt_n": "sparse_segment_sqrt_n_grad"}[kind]
    grad = getattr(_ops(), fn)(grads[0], indices, segment_ids, _rows(data))
    return [grad, None, None] + [None] * (len(op.inputs) - 3)


def sparse_segment_sum_grad(op, grads):
    return _segment_grad(op, grads, "sum")


def sparse_segment_mean_grad(op, grads):
    return _segment_grad(op, grads, "mean")


def sparse_segment_sqrt_n_grad(op, grads):
    return _segment_grad(op, grads, "sqrt_n")
