"""Type specifications of values (TensorFlow's tf.TypeSpec family).

A TypeSpec describes a value without holding one: a TensorSpec is a (possibly partial) shape
and a dtype; SparseTensorSpec and IndexedSlicesSpec describe the composite values; OptionalSpec,
TensorArraySpec and DatasetSpec those of the containers; NoneTensorSpec describes None.
``type_spec_from_value`` gives the spec of a value. Specs compare and hash by their fields,
``is_compatible_with`` accepts a spec or a value, ``most_specific_compatible_type`` relaxes
differing dimensions to None (TensorFlow's rules).
"""

from __future__ import annotations

import numpy as np

from . import dtypes as _dtypes
from .graph import GraphTensor
from .sparse_tensor import IndexedSlices, SparseTensor
from .tensor import Tensor as EagerTensor
from .tensor_shape import TensorShape, as_shape

__all__ = ["DatasetSpec", "IndexedSlicesSpec", "NoneTensorSpec", "OptionalSpec", "SparseTensorSpec",
           "TensorArraySpec", "TensorSpec", "TypeSpec", "type_spec_from_value"]


def _shape(shape) -> TensorShape:
    return TensorShape(None) if shape is None else as_shape(shape)


def _dtype(dtype):
    return _dtypes.as_dtype(dtype)


def _shapes_compatible(a: TensorShape, b: TensorShape) -> bool:
    return a.is_compatible_with(b)


def _relaxed(a: TensorShape, b: TensorShape) -> TensorShape:
    return a.most_specific_compatible_shape(b)


class TypeSpec:
    """The spec of a kind of value (tf.TypeSpec): subclasses give ``_fields`` (a tuple of the
    values that identify the spec) and ``value_type``."""

    __slots__ = ()

    @property
    def value_type(self):
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    def _fields(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__}._fields")

    def _field_names(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__}._field_names")

    def __eq__(self, other):
        return type(self) is type(other) and self._fields() == other._fields()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._fields()))

    def __repr__(self):
        parts = ", ".join(f"{n}={v!r}" for n, v in zip(self._field_names(), self._fields()))
        return f"{type(self).__name__}({parts})"

    def __reduce__(self):
        return type(self), self._fields()

    def is_compatible_with(self, spec_or_value) -> bool:
        """True if spec_or_value (a spec, or a value whose spec is taken) could be described by
        this spec: same kind and dtypes, compatible shapes."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        if type(self) is not type(other):
            return False
        return all(_field_compatible(a, b) for a, b in zip(self._fields(), other._fields()))

    def most_specific_compatible_type(self, other) -> TypeSpec:
        """The most specific spec both this and other are compatible with; ValueError if the
        kinds or dtypes differ."""
        if type(self) is not type(other):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        fields = []
        for a, b in zip(self._fields(), other._fields()):
            if isinstance(a, TensorShape) and isinstance(b, TensorShape):
                if a.rank is not None and b.rank is not None and a.rank != b.rank:
                    fields.append(TensorShape(None))
                else:
                    fields.append(_relaxed(a, b))
            elif isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
                fields.append(a.most_specific_compatible_type(b))
            elif a == b:
                fields.append(a)
            elif isinstance(a, str) or a is None or isinstance(b, str) or b is None:  # names: drop differing ones
                fields.append(None)
            else:
                raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return type(self)(*fields)

    most_specific_common_supertype = None  # set below (TF2's name, taking a list)


def _most_specific_common_supertype(self, others):
    """TF 2's spelling: the spec compatible with self and every spec of others, or None."""
    out = self
    try:
        for o in others:
            out = out.most_specific_compatible_type(o)
    except ValueError:
        return None
    return out


TypeSpec.most_specific_common_supertype = _most_specific_common_supertype


def _field_compatible(a, b) -> bool:
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return _shapes_compatible(a, b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_compatible_with(b)
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return True  # names do not constrain values
    return a == b


class TensorSpec(TypeSpec):
    """A dense tensor's shape (None sizes unknown) and dtype (tf.TensorSpec)."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = _shape(shape)
        self._dtype = _dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @property
    def value_type(self):
        return GraphTensor

    def _fields(self):
        return (self._shape, self._dtype, self._name)

    def _field_names(self):
        return ("shape", "dtype", "name")

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype=tf.{self._dtype.name}, name={self._name!r})"

    def is_compatible_with(self, spec_or_value) -> bool:
        if not isinstance(spec_or_value, TypeSpec):
            try:
                spec_or_value = type_spec_from_value(spec_or_value)
            except TypeError:
                return False
        if not isinstance(spec_or_value, TensorSpec):
            return False
        return self._dtype == spec_or_value.dtype and self._shape.is_compatible_with(spec_or_value.shape)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A TensorSpec with spec's shape and dtype (and name unless given)."""
        return cls(spec.shape, spec.dtype, name if name is not None else getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor (its static shape and dtype); the name defaults to the graph
        tensor's op name."""
        if name is None and isinstance(tensor, GraphTensor):
            name = tensor.op.name
        return cls(TensorShape(tensor.shape), tensor.dtype, name)


class NoneTensorSpec(TypeSpec):
    """The spec of None (tf.NoneTensorSpec)."""

    __slots__ = ()

    @property
    def value_type(self):
        return type(None)

    def _fields(self):
        return ()

    def _field_names(self):
        return ()


class SparseTensorSpec(TypeSpec):
    """A SparseTensor's dense shape and dtype (tf.SparseTensorSpec)."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = _shape(shape)
        self._dtype = _dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: SparseTensor)

    def _fields(self):
        return (self._shape, self._dtype)

    def _field_names(self):
        return ("shape", "dtype")

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor (or SparseTensorValue)."""
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        return cls(np.asarray(value.dense_shape).tolist(), np.asarray(value.values).dtype)


class IndexedSlicesSpec(TypeSpec):
    """An IndexedSlices' dense shape, dtype and index dtypes (tf.IndexedSlicesSpec)."""

    __slots__ = ("_shape", "_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    def __init__(self, shape=None, dtype=_dtypes.float32, indices_dtype=_dtypes.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self._shape = _shape(shape)
        self._dtype = _dtype(dtype)
        self._indices_dtype = _dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dtype(dense_shape_dtype)
        self._indices_shape = _shape(indices_shape).with_rank(1)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    value_type = property(lambda self: IndexedSlices)

    def _fields(self):
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    def _field_names(self):
        return ("shape", "dtype", "indices_dtype", "dense_shape_dtype", "indices_shape")


class TensorArraySpec(TypeSpec):
    """A TensorArray's element shape, dtype and flags (tf.TensorArraySpec)."""

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=_dtypes.float32, dynamic_size=False, infer_shape=True):
        self._element_shape = _shape(element_shape)
        self._dtype = _dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    element_shape = property(lambda self: self._element_shape)
    dtype = property(lambda self: self._dtype)
    dynamic_size = property(lambda self: self._dynamic_size)
    infer_shape = property(lambda self: self._infer_shape)

    @property
    def value_type(self):
        from ..ops.tensor_array_ops import TensorArray  # noqa: PLC0415  (ops build on framework)
        return TensorArray

    def _fields(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def _field_names(self):
        return ("element_shape", "dtype", "dynamic_size", "infer_shape")

    @staticmethod
    def from_value(value):
        """The spec of a TensorArray."""
        return TensorArraySpec(getattr(value, "element_shape", None), value.dtype,
                               getattr(value, "dynamic_size", False), getattr(value, "_infer_shape", True))


class OptionalSpec(TypeSpec):
    """The spec of an optional value: the spec of the value it may hold (tf.OptionalSpec)."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)
    value_type = property(lambda self: object)

    def _fields(self):
        return (self._element_spec,)

    def _field_names(self):
        return ("element_spec",)

    def _structure_fields_compatible(self, other) -> bool:
        return _nested_compatible(self._element_spec, other._element_spec)

    def is_compatible_with(self, spec_or_value) -> bool:
        return isinstance(spec_or_value, OptionalSpec) and self._structure_fields_compatible(spec_or_value)

    def __hash__(self):
        return hash(("OptionalSpec", _hashable(self._element_spec)))


class DatasetSpec(TypeSpec):
    """The spec of a dataset: the (nested) spec of its elements, and dataset_shape (a dataset of
    datasets, as batching a dataset of datasets makes) (tf.data.DatasetSpec)."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    element_spec = property(lambda self: self._element_spec)

    @property
    def value_type(self):
        from ..data.dataset import Dataset  # noqa: PLC0415  (data builds on framework)
        return Dataset

    def _fields(self):
        return (self._element_spec, self._dataset_shape)

    def _field_names(self):
        return ("element_spec", "dataset_shape")

    def is_compatible_with(self, spec_or_value) -> bool:
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        return (isinstance(other, DatasetSpec) and self._dataset_shape.is_compatible_with(other._dataset_shape)
                and _nested_compatible(self._element_spec, other._element_spec))

    def __hash__(self):
        return hash(("DatasetSpec", _hashable(self._element_spec), self._dataset_shape))

    @staticmethod
    def from_value(value):
        """The spec of a dataset: its element structure as TensorSpecs / SparseTensorSpecs."""
        from ..util import nest  # noqa: PLC0415
        classes = nest.flatten(value.output_classes)
        shapes = nest.flatten(value.output_shapes)
        types = nest.flatten(value.output_types)
        specs = [SparseTensorSpec(s, t) if c is SparseTensor else TensorSpec(s, t)
                 for c, s, t in zip(classes, shapes, types)]
        return DatasetSpec(nest.pack_sequence_as(value.output_types, specs))


def _hashable(structure):
    from ..util import nest  # noqa: PLC0415
    return tuple(nest.flatten(structure))


def _nested_compatible(a, b) -> bool:
    from ..util import nest  # noqa: PLC0415
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except (ValueError, TypeError):
        return False
    return all(x.is_compatible_with(y) if isinstance(x, TypeSpec) else x == y
               for x, y in zip(nest.flatten(a), nest.flatten(b)))


def type_spec_from_value(value) -> TypeSpec:
    """The spec of value (tf.type_spec_from_value): tensors (graph or eager), variables,
    NumPy arrays and Python numbers (as tf.constant would make them), SparseTensors,
    IndexedSlices, TensorArrays, datasets and None. TypeError for anything else."""
    from ..data.dataset import Dataset  # noqa: PLC0415
    from ..ops.tensor_array_ops import TensorArray  # noqa: PLC0415
    if value is None:
        return NoneTensorSpec()
    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, IndexedSlices):
        dense = value.dense_shape
        shape = TensorShape(None)
        if dense is not None and isinstance(dense, EagerTensor):
            shape = TensorShape(np.asarray(dense.numpy()).tolist())
        elif value.values.shape is not None:
            shape = TensorShape([None] + list(TensorShape(value.values.shape).dims or [])[1:]) \
                if TensorShape(value.values.shape).rank else TensorShape(None)
        return IndexedSlicesSpec(shape, value.dtype, value.indices.dtype,
                                 None if dense is None else dense.dtype, TensorShape(value.indices.shape))
    if isinstance(value, TensorArray):
        return TensorArraySpec.from_value(value)
    if isinstance(value, Dataset):
        return DatasetSpec.from_value(value)
    if isinstance(value, GraphTensor):
        return TensorSpec(TensorShape(value.shape), value.dtype)
    if isinstance(value, EagerTensor) or (hasattr(value, "dtype") and hasattr(value, "shape")
                                          and hasattr(value, "op") or hasattr(value, "_variable_op")):
        return TensorSpec(TensorShape(value.shape), value.dtype)
    if isinstance(value, (bool, int, float, np.ndarray, np.generic, list, tuple, str, bytes)):
        from .tensor import convert_to_tensor  # noqa: PLC0415
        try:
            t = convert_to_tensor(value)
        except Exception as e:  # noqa: BLE001  (a ragged list and the like)
            raise TypeError(f"Could not build a TypeSpec for {value!r} of type {type(value).__name__}") from e
        return TensorSpec(TensorShape(t.shape), t.dtype)
    raise TypeError(f"Could not build a TypeSpec for {value!r} of type {type(value).__name__}")
