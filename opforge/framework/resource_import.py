"""TensorFlow 2's resource variables in GraphDefs, imported as reference variables.

A TF2 graph (a SavedModel's, or any graph ``tf.function`` traced) holds a variable as a resource
handle (VarHandleOp) that ops read and write through: ReadVariableOp, AssignVariableOp and
friends. opforge's runtime keeps variables as TF1 does, a VariableV2 node whose output is a
reference to the buffer, so import rewrites each resource op into the reference op that does
the same thing:

    VarHandleOp(shape, dtype, shared_name)   -> VariableV2(shape, dtype, shared_name)
    ReadVariableOp(h)                        -> Identity(var)           (a read: a copy)
    AssignVariableOp(h, v)                   -> Assign(var, v, validate_shape=false)
    AssignAddVariableOp / AssignSubVariableOp-> AssignAdd / AssignSub
    ResourceGather(h, indices)               -> GatherV2(Identity(var), indices, 0)
    VarIsInitializedOp, DisableCopyOnRead,
    DestroyResourceOp (read by no data edge) -> NoOp

This runs after function lowering (framework/functions.py), so a handle passed into a function
reaches its ops through the Identity nodes that stand for the call's arguments: those (and
every Identity that only forwards a handle) are removed, and whatever read them reads what they
forwarded. A handle that a lowered cond or loop carries (Switch, Merge, Enter, Exit,
NextIteration) is carried as the variable's value instead: those nodes read the variable, and
the reads behind them take their output, so a read inside a branch or loop body stays there.
Updates must name the variable itself (not through a cond or loop), and a handle that reaches
any other op is refused with an error naming the node.
"""

from __future__ import annotations

from ..codegen._proto import attr_value_pb2, graph_pb2, node_def_pb2
from .errors import UnimplementedError
from .graph_def_lowering import bad_node as _bad
from .graph_def_lowering import split_input as _split

NodeDef = node_def_pb2.NodeDef

RESOURCE_OPS = {"VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                "AssignSubVariableOp", "VarIsInitializedOp", "ResourceGather", "DisableCopyOnRead",
                "DestroyResourceOp"}
# The output argument of each (one output at most), for references into function bodies
# ("ReadVariableOp:value:0") that are resolved before these ops are lowered.
OUTPUT_ARGS = {"VarHandleOp": ("resource",), "ReadVariableOp": ("value",), "VarIsInitializedOp": ("is_initialized",),
               "ResourceGather": ("output",), "AssignVariableOp": (), "AssignAddVariableOp": (),
               "AssignSubVariableOp": (), "DisableCopyOnRead": (), "DestroyResourceOp": ()}
_UPDATES = {"AssignVariableOp": "Assign", "AssignAddVariableOp": "AssignAdd", "AssignSubVariableOp": "AssignSub"}
_ONLY_EFFECT = {"VarIsInitializedOp", "DisableCopyOnRead", "DestroyResourceOp"}
_DT_INT32 = 3


def needs_lowering(graph_def) -> bool:
    return any(nd.op in RESOURCE_OPS for nd in graph_def.node)




def _type_attr(enum):
    av = attr_value_pb2.AttrValue()
    av.type = enum
    return av


def _bool_attr(b):
    av = attr_value_pb2.AttrValue()
    av.b = b
    return av


_PASS = {"Identity", "Switch", "Merge", "Enter", "Exit", "NextIteration", "RefSwitch", "RefMerge", "RefEnter",
         "RefExit", "RefNextIteration", "RefIdentity"}
_DT_RESOURCE = 20


class _Lowering:
    def __init__(self, graph_def):
        self.by_name = {nd.name: nd for nd in graph_def.node}
        self._source: dict[str, str | None] = {}
        self.consumed: set[str] = set()  # nodes some data edge reads
        for nd in graph_def.node:
            for i in nd.input:
                if not i.startswith("^"):
                    self.consumed.add(_split(i)[0])

    def variable_of(self, ref: str) -> str | None:
        """The VarHandleOp a tensor is the handle of (through Identity nodes and the Switch,
        Merge, Enter, Exit and NextIteration nodes of conds and loops), or None."""
        node = _split(ref)[0]
        seen: list[str] = []
        found = None
        while node in self.by_name:
            if node in self._source:
                found = self._source[node]
                break
            if node in seen:  # a loop's back edge: the handle comes in through its Enter
                break
            nd = self.by_name[node]
            seen.append(node)
            if nd.op == "VarHandleOp":
                found = node
                break
            data = [i for i in nd.input if not i.startswith("^")]
            if nd.op not in _PASS or not data:
                break
            node = _split(data[0])[0]
        for s in seen:
            self._source.setdefault(s, found)
        return found

    def is_forwarded_handle(self, nd) -> bool:
        return nd.op == "Identity" and self.variable_of(nd.name) is not None

    def rename(self, ref: str) -> str:
        """An input with Identity nodes that forward a handle skipped: it then names the
        variable itself, or the cond or loop node that carries the variable (its value, once
        that node reads the variable)."""
        node, idx = _split(ref)
        for _ in range(len(self.by_name) + 1):
            nd = self.by_name.get(node)
            if nd is None or not self.is_forwarded_handle(nd):
                break
            node, k = _split([i for i in nd.input if not i.startswith("^")][0])
            idx = k if idx >= 0 else -1
        if idx < 0:
            return f"^{node}"
        return node if idx == 0 else f"{node}:{idx}"

    def lower(self, nd, out: list) -> None:
        data = [i for i in nd.input if not i.startswith("^")]
        control = list(dict.fromkeys(self.rename(i) for i in nd.input if i.startswith("^")))
        if nd.op == "VarHandleOp":
            new = NodeDef(name=nd.name, op="VariableV2", device=nd.device)
            new.input.extend(control)
            for k in ("shape", "dtype", "container", "shared_name"):
                if k in nd.attr:
                    new.attr[k].CopyFrom(nd.attr[k])
            if "dtype" not in nd.attr or "shape" not in nd.attr:
                raise _bad(nd, "VarHandleOp needs attrs 'dtype' and 'shape'")
            out.append(new)
            return
        if self.is_forwarded_handle(nd):
            return  # readers of it read what it forwards
        if nd.op in RESOURCE_OPS:
            self._lower_resource_op(nd, data, control, out)
            return
        handles = {i: self.variable_of(i) for i in data}
        if any(handles.values()) and nd.op not in _PASS:
            var = next(v for v in handles.values() if v)
            raise _bad(nd, f"{nd.op} takes the resource handle of variable '{var}': opforge imports handles read "
                           "by variable ops only", UnimplementedError)
        new = NodeDef()
        new.CopyFrom(nd)
        del new.input[:]
        new.input.extend([self.rename(i) for i in data] + control)
        var = next((v for v in handles.values() if v), None)
        if var is not None and "T" in new.attr and new.attr["T"].type == _DT_RESOURCE:
            new.attr["T"].type = self.by_name[var].attr["dtype"].type  # it carries the value now
        out.append(new)

    def _lower_resource_op(self, nd, data, control, out):
        var = self.variable_of(data[0]) if data else None
        if var is None:
            raise _bad(nd, f"{nd.op} reads a resource handle that does not come from a VarHandleOp: opforge "
                           "imports variables only", UnimplementedError)
        dtype = self.by_name[var].attr["dtype"].type
        handle = self.rename(data[0])
        if nd.op == "ReadVariableOp":
            new = NodeDef(name=nd.name, op="Identity", device=nd.device)
            new.input.extend([handle] + control)
            new.attr["T"].CopyFrom(_type_attr(dtype))
        elif nd.op in _UPDATES:
            if len(data) != 2:
                raise _bad(nd, f"{nd.op} needs a handle and a value")
            if handle != var:
                raise _bad(nd, f"{nd.op} updates variable '{var}' through a cond or loop: opforge imports "
                               "updates of the variable itself only", UnimplementedError)
            new = NodeDef(name=nd.name, op=_UPDATES[nd.op], device=nd.device)
            new.input.extend([var, self.rename(data[1])] + control)
            new.attr["T"].CopyFrom(_type_attr(dtype))
            new.attr["use_locking"].CopyFrom(_bool_attr(True))
            if nd.op == "AssignVariableOp":
                new.attr["validate_shape"].CopyFrom(_bool_attr(False))
        elif nd.op == "ResourceGather":
            self._gather(nd, handle, dtype, data, control, out)
            return
        else:  # an op with an effect on the handle only
            if nd.name in self.consumed:
                raise _bad(nd, f"{nd.op} is read by another op: opforge has no reference-variable form of it",
                           UnimplementedError)
            new = NodeDef(name=nd.name, op="NoOp", device=nd.device)
            new.input.extend(control + [f"^{_split(handle)[0]}"])
        out.append(new)

    def _gather(self, nd, var, dtype, data, control, out):
        if len(data) != 2:
            raise _bad(nd, "ResourceGather needs a handle and indices")
        read = NodeDef(name=f"{nd.name}/read", op="Identity", device=nd.device)
        read.input.append(var)
        read.attr["T"].CopyFrom(_type_attr(dtype))
        axis = NodeDef(name=f"{nd.name}/axis", op="Const", device=nd.device)
        axis.input.append(f"^{_split(var)[0]}")
        axis.attr["dtype"].CopyFrom(_type_attr(_DT_INT32))
        axis.attr["value"].tensor.dtype = _DT_INT32
        axis.attr["value"].tensor.tensor_shape.SetInParent()
        axis.attr["value"].tensor.int_val.append(0)
        gather = NodeDef(name=nd.name, op="GatherV2", device=nd.device)
        gather.input.extend([read.name, self.rename(data[1]), axis.name] + control)
        gather.attr["Tparams"].CopyFrom(_type_attr(dtype))
        if "Tindices" in nd.attr:
            gather.attr["Tindices"].CopyFrom(nd.attr["Tindices"])
        gather.attr["Taxis"].CopyFrom(_type_attr(_DT_INT32))
        if "batch_dims" in nd.attr:
            gather.attr["batch_dims"].CopyFrom(nd.attr["batch_dims"])
        out.extend([read, axis, gather])


def lower(graph_def):
    """A copy of graph_def with its resource variables made reference variables."""
    low = _Lowering(graph_def)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    nodes: list = []
    for nd in graph_def.node:
        low.lower(nd, nodes)
    out.node.extend(nodes)
    return out
