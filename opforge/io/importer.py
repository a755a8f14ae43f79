"""``import_graph_def``: a GraphDef (TensorFlow's or opforge's) into a Graph.

Import is checked node by node before anything is added: an unknown op, a missing input, a
cycle, an attr of the wrong type or an absurd tensor gives a typed error naming the node, and
the target graph is left unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib

from .. import _C
from ..framework import function_library
from ..framework.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from ..framework.graph import _VALID_NAME as _VALID_NODE_NAME
from ..framework.graph import Graph, GraphTensor, get_default_graph
from .graph_def import GraphDef, NodeDef, _attr_value, _bad, graph_def_from_bytes
from .import_composites import COMPOSITES


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
    from ..framework import resource_import  # noqa: PLC0415
    if resource_import.needs_lowering(graph_def):
        graph_def = resource_import.lower(graph_def)
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
        spec = _C.op_spec(nd.op)  # else an op computed from others (import_composites.py)
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
                if attr_type == "func":  # a function of the GraphDef's library, into the runtime's
                    attrs[attr_name] = import_function(attrs[attr_name], graph_def.library, nd.name, nd.op)
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
_COMPOSITE = {"Einsum": _import_einsum, **COMPOSITES}


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


def import_function(name: str, library, node: str = "", op: str = "") -> str:
    """The registered name (framework/function_library.py) of FunctionDef ``name`` of
    ``library``, imported on first use: its body becomes a graph (Placeholders for the
    arguments, nested calls lowered, nested ``func`` attrs imported the same way), registered
    under a name unique to that FunctionDef and library, so two GraphDefs whose functions share
    a name (TensorFlow names them ``__inference_Dataset_map_lambda_14``) do not clash."""
    fdef = next((f for f in library.function if f.signature.name == name), None)
    if fdef is None:
        raise NotFoundError(f"function '{name}' is not in the GraphDef's function library [[node {node}]]", op)
    key = hashlib.sha1(library.SerializeToString(deterministic=True) + b"\0" + name.encode()).hexdigest()
    hit = function_library.imported(key)
    if hit is not None:
        return hit
    from ..framework.functions import _Lowering  # noqa: PLC0415
    gd = GraphDef()
    gd.library.CopyFrom(library)
    arg_names = []
    for i, arg in enumerate(fdef.signature.input_arg):
        if arg.type_attr or arg.number_attr or arg.type_list_attr or not arg.type:
            raise UnimplementedError(f"function '{name}': argument '{arg.name}' is polymorphic [[node {node}]]", op)
        ph = gd.node.add(name=f"arg_{i}", op="Placeholder")
        ph.attr["dtype"].type = arg.type
        arg_names.append(ph.name)
    low = _Lowering(library)
    outs, _ = low.inline(fdef, "body", arg_names, None, "", 0)
    for nd in low.out:
        gd.node.append(low._renamed(nd))
    for k, t in enumerate(outs):
        gd.node.add(name=f"ret_{k}", op="Identity", input=[t])
    graph = Graph()
    with graph.as_default():
        import_graph_def(gd, name="")
    args = [graph.get_tensor_by_name(f"{n}:0") for n in arg_names]
    rets = [graph.get_tensor_by_name(f"ret_{k}:0") for k in range(len(outs))]
    return function_library.remember_import(key, function_library.register(graph, args, rets, "imported"))
