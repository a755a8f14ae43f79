"""GraphDef, wire-compatible with TensorFlow's: the protos, tensors and attrs to and from
their protos, ``graph.as_graph_def()`` (graph_to_graph_def), reading GraphDef files.
``import_graph_def`` is in importer.py. This module reads a Graph without importing
framework/graph.py, so the Graph can serialize itself through it.
"""

from __future__ import annotations

import numpy as np
from google.protobuf import message as _pb_message
from google.protobuf import text_format

from .. import _C
from ..codegen._proto import attr_value_pb2, config_pb2, graph_pb2, node_def_pb2, rewriter_config_pb2, tensor_pb2, tensor_shape_pb2
from ..framework import dtypes as _dtypes
from ..framework.errors import DataLossError, InvalidArgumentError
from ..framework.tensor import Tensor as EagerTensor

GraphDef = graph_pb2.GraphDef
NodeDef = node_def_pb2.NodeDef
AttrValue = attr_value_pb2.AttrValue
TensorProto = tensor_pb2.TensorProto
TensorShapeProto = tensor_shape_pb2.TensorShapeProto
# Session configuration (TensorFlow's field names and numbers): the graph optimizer reads
# ConfigProto.graph_options.rewrite_options.
ConfigProto = config_pb2.ConfigProto
GraphOptions = config_pb2.GraphOptions
RewriterConfig = rewriter_config_pb2.RewriterConfig
OptimizerOptions = config_pb2.OptimizerOptions
GPUOptions = config_pb2.GPUOptions
RunOptions = config_pb2.RunOptions
RunMetadata = config_pb2.RunMetadata

PRODUCER_VERSION = 1882  # a GraphDef version TensorFlow 2.x readers accept

# Largest tensor a GraphDef may declare (elements); guards against absurd shapes.
_MAX_ELEMENTS = 1 << 34
# Largest tensor built by repeating a few listed values (TensorFlow's compact encoding of
# constants); bigger constants must carry their bytes in tensor_content.
_MAX_EXPANDED = 1 << 26


# ------------------------------------------------------------------------- export


def _shape_proto(dims, proto: TensorShapeProto) -> None:
    proto.SetInParent()
    if dims is None:
        proto.unknown_rank = True
        return
    for d in dims:
        proto.dim.add().size = -1 if d is None else int(d)


def ndarray_to_proto(arr: np.ndarray, dtype, proto: TensorProto | None = None) -> TensorProto:
    """A TensorProto of arr as the opforge dtype ``dtype``, in TensorFlow's encoding: strings in
    string_val (one per element, str encoded as UTF-8), numbers as tensor_content."""
    proto = proto if proto is not None else TensorProto()
    proto.dtype = dtype.as_datatype_enum
    _shape_proto(arr.shape, proto.tensor_shape)
    if dtype == _dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in arr.ravel().tolist())
        return proto
    proto.tensor_content = np.ascontiguousarray(arr, dtype=dtype.as_numpy_dtype).tobytes()
    return proto


def tensor_to_proto(t: EagerTensor, proto: TensorProto | None = None) -> TensorProto:
    # t._numpy(): an array even for a scalar string (numpy() gives its bytes)
    return ndarray_to_proto(t._numpy(), t.dtype, proto)


def _set_attr(av: AttrValue, attr_type: str, value) -> None:
    if attr_type == "int":
        av.i = int(value)
    elif attr_type == "float":
        av.f = float(value)
    elif attr_type == "bool":
        av.b = bool(value)
    elif attr_type == "string":
        av.s = value.encode() if isinstance(value, str) else bytes(value)
    elif attr_type == "type":
        av.type = int(value)
    elif attr_type == "shape":
        _shape_proto(value, av.shape)
    elif attr_type == "tensor":
        tensor_to_proto(value, av.tensor)
    elif attr_type == "func":
        av.func.name = str(value)
    elif attr_type.startswith("list("):
        lv = av.list
        lv.SetInParent()
        base = attr_type[5:-1]
        for v in value:
            if base == "int":
                lv.i.append(int(v))
            elif base == "float":
                lv.f.append(float(v))
            elif base == "bool":
                lv.b.append(bool(v))
            elif base == "string":
                lv.s.append(v.encode() if isinstance(v, str) else bytes(v))
            elif base == "type":
                lv.type.append(int(v))
            elif base == "shape":
                _shape_proto(v, lv.shape.add())


def node_def(op) -> NodeDef:
    nd = NodeDef()
    nd.name = op.name
    nd.op = op.type
    for t in op.inputs:
        nd.input.append(t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}")
    for c in op.control_inputs:
        nd.input.append("^" + c.name)
    if op.device:
        nd.device = op.device
    spec = op.graph._spec(op.type)
    for attr_name, attr_type, _ in spec["attrs"]:
        _set_attr(nd.attr[attr_name], attr_type, op.get_attr(attr_name))
    return nd


def graph_to_graph_def(graph, add_shapes: bool = False) -> GraphDef:
    gd = GraphDef()
    gd.versions.producer = PRODUCER_VERSION
    if graph._library.function:
        gd.library.CopyFrom(graph._library)
    funcs = set()
    for op in graph.get_operations():
        nd = node_def(op)
        funcs.update(v.func.name for v in nd.attr.values() if v.WhichOneof("value") == "func")
        if add_shapes:
            lv = nd.attr["_output_shapes"].list
            lv.SetInParent()
            for t in op.outputs:
                _shape_proto(t.shape.dims, lv.shape.add())
        gd.node.append(nd)
    if funcs:  # the functions the dataset ops name (framework/function_library.py)
        from ..framework import function_library  # noqa: PLC0415
        have = {f.signature.name for f in gd.library.function}
        for fdef in function_library.function_defs(sorted(funcs - have)):
            if fdef.signature.name not in have:
                gd.library.function.add().CopyFrom(fdef)
    return gd


# ------------------------------------------------------------------------- import


def _bad(node: str, op: str, message: str, cls=InvalidArgumentError):
    return cls(f"{message} [[node {node}]]", op)


def tensor_from_proto(tp: TensorProto, node: str = "", op: str = "") -> EagerTensor:
    try:
        dt = _dtypes.from_enum(tp.dtype)
    except KeyError:
        raise _bad(node, op, f"tensor of unsupported dtype enum {tp.dtype}") from None
    if tp.tensor_shape.unknown_rank:
        raise _bad(node, op, "a constant tensor must have a known shape")
    shape = tuple(d.size for d in tp.tensor_shape.dim)
    if any(d < 0 for d in shape):
        raise _bad(node, op, f"negative dimension in tensor shape {list(shape)}")
    n = 1
    for d in shape:
        n *= d
        if n > _MAX_ELEMENTS:
            raise _bad(node, op, f"tensor shape {list(shape)} is too large")
    npd = dt.as_numpy_dtype
    if dt == _dtypes.string:
        return _string_tensor_from_proto(tp, shape, n, node, op)
    if tp.tensor_content:
        expected = n * np.dtype(npd).itemsize
        if len(tp.tensor_content) != expected:
            raise _bad(node, op, f"tensor_content has {len(tp.tensor_content)} bytes, shape "
                                 f"{list(shape)} of {dt.name} needs {expected}")
        arr = np.frombuffer(tp.tensor_content, dtype=npd).reshape(shape)
    else:
        if dt in (_dtypes.float16, _dtypes.bfloat16):
            vals = np.asarray(tp.half_val, np.uint16).view(npd)
        else:
            field = {_dtypes.float32: tp.float_val, _dtypes.float64: tp.double_val,
                     _dtypes.int64: tp.int64_val, _dtypes.bool_: tp.bool_val}.get(dt, tp.int_val)
            vals = np.asarray(list(field)).astype(npd)
        if vals.size < n and n > _MAX_EXPANDED:
            raise _bad(node, op, f"tensor of shape {list(shape)} would be expanded from "
                                 f"{vals.size} values to {n} elements; store it in tensor_content")
        if vals.size == 0:
            arr = np.zeros(shape, npd)
        elif vals.size == n:
            arr = vals.reshape(shape)
        elif vals.size < n:  # TensorFlow repeats the last value
            arr = np.concatenate([vals, np.full(n - vals.size, vals[-1], npd)]).reshape(shape)
        else:
            raise _bad(node, op, f"tensor has {vals.size} values for shape {list(shape)}")
    return EagerTensor._from_numpy(np.array(arr, order="C", copy=True), dt.as_datatype_enum)


def _string_tensor_from_proto(tp: TensorProto, shape, n: int, node: str, op: str) -> EagerTensor:
    vals = list(tp.string_val)
    if len(vals) > n or (vals == [] and n and tp.tensor_content):
        raise _bad(node, op, f"string tensor has {len(vals)} values for shape {list(shape)}")
    if len(vals) < n:
        if n > _MAX_EXPANDED:
            raise _bad(node, op, f"string tensor of shape {list(shape)} would be expanded from {len(vals)} values")
        vals += [vals[-1] if vals else b""] * (n - len(vals))  # TensorFlow repeats the last value
    arr = np.empty(n, dtype=object)
    arr[:] = vals
    return EagerTensor._from_numpy(arr.reshape(shape), _dtypes.string.as_datatype_enum)


def _attr_value(av: AttrValue, attr_type: str, node: str, op: str):
    kind = av.WhichOneof("value")
    want = {"int": "i", "float": "f", "bool": "b", "string": "s", "type": "type", "shape": "shape",
            "tensor": "tensor", "func": "func"}
    if attr_type.startswith("list("):
        if kind not in ("list", None):
            raise _bad(node, op, f"attr holds a {kind} value where a {attr_type} is expected")
        base = attr_type[5:-1]
        lv = av.list
        if base == "int":
            return list(lv.i)
        if base == "float":
            return list(lv.f)
        if base == "bool":
            return list(lv.b)
        if base == "string":
            return [s.decode() for s in lv.s]
        if base == "type":
            return list(lv.type)
        if base == "shape":
            return [None if s.unknown_rank else [d.size for d in s.dim] for s in lv.shape]
        raise _bad(node, op, f"attrs of type {attr_type} are not supported")
    if kind != want.get(attr_type):
        raise _bad(node, op, f"attr holds a {kind or 'empty'} value where a {attr_type} is expected")
    if attr_type == "string":
        return av.s.decode("utf-8", "replace")
    if attr_type == "shape":
        s = av.shape
        if s.unknown_rank:
            return None
        dims = [d.size for d in s.dim]
        if any(d < -1 for d in dims):
            raise _bad(node, op, f"invalid dimension in shape {dims}")
        return dims
    if attr_type == "tensor":
        return tensor_from_proto(av.tensor, node, op)
    if attr_type == "func":  # the function's name (the importer maps it into the library)
        return av.func.name
    return getattr(av, want[attr_type])


def graph_def_from_bytes(data: bytes) -> GraphDef:
    gd = GraphDef()
    try:
        gd.ParseFromString(bytes(data))
    except _pb_message.DecodeError as e:
        raise DataLossError(f"could not parse a GraphDef from {len(data)} bytes: {e}") from None
    return gd


def read_graph_def(path: str, as_text: bool | None = None) -> GraphDef:
    """Reads a GraphDef written by write_graph (or by TensorFlow), binary or text."""
    with open(path, "rb") as f:
        data = f.read()
    if as_text is None:
        as_text = path.endswith((".pbtxt", ".txt"))
    if as_text:
        gd = GraphDef()
        try:
            text_format.Parse(data.decode("utf-8"), gd)
        except (text_format.ParseError, UnicodeDecodeError) as e:
            raise DataLossError(f"could not parse a text GraphDef from {path}: {e}") from None
        return gd
    return graph_def_from_bytes(data)


def graph_def_from_runtime(c_graph) -> GraphDef:
    """The GraphDef of a runtime graph (an ``opforge._C.Graph``, such as an optimized one)."""
    gd = GraphDef()
    gd.versions.producer = PRODUCER_VERSION
    infos = [c_graph.node_info(i) for i in range(c_graph.num_nodes)]
    names = [info["name"] for info in infos]  # (a loop's Merge reads a NextIteration made after it)
    specs: dict[str, dict] = {}
    for info in infos:
        nd = gd.node.add()
        nd.name = info["name"]
        nd.op = info["op"]
        if info["device"]:
            nd.device = info["device"]
        for src, idx in info["inputs"]:
            nd.input.append(names[src] if idx == 0 else f"{names[src]}:{idx}")
        for c in info["control_inputs"]:
            nd.input.append("^" + names[c])
        spec = specs.get(nd.op) or specs.setdefault(nd.op, _C.op_spec(nd.op))
        for attr_name, attr_type, _ in spec["attrs"]:
            _set_attr(nd.attr[attr_name], attr_type, info["attrs"][attr_name])
    return gd
