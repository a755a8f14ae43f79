"""``of.saved_model.load(export_dir)``: a SavedModel as callables, one per signature.

    with of.saved_model.load("/models/resnet/1") as model:
        sig = model.signatures["serving_default"]
        out = sig(images=batch)            # {"probabilities": ndarray, ...}

The model lives in a Graph and Session of its own. ``Signature.run`` checks the request
against the SignatureDef (unknown and missing inputs, dtype, shape), fills in the
SignatureDef's defaults and runs one Session.run; it keeps no state, so any number of threads
may call it at once (the Session's runs are thread-safe).
"""

from __future__ import annotations

import dataclasses
import os
import threading

import numpy as np

from ...framework import dtypes as _dtypes
from ...framework.errors import InvalidArgumentError, NotFoundError
from ...framework.graph import Graph
from ...framework.session import Session
from .. import graph_def as _graph_def
from . import constants, loader
from .utils import resolve_tensor

__all__ = ["load", "LoadedModel", "Signature", "TensorSpec"]

_HIDDEN_SIGNATURES = (constants.INIT_OP_SIGNATURE_KEY, constants.TRAIN_OP_SIGNATURE_KEY)
# Loading builds into a graph through opforge's default-graph stack, which is one per process:
# two loads at once (a server loading versions in the background) would interleave their
# graphs, so loads take turns. Running loaded signatures needs no lock.
_LOAD_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A signature input or output: the graph tensor's ``name``, its ``dtype`` (an opforge
    DType) and ``shape`` (a tuple with None for unknown dims; None for an unknown rank)."""

    name: str
    dtype: _dtypes.DType
    shape: tuple | None


def _spec(key, info, tensor) -> TensorSpec:
    try:
        dtype = _dtypes.from_enum(info.dtype) if info.dtype else tensor.dtype.base_dtype
    except KeyError:
        dtype = tensor.dtype.base_dtype
    if info.HasField("tensor_shape") and not info.tensor_shape.unknown_rank:
        shape = tuple(None if d.size < 0 else int(d.size) for d in info.tensor_shape.dim)
    else:
        dims = tensor.shape.dims
        shape = None if dims is None else tuple(dims)
    return TensorSpec(info.name, dtype, shape)


class Signature:
    """One SignatureDef of a loaded model, callable: ``sig(**feeds)`` or ``sig.run(feeds)``."""

    def __init__(self, name: str, signature_def, session: Session):
        self.name = name
        self.signature_def = signature_def
        self.method_name = signature_def.method_name
        self._session = session
        graph = session.graph
        self._in_tensors, self._out_tensors = {}, {}
        inputs, outputs = {}, {}
        for kind, infos, tensors, specs in (("input", signature_def.inputs, self._in_tensors, inputs),
                                            ("output", signature_def.outputs, self._out_tensors, outputs)):
            for key in sorted(infos):
                info = infos[key]
                if info.WhichOneof("encoding") != "name":
                    raise InvalidArgumentError(f"signature '{name}' {kind} '{key}' names no dense tensor (a sparse "
                                               "or composite one?): opforge serves dense tensors only", "load")
                try:
                    tensor = resolve_tensor(graph, info.name)
                except (KeyError, ValueError):
                    raise NotFoundError(f"signature '{name}' {kind} '{key}' names tensor '{info.name}', which is "
                                        "not in the graph", "load") from None
                tensors[key] = tensor
                specs[key] = _spec(key, info, tensor)
        self.inputs: dict[str, TensorSpec] = inputs
        self.outputs: dict[str, TensorSpec] = outputs
        self._defaults = {k: _graph_def.tensor_from_proto(v, f"{name}/{k}", "SignatureDef")._numpy()
                          for k, v in signature_def.defaults.items()}

    def __repr__(self):
        return f"<Signature {self.name!r} inputs={sorted(self.inputs)} outputs={sorted(self.outputs)}>"

    def _bad(self, message):
        return InvalidArgumentError(f"{message} (signature '{self.name}')", "Signature")

    def _convert(self, key, value):
        spec = self.inputs[key]
        npd = spec.dtype.as_numpy_dtype
        try:
            if spec.dtype == _dtypes.string:
                arr = np.asarray(value, dtype=object)
                arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else bytes(s), otypes=[object])(arr) \
                    if arr.size else arr
            else:
                arr = np.asarray(value)
                if arr.dtype.kind in "OSU" or (arr.dtype.kind == "f" and np.dtype(npd).kind in "iub"
                                               and not np.array_equal(arr, np.round(arr))):
                    raise TypeError(f"{arr.dtype} values")
                arr = arr.astype(npd, copy=False)
        except (TypeError, ValueError, OverflowError) as e:
            raise self._bad(f"input '{key}' cannot be converted to {spec.dtype.name}: {e}") from None
        if spec.shape is not None:
            if arr.ndim != len(spec.shape) or any(d is not None and d != s for d, s in zip(spec.shape, arr.shape)):
                want = "[" + ", ".join("?" if d is None else str(d) for d in spec.shape) + "]"
                raise self._bad(f"input '{key}' has shape {list(arr.shape)}, the signature takes {want}")
        return arr

    def run(self, feeds: dict, output_keys=None) -> dict:
        """Runs the signature on ``feeds`` ({input key: array-like}); returns {output key:
        ndarray} for ``output_keys`` (default: every output)."""
        unknown = sorted(set(feeds) - set(self.inputs))
        if unknown:
            raise self._bad(f"unknown input '{unknown[0]}'; the inputs are {sorted(self.inputs)}")
        missing = sorted(set(self.inputs) - set(feeds) - set(self._defaults))
        if missing:
            raise self._bad(f"missing input '{missing[0]}'; the inputs are {sorted(self.inputs)}")
        if output_keys is None:
            keys = sorted(self.outputs)
        else:
            keys = [output_keys] if isinstance(output_keys, str) else list(output_keys)
            bad = [k for k in keys if k not in self.outputs]
            if bad:
                raise self._bad(f"unknown output '{bad[0]}'; the outputs are {sorted(self.outputs)}")
        feed_dict = {}
        for key in self.inputs:
            value = feeds[key] if key in feeds else self._defaults[key]
            feed_dict[self._in_tensors[key]] = self._convert(key, value)
        values = self._session.run([self._out_tensors[k] for k in keys], feed_dict)
        return {k: np.asarray(v) for k, v in zip(keys, values)}

    def __call__(self, **feeds) -> dict:
        return self.run(feeds)


class LoadedModel:
    """A SavedModel loaded into a Session of its own: ``signatures`` (key -> Signature),
    ``meta_graph`` (the MetaGraphDef), ``export_dir``, ``session``. ``close()`` (or leaving
    its ``with`` block) frees the session."""

    def __init__(self, export_dir, tags=("serve",)):
        self.export_dir = os.fspath(export_dir)
        self.tags = (tags,) if isinstance(tags, str) else tuple(tags)
        self.graph = Graph()
        self.session = Session(graph=self.graph)
        try:
            with _LOAD_LOCK:
                self.meta_graph = loader.load(self.session, list(self.tags), self.export_dir)
            self.signatures: dict[str, Signature] = {
                key: Signature(key, self.meta_graph.signature_def[key], self.session)
                for key in sorted(self.meta_graph.signature_def) if key not in _HIDDEN_SIGNATURES}
        except BaseException:
            self.session.close()
            raise

    def __repr__(self):
        return f"<LoadedModel {self.export_dir!r} tags={list(self.tags)} signatures={sorted(self.signatures)}>"

    def signature(self, key: str) -> Signature:
        """The signature ``key``; NotFoundError naming the ones there are."""
        if key not in self.signatures:
            raise NotFoundError(f"Serving signature key \"{key}\" not found; the SavedModel at {self.export_dir} has "
                                f"{sorted(self.signatures)}", "Signature")
        return self.signatures[key]

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> LoadedModel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def load(export_dir, tags=("serve",)) -> LoadedModel:
    """Loads the MetaGraphDef tagged ``tags`` of the SavedModel in ``export_dir``."""
    return LoadedModel(export_dir, tags)
