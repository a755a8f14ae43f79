"""MetaGraphDef: a graph with its collections, as TensorFlow 1 saves it beside a checkpoint.

``export_meta_graph`` writes the graph and its collections (variables as VariableDef protos,
tensors and operations by name, numbers as lists), and ``Saver.save`` writes one as
``<prefix>.meta``; ``import_scoped_meta_graph`` imports it into the default graph and recreates
the collections (the variables among them), for training/saver.py's ``import_meta_graph``,
which returns a Saver for them, so a TF1 program can restore a trained model without the code
that built it. The files are TensorFlow's
meta_graph.proto; no SaverDef is written (opforge's Saver is not a graph of SaveV2/RestoreV2
ops), so TensorFlow's import_meta_graph builds a Saver of its own for the variables.
"""

from __future__ import annotations

import os

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from ..codegen._proto import meta_graph_pb2, variable_pb2
from ..framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..framework.graph import GraphTensor, Operation, get_default_graph
from .importer import import_graph_def
from ..framework.variables import RefVariable

MetaGraphDef = meta_graph_pb2.MetaGraphDef
VariableDef = variable_pb2.VariableDef

__all__ = ["export_meta_graph", "import_scoped_meta_graph", "MetaGraphDef"]

_VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "local_variables", "model_variables",
                         "moving_average_variables", "metric_variables")


def _collection_def(items, proto) -> bool:
    """Fills proto from a collection's items; False when they are of no kind a CollectionDef
    can hold (those collections are left out, as TensorFlow leaves them out)."""
    if all(isinstance(v, RefVariable) for v in items):
        proto.bytes_list.value.extend(VariableDef(
            variable_name=v.name, initial_value_name=v.initial_value.name, initializer_name=v.initializer.name,
            snapshot_name=v.value().name, trainable=bool(v.trainable)).SerializeToString() for v in items)
    elif all(isinstance(v, (GraphTensor, Operation)) for v in items):
        proto.node_list.value.extend(v.name for v in items)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        proto.int64_list.value.extend(items)
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        proto.float_list.value.extend(float(v) for v in items)
    else:
        return False
    return True


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False, **kwargs):
    """The MetaGraphDef of the (default) graph with its collections; written to ``filename``
    when given (text format with ``as_text``)."""
    del export_scope, kwargs
    graph = graph or get_default_graph()
    meta = MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.meta_info_def.meta_graph_version = meta.meta_info_def.meta_graph_version or "v0.0.1"
    meta.graph_def.CopyFrom(graph_def if graph_def is not None else graph.as_graph_def())
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else sorted(graph._collections)
    for key in keys:
        items = graph.get_collection(key)
        if items:
            proto = meta.collection_def[key]
            if not _collection_def(items, proto):
                del meta.collection_def[key]
    if filename is not None:
        os.makedirs(os.path.dirname(os.path.abspath(filename)), exist_ok=True)
        tmp = f"{filename}.tmp"
        with open(tmp, "w" if as_text else "wb") as f:
            f.write(text_format.MessageToString(meta) if as_text else meta.SerializeToString())
        os.replace(tmp, filename)
    return meta


def _read(meta_graph_or_file) -> MetaGraphDef:
    if isinstance(meta_graph_or_file, MetaGraphDef):
        return meta_graph_or_file
    if hasattr(meta_graph_or_file, "SerializeToString"):  # TensorFlow's own MetaGraphDef
        return MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    path = os.fspath(meta_graph_or_file)
    if not os.path.exists(path):
        raise NotFoundError(f"File {path} does not exist.", "import_meta_graph")
    with open(path, "rb") as f:
        data = f.read()
    try:
        return MetaGraphDef.FromString(data)
    except DecodeError:
        pass
    try:
        return text_format.Parse(data.decode("utf-8"), MetaGraphDef())
    except (UnicodeDecodeError, text_format.ParseError) as e:
        raise InvalidArgumentError(f"{path}: not a MetaGraphDef (binary or text): {e}", "import_meta_graph") from None


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None) -> bool:
    """Imports a MetaGraphDef (a ``.meta`` file, or the proto) into the default graph and
    restores its collections; whether the graph now has variables. (tf.train.import_meta_graph,
    which also returns a Saver of them, is training/saver.py's.)"""
    meta = _read(meta_graph_or_file)
    graph = get_default_graph()
    graph_def = meta.graph_def
    if meta.saver_def.restore_op_name:
        # TensorFlow's Saver is a subgraph of SaveV2/RestoreV2 ops under its scope ("save/"):
        # opforge's Saver (returned below) does that work, so the subgraph is left out.
        scope = meta.saver_def.restore_op_name.rsplit("/", 1)[0] + "/"
        kept = [n for n in graph_def.node if not n.name.startswith(scope)]
        graph_def = type(graph_def)(node=kept, versions=graph_def.versions, library=graph_def.library)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    import_graph_def(graph_def, name=import_scope or "")
    prefix = f"{import_scope}/" if import_scope else ""

    def element(name):
        full = prefix + name
        return graph.get_tensor_by_name(full) if ":" in full else graph.get_operation_by_name(full)

    variables: dict[str, RefVariable] = {}
    for key in sorted(meta.collection_def):
        col = meta.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind == "node_list":
            items = [element(n) for n in col.node_list.value]
        elif kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
            items = []
            for raw in col.bytes_list.value:
                try:
                    vd = VariableDef.FromString(raw)
                except DecodeError as e:
                    raise DataLossError(f"collection '{key}' holds a damaged VariableDef: {e}",
                                        "import_meta_graph") from None
                if vd.is_resource and element(vd.variable_name).op.type != "VariableV2":
                    raise InvalidArgumentError(f"variable {vd.variable_name} is a resource variable that import did "
                                               "not make a reference variable", "import_meta_graph")
                if vd.variable_name not in variables:
                    variables[vd.variable_name] = RefVariable._from_nodes(
                        graph, element(vd.variable_name).op, element(vd.initializer_name),
                        element(vd.snapshot_name), element(vd.initial_value_name) if vd.initial_value_name else None,
                        vd.trainable)
                items.append(variables[vd.variable_name])
        elif kind == "int64_list":
            items = list(col.int64_list.value)
        elif kind == "float_list":
            items = list(col.float_list.value)
        else:
            continue  # bytes of kinds opforge has no object for (queue runners, savers ...)
        for item in items:
            graph.add_to_collection(key, item)
    return bool(graph.get_collection("variables"))
