"""Common subgraph elimination (RewriterConfig ``common_subgraph_elimination``).

Two nodes with the same op, device, attrs and inputs (in any order for commutative ops)
compute the same values; the later one's consumers read the first one instead. Equal
constants merge the same way. Stateful ops (variables, random ops, assignments) never merge,
nor do preserved nodes (each fetched node keeps its identity).
"""

from __future__ import annotations

from .graph_view import GraphView

_COMMUTATIVE = {"Add", "AddV2", "Mul", "Maximum", "Minimum", "LogicalAnd", "LogicalOr",
                "Equal", "NotEqual"}


def _signature(view: GraphView, nd):
    spec = view.spec(nd.op)
    if spec is None or spec.get("is_stateful") or nd.op in ("Placeholder", "PlaceholderWithDefault", "NoOp"):
        return None
    if any(info[4] for info in spec["input_info"]):
        return None
    data = list(view.data_inputs(nd))
    if nd.op in _COMMUTATIVE:
        data.sort()
    ctrl = sorted(view.control_inputs(nd))
    attrs = tuple(sorted((k, nd.attr[k].SerializeToString(deterministic=True))
                         for k in nd.attr if k != "_output_shapes"))
    return nd.op, nd.device, tuple(data), tuple(ctrl), attrs


def run(view: GraphView) -> None:
    changed = True
    while changed:  # a merge can make the consumers of the two nodes equal in turn
        changed = False
        seen: dict = {}
        dead: set[str] = set()
        for nd in list(view.nodes):
            if nd.name in view.preserve or nd.name in view.fed:
                continue
            sig = _signature(view, nd)
            if sig is None:
                continue
            rep = seen.setdefault(sig, nd.name)
            if rep == nd.name:
                continue
            view.redirect(nd.name, rep)
            dead.add(nd.name)
            changed = True
        view.remove(dead)
