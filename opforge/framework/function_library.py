"""The process's function library from Python (runtime: opforge/function.h).

Ops with ``func`` attrs (the dataset ops: map's ``f``, a one-shot iterator's
``dataset_factory``) name a function of the runtime's library: a graph whose arguments are
Placeholders and whose results are tensors of it.

- ``register(graph, args, rets, hint)`` adds a graph opforge built (a traced dataset function)
  under a new unique name.
- ``import_function(name, library)`` adds a FunctionDef of an imported GraphDef's library: its
  body becomes a graph (Placeholders for the arguments, nested calls lowered, nested ``func``
  attrs imported the same way), registered under a name unique to that FunctionDef and
  library, so two GraphDefs whose functions share a name (TensorFlow names them
  ``__inference_Dataset_map_lambda_14``) do not clash.
- ``function_defs(names)`` gives FunctionDefs of registered functions, for a GraphDef that
  names them (export).
"""

from __future__ import annotations

import hashlib
import itertools
import threading

from .. import _C
from ..codegen._proto import function_pb2, graph_pb2
from ..io.graph_def import _set_attr
from .errors import InvalidArgumentError, NotFoundError, UnimplementedError

__all__ = ["register", "import_function", "function_defs"]

_lock = threading.Lock()
_counter = itertools.count(1)
_graphs: dict = {}  # registered name -> (graph, args, rets)
_imported: dict = {}  # digest of (library, name) -> registered name


def register(graph, args, rets, hint: str) -> str:
    """Adds graph (arguments: its Placeholder tensors ``args``; results ``rets``) to the
    library under a new name, which it returns."""
    name = f"__opforge_{hint}_{next(_counter)}"
    _C.register_function(name, graph._c, [a._ref() for a in args], [r._ref() for r in rets])
    with _lock:
        _graphs[name] = (graph, list(args), list(rets))
    return name


def import_function(name: str, library, node: str = "", op: str = "") -> str:
    """The registered name of FunctionDef ``name`` of ``library`` (imported on first use)."""
    fdef = next((f for f in library.function if f.signature.name == name), None)
    if fdef is None:
        raise NotFoundError(f"function '{name}' is not in the GraphDef's function library [[node {node}]]", op)
    key = hashlib.sha1(library.SerializeToString(deterministic=True) + b"\0" + name.encode()).hexdigest()
    with _lock:
        hit = _imported.get(key)
    if hit is not None:
        return hit
    from ..io.importer import import_graph_def  # noqa: PLC0415
    from .functions import _Lowering  # noqa: PLC0415
    from .graph import Graph  # noqa: PLC0415
    gd = graph_pb2.GraphDef()
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
    registered = register(graph, args, rets, "imported")
    with _lock:
        _imported.setdefault(key, registered)
        return _imported[key]


def _arg_name(op) -> str:
    return op.name.replace("/", "_").lower()


def function_def(name: str):
    """A FunctionDef of registered function ``name`` (its nodes as the graph has them)."""
    with _lock:
        entry = _graphs.get(name)
    if entry is None:
        raise NotFoundError(f"function '{name}' was not registered from Python")
    graph, args, rets = entry
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = name
    arg_ops = {a.op: _arg_name(a.op) for a in args}
    for a in args:
        fdef.signature.input_arg.add(name=arg_ops[a.op], type=a.dtype.as_datatype_enum)

    def ref(t):
        if t.op in arg_ops:
            return arg_ops[t.op]
        outputs = graph._spec(t.op.type)["outputs"]
        at = 0
        for out_name, count in _output_counts(t.op, outputs):
            if t.value_index < at + count:
                return f"{t.op.name}:{out_name}:{t.value_index - at}"
            at += count
        raise InvalidArgumentError(f"function '{name}': no output {t.value_index} of {t.op.name}")

    for op in graph.get_operations():
        if op in arg_ops:
            continue
        nd = fdef.node_def.add(name=op.name, op=op.type)
        nd.input.extend(ref(t) for t in op.inputs)
        nd.input.extend("^" + c.name for c in op.control_inputs)
        spec = graph._spec(op.type)
        for attr_name, attr_type, _ in spec["attrs"]:
            _set_attr(nd.attr[attr_name], attr_type, op.get_attr(attr_name))
    for k, r in enumerate(rets):
        fdef.signature.output_arg.add(name=f"output_{k}", type=r.dtype.as_datatype_enum)
        fdef.ret[f"output_{k}"] = ref(r)
    return fdef


def _output_counts(op, outputs):
    """(output argument name, number of tensors) per output argument of op."""
    if len(outputs) == 1:
        return [(outputs[0], len(op.outputs))]
    return [(o, 1) for o in outputs]


def function_defs(names) -> list:
    """FunctionDefs of the named functions and of those they name, each once."""
    out, seen, pending = [], set(), list(names)
    while pending:
        n = pending.pop()
        if n in seen:
            continue
        seen.add(n)
        fdef = function_def(n)
        out.append(fdef)
        for nd in fdef.node_def:
            pending.extend(v.func.name for v in nd.attr.values() if v.WhichOneof("value") == "func")
    return out

