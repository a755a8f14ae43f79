"""How the inputs of an op call get their dtypes: one rule for eager calls and graph building.

An op's inputs are typed by its signature: a fixed dtype (``axis: int32``), a type attr shared
by several inputs (``x: T, y: T``), or a list(type) attr (``input: Tin``). When a call passes
Python values, NumPy arrays or tensors, the dtype each non-tensor value converts to is decided
here, by :func:`resolve_input_dtypes`, for both the eager conversion hook
(:func:`opforge.framework.tensor.convert_inputs`) and graph dispatch
(:func:`opforge.framework.graph.dispatch`); only what counts as "already a tensor" differs
between the modes, and the caller says it.

This module imports nothing from the rest of the framework but dtypes and errors, so both
tensor.py and graph.py can use it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _C
from . import dtypes as _dtypes
from .errors import InvalidArgumentError

_FLOAT32 = _dtypes.float32.as_datatype_enum
_INT32 = _dtypes.int32.as_datatype_enum


def holds_strings(arr: np.ndarray) -> bool:
    """True for NumPy's bytes/str arrays and object arrays of bytes and str (TF's tf.string)."""
    if arr.dtype.kind in "SU":
        return True
    return arr.dtype.kind == "O" and arr.size > 0 and all(isinstance(v, (bytes, str)) for v in arr.flat)


def default_dtype(value) -> _dtypes.DType:
    """TensorFlow's choice for a Python value: float32, int32 (int64 if needed), bool, string;
    a NumPy array or scalar keeps its own dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _dtypes.as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype == np.bool_:
        return _dtypes.bool_
    if arr.dtype.kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return _dtypes.int64
        return _dtypes.int32
    if arr.dtype.kind == "f":
        return _dtypes.float32
    if arr.dtype.kind == "c":  # TensorFlow: a Python complex is complex128
        return _dtypes.complex128
    if holds_strings(arr):
        return _dtypes.string
    if arr.dtype.kind == "O" and any(isinstance(v, _C.Tensor) for v in np.ravel(arr)):
        raise TypeError("cannot convert a nested list containing Tensors; use of.stack")
    raise TypeError(f"cannot convert {type(value).__name__} of NumPy kind '{arr.dtype.kind}' to a Tensor")


def _values(arg, is_list: bool) -> list:
    return list(arg) if is_list and isinstance(arg, (list, tuple)) else [arg]


def _default_for(op_name: str, arg_name: str, value, allowed: list) -> _dtypes.DType:
    """The dtype of a Python value given to an input whose type attr allows ``allowed`` (enums;
    empty: anything): TensorFlow's default, except that an integer literal given to a
    float-only op becomes float32 and an empty list (no type of its own) int32 or the first
    allowed type."""
    if value is None:
        raise InvalidArgumentError(f"{op_name}: input '{arg_name}' is missing (got None)", op_name)
    try:
        want = default_dtype(value)
    except TypeError as e:
        raise InvalidArgumentError(f"{op_name}: input '{arg_name}': {e}", op_name) from None
    if allowed and want.as_datatype_enum not in allowed:
        if want.is_integer and _FLOAT32 in allowed:
            want = _dtypes.float32
        elif np.size(value) == 0:
            want = _dtypes.int32 if _INT32 in allowed else _dtypes.from_enum(allowed[0])
    return want


def resolve_input_dtypes(spec: dict, args, tensor_dtype: Callable) -> list:
    """The dtype each input argument of an op call converts its non-tensor values to.

    ``spec`` is the runtime's op spec (``name``, ``input_info``, ``allowed_types``); ``args``
    holds one entry per input argument (a value, or a list of values for a list argument),
    optionally followed by attr values (ignored). ``tensor_dtype(v)`` gives the dtype of a value
    that already is a tensor in the calling mode (an eager Tensor, a graph tensor, a variable),
    else None.

    The rule, TensorFlow's:
      * an input of a fixed dtype gets that dtype;
      * inputs sharing a type attr take the dtype of the first tensor among them (``x + 1``
        keeps x's dtype), else of the first NumPy array or scalar among them, else the default
        of the first Python value, in input order (see :func:`_default_for`);
      * an input typed by a list(type) attr gets None: each of its values takes its own
        default dtype.
    Raises InvalidArgumentError naming the op for a missing (None) input that needs a default
    and for a value that has no dtype.
    """
    op_name = spec["name"]
    inputs = spec["input_info"]
    allowed = spec["allowed_types"]
    resolved: dict[str, _dtypes.DType] = {}
    for from_numpy in (False, True):  # tensors first, then NumPy arrays
        for i, (_, type_attr, _, is_list, *_) in enumerate(inputs):
            if not type_attr or type_attr in resolved:
                continue
            for v in _values(args[i], is_list):
                d = tensor_dtype(v)
                if d is None and from_numpy and isinstance(v, (np.ndarray, np.generic)):
                    try:
                        d = _dtypes.as_dtype(v.dtype)
                    except TypeError as e:
                        raise InvalidArgumentError(f"{op_name}: {e}", op_name) from None
                if d is not None:
                    resolved[type_attr] = d
                    break
    wants = []
    for i, (arg_name, type_attr, fixed, is_list, *_) in enumerate(inputs):
        if fixed:
            wants.append(_dtypes.from_enum(fixed))
            continue
        if not type_attr:  # list(type): per value
            wants.append(None)
            continue
        want = resolved.get(type_attr)
        if want is None:
            values = _values(args[i], is_list)
            if is_list and not isinstance(args[i], (list, tuple)):
                values = []  # not a list: the caller reports it
            if values:
                want = _default_for(op_name, arg_name, values[0], allowed.get(type_attr) or [])
                resolved[type_attr] = want
        wants.append(want)
    return wants
