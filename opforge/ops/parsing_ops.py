"""Parsing tf.train.Example protos and raw bytes, as TensorFlow's tf.io does it.

Feature specs (``FixedLenFeature``, ``VarLenFeature``, ``FixedLenSequenceFeature``) say what to
read; ``parse_example`` (a batch: the ParseExampleV2 op) and ``parse_single_example`` (one
proto: the ParseSingleExample op) return a dict from feature name to a dense tensor or, for a
VarLenFeature, a SparseTensor; ``parse_sequence_example`` and ``parse_single_sequence_example``
(the ParseSequenceExampleV2 op) parse SequenceExamples: context features as an Example's, and
feature lists (FixedLenSequenceFeature: dense steps, VarLenFeature: sparse). ``decode_raw`` is the DecodeRaw op; ``serialize_tensor`` / ``parse_tensor`` write and read a
tensor as TensorFlow's TensorProto bytes; ``decode_compressed`` inflates ZLIB / GZIP strings. The protos are decoded in
C++ (kernels/cpu/parsing/), eagerly or in a graph.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.api import constant
from ..framework.graph import GraphTensor
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import Tensor as EagerTensor
from ..framework.tensor import TensorShape
from . import parsing_features as _features
from .parsing_features import RaggedFeature, SparseFeature

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "SparseFeature", "RaggedFeature",
           "parse_example", "parse_single_example",
           "parse_sequence_example", "parse_single_sequence_example", "decode_raw", "serialize_tensor", "parse_tensor",
           "decode_compressed"]

_PARSE_TYPES = (_dtypes.float32, _dtypes.int64, _dtypes.string)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values per example: parsed into a SparseTensor."""

    __slots__ = ()


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with ``shape`` values per example; an example without it takes
    ``default_value`` (None: the feature is required)."""

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Rows of ``shape`` values, any number of them per example: parsed into a dense tensor of
    the longest example's rows, the others padded with ``default_value`` (a scalar; None:
    zero or ""). In parse_example and parse_single_example ``allow_missing`` must be True."""

    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _parse_dtype(dtype, key):
    dt = _dtypes.as_dtype(dtype)
    if dt not in _PARSE_TYPES:
        raise ValueError(f"Feature {key}: unsupported dtype {dt.name} (Example features are float32, int64 or string)")
    return dt


def _shape_dims(shape, key):
    dims = TensorShape(shape)
    if dims.rank is None:
        raise ValueError(f"Feature {key}: the shape must have a known rank, got {shape!r}")
    out = [d for d in dims.as_list()]
    if any(d is None for d in out):
        raise ValueError(f"Feature {key}: the shape must be fully defined, got {shape!r}")
    return out


def _empty(dt):
    return np.zeros(0, dtype=object) if dt == _dtypes.string else np.zeros(0, dt.as_numpy_dtype)


def _default_array(value, dt, shape, key):
    """The default as a NumPy array of the feature's shape (TensorFlow reshapes it too)."""
    if dt == _dtypes.string:
        arr = np.asarray(value, dtype=object)
        arr = np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(arr) if arr.size else arr
    else:
        arr = np.asarray(value, dtype=dt.as_numpy_dtype)
    size = int(np.prod(shape)) if shape else 1
    if arr.size != size:
        raise ValueError(f"Feature {key}: the default value has {arr.size} values but the shape {shape} has {size}")
    return arr.reshape(shape)


class _Config:
    """The ops' arguments for a dict of feature specs (keys sorted, as TensorFlow orders them)."""

    def __init__(self, features, context=False, ragged=None):
        if not features and not context and not ragged:
            raise ValueError("Missing: features was empty (give at least one feature to parse)")
        ragged = ragged or {}
        self.ragged_keys = sorted(ragged)
        self.ragged_value_types = [_parse_dtype(ragged[k][0], k) for k in self.ragged_keys]
        self.ragged_split_types = [ragged[k][1] for k in self.ragged_keys]
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes, self.dense_defaults = [], [], [], []
        for key in sorted(features):
            spec = features[key]
            if isinstance(spec, VarLenFeature):
                self.sparse_keys.append(key)
                self.sparse_types.append(_parse_dtype(spec.dtype, key))
            elif isinstance(spec, FixedLenFeature):
                dt = _parse_dtype(spec.dtype, key)
                shape = _shape_dims(spec.shape, key)
                self.dense_keys.append(key)
                self.dense_types.append(dt)
                self.dense_shapes.append(shape)
                self.dense_defaults.append(_empty(dt) if spec.default_value is None
                                           else _default_array(spec.default_value, dt, shape, key))
            elif isinstance(spec, FixedLenSequenceFeature) and not context:
                if not spec.allow_missing:
                    raise ValueError(f"Unsupported: FixedLenSequenceFeature requires allow_missing to be True "
                                     f"(feature {key})")
                dt = _parse_dtype(spec.dtype, key)
                self.dense_keys.append(key)
                self.dense_types.append(dt)
                self.dense_shapes.append([-1] + _shape_dims(spec.shape, key))
                pad = spec.default_value
                if pad is None:
                    pad = b"" if dt == _dtypes.string else 0
                self.dense_defaults.append(_default_array(pad, dt, [], key))
            else:
                raise ValueError(f"Unsupported feature spec for {key}: {type(spec).__name__} (expected FixedLenFeature, "
                                 f"VarLenFeature{'' if context else ' or FixedLenSequenceFeature'})")
        self.dense_defaults = [constant(v, dtype=t) for v, t in zip(self.dense_defaults, self.dense_types)]

    def results(self, sparse_indices, sparse_values, sparse_shapes, dense_values):
        out = {}
        for k, key in enumerate(self.sparse_keys):
            out[key] = SparseTensor(sparse_indices[k], sparse_values[k], sparse_shapes[k])
        for d, key in enumerate(self.dense_keys):
            out[key] = dense_values[d]
        return out


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a vector of serialized Example protos into a dict of tensors (TensorFlow's
    tf.io.parse_example): a FixedLenFeature gives a [batch] + shape tensor, a VarLenFeature a
    SparseTensor with indices [N, 2], a FixedLenSequenceFeature a [batch, rows] + shape tensor,
    a SparseFeature a SparseTensor of dense shape [batch] + size, a RaggedFeature a RaggedTensor
    of one row per Example."""
    plain, ragged, composite = _features.expand(features, VarLenFeature)
    config = _Config(plain, ragged=ragged)
    names = [] if example_names is None else example_names
    result = _ops.parse_example_v2(
        _strings(serialized), _strings(names), _strings(config.sparse_keys), _strings(config.dense_keys),
        _strings(config.ragged_keys), config.dense_defaults, num_sparse=len(config.sparse_keys),
        sparse_types=config.sparse_types, ragged_value_types=config.ragged_value_types,
        ragged_split_types=config.ragged_split_types, dense_shapes=config.dense_shapes, name=name)
    parsed = config.results(*_split(result))
    if not composite:
        return parsed
    from ..ragged.ragged_tensor import RaggedTensor  # noqa: PLC0415  (imports opforge's top level)

    parts = tuple(result)
    ragged_out = {k: RaggedTensor.from_row_splits(v, sp, validate=False)
                  for k, v, sp in zip(config.ragged_keys, parts[4], parts[5])}
    return _features.combine(features, parsed, ragged_out, composite)


def _first_example(value):
    """A parse_example result for a batch of one, without the batch dimension."""
    one, zero = np.array([1], np.int32), np.array([0], np.int32)
    if isinstance(value, SparseTensor):
        ends = np.array([0, 0], np.int32)
        return SparseTensor(_ops.strided_slice(value.indices, np.array([0, 1], np.int32), ends, np.array([1, 1], np.int32),
                                               begin_mask=1, end_mask=3),
                            value.values, _ops.strided_slice(value.dense_shape, one, zero, one, end_mask=1))
    if hasattr(value, "row_splits"):  # a RaggedTensor: its one row
        return value.values
    return _ops.strided_slice(value, zero, one, one, shrink_axis_mask=1)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized Example (a scalar string) into a dict of tensors (TensorFlow's
    tf.io.parse_single_example): dense features have their own shape, sparse ones indices [N, 1]."""
    del example_names  # one proto: errors name the feature
    if any(isinstance(spec, (_features.SparseFeature, _features.RaggedFeature)) for spec in features.values()):
        batch = parse_example(_ops.expand_dims(_strings(serialized), np.int32(0)), features, name=name)
        return {k: _first_example(v) for k, v in batch.items()}
    config = _Config(features)
    result = _ops.parse_single_example(
        _strings(serialized), config.dense_defaults, num_sparse=len(config.sparse_keys), sparse_keys=config.sparse_keys,
        dense_keys=config.dense_keys, sparse_types=config.sparse_types, dense_shapes=config.dense_shapes, name=name)
    return config.results(*_split(result))


def _strings(values):
    """A string tensor of Python or NumPy strings (graph tensors pass through)."""
    if isinstance(values, (GraphTensor, EagerTensor)):
        return values
    return constant(np.asarray(values, dtype=object), dtype=_dtypes.string)


def _split(result):
    """The (sparse indices, sparse values, sparse shapes, dense values) output lists of a parse op."""
    return [list(part) for part in tuple(result)[:4]]


class _ListConfig:
    """The op's arguments for a dict of feature-list specs (keys sorted)."""

    def __init__(self, features):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes, self.missing_ok = [], [], [], []
        for key in sorted(features or {}):
            spec = features[key]
            if isinstance(spec, VarLenFeature):
                self.sparse_keys.append(key)
                self.sparse_types.append(_parse_dtype(spec.dtype, key))
            elif isinstance(spec, FixedLenSequenceFeature):
                if spec.default_value is not None:
                    raise ValueError(f"Feature list {key}: a FixedLenSequenceFeature in sequence_features takes no "
                                     "default_value (short lists are padded with zeros)")
                self.dense_keys.append(key)
                self.dense_types.append(_parse_dtype(spec.dtype, key))
                self.dense_shapes.append(_shape_dims(spec.shape, key))
                self.missing_ok.append(bool(spec.allow_missing))
            else:
                raise ValueError(f"Unsupported sequence feature spec for {key}: {type(spec).__name__} (expected "
                                 "FixedLenSequenceFeature or VarLenFeature)")


def _parse_sequence(serialized, context_features, sequence_features, names, name):
    if not context_features and not sequence_features:
        raise ValueError("Missing features: give context_features, sequence_features or both")
    context = _Config(context_features or {}, context=True)
    lists = _ListConfig(sequence_features)
    out = _ops.parse_sequence_example_v2(
        _strings(serialized), _strings([] if names is None else names), _strings(context.sparse_keys),
        _strings(context.dense_keys), _strings([]), _strings(lists.sparse_keys), _strings(lists.dense_keys),
        _strings([]), constant(np.asarray(lists.missing_ok, np.bool_).reshape(-1), dtype=_dtypes.bool_),
        context.dense_defaults, Ncontext_sparse=len(context.sparse_keys), context_sparse_types=context.sparse_types,
        context_ragged_value_types=[], context_ragged_split_types=[], context_dense_shapes=context.dense_shapes,
        Nfeature_list_sparse=len(lists.sparse_keys), Nfeature_list_dense=len(lists.dense_keys),
        feature_list_dense_types=lists.dense_types, feature_list_sparse_types=lists.sparse_types,
        feature_list_ragged_value_types=[], feature_list_ragged_split_types=[],
        feature_list_dense_shapes=lists.dense_shapes, name=name)
    out = [list(part) for part in tuple(out)]
    parsed_context = context.results(out[0], out[1], out[2], out[3])
    feature_lists = {key: SparseTensor(out[6][k], out[7][k], out[8][k]) for k, key in enumerate(lists.sparse_keys)}
    feature_lists.update({key: out[9][d] for d, key in enumerate(lists.dense_keys)})
    lengths = {key: out[10][d] for d, key in enumerate(lists.dense_keys)}
    return parsed_context, feature_lists, lengths


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """Parses a vector of serialized SequenceExamples (TensorFlow's tf.io.parse_sequence_example).
    Returns (context, feature_lists, lengths): context features as parse_example gives them; a
    FixedLenSequenceFeature list as [batch, longest list] + its shape, zero-padded, with its
    lengths in the third dict; a VarLenFeature list as a SparseTensor with indices
    (example, step, position)."""
    return _parse_sequence(serialized, context_features, sequence_features, example_names, name)


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """Parses one serialized SequenceExample (TensorFlow's tf.io.parse_single_sequence_example).
    Returns (context, feature_lists), without the batch dimension."""
    context, feature_lists, _ = _parse_sequence(serialized, context_features, sequence_features,
                                                None if example_name is None else example_name, name)
    return context, feature_lists


def decode_raw(input_bytes=None, out_type=None, little_endian=True, fixed_length=None, name=None, bytes=None):  # noqa: A002
    """Reinterprets the bytes of each string as a vector of ``out_type`` (TensorFlow's
    tf.io.decode_raw; TF1's ``bytes=`` spelling is accepted): the DecodeRaw op, or with
    ``fixed_length`` the DecodePaddedRaw op (each string's first fixed_length bytes, zero-padded)."""
    if input_bytes is None:
        input_bytes = bytes
    if input_bytes is None or out_type is None:
        raise ValueError("decode_raw needs input_bytes and out_type")
    if fixed_length is not None:
        if not isinstance(fixed_length, (GraphTensor, EagerTensor)):
            fixed_length = constant(np.int32(fixed_length))
        return _ops.decode_padded_raw(_strings(input_bytes), fixed_length, out_type=_dtypes.as_dtype(out_type),
                                      little_endian=bool(little_endian), name=name)
    return _ops.decode_raw(_strings(input_bytes), out_type=_dtypes.as_dtype(out_type), little_endian=bool(little_endian),
                           name=name)


def serialize_tensor(tensor, name=None):
    """The TensorProto bytes of ``tensor`` (a scalar string; TensorFlow's tf.io.serialize_tensor,
    the SerializeTensor op): byte for byte what TensorFlow writes, for every dtype."""
    if not isinstance(tensor, (GraphTensor, EagerTensor)):
        tensor = constant(tensor)
    return _ops.serialize_tensor(tensor, name=name)


def parse_tensor(serialized, out_type, name=None):
    """The tensor a serialized TensorProto holds (TensorFlow's tf.io.parse_tensor, the
    ParseTensor op); ``out_type`` must be its dtype. Its shape is known only when it runs."""
    return _ops.parse_tensor(_strings(serialized), out_type=_dtypes.as_dtype(out_type), name=name)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002  (TensorFlow's name)
    """Each string of ``bytes`` decompressed (TensorFlow's tf.io.decode_compressed, the
    DecodeCompressed op): ``compression_type`` "ZLIB", "GZIP" or "" (unchanged)."""
    return _ops.decode_compressed(_strings(bytes), compression_type=compression_type or "", name=name)
