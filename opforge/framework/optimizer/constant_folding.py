"""Constant folding (RewriterConfig ``constant_folding``).

A node whose data inputs are all constants (unfed Const nodes, or nodes folded in the same
sweep) is evaluated once, here, by the runtime itself: the foldable subgraph is imported into a
scratch graph and run by a Session. Never folded: stateful ops (variables, assignments, random
ops), placeholders, ops with reference inputs, preserved (fetched/fed/target) nodes, nodes with
a control input from a node that is not itself constant, and results larger than
``MAX_CONSTANT_BYTES`` (TensorFlow's limit too: a folded constant must not bloat the graph).

A folded single-output node becomes a Const of the same name, so error messages and name
lookups keep working; a folded output of a multi-output node becomes a new Const node.
"""

from __future__ import annotations

import numpy as np

from .. import graph_def as _gd
from .graph_view import GraphView, parse_input, tensor_name

MAX_CONSTANT_BYTES = 10 * 1024 * 1024

# Ops whose value is not a function of their inputs alone, besides the stateful ones.
_NEVER_FOLD = {"Placeholder", "PlaceholderWithDefault", "Const", "NoOp", "VariableV2", "Assign",
               "AssignAdd", "AssignSub",
               # Control flow: a value's liveness and frame are not constants (a folded Enter
               # would leave its loop).
               "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger"}


def _foldable_op(view: GraphView, nd) -> bool:
    if nd.op in _NEVER_FOLD or nd.name in view.preserve or nd.name in view.fed:
        return False
    spec = view.spec(nd.op)
    if spec is None or spec.get("is_stateful"):
        return False
    if any(info[4] for info in spec["input_info"]):  # a Ref input reads a variable
        return False
    return bool(view.data_inputs(nd))


def run(view: GraphView) -> None:
    constant = {nd.name for nd in view.nodes if view.is_constant(nd.name)}
    foldable: list = []
    changed = True
    while changed:  # grow the foldable set to a fixed point (any node order)
        changed = False
        for nd in view.nodes:
            if nd.name in constant or not _foldable_op(view, nd):
                continue
            if all(parse_input(i)[0] in constant for i in nd.input):
                constant.add(nd.name)
                foldable.append(nd)
                changed = True
    if not foldable:
        return
    folded = {nd.name for nd in foldable}
    # The frontier: outputs of folded nodes read by nodes that stay.
    wanted: list[str] = []
    for nd in view.nodes:
        if nd.name in folded:
            continue
        for inp in view.data_inputs(nd):
            src, idx = parse_input(inp)
            t = tensor_name(src, idx)
            if src in folded and t not in wanted:
                wanted.append(t)
    if not wanted:
        return
    values = _evaluate(view, folded, wanted)
    for t, value in zip(wanted, values):
        if value is None or value.nbytes > MAX_CONSTANT_BYTES:
            continue
        src, idx = parse_input(t)
        nd = view.node(src)
        outputs = len(view.spec(nd.op)["output_info"]) if idx == 0 else 2
        if idx == 0 and outputs == 1 and _single_output(view, nd):
            _become_const(nd, value)
            view.changed()
        else:
            name = view.unique_name(f"{src}/ConstantFolding/out_{idx}")
            view.make_const(name, value, nd.device)
            view.replace_uses(t, name)


def _single_output(view: GraphView, nd) -> bool:
    spec = view.spec(nd.op)
    return len(spec["output_info"]) == 1 and not spec["output_info"][0][1]


def _become_const(nd, value: np.ndarray) -> None:
    from ..tensor import convert_to_tensor  # noqa: PLC0415
    t = convert_to_tensor(np.ascontiguousarray(value))
    device = nd.device
    nd.ClearField("input")
    nd.ClearField("attr")
    nd.op = "Const"
    nd.device = device
    _gd.tensor_to_proto(t, nd.attr["value"].tensor)
    nd.attr["dtype"].type = t._dtype_enum


def _evaluate(view: GraphView, folded: set[str], wanted: list[str]) -> list:
    """Runs the folded nodes (and the constants they read) in a scratch graph."""
    from ..graph import Graph  # noqa: PLC0415
    from ..session import Session  # noqa: PLC0415
    needed = set(folded)
    for name in folded:
        for inp in view.node(name).input:
            needed.add(parse_input(inp)[0])
    sub = _gd.GraphDef()
    for nd in view.nodes:
        if nd.name in needed:
            sub.node.add().CopyFrom(nd)
    g = Graph()
    with g.as_default():
        _gd.import_graph_def(sub, name="")
    sess = Session(graph=g, config=_NO_OPTIMIZER)
    try:
        return list(sess.run([w if ":" in w else w + ":0" for w in wanted]))
    except Exception:  # noqa: BLE001  a node that fails at run time fails where the user runs it
        return [None] * len(wanted)


class _NoOptimizer:
    """A config that turns the optimizer off (the scratch session must not recurse)."""
    disable_meta_optimizer = True


_NO_OPTIMIZER = _NoOptimizer()
