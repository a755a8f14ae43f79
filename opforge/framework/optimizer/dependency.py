"""Dependency optimization (RewriterConfig ``dependency_optimization``).

Removes Identity and Snapshot nodes on the run path (their consumers read the input directly)
and NoOp nodes that only relay control edges (their consumers wait on the NoOp's own control
inputs instead). Kept: preserved (fetched/fed/target) nodes, an Identity reading a variable
(Ref input: it is the read that fixes *when* the value is taken, e.g. before an assignment),
nodes that are the source of a control edge (waiting on them means something), and NoOps whose
fan-in times fan-out would add more control edges than removing the node saves. A control
edge from a constant (a Const, or an Identity chain over one with no control inputs of its own)
is dropped: waiting on it means nothing. Frozen TF2 graphs end in an Identity with one such edge
per variable the model read (ResNet50: 273), each a node that would otherwise run every step.
"""

from __future__ import annotations

from .graph_view import GraphView, parse_input

_IDENTITY_OPS = {"Identity", "Snapshot"}


def _reads_ref(view: GraphView, nd) -> bool:
    src, idx = parse_input(view.data_inputs(nd)[0])
    producer = view.node(src)
    if producer is None:
        return True
    spec = view.spec(producer.op)
    if spec is None:
        return True
    return producer.op in ("VariableV2",) or any(o[2] for o in spec["output_info"] if len(o) > 2)


def _is_constant(view: GraphView, name: str) -> bool:
    """name is a Const, or an Identity/Snapshot chain over one, with no control inputs."""
    for _ in range(64):
        nd = view.node(name)
        if nd is None or view.control_inputs(nd):
            return False
        if nd.op == "Const":
            return True
        if nd.op not in _IDENTITY_OPS or len(view.data_inputs(nd)) != 1:
            return False
        name = parse_input(view.data_inputs(nd)[0])[0]
    return False


def _drop_constant_controls(view: GraphView) -> None:
    dropped = set()
    for nd in list(view.nodes):
        ctrl = [i for i in nd.input if i.startswith("^")]
        gone = [i for i in ctrl if _is_constant(view, i[1:])]
        if not gone:
            continue
        kept = [i for i in nd.input if i not in gone]
        del nd.input[:]
        nd.input.extend(kept)
        dropped.update(i[1:] for i in gone)
        view.changed()
    # What only those edges read goes too (down the Identity chain to the Const).
    while dropped:
        dead = {name for name in dropped if name not in view.preserve and not view.consumers(name)}
        feeding = {parse_input(i)[0] for name in dead for i in view.node(name).input}
        view.remove(dead)
        dropped = feeding


def run(view: GraphView) -> None:
    _drop_constant_controls(view)
    removed = set()
    for nd in list(view.nodes):
        if nd.name in view.preserve or nd.name in removed:
            continue
        if nd.op in _IDENTITY_OPS:
            if len(view.data_inputs(nd)) != 1 or _reads_ref(view, nd):
                continue
            if any(("^" + nd.name) in c.input for c in view.consumers(nd.name)):
                continue
            src = view.data_inputs(nd)[0]
            view.forward_controls(nd, nd.name)
            view.replace_uses(nd.name, src)
            removed.add(nd.name)
        elif nd.op == "NoOp":
            fan_in = view.control_inputs(nd)
            consumers = view.consumers(nd.name)
            if any(not i.startswith("^") for c in consumers for i in c.input
                   if parse_input(i)[0] == nd.name):
                continue
            if len(fan_in) * len(consumers) > len(fan_in) + len(consumers):
                continue
            for c in consumers:
                kept = [i for i in c.input if i != "^" + nd.name]
                for f in fan_in:
                    if f not in kept and f != "^" + c.name:
                        kept.append(f)
                del c.input[:]
                c.input.extend(kept)
            view.changed()
            removed.add(nd.name)
    view.remove(removed)
