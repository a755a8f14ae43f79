"""Higher-order functions over the first dimension (TensorFlow's tf.map_fn, tf.foldl, tf.foldr,
tf.scan): a while_loop that reads each element from a TensorArray and writes each result to
another, so they work eagerly and in graphs, with gradients through the loop.

``elems`` is a tensor or a (nested) tuple/list of tensors with the same first dimension; fn
sees one element (a slice, or the same structure of slices).
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.control_flow import while_loop
from ..framework.graph import get_default_graph
from ..framework.tensor import convert_to_tensor
from .tensor_array_ops import TensorArray


def _flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack(structure, flat: list):
    """flat's values in structure's shape (flat is consumed from the front)."""
    if isinstance(structure, (list, tuple)):
        packed = [_pack(item, flat) for item in structure]
        return tuple(packed) if isinstance(structure, tuple) else packed
    return flat.pop(0)


def _tensor(x):
    return x if hasattr(x, "dtype") and not isinstance(x, np.ndarray) else convert_to_tensor(x)


def _unstacked(elems, reverse=False):
    """TensorArrays of the leaves of elems, and the number of elements (a scalar tensor)."""
    leaves = [_tensor(e) for e in _flatten(elems)]
    if not leaves:
        raise ValueError("elems must be a tensor or a non-empty structure of tensors")
    if any(getattr(e.shape, "rank", None) == 0 for e in leaves):
        raise ValueError("elems must have a first dimension to iterate over, got a scalar")
    if reverse:
        leaves = [_ops.reverse_v2(e, np.array([0], np.int32)) for e in leaves]
    arrays = [TensorArray(e.dtype, size=_ops.shape(e)[0] if hasattr(_ops.shape(e), "op") else np.shape(e)[0],
                          infer_shape=True).unstack(e) for e in leaves]
    return arrays, arrays[0].size()


def _read(arrays, elems, i):
    return _pack(elems, [a.read(i) for a in arrays])


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """fn applied to each element of elems along the first dimension, the results stacked
    (tf.map_fn). dtype (or fn_output_signature) gives the structure and dtypes of fn's result
    when it differs from elems'."""
    del back_prop, swap_memory
    with get_default_graph().name_scope(name or "map"):
        arrays, n = _unstacked(elems)
        out_structure = fn_output_signature if fn_output_signature is not None else dtype
        if out_structure is None:
            out_structure = _pack(elems, [a.dtype for a in arrays])
        out_dtypes = [_dtypes.as_dtype(d) for d in _flatten(out_structure)]
        outs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

        def body(i, *acc):
            result = _flatten(fn(_read(arrays, elems, i)))
            if len(result) != len(acc):
                raise ValueError(f"map_fn: fn returned {len(result)} values where dtype says {len(acc)}")
            return (_ops.add_v2(i, np.int32(1)),) + tuple(a.write(i, v) for a, v in zip(acc, result))

        final = while_loop(lambda i, *_: _ops.less(i, n), body, (np.int32(0),) + tuple(outs),
                           parallel_iterations=parallel_iterations or 10)
        return _pack(out_structure, [a.stack() for a in final[1:]])


def _fold(fn, elems, initializer, parallel_iterations, name, default_name, reverse):
    with get_default_graph().name_scope(name or default_name):
        arrays, n = _unstacked(elems, reverse)
        if initializer is None:
            acc, start = _read(arrays, elems, np.int32(0)), np.int32(1)
        else:
            acc, start = initializer, np.int32(0)
        structure = acc

        def body(i, *acc_flat):
            nxt = fn(_pack(structure, list(acc_flat)), _read(arrays, elems, i))
            return (_ops.add_v2(i, np.int32(1)),) + tuple(_tensor(v) for v in _flatten(nxt))

        final = while_loop(lambda i, *_: _ops.less(i, n), body,
                           (start,) + tuple(_tensor(v) for v in _flatten(acc)),
                           parallel_iterations=parallel_iterations)
        return _pack(structure, list(final[1:]))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """fn(fn(fn(initializer, e0), e1), ...) over elems' first dimension (tf.foldl); without an
    initializer the first element starts the accumulation."""
    del back_prop, swap_memory
    return _fold(fn, elems, initializer, parallel_iterations, name, "foldl", reverse=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """foldl from the last element to the first (tf.foldr)."""
    del back_prop, swap_memory
    return _fold(fn, elems, initializer, parallel_iterations, name, "foldr", reverse=True)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """Every intermediate accumulator of foldl (foldr with reverse), stacked (tf.scan)."""
    del back_prop, swap_memory
    with get_default_graph().name_scope(name or "scan"):
        arrays, n = _unstacked(elems, reverse)
        if initializer is None:
            acc, start = _read(arrays, elems, np.int32(0)), np.int32(1)
        else:
            acc, start = initializer, np.int32(0)
        structure = acc
        acc_flat = [_tensor(v) for v in _flatten(acc)]
        outs = [TensorArray(a.dtype, size=n, infer_shape=infer_shape) for a in acc_flat]
        if initializer is None:
            outs = [o.write(np.int32(0), a) for o, a in zip(outs, acc_flat)]
        k = len(acc_flat)

        def body(i, *state):
            nxt = [_tensor(v) for v in _flatten(fn(_pack(structure, list(state[:k])), _read(arrays, elems, i)))]
            written = [o.write(i, v) for o, v in zip(state[k:], nxt)]
            return (_ops.add_v2(i, np.int32(1)),) + tuple(nxt) + tuple(written)

        final = while_loop(lambda i, *_: _ops.less(i, n), body, (start,) + tuple(acc_flat) + tuple(outs),
                           parallel_iterations=parallel_iterations)
        results = [a.stack() for a in final[1 + k:]]
        if reverse:
            results = [_ops.reverse_v2(r, np.array([0], np.int32)) for r in results]
        return _pack(structure, results)
