"""Writing SavedModels (tf.compat.v1.saved_model.builder.SavedModelBuilder, simple_save).

The directory is TensorFlow's layout, so TensorFlow Serving and ``tf.saved_model.loader.load``
read it unchanged:

    export_dir/saved_model.pb        SavedModel proto: one MetaGraphDef per tag set, each with
                                     its SignatureDefs, collections and AssetFileDefs
    export_dir/variables/variables.{index,data-00000-of-00001}
                                     the variables' values, a V2 tensor bundle keyed by
                                     variable name (what a default tf.train.Saver reads)
    export_dir/assets/               copies of the asset files the graph reads
    export_dir/assets.extra/         left to the user (and to custom op libraries)

No SaverDef is written (opforge's Saver is not a graph of SaveV2/RestoreV2 ops): the MetaGraphDef
carries the variables collection, from which TensorFlow's loader builds its own Saver and
opforge's loader its restore plan (loader.py).
"""

from __future__ import annotations

import filecmp
import os
import shutil

import numpy as np
from google.protobuf import text_format

from ...codegen._proto import saved_model_pb2
from ...framework import dtypes as _dtypes
from ...framework.errors import AlreadyExistsError
from ...framework.graph import GraphTensor, Operation, get_default_graph
from ...framework.variables import RefVariable
from .. import tensor_bundle
from ..meta_graph import export_meta_graph
from . import constants, signature_constants, tag_constants
from .signature_def_utils import predict_signature_def

__all__ = ["SavedModelBuilder", "simple_save"]


def variables_path(export_dir) -> str:
    """The checkpoint prefix of a SavedModel's variables."""
    return os.path.join(os.fspath(export_dir), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist, or be empty): first
    ``add_meta_graph_and_variables`` (the graph of a session, with its variables' values),
    then any number of ``add_meta_graph`` (more tag sets over the same variables), then
    ``save``."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir):
            if not os.path.isdir(self._export_dir) or os.listdir(self._export_dir):
                raise AlreadyExistsError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the specified directory.",
                    "SavedModelBuilder")
        else:
            os.makedirs(self._export_dir)
        self._saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False
        self._asset_sources: dict[str, str] = {}  # name under assets/ -> the file it copies

    # ---- checks
    @staticmethod
    def _validate_signature_def_map(signature_def_map):
        for key, sig in signature_def_map.items():
            for kind, infos in (("inputs", sig.inputs), ("outputs", sig.outputs)):
                for name, info in infos.items():
                    if not info.name and info.WhichOneof("encoding") is None:
                        raise AssertionError(f"All TensorInfo protos used in the SignatureDefs must have the name "
                                             f"and dtype fields set. TensorInfo '{name}' of {kind} of signature "
                                             f"'{key}' has no name.")
                    if info.dtype == 0:
                        raise AssertionError(f"All TensorInfo protos used in the SignatureDefs must have the name "
                                             f"and dtype fields set. TensorInfo '{name}' of {kind} of signature "
                                             f"'{key}' has no dtype.")
        if constants.INIT_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(f'SignatureDef map key "{constants.INIT_OP_SIGNATURE_KEY}" is reserved for initialization. '
                           "Please use a different key.")
        if constants.TRAIN_OP_SIGNATURE_KEY in signature_def_map:
            raise KeyError(f'SignatureDef map key "{constants.TRAIN_OP_SIGNATURE_KEY}" is reserved for the train op. '
                           "Please use a different key.")

    @staticmethod
    def _check_tags(tags):
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise TypeError(f"tags must be a list of strings, got {tags!r}")
        return list(tags)

    # ---- the graph's extras
    @staticmethod
    def _add_main_op(graph, main_op):
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"Expected {main_op} to be an Operation but got type {type(main_op)} instead.")
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if graph.get_collection(key):
                raise ValueError(f"Graph already contains one or more main ops under the collection {key}.")
        graph.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _assets(self, assets_collection) -> list[tuple[str, GraphTensor]]:
        """(name under assets/, tensor) per asset path tensor, names made unique like
        TensorFlow's (a different file with a taken basename becomes name_1, name_2 ...)."""
        out = []
        for tensor in assets_collection or []:
            source = _asset_path_from_tensor(tensor)
            name = next((n for n, s in self._asset_sources.items() if s == source), None)
            if name is None:
                name = os.path.basename(source)
                taken = self._asset_sources.get(name)
                if taken is not None and not _same_file(taken, source):
                    i, base = 1, name
                    while name in self._asset_sources:
                        name = f"{base}_{i}"
                        i += 1
                self._asset_sources.setdefault(name, source)
            out.append((name, tensor))
        return out

    def _copy_assets(self, assets):
        if not assets:
            return
        target_dir = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY)
        os.makedirs(target_dir, exist_ok=True)
        for name, _ in assets:
            source = self._asset_sources[name]
            target = os.path.join(target_dir, name)
            if not os.path.exists(source):
                raise FileNotFoundError(f"asset file {source} does not exist")
            if os.path.abspath(source) != os.path.abspath(target):
                shutil.copyfile(source, target)

    def _meta_graph(self, graph, tags, signature_def_map, assets, clear_devices, strip_default_attrs):
        if assets:
            for _, tensor in assets:
                if tensor not in graph.get_collection(constants.ASSET_FILEPATHS_KEY):
                    graph.add_to_collection(constants.ASSET_FILEPATHS_KEY, tensor)
        meta = export_meta_graph(graph=graph, clear_devices=clear_devices)
        if strip_default_attrs:
            _strip_default_attrs(meta)
        meta.meta_info_def.tags.extend(tags)
        for key, sig in signature_def_map.items():
            meta.signature_def[key].CopyFrom(sig)
        for name, tensor in assets:
            asset = meta.asset_file_def.add()
            asset.filename = name
            asset.tensor_info.name = tensor.name
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    # ---- the API
    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables under variables/ and adds its graph tagged ``tags``."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        tags = self._check_tags(tags)
        signature_def_map = dict(signature_def_map or {})
        self._validate_signature_def_map(signature_def_map)
        graph = sess.graph
        self._add_main_op(graph, main_op if main_op is not None else legacy_init_op)
        assets = self._assets(assets_collection)
        self._copy_assets(assets)
        prefix = variables_path(self._export_dir)
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
        if saver is not None:
            saver.save(sess, prefix, write_meta_graph=False, write_state=False)
        else:
            _save_variables(sess, graph, prefix)
        self._meta_graph(graph, tags, signature_def_map, assets, clear_devices, strip_default_attrs)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None):
        """Adds the default graph tagged ``tags``, over the variables saved before."""
        del saver  # the variables were saved by add_meta_graph_and_variables
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        tags = self._check_tags(tags)
        signature_def_map = dict(signature_def_map or {})
        self._validate_signature_def_map(signature_def_map)
        graph = get_default_graph()
        self._add_main_op(graph, main_op if main_op is not None else legacy_init_op)
        assets = self._assets(assets_collection)
        self._copy_assets(assets)
        self._meta_graph(graph, tags, signature_def_map, assets, clear_devices, strip_default_attrs)

    def save(self, as_text=False):
        """Writes saved_model.pb (saved_model.pbtxt with ``as_text``); returns its path."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model).encode()
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return path.encode()


def _save_variables(sess, graph, prefix):
    """The graph's global variables under their names (the keys TensorFlow's default Saver
    uses). A graph without variables gets an empty variables/ folder, as in TensorFlow."""
    found = [v for v in graph.get_collection("variables") if isinstance(v, RefVariable)]
    named: dict[str, RefVariable] = {}
    for v in found:
        if v.op.name in named and named[v.op.name] is not v:
            raise ValueError(f"At least two variables have the same name: {v.op.name}")
        named[v.op.name] = v
    if not named:
        return
    names = sorted(named)
    values = sess.run([named[n].value() for n in names])
    tensor_bundle.write_bundle(prefix, {n: np.asarray(v) for n, v in zip(names, values)},
                               {n: named[n].dtype for n in names})


def _asset_path_from_tensor(tensor) -> str:
    if not isinstance(tensor, GraphTensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.Has type {tensor.op.type} instead.")
    if tensor.dtype != _dtypes.string:
        raise TypeError(f"Asset path tensor {tensor}` must be of dtype string.Has type {tensor.dtype} instead.")
    value = np.asarray(tensor.op.get_attr("value").numpy(), dtype=object)
    if value.size != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    path = value.reshape(-1)[0]
    path = path.decode() if isinstance(path, bytes) else str(path)
    if not path:
        raise ValueError(f"Asset filepath tensor {tensor} in is invalid.")
    return path


def _same_file(a: str, b: str) -> bool:
    return os.path.exists(a) and os.path.exists(b) and filecmp.cmp(a, b, shallow=False)


def _strip_default_attrs(meta):
    """Drops attrs that equal their op's default (TensorFlow's strip_default_attrs), so a
    consumer built before an attr was added still reads the graph."""
    cache: dict[str, dict] = {}
    for node in meta.graph_def.node:
        if node.op not in cache:
            cache[node.op] = _default_attr_values(node.op)
        for name, value in cache[node.op].items():
            if name in node.attr and node.attr[name] == value:
                del node.attr[name]
    meta.meta_info_def.stripped_default_attrs = True


def _default_attr_values(op_type: str) -> dict:
    """attr name -> AttrValue of its default, for the attrs of ``op_type`` that have one (read
    from the generated raw_ops wrapper, whose keyword defaults are the opdef's)."""
    import inspect  # noqa: PLC0415

    from ...ops import raw_ops  # noqa: PLC0415
    from .. import graph_def as _gd  # noqa: PLC0415
    from ... import _C  # noqa: PLC0415
    spec = _C.op_spec(op_type)
    wrapper = getattr(raw_ops, op_type, None)
    if spec is None or wrapper is None:
        return {}
    try:
        params = inspect.signature(wrapper).parameters
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, attr_type, _ in spec["attrs"]:
        p = params.get(name)
        if p is None or p.default is inspect.Parameter.empty or p.default is None:
            continue
        value = p.default
        if attr_type in ("type", "list(type)"):
            value = ([_dtypes.as_dtype(v).as_datatype_enum for v in value] if attr_type == "list(type)"
                     else _dtypes.as_dtype(value).as_datatype_enum)
        elif attr_type not in ("int", "float", "bool", "string", "list(int)", "list(float)", "list(bool)",
                               "list(string)"):
            continue
        av = _gd.AttrValue()
        _gd._set_attr(av, attr_type, value)
        out[name] = av
    return out


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """A SavedModel for serving in one call: the session's graph and variables tagged "serve",
    with one Predict signature "serving_default" over ``inputs`` and ``outputs`` (dicts of key
    -> tensor), devices cleared, assets from the graph's ASSET_FILEPATHS collection."""
    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(
        session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=session.graph.get_collection(constants.ASSET_FILEPATHS_KEY),
        main_op=legacy_init_op, clear_devices=True)
    b.save()
