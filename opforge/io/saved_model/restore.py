"""Which checkpoint entry restores which variable, read from a MetaGraphDef's own saver.

TensorFlow records how to restore a SavedModel's variables as a graph: ``saver_def``
names a restore op. In a TF1 graph that op (``save/restore_all``) waits on Assign or
AssignVariableOp nodes fed by a RestoreV2 node; in a TF2 graph it is a function call
(``StatefulPartitionedCall_2``) whose body holds the RestoreV2 and AssignVariableOps, the
variables' handles coming in as the call's arguments. opforge does not run that graph (it has
no file-reading ops in graphs): it reads it, following the restore op's inputs, Identity
nodes and function arguments, to the plan {variable node: checkpoint key}, and strips the
save and restore subgraphs before import. The values are then read from the tensor bundle
in Python and assigned (loader.py). Nothing here is keyed to one model: any graph whose
restore op ends in RestoreV2 -> (Identity ->) Assign of a variable reads the same way.

A MetaGraphDef without a SaverDef (opforge writes none) is restored the way TensorFlow's
default Saver would: every variable of the ``variables`` collection from the entry named
after it.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from ...codegen._proto import graph_pb2, variable_pb2
from ...framework import functions
from ...framework.errors import DataLossError, InvalidArgumentError, UnimplementedError

_ASSIGN_OPS = {"Assign", "AssignVariableOp"}
_VARIABLE_OPS = {"VariableV2", "Variable", "VarHandleOp"}
_FORWARD_OPS = {"Identity", "RefIdentity", "Snapshot"}
_MAX_DEPTH = 32
_CHECKPOINT_OPS = {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "Save", "SaveSlices", "Restore", "RestoreSlice"}


def _split(ref: str):
    """('node', k) of a graph tensor name; ('node', -1) of a control input."""
    if ref.startswith("^"):
        return ref[1:], -1
    node, _, k = ref.partition(":")
    return node, int(k) if k.isdigit() else 0


class _Scope:
    """The nodes of the graph or of one function body being read, with the function's
    arguments bound to tensors of the scope that called it."""

    def __init__(self, nodes, fdef=None, args=None, parent=None, prefix=""):
        self.nodes = {nd.name: nd for nd in nodes}
        self.fdef = fdef
        self.args = args or {}
        self.parent = parent
        self.prefix = prefix

    def resolve(self, ref: str):
        """(scope, node, output index) a tensor reference stands for, through arguments."""
        if self.fdef is None:
            node, idx = _split(ref)
            return self, node, idx
        parts = ref.lstrip("^").split(":")
        if len(parts) == 1 and parts[0] in self.args:
            return self.parent.resolve(self.args[parts[0]])
        node = parts[0]
        if len(parts) == 1:
            return self, node, 0
        if len(parts) == 2:
            return self, node, int(parts[1])
        nd = self.nodes.get(node)
        index = int(parts[2])
        if nd is not None:
            try:
                index = functions._output_index(nd, parts[1], int(parts[2]), self.prefix)
            except (InvalidArgumentError, LookupError):
                pass  # an op opforge lacks (RestoreV2): its one output list, element i
        return self, node, index


def _data_inputs(nd):
    return [i for i in nd.input if not i.startswith("^")]


class _PlanReader:
    def __init__(self, graph_def):
        self.library = {f.signature.name: f for f in graph_def.library.function}
        self.plan: dict[str, str] = {}

    def forward(self, scope, ref):
        """Follows Identity nodes (and arguments) back to the node that made the tensor."""
        scope, node, idx = scope.resolve(ref)
        for _ in range(10_000):
            nd = scope.nodes.get(node)
            if nd is None or nd.op not in _FORWARD_OPS or not _data_inputs(nd):
                return scope, nd, idx
            scope, node, idx = scope.resolve(_data_inputs(nd)[0])
        return scope, None, idx

    def tensor_names(self, scope, restore):
        ins = _data_inputs(restore)
        if len(ins) < 2:
            raise InvalidArgumentError(f"RestoreV2 node {restore.name} has no tensor_names input", "RestoreV2")
        _, const, _ = self.forward(scope, ins[1])
        if const is None or const.op != "Const":
            raise UnimplementedError(f"the tensor names of RestoreV2 node {restore.name} are not a constant",
                                     "RestoreV2")
        return [s.decode() for s in const.attr["value"].tensor.string_val]

    def visit(self, scope, root_name, depth=0):
        """Every Assign reached from ``root_name`` (backwards, through calls) adds to the plan."""
        if depth > _MAX_DEPTH:
            raise InvalidArgumentError("the restore graph nests calls too deeply", "RestoreV2")
        stack, seen = [root_name], set()
        while stack:
            name = stack.pop()
            if name in seen or name not in scope.nodes:
                continue
            seen.add(name)
            nd = scope.nodes[name]
            if nd.op in functions.CALL_OPS:
                self.call(scope, nd, depth)
            elif nd.op in _ASSIGN_OPS:
                self.assign(scope, nd)
            for i in nd.input:
                s, node, _ = scope.resolve(i)
                if s is scope:
                    stack.append(node)

    def call(self, scope, nd, depth):
        fname = nd.attr["f"].func.name if "f" in nd.attr else ""
        fdef = self.library.get(fname)
        if fdef is None:
            raise InvalidArgumentError(f"restore op {nd.name} calls '{fname}', which is not in the function library",
                                       nd.op)
        data = _data_inputs(nd)
        args = {a.name: data[k] for k, a in enumerate(fdef.signature.input_arg) if k < len(data)}
        inner = _Scope(fdef.node_def, fdef, args, scope, f"{scope.prefix}{nd.name}/")
        for body_node in fdef.node_def:
            if body_node.op in _ASSIGN_OPS or body_node.op in functions.CALL_OPS:
                self.visit(inner, body_node.name, depth + 1)

    def assign(self, scope, nd):
        data = _data_inputs(nd)
        if len(data) != 2:
            return
        vscope, var, _ = self.forward(scope, data[0])
        _, src, index = self.forward(scope, data[1])
        if var is None or var.op not in _VARIABLE_OPS or vscope.fdef is not None:
            return  # not a graph variable (a variable made inside a function is not restorable)
        if src is None or src.op != "RestoreV2":
            return
        names = self.tensor_names(self.forward(scope, data[1])[0], src)
        if index >= len(names):
            raise InvalidArgumentError(f"RestoreV2 node {src.name} restores {len(names)} tensors, "
                                       f"{nd.name} reads output {index}", "RestoreV2")
        self.plan[var.name] = names[index]


def _closure(by_name, roots):
    seen, stack = set(), [r for r in roots if r in by_name]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(_split(i)[0] for i in by_name[name].input if _split(i)[0] in by_name)
    return seen


def split_saver(meta, object_graph=None):
    """(the graph without its save and restore subgraphs, {variable node name: checkpoint
    key}) of a MetaGraphDef. ``object_graph`` is the checkpoint's TrackableObjectGraph (TF2
    checkpoints have one): it restores variables the restore op leaves out (plan_from_captures)."""
    graph_def = meta.graph_def
    sd = meta.saver_def
    if not sd.restore_op_name:
        return graph_def, plan_from_collection(meta)
    graph_def, plan = _split_saver(meta)
    if object_graph is not None:
        for var, key in plan_from_captures(meta, graph_def, object_graph).items():
            plan.setdefault(var, key)
    return graph_def, plan


def plan_from_captures(meta, graph_def, object_graph) -> dict[str, str]:
    """{variable node: checkpoint key} for the variables TF2 functions capture.

    A TF2 SavedModel's restore function assigns the variables of its own object graph, which
    need not be the handles the serving functions read (Keras models saved with
    tf.saved_model.save capture one set of handles and restore another). TensorFlow's
    tf.saved_model.load binds each function's captured inputs to objects (SavedConcreteFunction.
    bound_inputs: object ids), and the checkpoint's object graph, whose ids are the same, names
    each object's entry (its VARIABLE_VALUE attribute). This reads the same links: each call's
    trailing (captured) inputs, traced through Identity to a VarHandleOp, get their object's
    entry."""
    keys = {}
    for node_id, obj in enumerate(object_graph.nodes):
        for attr in obj.attributes:
            if attr.name == "VARIABLE_VALUE":
                keys[node_id] = attr.checkpoint_key
    functions_bound = meta.object_graph_def.concrete_functions
    by_name = {nd.name: nd for nd in graph_def.node}
    scope = _Scope(graph_def.node)
    reader = _PlanReader(graph_def)
    plan = {}
    for nd in graph_def.node:
        if nd.op not in functions.CALL_OPS or "f" not in nd.attr:
            continue
        cf = functions_bound.get(nd.attr["f"].func.name)
        if cf is None or not cf.bound_inputs:
            continue
        data = _data_inputs(nd)
        captured = data[len(data) - len(cf.bound_inputs):] if len(cf.bound_inputs) <= len(data) else []
        for ref, node_id in zip(captured, cf.bound_inputs):
            _, var, _ = reader.forward(scope, ref)
            if var is not None and var.op in _VARIABLE_OPS and var.name in by_name and node_id in keys:
                plan.setdefault(var.name, keys[node_id])
    return plan


def _split_saver(meta):
    graph_def = meta.graph_def
    sd = meta.saver_def
    by_name = {nd.name: nd for nd in graph_def.node}
    restore = _split(sd.restore_op_name)[0]
    if restore not in by_name:
        raise InvalidArgumentError(f"the SaverDef's restore op '{sd.restore_op_name}' is not in the graph",
                                   "RestoreV2")
    reader = _PlanReader(graph_def)
    reader.visit(_Scope(graph_def.node), restore)
    roots = [restore] + ([_split(sd.save_tensor_name)[0]] if sd.save_tensor_name else [])
    # Other savers' subgraphs too (a MetaGraphDef added by add_meta_graph keeps the first
    # one's "save/" scope): everything downstream of a checkpoint op only serves saving or
    # restoring.
    consumers: dict[str, list[str]] = {}
    for nd in graph_def.node:
        for i in nd.input:
            consumers.setdefault(_split(i)[0], []).append(nd.name)
    stack = [nd.name for nd in graph_def.node if nd.op in _CHECKPOINT_OPS]
    while stack:
        name = stack.pop()
        if name not in roots:
            roots.append(name)
            stack.extend(consumers.get(name, ()))
    saver_nodes = _closure(by_name, roots)
    referenced = _referenced_nodes(meta)
    kept_roots = [nd.name for nd in graph_def.node
                  if nd.name not in saver_nodes or nd.op in _VARIABLE_OPS or nd.name in referenced]
    needed = _closure(by_name, kept_roots)
    drop = saver_nodes - needed
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(nd for nd in graph_def.node if nd.name not in drop)
    return out, reader.plan


def _referenced_nodes(meta) -> set[str]:
    """Nodes the MetaGraphDef names outside its graph (signatures, assets, collections and
    the variables' VariableDefs): kept even when only the saver reads them."""
    names = set()
    for sig in meta.signature_def.values():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            names.add(_split(info.name)[0])
    for asset in meta.asset_file_def:
        names.add(_split(asset.tensor_info.name)[0])
    for col in meta.collection_def.values():
        kind = col.WhichOneof("kind")
        if kind == "node_list":
            names.update(_split(n)[0] for n in col.node_list.value)
        elif kind == "bytes_list":
            for raw in col.bytes_list.value:
                try:
                    vd = variable_pb2.VariableDef.FromString(raw)
                except DecodeError:
                    continue  # not a VariableDef (a queue runner, a saver ...)
                names.update(_split(n)[0] for n in (vd.variable_name, vd.initializer_name, vd.snapshot_name,
                                                    vd.initial_value_name) if n)
    return names


def plan_from_collection(meta) -> dict[str, str]:
    """Each variable of the ``variables`` collection restores from the entry of its name."""
    plan = {}
    col = meta.collection_def.get("variables") if "variables" in meta.collection_def else None
    if col is None or col.WhichOneof("kind") != "bytes_list":
        return plan
    for raw in col.bytes_list.value:
        try:
            vd = variable_pb2.VariableDef.FromString(raw)
        except DecodeError as e:
            raise DataLossError(f"collection 'variables' holds a damaged VariableDef: {e}", "RestoreV2") from None
        name = _split(vd.variable_name)[0]
        plan[name] = name
    return plan
