"""Graph-aware constructors with TensorFlow's names: constant, placeholder, name_scope, ..."""

from __future__ import annotations

import contextlib

from . import dtypes as _dtypes
from .graph import GraphTensor, _explicit_graph, constant_node, get_default_graph, to_graph_tensor
from . import devices as _devices
from .tensor import TensorShape
from .tensor import constant as _eager_constant


def constant(value, dtype=None, shape=None, name="Const"):
    """A constant: an eager Tensor, or a Const node when a graph is the default."""
    g = _explicit_graph()
    if g is None:
        t = _eager_constant(value, dtype=dtype, shape=shape)
        placed = _devices.current_eager_device()  # under `with of.device("/gpu:0")`
        return t if placed is None or placed == t.device else t.to(placed)
    return constant_node(g, _eager_constant(value, dtype=dtype, shape=shape), name=name)


def placeholder(dtype, shape=None, name=None) -> GraphTensor:
    """A value fed at Session.run time. Shapes may have unknown dims (None); a bare int is a
    one-dimensional shape, as TensorFlow reads ``shape=(batch_size)``."""
    g = get_default_graph()
    static = TensorShape(shape)
    dims = None if static.rank is None else [(-1 if d is None else d) for d in static.dims]
    op = g.create_op("Placeholder", [], {"dtype": _dtypes.as_dtype(dtype).as_datatype_enum, "shape": dims},
                     name=name or "Placeholder")
    return op.outputs[0]


def placeholder_with_default(input, shape, name=None) -> GraphTensor:  # noqa: A002 (TensorFlow's names)
    """A tensor equal to ``input`` unless a value is fed for it (any graph tensor can be fed in
    a Session), with the static shape ``shape`` (which may be less specific than input's)."""
    g = get_default_graph()
    t = g.create_op("Identity", [to_graph_tensor(g, input)], {}, name=name or "PlaceholderWithDefault").outputs[0]
    if shape is not None:
        t._shape = TensorShape(shape).merge_with(t.shape) if t.shape.rank is not None else TensorShape(shape)
    return t


def name_scope(name, default_name=None, values=None):
    return get_default_graph().name_scope(name or default_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


@contextlib.contextmanager
def device(name):
    """TensorFlow's device scope: places eager ops (see framework/devices.py) and records the
    device on graph nodes built inside it."""
    if _explicit_graph() is not None:
        with get_default_graph().device(name):
            yield
        return
    with _devices.eager_device(name), get_default_graph().device(name):
        yield


def no_op(name=None):
    return get_default_graph().create_op("NoOp", [], {}, name=name or "NoOp")


def group(*inputs, name=None):
    """An op that runs all inputs (control dependencies only)."""
    flat = []
    for i in inputs:
        flat.extend(i if isinstance(i, (list, tuple)) else [i])
    g = get_default_graph()
    with g.control_dependencies([getattr(i, "op", i) if isinstance(i, GraphTensor) else i for i in flat]):
        return g.create_op("NoOp", [], {}, name=name or "group_deps")
