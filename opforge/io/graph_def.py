"""GraphDef I/O, wire-compatible with TensorFlow's: ``graph.as_graph_def()``,
``import_graph_def``, reading and writing binary and text files.

Import is checked node by node before anything is added: an unknown op, a missing input, a
cycle, an attr of the wrong type or an absurd tensor gives a typed error naming the node, and
the target graph is left unchanged.
"""

from __future__ import annotations

import contextlib

import numpy as np
from google.protobuf import message as _pb_message
from google.protobuf import text_format

from .. import _C
from ..codegen._proto import attr_value_pb2, config_pb2, graph_pb2, node_def_pb2, rewriter_config_pb2, tensor_pb2, tensor_shape_pb2
from ..framework import dtypes as _dtypes
from ..framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..framework.graph import _VALID_NAME as _VALID_NODE_NAME
from ..framework.graph import Graph, GraphTensor, get_default_graph
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


def tensor_to_proto(t: EagerTensor, proto: TensorProto | None = None) -> TensorProto:
    proto = proto if proto is not None else TensorProto()
    arr = t._numpy()  # an array even for a scalar string (numpy() gives its bytes)
    proto.dtype = t._dtype_enum
    _shape_proto(arr.shape, proto.tensor_shape)
    if t.dtype == _dtypes.string:  # TensorFlow keeps strings in string_val, one per element
        proto.string_val.extend(arr.ravel().tolist())
        return proto
    proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    return proto


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


def graph_to_graph_def(graph: Graph, add_shapes: bool = False) -> GraphDef:
    gd = GraphDef()
    gd.versions.producer = PRODUCER_VERSION
    if graph._library.function:
        gd.library.CopyFrom(graph._library)
    for op in graph.get_operations():
        nd = node_def(op)
        if add_shapes:
            lv = nd.attr["_output_shapes"].list
            lv.SetInParent()
            for t in op.outputs:
                _shape_proto(t.shape.dims, lv.shape.add())
        gd.node.append(nd)
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
    if attr_type == "func":
        raise _bad(node, op, "function attrs are not supported")
    return getattr(av, want[attr_type])


def _parse_input(name: str):
    if name.startswith("^"):
        return name[1:], -1
    src, _, idx = name.partition(":")
    if idx and not idx.isdigit():
        return None, 0
    return src, int(idx) if idx else 0


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports a GraphDef into the default graph, prefixing node names with ``name`` (default
    "import"). ``input_map`` maps "node:i" names of the GraphDef to existing tensors;
    ``return_elements`` names the tensors ("x:0") or operations ("x") to return."""
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = graph_def_from_bytes(graph_def)
    if not isinstance(graph_def, GraphDef) and hasattr(graph_def, "SerializeToString"):
        graph_def = graph_def_from_bytes(graph_def.SerializeToString())  # e.g. TensorFlow's own GraphDef class
    from ..framework import functions  # noqa: PLC0415
    if functions.needs_lowering(graph_def):
        graph_def = functions.lower(graph_def)
    from ..framework import tensor_array_import  # noqa: PLC0415
    if tensor_array_import.needs_lowering(graph_def):
        graph_def = tensor_array_import.lower(graph_def)
    graph = get_default_graph()
    prefix = "import" if name is None else name
    nodes = list(graph_def.node)
    by_name: dict[str, NodeDef] = {}
    for nd in nodes:
        if not nd.name:
            raise InvalidArgumentError("GraphDef has a node without a name", nd.op)
        if nd.name in by_name:
            raise _bad(nd.name, nd.op, f"duplicate node name '{nd.name}'")
        by_name[nd.name] = nd
    input_map = dict(input_map or {})
    mapped = {}
    for k, v in input_map.items():
        src, idx = _parse_input(k)
        if src is None or idx < 0:
            raise InvalidArgumentError(f"input_map key '{k}' is not a tensor name")
        if src not in by_name:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{k}]")
        mapped[(src, idx)] = v
    # Check every node and order them (inputs first) before touching the graph. A loop's back
    # edges (NextIteration -> Merge) are left out of the order and made last.
    specs = {}
    deps: dict[str, list[str]] = {}
    for nd in nodes:
        spec = None if nd.op in _COMPOSITE else _C.op_spec(nd.op)
        if spec is None and nd.op not in _COMPOSITE:
            raise _bad(nd.name, nd.op, f"Op type not registered '{nd.op}' in the opforge runtime", NotFoundError)
        specs[nd.name] = spec
        d = []
        for inp in nd.input:
            src, idx = _parse_input(inp)
            if src is None:
                raise _bad(nd.name, nd.op, f"malformed input '{inp}'")
            if (src, idx) in mapped:
                continue
            if src not in by_name:
                raise _bad(nd.name, nd.op, f"input '{inp}' refers to a node that is not in the GraphDef")
            if not _is_back_edge(nd, by_name[src], idx):
                d.append(src)
        deps[nd.name] = d
    order, state = [], {}
    for nd in nodes:
        if state.get(nd.name) == 2:
            continue
        stack = [(nd.name, iter(deps[nd.name]))]
        state[nd.name] = 1
        while stack:
            cur, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[cur] = 2
                order.append(cur)
            elif state.get(nxt) == 1:
                raise _bad(cur, by_name[cur].op, f"the GraphDef has a cycle through '{nxt}'")
            elif state.get(nxt) != 2:
                state[nxt] = 1
                stack.append((nxt, iter(deps[nxt])))
    # Convert attrs (typed errors) before adding any node.
    prepared = []
    for node_name in order:
        nd = by_name[node_name]
        spec = specs[node_name]
        if spec is None:  # a composite: its handler reads the NodeDef
            prepared.append((nd, spec, {}))
            continue
        attrs = {}
        for attr_name, attr_type, _ in spec["attrs"]:
            if attr_name in nd.attr:
                attrs[attr_name] = _attr_value(nd.attr[attr_name], attr_type, nd.name, nd.op)
        known = {a[0] for a in spec["attrs"]}
        for k in nd.attr:
            if k not in known and not k.startswith("_"):
                raise _bad(nd.name, nd.op, f"unknown attr '{k}' for op {nd.op}")
        prepared.append((nd, spec, attrs))
    # Build. Node names are checked against the graph first so a clash leaves it unchanged.
    full = {nd.name: (f"{prefix}/{nd.name}" if prefix else nd.name) for nd in nodes}
    for nd in nodes:
        try:
            graph.get_operation_by_name(full[nd.name])
        except KeyError:
            continue
        raise _bad(nd.name, nd.op, f"the graph already has a node named '{full[nd.name]}'")
    created = {}
    with graph._all_or_nothing():
        _build(graph, prepared, mapped, created, full)
    known = {f.signature.name for f in graph._library.function}
    for f in graph_def.library.function:  # kept for export
        if f.signature.name not in known:
            graph._library.function.add().CopyFrom(f)
    if return_elements is None:
        return None
    out = []
    for r in return_elements:
        src, idx = _parse_input(r)
        if src not in created:
            raise ValueError(f"Requested return_element '{r}' not found in graph_def.")
        out.append(created[src] if ":" not in r else created[src].outputs[idx])
    return out


def _import_einsum(graph, nd, data, control, name):
    """TensorFlow's Einsum op, computed by of.einsum's plan (ops/einsum_ops.py); the result
    keeps the node's name."""
    from ..ops.einsum_ops import einsum  # noqa: PLC0415
    if "equation" not in nd.attr or nd.attr["equation"].WhichOneof("value") != "s":
        raise _bad(nd.name, nd.op, "Einsum needs a string attr 'equation'")
    with graph.name_scope(name + "/"):
        try:
            out = einsum(nd.attr["equation"].s.decode(), *data)
        except (InvalidArgumentError, NotFoundError) as e:
            raise type(e)(f"{e} [[node {nd.name}]]", nd.op) from None
    return graph.create_op("Identity", [out], {}, name=name, control_inputs=control, exact_name=True)


# Ops a GraphDef may hold that opforge computes with other ops (a handler per op type).
_COMPOSITE = {"Einsum": _import_einsum}


def _is_back_edge(nd, src_nd, idx) -> bool:
    """Whether input (src_nd, idx) of nd closes a loop: a Merge reading a NextIteration."""
    return idx >= 0 and nd.op == "Merge" and src_nd.op == "NextIteration"


def _build(graph, prepared, mapped, created, full):
    back_edges = []  # (Merge op, flattened input, source node, output)
    by_name = {nd.name: nd for nd, _, _ in prepared}
    for nd, spec, attrs in prepared:
        data, control = [], []
        pending_back = []
        for inp in nd.input:
            src, idx = _parse_input(inp)
            if idx < 0:
                if (src, 0) in mapped:
                    continue
                control.append(created[src])
            elif (src, idx) in mapped:
                data.append(mapped[(src, idx)])
            elif src in by_name and _is_back_edge(nd, by_name[src], idx) and src not in created:
                pending_back.append((len(data), src, idx))
                data.append(None)  # for now, another input of the Merge stands in
            else:
                outs = created[src].outputs
                if idx >= len(outs):
                    raise _bad(nd.name, nd.op, f"input '{inp}': node '{src}' has {len(outs)} outputs")
                data.append(outs[idx])
        if spec is None:
            if not _VALID_NODE_NAME.match(full[nd.name]):
                raise _bad(nd.name, nd.op, f"'{full[nd.name]}' is not a valid node name")
            created[nd.name] = _COMPOSITE[nd.op](graph, nd, data, control, full[nd.name])
            continue
        grouped, pos = [], 0
        for arg_name, _, _, is_list, _, number_attr, list_attr in spec["input_info"]:
            if is_list:
                if number_attr and number_attr in attrs:
                    count = int(attrs[number_attr])
                elif list_attr and list_attr in attrs:
                    count = len(attrs[list_attr])
                else:
                    raise _bad(nd.name, nd.op, f"list input '{arg_name}' needs attr "
                                               f"'{number_attr or list_attr}'")
                grouped.append(data[pos:pos + count])
                pos += count
            else:
                if pos >= len(data):
                    raise _bad(nd.name, nd.op, f"missing input '{arg_name}'")
                grouped.append(data[pos])
                pos += 1
        if pos != len(data):
            raise _bad(nd.name, nd.op, f"{len(data)} inputs given, the op takes {pos}")
        if pending_back:
            stand_in = next((t for t in data if t is not None), None)
            if stand_in is None:
                raise _bad(nd.name, nd.op, "a Merge needs an input that is not a NextIteration back edge")
            grouped = [[stand_in if t is None else t for t in g] if isinstance(g, list) else g for g in grouped]
            data = [stand_in if t is None else t for t in data]
        for t in data:
            if not isinstance(t, GraphTensor) or t.graph is not graph:
                raise _bad(nd.name, nd.op, "input_map values must be tensors of the target graph")
        if not _VALID_NODE_NAME.match(full[nd.name]):
            raise _bad(nd.name, nd.op, f"'{full[nd.name]}' is not a valid node name")
        # create_op's errors already name the node (its name in the target graph). A device
        # the NodeDef names is kept; a node without one takes the enclosing device scope's.
        with graph.device(nd.device) if nd.device else contextlib.nullcontext():
            created[nd.name] = graph.create_op(nd.op, grouped, attrs, name=full[nd.name],
                                               control_inputs=control, exact_name=True)
        back_edges.extend((created[nd.name], k, src, idx) for k, src, idx in pending_back)
    for merge, k, src, idx in back_edges:
        outs = created[src].outputs
        if idx >= len(outs):
            raise _bad(merge.name, "Merge", f"input '{src}:{idx}': node '{src}' has {len(outs)} outputs")
        graph._update_input(merge, k, outs[idx])


# ------------------------------------------------------------------------- files


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


_ = GraphTensor


def graph_def_from_runtime(c_graph):
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
