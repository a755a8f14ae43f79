"""Lookup tables (TensorFlow's tf.lookup): hash tables that are resources of the Session
(HashTableV2 and its siblings, kernels/cpu/lookup), with TensorFlow's classes over them.

A static table (``StaticHashTable``, ``StaticVocabularyTable``) is filled once by an
initializer (``KeyValueTensorInitializer``, ``TextFileInitializer``): eagerly at construction;
in a graph by an op that goes into the TABLE_INITIALIZERS collection, which
``tables_initializer()`` runs. Each Session has its own tables, so a program runs the
initializer in every Session it makes. Mutable tables (``experimental.MutableHashTable``,
``experimental.DenseHashTable``) are changed by ops (insert, remove) like variables are.
"""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework import graph as _graph
from ..framework.collections import GraphKeys
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import Tensor, TensorShape, convert_to_tensor
from ..generated import gen_lookup_ops as _gen
from ..generated import gen_math_ops as _gen_math
from ..generated import gen_strings_ops as _gen_strings
from . import math_ops as _math_ops
from .string_ops import as_string as _as_string_op

__all__ = ["LookupInterface", "StaticHashTable", "StaticVocabularyTable", "KeyValueTensorInitializer",
           "TextFileInitializer", "TextFileIndex", "MutableHashTable", "DenseHashTable", "tables_initializer"]


class TextFileIndex:
    """Special key_index / value_index values of TextFileInitializer."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _graph_of(tensor):
    return tensor.graph if isinstance(tensor, _graph.GraphTensor) else None


def _add_initializer(op) -> None:
    """Puts a graph's initializer op into its TABLE_INITIALIZERS (eagerly the op already ran)."""
    g = getattr(op, "graph", None)
    if g is not None and op is not None:
        g.add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)


def _keys_tensor(keys, dtype, where):
    if isinstance(keys, SparseTensor):
        return keys
    keys = _to_tensor(keys, dtype, where)
    if keys.dtype != dtype:
        raise TypeError(f"Dtype of argument `keys` must be {dtype}, received: {keys.dtype}")
    return keys


def _is_tensor(value) -> bool:
    return isinstance(value, (Tensor, _graph.GraphTensor)) or hasattr(value, "_eager_tensor")


def _to_tensor(value, dtype, where):
    """value as a tensor: a graph's tensor as it is, anything else converted (to dtype)."""
    if isinstance(value, _graph.GraphTensor):
        return value
    return convert_to_tensor(value, dtype=None if _is_tensor(value) else dtype, op=where)


def _lookup_sparse(keys, fn):
    """fn over a SparseTensor's values, keeping its indices."""
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, fn(keys.values), keys.dense_shape)
    return fn(keys)


class LookupInterface:
    """What every table offers: its dtypes, its resource handle, lookup and size."""

    def __init__(self, key_dtype, value_dtype, name=None):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._name = name
        self._resource_handle = None

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def name(self):
        return self._name

    @property
    def resource_handle(self):
        return self._resource_handle

    def size(self, name=None):
        """The number of entries, an int64 scalar."""
        return _gen.lookup_table_size_v2(self._resource_handle, name=name)

    def _check_dtypes(self, key_dtype, value_dtype):
        if _dtypes.as_dtype(key_dtype) != self._key_dtype:
            raise TypeError(f"Invalid key dtype for table, expected {self._key_dtype} but got {key_dtype}.")
        if _dtypes.as_dtype(value_dtype) != self._value_dtype:
            raise TypeError(f"Invalid value dtype for table, expected {self._value_dtype} but got {value_dtype}.")


class KeyValueTensorInitializer:
    """Initializes a table from a keys tensor and a values tensor of the same shape."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = _to_tensor(keys, key_dtype, "KeyValueTensorInitializer")
        self._values = _to_tensor(values, value_dtype, "KeyValueTensorInitializer")
        self._name = name if name is not None else "key_value_init"
        self.key_dtype, self.value_dtype = self._keys.dtype, self._values.dtype

    def initialize(self, table):
        """The op filling `table` (eagerly: fills it), added to TABLE_INITIALIZERS."""
        table._check_dtypes(self._keys.dtype, self._values.dtype)
        op = _gen.lookup_table_import_v2(table.resource_handle, self._keys, self._values, name=self._name)
        _add_initializer(op)
        return op


class TextFileInitializer:
    """Initializes a table from a text file: each line gives an entry, its key and value the
    fields key_index and value_index of the line split at delimiter (TextFileIndex.LINE_NUMBER:
    the line's number plus value_index_offset; TextFileIndex.WHOLE_LINE: the whole line)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        key_dtype, value_dtype = _dtypes.as_dtype(key_dtype), _dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != _dtypes.int64:
            raise ValueError(f"`key_dtype` must be int64 if `key_index` is {TextFileIndex.LINE_NUMBER}, "
                             f"received: {key_dtype}")
        if (key_index == TextFileIndex.WHOLE_LINE and not key_dtype.is_integer and key_dtype != _dtypes.string):
            raise ValueError(f"`key_dtype` should be either integer or string for `key_index` "
                             f"{TextFileIndex.WHOLE_LINE}, received: {key_dtype}")
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != _dtypes.int64:
            raise ValueError(f"`value_dtype` must be int64 for `value_index` {TextFileIndex.LINE_NUMBER}, "
                             f"received: {value_dtype}")
        if value_index == TextFileIndex.WHOLE_LINE and not value_dtype.is_integer and value_dtype != _dtypes.string:
            raise ValueError(f"`value_dtype` should be either integer or string for `value_index` "
                             f"{TextFileIndex.WHOLE_LINE}, received: {value_dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._offset = vocab_size, delimiter, value_index_offset
        self._name = name if name is not None else "text_file_init"
        self.key_dtype, self.value_dtype = key_dtype, value_dtype

    def initialize(self, table):
        """The op filling `table` from the file (eagerly: fills it), added to TABLE_INITIALIZERS."""
        table._check_dtypes(self.key_dtype, self.value_dtype)
        filename = self._filename
        if not _is_tensor(filename):
            filename = convert_to_tensor(filename, dtype=_dtypes.string, op="TextFileInitializer")
        op = _gen.initialize_table_from_text_file_v2(
            table.resource_handle, filename, self._key_index, self._value_index,
            -1 if self._vocab_size is None else self._vocab_size, self._delimiter, self._offset, name=self._name)
        _add_initializer(op)
        g = getattr(op, "graph", None)
        if g is not None and not _is_tensor(self._filename):
            g.add_to_collection(GraphKeys.ASSET_FILEPATHS, self._filename)
        return op


class StaticHashTable(LookupInterface):
    """A table whose entries an initializer sets once; keys it lacks find default_value."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        super().__init__(initializer.key_dtype, initializer.value_dtype, name or "hash_table")
        self._initializer = initializer
        self._default_value = _to_tensor(default_value, self._value_dtype, "StaticHashTable")
        if experimental_is_anonymous:
            self._resource_handle = _gen.anonymous_hash_table(self._key_dtype, self._value_dtype, name=self._name)
        else:
            self._resource_handle = _gen.hash_table_v2(self._key_dtype, self._value_dtype, name=self._name)
        self._init_op = initializer.initialize(self)

    @property
    def default_value(self):
        return self._default_value

    @property
    def initializer(self):
        """The op that initialized the table (a graph's: run it, or tables_initializer())."""
        return self._init_op

    def lookup(self, keys, name=None):
        """The values of keys (a Tensor or SparseTensor), default_value where a key is absent."""
        keys = _keys_tensor(keys, self._key_dtype, "StaticHashTable.lookup")

        def find(k):
            values = _gen.lookup_table_find_v2(self._resource_handle, k, self._default_value, name=name)
            if _graph_of(values) is not None:
                values.set_shape(k.shape)
            return values
        return _lookup_sparse(keys, find)

    def export(self, name=None):
        """(keys, values): every entry, in no particular order."""
        return _gen.lookup_table_export_v2(self._resource_handle, self._key_dtype, self._value_dtype, name=name)


class StaticVocabularyTable(LookupInterface):
    """Ids of a vocabulary (an initializer's int64 values), with keys it lacks hashed into
    num_oov_buckets further ids after the vocabulary (StringToHashBucketFast, TensorFlow's hash)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer is None:
            raise ValueError("`initializer` must not be None")  # opforge: no table-less form
        if initializer.value_dtype != _dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {_dtypes.int64} but got {initializer.value_dtype}.")
        key_dtype = _dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None else initializer.key_dtype
        if key_dtype.is_integer != initializer.key_dtype.is_integer:
            raise TypeError(f"Invalid `key_dtype`, expected {initializer.key_dtype} but got {key_dtype}.")
        super().__init__(key_dtype, _dtypes.int64, name or "hash_table")
        self._num_oov_buckets = num_oov_buckets
        self._table = StaticHashTable(initializer, -1, name=self._name,
                                      experimental_is_anonymous=experimental_is_anonymous)
        self._resource_handle = self._table.resource_handle

    @property
    def initializer(self):
        return self._table.initializer

    def size(self, name=None):
        return _math_ops.add(self._table.size(), self._num_oov_buckets, name=name)

    def lookup(self, keys, name=None):
        keys = _keys_tensor(keys, self._key_dtype, "StaticVocabularyTable.lookup")

        def ids(values):
            if self._table.key_dtype == _dtypes.int64 and values.dtype != _dtypes.int64:
                values = _math_ops.cast(values, _dtypes.int64)
            text = values if values.dtype == _dtypes.string else _as_string_op(values)
            buckets = _gen_strings.string_to_hash_bucket_fast(text, self._num_oov_buckets)
            found = self._table.lookup(values)
            buckets = _math_ops.add(buckets, self._table.size())
            return _gen_math.select_v2(_gen_math.not_equal(found, self._table.default_value), found, buckets,
                                       name=name)
        return _lookup_sparse(keys, ids)


class MutableHashTable(LookupInterface):
    """A table that insert and remove change; keys it lacks find default_value (whose shape
    is every value's shape)."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        del checkpoint  # opforge's Saver does not save tables
        super().__init__(key_dtype, value_dtype, name)
        self._default_value = _to_tensor(default_value, self._value_dtype, "MutableHashTable")
        value_shape = TensorShape(self._default_value.shape)
        if experimental_is_anonymous and value_shape.ndims == 0:
            self._resource_handle = _gen.anonymous_mutable_hash_table(self._key_dtype, self._value_dtype, name=name)
        elif value_shape.ndims == 0:
            self._resource_handle = _gen.mutable_hash_table_v2(self._key_dtype, self._value_dtype, name=name)
        else:
            self._resource_handle = _gen.mutable_hash_table_of_tensors_v2(
                self._key_dtype, self._value_dtype, value_shape=value_shape.as_list(), name=name)
        self._value_shape = value_shape

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of keys; default_value (or dynamic_default_values) where a key is absent."""
        keys = _keys_tensor(keys, self._key_dtype, "MutableHashTable.lookup")
        default = self._default_value if dynamic_default_values is None else _to_tensor(
            dynamic_default_values, self._value_dtype, "MutableHashTable.lookup")
        values = _gen.lookup_table_find_v2(self._resource_handle, keys, default, name=name)
        if _graph_of(values) is not None and dynamic_default_values is None:
            values.set_shape(TensorShape(keys.shape).concatenate(self._value_shape))
        return values

    def insert(self, keys, values, name=None):
        """Sets the values of keys (values has shape keys.shape + the value shape)."""
        keys = _keys_tensor(keys, self._key_dtype, "MutableHashTable.insert")
        values = _to_tensor(values, self._value_dtype, "MutableHashTable.insert")
        return _gen.lookup_table_insert_v2(self._resource_handle, keys, values, name=name)

    def remove(self, keys, name=None):
        """Removes keys (absent ones are ignored)."""
        keys = _keys_tensor(keys, self._key_dtype, "MutableHashTable.remove")
        return _gen.lookup_table_remove_v2(self._resource_handle, keys, name=name)

    def export(self, name=None):
        """(keys, values): every entry, in no particular order."""
        return _gen.lookup_table_export_v2(self._resource_handle, self._key_dtype, self._value_dtype, name=name)


class DenseHashTable(MutableHashTable):
    """A mutable table in which two keys, empty_key and deleted_key, may not be used
    (TensorFlow's open-addressing MutableDenseHashTable; opforge's export gives the entries
    only, not the bucket array)."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        del checkpoint, experimental_is_anonymous
        LookupInterface.__init__(self, key_dtype, value_dtype, name)
        self._default_value = _to_tensor(default_value, self._value_dtype, "DenseHashTable")
        self._value_shape = TensorShape(self._default_value.shape)
        empty_key = _to_tensor(empty_key, self._key_dtype, "DenseHashTable")
        deleted_key = _to_tensor(deleted_key, self._key_dtype, "DenseHashTable")
        self._resource_handle = _gen.mutable_dense_hash_table_v2(
            empty_key, deleted_key, self._value_dtype, value_shape=self._value_shape.as_list(),
            initial_num_buckets=initial_num_buckets if initial_num_buckets is not None else 131072, name=name)

    def insert_or_assign(self, keys, values, name=None):
        return self.insert(keys, values, name=name)

    def erase(self, keys, name=None):
        return self.remove(keys, name=name)


def tables_initializer(name="init_all_tables"):
    """The op running every initializer of the default graph's TABLE_INITIALIZERS (a NoOp if none)."""
    g = _graph.get_default_graph()
    inits = g.get_collection(GraphKeys.TABLE_INITIALIZERS)
    with g.control_dependencies(inits):
        return g.create_op("NoOp", [], {}, name=name)

