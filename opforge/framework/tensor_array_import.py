"""TensorFlow 1's TensorArray ops (the TensorArrayV3 family) in GraphDefs, imported as TensorList
ops.

A TF1 TensorArray is a resource (``handle``) whose reads and writes are ordered by a float
``flow`` tensor: each write takes the flow of the one before and gives the next, each read takes
the flow of the writes it must see. opforge imports such a graph the way TensorFlow 2 builds
TensorArrays in the first place: the flow becomes the list itself (a variant tensor holding a
TensorList), and each op becomes the TensorList op that computes on it:

    TensorArrayV3(size)                  -> TensorListReserve(element_shape, size)
    TensorArrayWriteV3(h, i, v, flow)    -> TensorListSetItem(flow, i, v)
    TensorArrayReadV3(h, i, flow)        -> TensorListGetItem(flow, i, element_shape)
    TensorArrayGatherV3(h, idx, flow)    -> TensorListGather(flow, idx, element_shape)
    TensorArrayScatterV3(h, idx, v, flow)-> TensorListScatterIntoExistingList(flow, v, idx)
    TensorArrayConcatV3(h, flow)         -> TensorListConcatV2(flow, element_shape, [])
    TensorArraySplitV3(h, v, len, flow)  -> TensorListSplit(v, element_shape, len)
    TensorArraySizeV3(h, flow)           -> TensorListLength(flow)
    TensorArrayCloseV3(h)                -> NoOp

The handle is no longer read by anything (it stands for the same list); the Enter, Exit, Switch,
Merge, NextIteration and Identity nodes that carried flows or handles through loops and conds
carry lists (their ``T`` becomes variant). Gradient TensorArrays (TensorArrayGradV3), which only
training graphs hold, are refused with an error naming the node.
"""

from __future__ import annotations

from ..codegen._proto import graph_pb2, node_def_pb2
from .errors import UnimplementedError
from .graph_def_lowering import bad_node as _bad
from .graph_def_lowering import split_input as _split

TA_OPS = {"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayGatherV3",
          "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3", "TensorArraySizeV3",
          "TensorArrayCloseV3", "TensorArrayGradV3", "TensorArrayGradWithShape"}
# Ops that pass a tensor through unchanged (so they carry flows and handles through loops and conds).
_PASS = {"Identity", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
         "Switch", "RefSwitch", "Merge", "RefMerge"}
_DT_INT32, _DT_INT64, _DT_VARIANT = 3, 9, 21


def needs_lowering(graph_def) -> bool:
    return any(nd.op in TA_OPS for nd in graph_def.node)




def _shape_dims(av) -> list[int] | None:
    """A shape attr as dims (-1 unknown); None for an unknown rank."""
    if av is None or av.shape.unknown_rank:
        return None
    return [int(d.size) for d in av.shape.dim]


def _merge(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        return a
    return [x if x >= 0 else y for x, y in zip(a, b)]


class _Lowering:
    def __init__(self, graph_def):
        self.by_name = {nd.name: nd for nd in graph_def.node}
        self.used_names = set(self.by_name)
        self.extra: list = []  # constants the lowered nodes read

    def source_array(self, nd, handle_input: str):
        """The TensorArrayV3 node a handle comes from, through pass-through nodes."""
        name, _ = _split(handle_input)
        seen = set()
        while name in self.by_name and name not in seen:
            seen.add(name)
            src = self.by_name[name]
            if src.op == "TensorArrayV3":
                return src
            if src.op in ("TensorArrayGradV3", "TensorArrayGradWithShape"):
                raise _bad(src, "gradient TensorArrays (TensorArrayGradV3) in a GraphDef are not supported: "
                                "import the forward graph and build its gradient with of.gradients",
                           UnimplementedError)
            if src.op not in _PASS or not src.input:
                break
            name, _ = _split(src.input[0])
        raise _bad(nd, f"the TensorArray handle '{handle_input}' does not come from a TensorArrayV3 node")

    def const(self, base: str, suffix: str, dtype: int, values: list[int], scalar: bool = False) -> str:
        """A constant for the node being lowered, in its frame (a control edge from the source
        of the node's first data input: inside a loop, an Enter or a node of the body)."""
        name, k = f"{base}/{suffix}", 0
        while name in self.used_names:
            k += 1
            name = f"{base}/{suffix}_{k}"
        self.used_names.add(name)
        nd = node_def_pb2.NodeDef(name=name, op="Const")
        nd.attr["dtype"].type = dtype
        t = nd.attr["value"].tensor
        t.dtype = dtype
        if not scalar:
            t.tensor_shape.dim.add().size = len(values)
        else:
            t.tensor_shape.SetInParent()
        (t.int64_val if dtype == _DT_INT64 else t.int_val).extend(values)
        data = [i for i in self.by_name[base].input if not i.startswith("^")]
        if data:
            nd.input.append("^" + _split(data[0])[0])
        self.extra.append(nd)
        return name

    def shape_const(self, base: str, dims, dtype=_DT_INT32) -> str:
        if dims is None:
            return self.const(base, "element_shape", dtype, [-1], scalar=True)
        return self.const(base, "element_shape", dtype, list(dims))

    def lower(self, nd):
        """The node that replaces nd (a new NodeDef with nd's name), or nd itself."""
        op = nd.op
        if op not in TA_OPS:
            return nd
        if op in ("TensorArrayGradV3", "TensorArrayGradWithShape"):
            raise _bad(nd, "gradient TensorArrays (TensorArrayGradV3) in a GraphDef are not supported: import "
                           "the forward graph and build its gradient with of.gradients", UnimplementedError)
        data = [i for i in nd.input if not i.startswith("^")]
        control = [i for i in nd.input if i.startswith("^")]
        out = node_def_pb2.NodeDef(name=nd.name, device=nd.device)
        for k, v in nd.attr.items():
            if k.startswith("_"):
                out.attr[k].CopyFrom(v)
        if op == "TensorArrayV3":
            dims = _shape_dims(nd.attr.get("element_shape"))
            out.op = "TensorListReserve"
            out.input.extend([self.shape_const(nd.name, dims), data[0]])
            out.attr["element_dtype"].type = nd.attr["dtype"].type
            out.attr["shape_type"].type = _DT_INT32
        elif op == "TensorArrayCloseV3":
            out.op = "NoOp"
            out.input.extend("^" + _split(i)[0] for i in data)
        else:
            ta = self.source_array(nd, data[0])
            dtype = ta.attr["dtype"].type
            dims = _shape_dims(ta.attr.get("element_shape"))
            if op == "TensorArrayWriteV3":
                _, index, value, flow = data
                out.op = "TensorListSetItem"
                out.input.extend([flow, index, value])
                out.attr["element_dtype"].type = dtype
                out.attr["resize_if_index_out_of_bounds"].b = ta.attr["dynamic_size"].b \
                    if "dynamic_size" in ta.attr else False
            elif op == "TensorArrayReadV3":
                _, index, flow = data
                out.op = "TensorListGetItem"
                out.input.extend([flow, index, self.shape_const(nd.name, dims)])
                out.attr["element_dtype"].type = dtype
                out.attr["Tshape"].type = _DT_INT32
            elif op == "TensorArrayGatherV3":
                _, indices, flow = data
                dims = _merge(_shape_dims(nd.attr.get("element_shape")), dims)
                out.op = "TensorListGather"
                out.input.extend([flow, indices, self.shape_const(nd.name, dims)])
                out.attr["element_dtype"].type = dtype
            elif op == "TensorArrayScatterV3":
                _, indices, value, flow = data
                out.op = "TensorListScatterIntoExistingList"
                out.input.extend([flow, value, indices])
                out.attr["element_dtype"].type = dtype
            elif op == "TensorArrayConcatV3":
                _, flow = data
                rest = _shape_dims(nd.attr.get("element_shape_except0"))
                out.op = "TensorListConcatV2"
                out.input.extend([flow, self.shape_const(nd.name, None if rest is None else [-1] + rest, _DT_INT64),
                                  self.const(nd.name, "leading_dims", _DT_INT64, [])])
                out.attr["element_dtype"].type = dtype
                out.attr["shape_type"].type = _DT_INT64
            elif op == "TensorArraySplitV3":
                _, value, lengths, flow = data
                out.op = "TensorListSplit"
                rest = None if dims is None else [-1] + dims[1:]
                # The list is replaced, not read; the control edge keeps the split where the flow is
                # (in a loop's frame, after the writes before it).
                out.input.extend([value, self.shape_const(nd.name, rest, _DT_INT64), lengths,
                                  "^" + _split(flow)[0]])
                out.attr["element_dtype"].type = dtype
                out.attr["shape_type"].type = _DT_INT64
            elif op == "TensorArraySizeV3":
                _, flow = data
                out.op = "TensorListLength"
                out.input.append(flow)
        out.input.extend(control)
        return out


def lower(graph_def):
    """A copy of graph_def with its TensorArrayV3 ops replaced by TensorList ops."""
    low = _Lowering(graph_def)
    lowered = [low.lower(nd) for nd in graph_def.node]
    # A TensorArrayV3's handle (output 0) and flow (output 1) both become the list (output 0).
    arrays = {nd.name for nd in graph_def.node if nd.op == "TensorArrayV3"}
    # The tensors that are lists now: the arrays, the new flows, and what passes them on.
    lists = {(n, 0) for n in arrays}
    lists |= {(nd.name, 0) for nd in graph_def.node
              if nd.op in ("TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArraySplitV3")}
    changed = True
    while changed:
        changed = False
        for nd in lowered:
            if nd.op not in _PASS:
                continue
            ins = [_split(i) for i in nd.input if not i.startswith("^")]
            ins = [(n, 0 if n in arrays else k) for n, k in ins]
            if not any(i in lists for i in ins):
                continue
            outs = [(nd.name, 0), (nd.name, 1)] if nd.op in ("Switch", "RefSwitch") else [(nd.name, 0)]
            for o in outs:
                if o not in lists:
                    lists.add(o)
                    changed = True
            if nd.attr["T"].type != _DT_VARIANT:
                nd.attr["T"].type = _DT_VARIANT
                changed = True
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(low.extra)
    for nd in lowered:
        if any(_split(i)[0] in arrays for i in nd.input):
            inputs = []
            for i in nd.input:
                n, k = _split(i)
                inputs.append(f"{n}" if n in arrays and k >= 0 else i)
            del nd.input[:]
            nd.input.extend(inputs)
        if nd.op in ("RefEnter", "RefExit", "RefNextIteration", "RefSwitch", "RefMerge") and \
                nd.attr["T"].type == _DT_VARIANT:
            nd.op = nd.op[3:]
        out.node.append(nd)
    return out
