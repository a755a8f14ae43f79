"""TF1 names added by the ops2 work (issue 32): the TensorScatter* ops, dynamic_partition /
dynamic_stitch, searchsorted, setdiff1d, unravel_index and the variable-initialization queries. Implementations live in the library
proper (opdefs/, opforge/framework/variable_queries.py); this file only spells them."""

from __future__ import annotations

from opforge import ops as _ops
from opforge.compat.v1 import _tf1
from opforge.framework import variable_queries as _vq
from opforge.ops import search_ops as _search
from opforge.ops.manip_ops import required_space_to_batch_paddings

__all__ = ["approx_top_k", "assert_variables_initialized", "bitcast", "dynamic_partition", "dynamic_stitch", "edit_distance", "is_variable_initialized",
           "report_uninitialized_variables", "required_space_to_batch_paddings", "searchsorted", "setdiff1d", "unravel_index", "tensor_scatter_add", "tensor_scatter_nd_add", "tensor_scatter_nd_max",
           "tensor_scatter_nd_min", "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "tensor_scatter_sub",
           "tensor_scatter_update"]

# The generated wrappers have TF's signatures (tensor, indices, updates, bad_indices_policy, name).
tensor_scatter_nd_update = tensor_scatter_update = _ops.tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add = _ops.tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub = _ops.tensor_scatter_sub
tensor_scatter_nd_min, tensor_scatter_nd_max = _ops.tensor_scatter_min, _ops.tensor_scatter_max
dynamic_partition, dynamic_stitch = _ops.dynamic_partition, _ops.dynamic_stitch
bitcast = _ops.bitcast  # (input, type, name), as TF's
searchsorted, setdiff1d, unravel_index = _search.searchsorted, _search.setdiff1d, _search.unravel_index
edit_distance = _search.edit_distance
approx_top_k = _search.approx_top_k  # exact, as TensorFlow's CPU kernel
for _ns in (_tf1.math, _tf1.nn):
    _ns.approx_max_k, _ns.approx_min_k = _search.approx_max_k, _search.approx_min_k

is_variable_initialized = _vq.is_variable_initialized
report_uninitialized_variables = _vq.report_uninitialized_variables
assert_variables_initialized = _vq.assert_variables_initialized
