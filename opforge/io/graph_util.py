"""GraphDef surgery TF1 programs use to freeze and prune models (TensorFlow's graph_util):
``convert_variables_to_constants`` folds a session's variable values into Const nodes,
``extract_sub_graph`` keeps what some nodes need, ``remove_training_nodes`` drops Identity
and CheckNumerics nodes that only matter when training.

Frozen graphs are what ``tf.import_graph_def`` and ``opforge serve`` read back::

    frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph.as_graph_def(), ["logits"])
"""

from __future__ import annotations

import copy

import numpy as np

from ..framework import dtypes as _dtypes
from . import graph_def as _graph_def

# Ops that hold a variable's value; their reads become the value itself when frozen.
_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(input_name: str) -> str:
    """The node an input string names: "^a" (a control input), "a:1" and "a" are all "a"."""
    name = input_name[1:] if input_name.startswith("^") else input_name
    return name.split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """A GraphDef of the nodes dest_nodes need (themselves, their inputs, control inputs
    included, and so on), in graph_def's order."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list of node names, got a str")
    by_name = {n.name: n for n in graph_def.node}
    missing = [d for d in dest_nodes if d not in by_name]
    if missing:
        raise AssertionError(f"{missing[0]} is not in graph")
    keep, stack = set(), list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(_node_name(i) for i in by_name[name].input if _node_name(i) in by_name)
    out = type(graph_def)()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(copy.deepcopy(n) for n in graph_def.node if n.name in keep)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """input_graph_def pruned to what output_node_names need, with every variable (within the
    whitelist and outside the blacklist) replaced by a Const node holding its value in sess;
    Assign nodes of frozen variables go too. Returns the new GraphDef."""
    sub = extract_sub_graph(input_graph_def, output_node_names)
    frozen = [n.name for n in sub.node if n.op in _VARIABLE_OPS
              and (variable_names_whitelist is None or n.name in variable_names_whitelist)
              and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = dict(zip(frozen, sess.run([f"{name}:0" for name in frozen]))) if frozen else {}
    out = type(sub)()
    out.versions.CopyFrom(sub.versions)
    out.library.CopyFrom(sub.library)
    for node in sub.node:
        if node.name in values:
            const = out.node.add()
            const.name, const.op = node.name, "Const"
            if node.device:
                const.device = node.device
            value = np.asarray(values[node.name])
            dtype = _dtypes.as_dtype(node.attr["dtype"].type) if "dtype" in node.attr else _dtypes.as_dtype(value.dtype)
            const.attr["dtype"].type = dtype.as_datatype_enum
            _graph_def.ndarray_to_proto(value.astype(dtype.as_numpy_dtype, copy=False), dtype,
                                        const.attr["value"].tensor)
        elif node.op in ("Assign", "AssignAdd", "AssignSub") and _node_name(node.input[0]) in values:
            continue  # writes to a frozen variable: nothing to write to any more
        else:
            out.node.add().CopyFrom(node)
    kept = {n.name for n in out.node}
    for node in out.node:  # control inputs of the Assigns that went
        keep = [i for i in node.input if _node_name(i) in kept]
        del node.input[:]
        node.input.extend(keep)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """input_graph without the nodes only training needs: Identity nodes (their consumers read
    the Identity's input instead) and CheckNumerics, unless protected or named by a control
    input; nodes named in protected_nodes stay."""
    protected = set(protected_nodes or [])
    controlled = {_node_name(i) for n in input_graph.node for i in n.input if i.startswith("^")}
    by_name = {n.name: n for n in input_graph.node}
    drop = {n.name for n in input_graph.node
            if n.op in ("Identity", "CheckNumerics") and n.name not in protected and n.name not in controlled
            and n.input and not n.input[0].startswith("^")}

    def resolve(name: str) -> str:
        prefix = "^" if name.startswith("^") else ""
        while _node_name(name) in drop:
            name = by_name[_node_name(name)].input[0]
        return prefix + (name[1:] if name.startswith("^") else name)

    out = type(input_graph)()
    out.versions.CopyFrom(input_graph.versions)
    out.library.CopyFrom(input_graph.library)
    for node in input_graph.node:
        if node.name in drop:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(resolve(i) for i in node.input)
    return out


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether node (an Operation or a NodeDef) must be placed on the CPU: string-valued ops
    and, with pin_variables_on_cpu, variables."""
    op_type = getattr(node, "type", None) or getattr(node, "op", "")
    if pin_variables_on_cpu and op_type in _VARIABLE_OPS:
        return True
    if op_type == "Const":
        attrs = node.node_def.attr if hasattr(node, "node_def") else node.attr
        return attrs["dtype"].type == _dtypes.string.as_datatype_enum
    if op_type in ("DynamicStitch", "ParallelDynamicStitch", "Shape", "Size", "Rank"):
        return True
    return False


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor input_name names in graph ("name" is output 0)."""
    name = input_name if ":" in input_name else f"{input_name}:0"
    return graph.get_tensor_by_name(name).shape
