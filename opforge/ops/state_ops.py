"""Sparse updates of graph variables (TensorFlow's state_ops): the Scatter* ops by their TF1
names, and batch_scatter_update, which TensorFlow composes from ScatterNdUpdate.

    tf.scatter_update(v, [0, 2], rows)      # v[0] = rows[0]; v[2] = rows[1]
    tf.scatter_nd_add(v, [[1, 2]], [5.0])   # v[1, 2] += 5
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops

scatter_update, scatter_add, scatter_sub = _ops.scatter_update, _ops.scatter_add, _ops.scatter_sub
scatter_mul, scatter_div, scatter_min, scatter_max = (_ops.scatter_mul, _ops.scatter_div, _ops.scatter_min,
                                                      _ops.scatter_max)


# ScatterNd*: the generated wrappers have TF's signature (and its bad_indices_policy attr).
scatter_nd_update, scatter_nd_add, scatter_nd_sub = _ops.scatter_nd_update, _ops.scatter_nd_add, _ops.scatter_nd_sub


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """For each batch position b (the leading dims of indices, which ref shares):
    ref[b, indices[b, i]] = updates[b, i] (TensorFlow's batch_scatter_update, a ScatterNdUpdate
    whose indices pair each index with its batch position)."""
    indices = _ops.identity(indices) if not hasattr(indices, "dtype") else indices
    rank = indices.shape.rank
    if rank is None:
        raise ValueError("batch_scatter_update: the rank of indices must be known")
    if rank == 1:
        return _ops.scatter_update(ref, indices, updates, use_locking=use_locking, name=name)
    shape = _ops.shape(indices, out_type=indices.dtype)
    coords = []
    for d in range(rank - 1):  # the batch position along dim d, broadcast to indices' shape
        n = _ops.strided_slice(shape, np.array([d], np.int32), np.array([d + 1], np.int32), np.array([1], np.int32),
                               shrink_axis_mask=1)
        r = _ops.range(_ops.cast(np.int64(0), indices.dtype), n, _ops.cast(np.int64(1), indices.dtype))
        view = [1] * rank
        view[d] = -1
        coords.append(_ops.broadcast_to(_ops.reshape(r, np.array(view, np.int64)), shape))
    nd = _ops.pack(coords + [indices], axis=-1)
    return _ops.scatter_nd_update(ref, nd, updates, use_locking=use_locking, name=name)
