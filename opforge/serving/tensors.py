"""Tensors of requests and answers: TensorProto <-> NumPy, with TensorFlow's encoding
(tensor_content for numbers, string_val for strings), checked like a GraphDef's constants."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..io.graph_def import ndarray_to_proto, tensor_from_proto


def array_from_proto(tp, key: str) -> np.ndarray:
    """The array a request's TensorProto holds; InvalidArgumentError naming the input `key` when
    it is malformed (unknown dtype, byte count not matching the shape, ...)."""
    try:
        return tensor_from_proto(tp)._numpy()
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"input '{key}': {e.message.replace(' [[node ]]', '')}") from None


def array_to_proto(arr: np.ndarray, dtype=None):
    """A TensorProto holding arr, of the opforge dtype `dtype` (default: arr's)."""
    return ndarray_to_proto(arr, _dtypes.as_dtype(dtype if dtype is not None else arr.dtype))
