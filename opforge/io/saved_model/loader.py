"""Reading SavedModels (tf.compat.v1.saved_model.loader): TF1's (SavedModelBuilder,
simple_save, opforge's builder) and TF2's (tf.saved_model.save, Keras ``model.export``).

``load(sess, tags, export_dir)`` does what TensorFlow's loader does: picks the MetaGraphDef
whose tag set is ``tags``, imports its graph into the session's graph (function calls and
resource variables lowered by the importer), restores the variables from variables/ and runs
the init op (the ``__saved_model_init_op`` signature, else the main_op or legacy_init_op
collection) with the asset tensors fed their paths under assets/.
"""

from __future__ import annotations

import os

import numpy as np
from google.protobuf import any_pb2, text_format
from google.protobuf.message import DecodeError

from ...codegen._proto import meta_graph_pb2, saved_model_pb2, trackable_object_graph_pb2
from ...framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from ...ops.op_library_bundle import load_op_libraries
from .. import tensor_bundle
from ..meta_graph import import_scoped_meta_graph
from . import constants
from .restore import split_saver
from .utils import get_element_from_tensor_info, resolve_tensor

__all__ = ["load", "maybe_saved_model_directory", "contains_saved_model", "parse_saved_model",
           "SavedModelNotFoundError"]


class SavedModelNotFoundError(NotFoundError, OSError):
    """No SavedModel where one was asked for (a NotFoundError, and an OSError as TensorFlow
    raises it)."""


def _pb_paths(export_dir):
    d = os.fspath(export_dir)
    return os.path.join(d, constants.SAVED_MODEL_FILENAME_PB), os.path.join(d, constants.SAVED_MODEL_FILENAME_PBTXT)


def maybe_saved_model_directory(export_dir) -> bool:
    """Whether ``export_dir`` holds a saved_model.pb or saved_model.pbtxt."""
    pb, pbtxt = _pb_paths(export_dir)
    return os.path.isfile(pb) or os.path.isfile(pbtxt)


contains_saved_model = maybe_saved_model_directory


def parse_saved_model(export_dir) -> saved_model_pb2.SavedModel:
    """The SavedModel proto of ``export_dir`` (binary saved_model.pb, else text .pbtxt)."""
    pb, pbtxt = _pb_paths(export_dir)
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            saved = saved_model_pb2.SavedModel.FromString(data)
        except (DecodeError, RuntimeError) as e:
            raise DataLossError(f"Cannot parse file {pb}: {e}.", "load") from None
        path = pb
    elif os.path.isfile(pbtxt):
        with open(pbtxt, "rb") as f:
            data = f.read()
        try:
            saved = text_format.Parse(data.decode("utf-8"), saved_model_pb2.SavedModel())
        except (UnicodeDecodeError, text_format.ParseError) as e:
            raise DataLossError(f"Cannot parse file {pbtxt}: {e}.", "load") from None
        path = pbtxt
    else:
        raise SavedModelNotFoundError(
            f"SavedModel file does not exist at: {os.fspath(export_dir)}{os.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}", "load")
    if not saved.meta_graphs:
        raise DataLossError(f"{path} holds no MetaGraphDef (not a SavedModel?)", "load")
    return saved


def select_meta_graph(saved_model, tags, export_dir) -> meta_graph_pb2.MetaGraphDef:
    """The MetaGraphDef whose tag set is exactly ``tags``; RuntimeError naming those there are."""
    if isinstance(tags, str):
        tags = [tags]
    wanted = set(tags)
    for meta in saved_model.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    available = [sorted(m.meta_info_def.tags) for m in saved_model.meta_graphs]
    raise RuntimeError(
        f"MetaGraphDef associated with tags {sorted(wanted)!r} could not be found in SavedModel, with available "
        f"tags '{available}'. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: "
        f"`saved_model_cli`. (SavedModel at {os.fspath(export_dir)})")


def _scoped(name, import_scope):
    return f"{import_scope}/{name}" if import_scope else name


def asset_feeds(meta, export_dir, graph, import_scope=None) -> dict:
    """{asset tensor: its file under export_dir/assets} for the MetaGraphDef's assets."""
    assets = list(meta.asset_file_def)
    if constants.ASSETS_KEY in meta.collection_def:
        for raw in meta.collection_def[constants.ASSETS_KEY].any_list.value:
            try:
                anyp = any_pb2.Any.FromString(raw)
                if anyp.type_url.rpartition("/")[2] == "tensorflow.AssetFileDef":
                    assets.append(meta_graph_pb2.AssetFileDef.FromString(anyp.value))
            except DecodeError as e:
                raise DataLossError(f"collection {constants.ASSETS_KEY} holds a damaged AssetFileDef: {e}",
                                    "load") from None
    feeds = {}
    assets_dir = os.path.join(os.fspath(export_dir), constants.ASSETS_DIRECTORY)
    for a in assets:
        tensor = graph.get_tensor_by_name(_scoped(a.tensor_info.name, import_scope))
        feeds[tensor] = np.array(os.path.join(assets_dir, a.filename).encode(), dtype=object)
    return feeds


def init_op(meta, graph, import_scope=None):
    """The op that finishes loading: the ``__saved_model_init_op`` signature's, else the one of
    the main_op or legacy_init_op collection; None when there is none."""
    if constants.INIT_OP_SIGNATURE_KEY in meta.signature_def:
        sig = meta.signature_def[constants.INIT_OP_SIGNATURE_KEY]
        info = sig.outputs[constants.INIT_OP_SIGNATURE_KEY]
        try:
            return get_element_from_tensor_info(info, graph, import_scope)
        except KeyError:
            raise NotFoundError(f'The key "{constants.INIT_OP_SIGNATURE_KEY}" could not be found in the graph '
                                f"(it names '{info.name}').", "load") from None
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            names = list(meta.collection_def[key].node_list.value)
            if len(names) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(names)}: {names}.")
            return graph.as_graph_element(_scoped(names[0], import_scope))
    return None


def restore_variables(sess, plan: dict, prefix: str, import_scope=None) -> None:
    """Assigns each variable of ``plan`` ({variable node: checkpoint key}) its value in the
    bundle ``prefix``; every value is read and checked before any is assigned."""
    if not plan:
        return
    graph = sess.graph
    reader = tensor_bundle.BundleReader(prefix)
    feeds, assigns = {}, []
    with graph.as_default(), graph.name_scope("saved_model_restore"):
        for var_name, key in sorted(plan.items()):
            var = graph.get_operation_by_name(_scoped(var_name, import_scope))
            if not reader.has_tensor(key):
                raise NotFoundError(f"Key {key} not found in checkpoint {prefix} (variable {var.name})", "RestoreV2")
            ref = var.outputs[0]
            if reader.dtype(key) != ref.dtype.base_dtype:
                raise InvalidArgumentError(f"tensor {key} in checkpoint {prefix} is {reader.dtype(key).name}, the "
                                           f"variable {var.name} is {ref.dtype.name}", "RestoreV2")
            value = graph.create_op("Placeholder", [], {"dtype": ref.dtype.base_dtype.as_datatype_enum},
                                    name="value").outputs[0]
            assigns.append(graph.create_op("Assign", [ref, value], {"validate_shape": False}, name="assign"))
            feeds[value] = reader.tensor(key)
        restore_op = graph.create_op("NoOp", [], {}, name="restore_all", control_inputs=assigns)
    sess.run(restore_op, feeds)


_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _checkpoint_object_graph(prefix):
    """The TrackableObjectGraph a TF2 checkpoint holds, or None."""
    if not os.path.exists(tensor_bundle.index_path(prefix)):
        return None
    reader = tensor_bundle.BundleReader(prefix)
    if not reader.has_tensor(_OBJECT_GRAPH_KEY):
        return None
    try:
        return trackable_object_graph_pb2.TrackableObjectGraph.FromString(reader.tensor(_OBJECT_GRAPH_KEY)[()])
    except DecodeError as e:
        raise DataLossError(f"{prefix}: the checkpoint's object graph is damaged: {e}", "load") from None


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the MetaGraphDef tagged ``tags`` of the SavedModel in ``export_dir`` into
    ``sess`` (its graph, variables and init op); returns the MetaGraphDef."""
    del saver_kwargs  # the restore plan comes from the SavedModel itself (restore.py)
    saved = parse_saved_model(export_dir)
    meta = select_meta_graph(saved, tags, export_dir)
    # the model's own op libraries, before its graph needs their ops (ops/op_library_bundle.py)
    load_op_libraries(os.path.join(os.fspath(export_dir), constants.EXTRA_ASSETS_DIRECTORY,
                                   constants.OP_LIBRARIES_DIRECTORY), model=f"SavedModel {os.fspath(export_dir)}")
    prefix = os.path.join(os.fspath(export_dir), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
    graph_def, plan = split_saver(meta, _checkpoint_object_graph(prefix))
    stripped = meta_graph_pb2.MetaGraphDef()
    stripped.CopyFrom(meta)
    stripped.graph_def.CopyFrom(graph_def)
    stripped.ClearField("saver_def")
    with sess.graph.as_default():
        import_scoped_meta_graph(stripped, import_scope=import_scope)
        if plan and not os.path.exists(tensor_bundle.index_path(prefix)):
            raise SavedModelNotFoundError(f"SavedModel {os.fspath(export_dir)} has variables but no "
                                          f"{tensor_bundle.index_path(prefix)}", "load")
        restore_variables(sess, plan, prefix, import_scope)
        op = init_op(meta, sess.graph, import_scope)
        if op is not None:
            sess.run(op, asset_feeds(meta, export_dir, sess.graph, import_scope))
    return meta if import_scope else _with_graph_names(meta, sess.graph)


def _with_graph_names(meta, graph):
    """The MetaGraphDef with its signatures' tensor names as the loaded graph has them, so a
    program can sess.run them: output k > 0 of a TF2 function call imports lowered, at
    "call/output_k:0" where TensorFlow has "call:k" (framework/functions.py)."""
    out = meta_graph_pb2.MetaGraphDef()
    out.CopyFrom(meta)
    for sig in out.signature_def.values():
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            if not info.name or ":" not in info.name:
                continue
            try:
                graph.get_tensor_by_name(info.name)
            except KeyError:
                try:
                    info.name = resolve_tensor(graph, info.name).name
                except KeyError:
                    pass  # as the SavedModel has it: its own lookup names what is missing
    return out
