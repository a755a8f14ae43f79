"""TensorInfo: how a SignatureDef names a graph tensor (tf.saved_model.utils)."""

from __future__ import annotations

from ...codegen._proto import meta_graph_pb2
from ...framework.graph import GraphTensor, Operation, get_default_graph

TensorInfo = meta_graph_pb2.TensorInfo

__all__ = ["build_tensor_info", "build_tensor_info_from_op", "get_tensor_from_tensor_info",
           "get_element_from_tensor_info"]


def build_tensor_info(tensor) -> TensorInfo:
    """The TensorInfo of a graph tensor: its name, dtype and (partially known) shape."""
    if not isinstance(tensor, GraphTensor):
        tensor = getattr(tensor, "_graph_element", lambda: tensor)()  # a variable: its value
        if hasattr(tensor, "value") and not isinstance(tensor, GraphTensor):
            tensor = tensor.value()
    if not isinstance(tensor, GraphTensor):
        raise TypeError(f"build_tensor_info needs a graph tensor, got {type(tensor).__name__}: {tensor!r}")
    info = TensorInfo(name=tensor.name, dtype=tensor.dtype.as_datatype_enum)
    dims = tensor.shape.dims
    info.tensor_shape.SetInParent()
    if dims is None:
        info.tensor_shape.unknown_rank = True
    else:
        for d in dims:
            info.tensor_shape.dim.add().size = -1 if d is None else int(d)
    return info


def build_tensor_info_from_op(op) -> TensorInfo:
    """A TensorInfo naming an operation (TensorFlow's way to record an init or train op);
    dtype DT_INVALID, unknown rank."""
    if not isinstance(op, (Operation, GraphTensor)):
        raise TypeError(f"build_tensor_info_from_op needs an operation, got {type(op).__name__}")
    info = TensorInfo(name=op.name)
    info.tensor_shape.unknown_rank = True
    return info


def _scoped(name: str, import_scope) -> str:
    return f"{import_scope}/{name}" if import_scope else name


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None) -> GraphTensor:
    """The graph tensor a TensorInfo names (dense tensors: sparse and composite TensorInfos
    are not supported)."""
    kind = tensor_info.WhichOneof("encoding")
    if kind != "name":
        raise ValueError(f"Invalid TensorInfo.encoding: {kind} (opforge reads dense tensors only)")
    graph = graph or get_default_graph()
    return resolve_tensor(graph, _scoped(tensor_info.name, import_scope))


def get_element_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor or operation a TensorInfo names."""
    graph = graph or get_default_graph()
    name = _scoped(tensor_info.name, import_scope)
    return resolve_tensor(graph, name) if ":" in name else graph.get_operation_by_name(name)


def resolve_tensor(graph, name: str) -> GraphTensor:
    """``graph.get_tensor_by_name``, also for the outputs of function calls that import
    lowered (framework/functions.py): output k > 0 of call ``c`` lives at ``c/output_k:0``."""
    try:
        return graph.get_tensor_by_name(name)
    except KeyError:
        op_name, _, idx = name.rpartition(":")
        if idx.isdigit() and int(idx) > 0:
            try:
                return graph.get_tensor_by_name(f"{op_name}/output_{idx}:0")
            except KeyError:
                pass
        raise
