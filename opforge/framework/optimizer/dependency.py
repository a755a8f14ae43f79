"""Dependency optimization (RewriterConfig ``dependency_optimization``).

Removes Identity and Snapshot nodes on the run path (their consumers read the input directly)
and NoOp nodes that only relay control edges (their consumers wait on the NoOp's own control
inputs instead). Kept: preserved (fetched/fed/target) nodes, an Identity reading a variable
(Ref input: it is the read that fixes *when* the value is taken, e.g. before an assignment),
nodes that are the source of a control edge (waiting on them means something), and NoOps whose
fan-in times fan-out would add more control edges than removing the node saves.
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


def run(view: GraphView) -> None:
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
