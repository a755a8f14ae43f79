"""Gradients of the TensorList ops (``gradient_fn`` in their opdefs), as TensorFlow defines
them: the gradient of a list is a list of the gradients of its elements.

- Stack: the stacked gradient, split back into a list.
- SetItem: the item gets the element of the list gradient at its index; the input list the
  list gradient with that element zeroed (the item replaced it).
- GetItem: a list gradient that is zero but at the index read.
- FromTensor: the list gradient stacked.
- Gather: the gradient rows scattered back (summed where an index repeats); Scatter: the rows
  that stayed in the list (the last write to an element) get its gradient, the replaced
  elements of the input list none; ConcatV2 and Split: each other's inverse.
"""

from __future__ import annotations

import numpy as np


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _element_shape(t):
    """t's shape without its first dimension, as an int32 vector tensor."""
    ops = _ops()
    shape = ops.shape(t, out_type="int32")
    return ops.strided_slice(shape, np.array([1], np.int32), np.array([0], np.int32), np.array([1], np.int32),
                             end_mask=1)


def tensor_list_stack_grad(op, grads):
    _, element_shape = op.inputs
    return _ops().tensor_list_from_tensor(grads[0], element_shape), None


def tensor_list_set_item_grad(op, grads):
    ops = _ops()
    _, index, item = op.inputs
    g = grads[0]
    item_grad = ops.tensor_list_get_item(g, index, np.int32(-1), element_dtype=item.dtype)
    list_grad = ops.tensor_list_set_item(g, index, ops.zeros_like(item_grad))
    return list_grad, None, item_grad


def tensor_list_get_item_grad(op, grads):
    ops = _ops()
    handle, index, _ = op.inputs
    g = grads[0]
    zeros = ops.tensor_list_reserve(ops.shape(g, out_type="int32"), ops.tensor_list_length(handle),
                                    element_dtype=g.dtype)
    return ops.tensor_list_set_item(zeros, index, g), None, None


def tensor_list_from_tensor_grad(op, grads):
    tensor, _ = op.inputs
    return _ops().tensor_list_stack(grads[0], _element_shape(tensor), element_dtype=tensor.dtype), None


def _reserve_like(handle, dtype):
    """A list of unset elements as long as ``handle``, with its element shape."""
    ops = _ops()
    return ops.tensor_list_reserve(ops.tensor_list_element_shape(handle, shape_type="int32"),
                                   ops.tensor_list_length(handle), element_dtype=dtype)


def tensor_list_gather_grad(op, grads):
    """Element i gets the sum of the gradient rows that read it (an index may repeat)."""
    ops = _ops()
    handle, indices, _ = op.inputs
    g = grads[0]
    summed = ops.unsorted_segment_sum(g, indices, ops.tensor_list_length(handle))
    rows = ops.gather_v2(summed, indices, np.int32(0))  # a repeated index writes the same sum twice
    return ops.tensor_list_scatter_into_existing_list(_reserve_like(handle, g.dtype), rows, indices), None, None


def _rows_that_stayed(indices, tensor, g):
    """The list gradient at ``indices``, for the rows of ``tensor`` a scatter left in place: row r
    gets its element's gradient if no later row overwrote that element (the last write wins,
    as in the forward op), else zeros."""
    ops = _ops()
    n = ops.shape(indices, out_type="int32")[0]
    positions = ops.range(np.int32(0), n, np.int32(1))
    # Which row won each element: scatter the row numbers the same way, read them back.
    empty = ops.tensor_list_reserve(np.zeros(0, np.int32), np.int32(0), element_dtype="int32")
    winners = ops.tensor_list_gather(ops.tensor_list_scatter_into_existing_list(empty, positions, indices),
                                     indices, np.zeros(0, np.int32), element_dtype="int32")
    won = ops.cast(ops.equal(winners, positions), tensor.dtype)
    ones = ops.ones_like(ops.shape(tensor, out_type="int32"))
    mask_shape = ops.concat_v2([np.array([-1], np.int32),
                                ops.strided_slice(ones, np.array([1], np.int32), np.array([0], np.int32),
                                                  np.array([1], np.int32), end_mask=1)], np.int32(0))
    rows = ops.tensor_list_gather(g, indices, _element_shape(tensor), element_dtype=tensor.dtype)
    return rows * ops.reshape(won, mask_shape)


def tensor_list_scatter_into_existing_list_grad(op, grads):
    """The scattered rows get their elements' gradients (unless overwritten by a later row); the
    input list's elements that were replaced get none."""
    ops = _ops()
    _, tensor, indices = op.inputs
    g = grads[0]
    list_grad = ops.tensor_list_scatter_into_existing_list(g, ops.zeros_like(tensor), indices)
    return list_grad, _rows_that_stayed(indices, tensor, g), None


def tensor_list_scatter_v2_grad(op, grads):
    tensor, indices, _, _ = op.inputs
    return _rows_that_stayed(indices, tensor, grads[0]), None, None, None


def tensor_list_concat_v2_grad(op, grads):
    ops = _ops()
    handle, _, _ = op.inputs
    g = grads[0]
    if g is None:
        return None, None, None
    shape = ops.tensor_list_element_shape(handle, shape_type="int64")
    return ops.tensor_list_split(g, shape, op.outputs[1]), None, None


def tensor_list_split_grad(op, grads):
    ops = _ops()
    tensor, _, lengths = op.inputs
    g = grads[0]
    leading = ops.cast(lengths, "int64")
    return ops.tensor_list_concat_v2(g, np.int64(-1), leading, element_dtype=tensor.dtype)[0], None, None
