"""TensorArray (TensorFlow's tf.TensorArray): a list of tensors of one dtype written and read by
index, made of TensorList ops as TensorFlow 2 makes it.

A TensorArray is a value: ``write``, ``scatter``, ``unstack`` and ``split`` return a new
TensorArray whose ``flow`` (a variant tensor holding the list) follows the change; the old one
is unchanged. TF1 programs use it that way too (``ta = ta.write(t, x)`` in a while loop's body,
the TensorArray a loop variable): ``of.while_loop`` and ``of.cond`` carry a TensorArray as its
flow and give the body a TensorArray again. Eagerly it is the same ops, run at once.

A TensorArray made by ``unstack(value)`` reads ``value`` itself (GatherV2) until it is written:
the common TF1 pattern (inputs unstacked outside a loop, read inside it) then differentiates
through the tensor, as ``of.nn.dynamic_rnn`` does.

TensorFlow 1's own TensorArrayV3 ops in a GraphDef import as these TensorList ops
(opforge/framework/tensor_array_import.py).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from .. import ops as _ops
from ..framework.errors import UnimplementedError
from ..framework.graph import GraphTensor
from ..framework.tensor import Tensor, TensorShape, convert_to_tensor


def _static_int(size):
    """size as an int when known while building (an int, a NumPy scalar, a Const node), else None."""
    from ..gradients.helpers import constant_value  # noqa: PLC0415
    v = None if size is None else constant_value(size)
    return int(v) if v is not None and np.ndim(v) == 0 else None


def _shape_tensor(shape: TensorShape, dtype=np.int32):
    """An element_shape input: -1 for unknown dims, the scalar -1 for an unknown rank."""
    if shape.rank is None:
        return dtype(-1)
    return np.array([-1 if d is None else d for d in shape.as_list()], dtype)


def _static_shape(t) -> TensorShape:
    return TensorShape(t.shape.dims if isinstance(t, GraphTensor) else list(t.shape))


def _tensor(v, dtype=None):
    """v as a tensor: tensors (graph or eager) as they are, variables read, else converted."""
    if isinstance(v, (Tensor, GraphTensor)):
        return v
    if hasattr(v, "_as_graph_element") or hasattr(v, "_eager_tensor"):  # a variable: its value
        return _ops.identity(v)
    return convert_to_tensor(v, dtype=dtype)


def _as_int32(v, what):
    t = _tensor(v)
    if t.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"TensorArray.{what}: index must be int32, got {t.dtype.name}")
    return _ops.cast(t, "int32") if t.dtype == _dtypes.int64 else t


class TensorArray:
    """A list of ``size`` tensors of ``dtype`` (TensorFlow's tf.TensorArray).

    ``dynamic_size=True`` lets writes past the end grow it; ``element_shape`` (or, with
    ``infer_shape``, the first write) fixes the shape every element must have.
    ``clear_after_read``, ``tensor_array_name`` and ``colocate_with_first_write_call`` are
    accepted for TensorFlow's signature and change nothing (elements are values).
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        del clear_after_read, tensor_array_name, colocate_with_first_write_call
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)
        # One cell shared by every TensorArray derived from this one (TF1's rule): a write in a
        # loop's body tells the array after the loop its element shape.
        self._shape_cell = [TensorShape(element_shape) if element_shape is not None else TensorShape(None)]
        self._dense = None  # the tensor this array was unstacked from, while it is unchanged
        # The number of elements when fixed and known while building (a constant size, not
        # dynamic_size): stack()'s first dim.
        self._static_size = _static_int(size) if not self._dynamic_size else None
        if handle is not None and flow is None:
            flow = handle
        if flow is not None:
            if flow.dtype != _dtypes.variant:
                raise TypeError(f"TensorArray: flow must be a variant tensor (a TensorList), got {flow.dtype.name}")
            self._flow = flow
            return
        if size is None:
            if not self._dynamic_size:
                raise ValueError("TensorArray: size must be provided if handle is not provided")
            size = 0
        with _name_scope(name or "TensorArray"):
            self._flow = _ops.tensor_list_reserve(_shape_tensor(self._element_shape), _as_int32(size, "size"),
                                                  element_dtype=self._dtype)

    # -- what TensorFlow's TensorArray exposes

    @property
    def flow(self):
        """The variant tensor that holds the list (what a loop or cond carries)."""
        return self._flow

    @property
    def handle(self):
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        return self._shape_cell[0]

    @property
    def _element_shape(self) -> TensorShape:
        return self._shape_cell[0]

    def _with(self, flow, element_shape=None, dense=None) -> TensorArray:
        out = type(self).__new__(type(self))  # compat.v1's subclass stays itself
        out._dtype, out._dynamic_size, out._infer_shape = self._dtype, self._dynamic_size, self._infer_shape
        out._static_size = self._static_size
        out._shape_cell = self._shape_cell
        if element_shape is not None:
            self._shape_cell[0] = element_shape
        out._flow, out._dense = flow, dense
        return out

    def _merge_shape(self, shape: TensorShape, what: str) -> TensorShape:
        if not self._infer_shape:
            return self._element_shape
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"TensorArray.{what}: Inconsistent shapes: saw {shape} but expected "
                             f"{self._element_shape} (and infer_shape=True)")
        return self._element_shape.merge_with(shape)

    def _value(self, value, what):
        t = _tensor(value, self._dtype)
        if t.dtype != self._dtype:
            raise TypeError(f"TensorArray.{what}: TensorArray dtype is {self._dtype.name} but Op is trying to "
                            f"write dtype {t.dtype.name}")
        return t

    def read(self, index, name=None):
        """Element ``index``."""
        index = _as_int32(index, "read")
        with _name_scope(name or "TensorArrayRead"):
            if self._dense is not None:
                return _ops.gather_v2(self._dense, index, np.int32(0))
            out = _ops.tensor_list_get_item(self._flow, index, _shape_tensor(self._element_shape),
                                            element_dtype=self._dtype)
        _set_shape(out, self._element_shape)
        return out

    def write(self, index, value, name=None) -> TensorArray:
        """A TensorArray with ``value`` at ``index`` (past the end only if ``dynamic_size``)."""
        value = self._value(value, "write")
        shape = self._merge_shape(_static_shape(value), "write")
        with _name_scope(name or "TensorArrayWrite"):
            flow = _ops.tensor_list_set_item(self._flow, _as_int32(index, "write"), value,
                                             resize_if_index_out_of_bounds=self._dynamic_size)
        return self._with(flow, shape)

    def stack(self, name=None):
        """The elements stacked along a new first dimension."""
        with _name_scope(name or "TensorArrayStack"):
            if self._dense is not None:
                return _ops.identity(self._dense)
            out = _ops.tensor_list_stack(self._flow, _shape_tensor(self._element_shape), element_dtype=self._dtype)
        _set_shape(out, TensorShape([self._static_size]).concatenate(self._element_shape)
                   if self._element_shape.rank is not None else TensorShape(None))
        return out

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        indices = _as_int32(indices, "gather")
        with _name_scope(name or "TensorArrayGather"):
            if self._dense is not None:
                return _ops.gather_v2(self._dense, indices, np.int32(0))
            return _ops.tensor_list_gather(self._flow, indices, _shape_tensor(self._element_shape),
                                           element_dtype=self._dtype)

    def concat(self, name=None):
        """The elements concatenated along their first dimension (which may differ)."""
        shape = self._element_shape
        rest = TensorShape([None]).concatenate(shape[1:]) if shape.rank else TensorShape(None)
        with _name_scope(name or "TensorArrayConcat"):
            value, _ = _ops.tensor_list_concat_v2(self._flow, _shape_tensor(rest, np.int64),
                                                  np.zeros(0, np.int64), element_dtype=self._dtype)
        return value

    def unstack(self, value, name=None) -> TensorArray:
        """A TensorArray whose elements are the rows of ``value``."""
        value = self._value(value, "unstack")
        vshape = _static_shape(value)
        if vshape.rank == 0:
            raise ValueError("TensorArray.unstack: the value must have rank >= 1, got a scalar")
        shape = self._merge_shape(vshape[1:] if vshape.rank is not None else TensorShape(None), "unstack")
        with _name_scope(name or "TensorArrayUnstack"):
            flow = _ops.tensor_list_from_tensor(value, _shape_tensor(shape))
        return self._with(flow, shape, dense=value)

    def scatter(self, indices, value, name=None) -> TensorArray:
        """A TensorArray with row i of ``value`` at ``indices[i]``."""
        value = self._value(value, "scatter")
        vshape = _static_shape(value)
        shape = self._merge_shape(vshape[1:] if vshape.rank is not None else TensorShape(None), "scatter")
        with _name_scope(name or "TensorArrayScatter"):
            flow = _ops.tensor_list_scatter_into_existing_list(self._flow, value, _as_int32(indices, "scatter"))
        return self._with(flow, shape)

    def split(self, value, lengths, name=None) -> TensorArray:
        """A TensorArray whose element i is the next ``lengths[i]`` rows of ``value``."""
        value = self._value(value, "split")
        vshape = _static_shape(value)
        if vshape.rank == 0:
            raise ValueError("TensorArray.split: the value must have rank >= 1, got a scalar")
        rest = TensorShape([None]).concatenate(vshape[1:]) if vshape.rank is not None else TensorShape(None)
        shape = self._merge_shape(rest, "split")
        lengths = _tensor(lengths)
        with _name_scope(name or "TensorArraySplit"):
            flow = _ops.tensor_list_split(value, _shape_tensor(rest, np.int64), _ops.cast(lengths, "int64"))
        return self._with(flow, shape)

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        with _name_scope(name or "TensorArraySize"):
            return _ops.tensor_list_length(self._flow)

    def identity(self) -> TensorArray:
        """The same array with an Identity on its flow (for control dependencies)."""
        return self._with(_ops.identity(self._flow), dense=self._dense)

    def close(self, name=None):
        """Nothing to release: an op that does nothing (TensorFlow's close)."""
        from ..framework.api import no_op  # noqa: PLC0415
        return no_op(name=name) if isinstance(self._flow, GraphTensor) else None

    def grad(self, source, flow=None, name=None):
        raise UnimplementedError(
            "TensorArray.grad: gradient TensorArrays (TensorArrayGradV3) are not supported; "
            "of.gradients differentiates through TensorArray reads and writes", "TensorArray")

    # -- what of.while_loop and of.cond carry

    def _cf_tensor(self):
        return self._flow

    def _cf_rebuild(self, flow) -> TensorArray:
        return self._with(flow)

    def __repr__(self):
        return f"<of.TensorArray dtype={self._dtype.name} element_shape={self._element_shape}>"


def _set_shape(t, shape: TensorShape) -> None:
    if isinstance(t, GraphTensor) and shape.rank is not None:
        graph = t.graph
        graph._set_shape(t, TensorShape(t.shape.dims).merge_with(shape)
                         if t.shape.is_compatible_with(shape) else t.shape)


class _name_scope:
    """The default graph's name scope in graph mode; nothing eagerly."""

    def __init__(self, name):
        self._name, self._cm = name, None

    def __enter__(self):
        from ..framework.graph import _explicit_graph  # noqa: PLC0415
        graph = _explicit_graph()
        if graph is not None:
            self._cm = graph.name_scope(self._name)
            return self._cm.__enter__()
        return None

    def __exit__(self, *exc):
        if self._cm is not None:
            return self._cm.__exit__(*exc)
        return False
