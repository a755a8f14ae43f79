"""TensorFlow 1's feature columns (tensorflow/python/feature_column/feature_column.py), composed of
opforge's ops as TensorFlow composes them: categorical ids are SparseTensors of int64 (dense int
inputs drop -1, dense string inputs drop ''), hash buckets are StringToHashBucketFast (farmhash
Fingerprint64), crosses are SparseCross with TF's hashing, embeddings are
safe_embedding_lookup_sparse. input_layer and linear_model make their variables with get_variable
under TF's scope names (input_layer/<column>/embedding_weights, linear_model/<column>/weights)."""

from __future__ import annotations

import collections

import numpy as np

import opforge as _of
from ..framework import dtypes as _dtypes
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from ..ops import lookup_ops as _lookup
from ..ops import parsing_ops as _parsing
from ..ops import sparse_ops as _sp
from ..ops import string_ops as _st



def _is_sparse(x):
    return isinstance(x, (SparseTensor, SparseTensorValue))


def _to_sparse_dropping(x, dtype):
    """A dense [batch, ...] input as a SparseTensor without TF's ignore values (-1 / '')."""
    if _is_sparse(x):
        return _sp._sparse(x)
    if not hasattr(x, "op"):
        x = _of.constant(x)
    if x.shape.ndims == 1:
        x = _of.expand_dims(x, -1)
    dt = _dtypes.as_dtype(x.dtype)
    if dt == _dtypes.string:
        keep = _of.greater(_st.length(x), 0)
    else:
        keep = _of.not_equal(x, _of.cast(-1 if dt.is_integer else 0, dt))
    indices = _of.where(keep)
    if dt == _dtypes.string:  # opforge's GatherNd takes no strings
        values = _sp._pick_strings(_of.reshape(x, [-1]), _of.reshape(keep, [-1]))
    else:
        values = _of.gather_nd(x, indices)
    return SparseTensor(indices, values, _of.shape(x, out_type="int64"))


def _dense_input(x):
    if _is_sparse(x):
        raise ValueError("The corresponding Tensor of a numeric_column must be a dense Tensor, got a SparseTensor")
    return x


class _Cache:
    """Transformed features of one input_layer/linear_model call (a column is computed once)."""

    def __init__(self, features):
        self.features, self.done = dict(features), {}

    def get(self, key):
        if isinstance(key, str):
            if key not in self.features:
                raise ValueError(f"Feature {key} is not in features dictionary.")
            return self.features[key]
        if key not in self.done:
            self.done[key] = key._transform(self)
        return self.done[key]


class _Column:
    def __lt__(self, other):
        return self.name < other.name

    def __hash__(self):
        return id(self)


class _NumericColumn(_Column, collections.namedtuple("NumericColumn",
                                                     ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: _parsing.FixedLenFeature(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        return int(np.prod(self.shape))

    def _transform(self, cache):
        x = _of.cast(_dense_input(cache.get(self.key)), "float32")
        return self.normalizer_fn(x) if self.normalizer_fn is not None else x

    def dense(self, cache):
        return _of.reshape(cache.get(self), [-1, self.variable_shape])


def numeric_column(key, shape=(1,), default_value=None, dtype=_dtypes.float32, normalizer_fn=None):
    """A dense feature of the given shape (tf.feature_column.numeric_column)."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    if default_value is not None:
        default_value = tuple(np.broadcast_to(np.asarray(default_value, dtype.as_numpy_dtype), shape).reshape(-1))
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class _Categorical(_Column):
    """ids(cache) -> (SparseTensor of int64 ids, SparseTensor of weights or None)."""

    def ids(self, cache):
        return cache.get(self), None


class _BucketizedColumn(_Categorical, collections.namedtuple("BucketizedColumn", ["source_column", "boundaries"])):
    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self):
        return self.source_column.parse_example_spec

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * int(np.prod(self.source_column.shape))

    @property
    def variable_shape(self):
        return self.num_buckets

    def _buckets(self, cache):
        x = cache.get(self.source_column)  # [batch, *shape] float
        b = _of.constant(np.asarray(self.boundaries, np.float32))
        return _of.reduce_sum(_of.cast(_of.greater_equal(_of.expand_dims(x, -1), b), "int64"), axis=-1)

    def _transform(self, cache):
        per = len(self.boundaries) + 1
        n = int(np.prod(self.source_column.shape))
        buckets = _of.reshape(self._buckets(cache), [-1, n])  # [batch, n]
        ids = _of.add(buckets, _of.constant(np.arange(n, dtype=np.int64) * per))
        batch = _of.shape(ids, out_type="int64")[0]
        rows = _of.reshape(_of.tile(_of.expand_dims(_of.range(batch), 1), [1, n]), [-1])
        cols = _of.tile(_of.range(np.int64(n)), _of.expand_dims(batch, 0))
        indices = _of.stack([rows, cols], axis=1)
        return SparseTensor(indices, _of.reshape(ids, [-1]), _of.stack([batch, np.int64(n)]))

    def dense(self, cache):
        per = len(self.boundaries) + 1
        one = _of.one_hot(self._buckets(cache), per, 1.0, 0.0, dtype="float32")
        return _of.reshape(one, [-1, self.num_buckets])


def bucketized_column(source_column, boundaries):
    """A numeric column's values as bucket ids (tf.feature_column.bucketized_column)."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries or list(boundaries) != sorted(boundaries) or len(set(boundaries)) != len(boundaries):
        raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(float(b) for b in boundaries))


class _IdentityColumn(_Categorical, collections.namedtuple("IdentityColumn", ["key", "num_buckets", "default_value"])):
    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: _parsing.VarLenFeature(_dtypes.int64)}

    def _transform(self, cache):
        sp = _to_sparse_dropping(cache.get(self.key), _dtypes.int64)
        values = _of.cast(sp.values, "int64")
        if self.default_value is not None:
            bad = _of.logical_or(_of.less(values, np.int64(0)), _of.greater_equal(values, np.int64(self.num_buckets)))
            values = _of.select_v2(bad, _of.fill(_of.shape(values), np.int64(self.default_value)), values)
        else:  # as TF: ids outside [0, num_buckets) fail when run
            from ..ops import check_ops  # noqa: PLC0415
            checks = [check_ops.assert_less(values, np.int64(self.num_buckets),
                                            message=f"Bucket index for categorical column {self.key} >= num_buckets"),
                      check_ops.assert_greater_equal(values, np.int64(0),
                                                     message=f"Negative bucket index for categorical column {self.key}")]
            with _of.control_dependencies(checks):
                values = _of.identity(values)
        return SparseTensor(sp.indices, values, sp.dense_shape)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer ids used as they are (tf.feature_column.categorical_column_with_identity)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return _IdentityColumn(key, int(num_buckets), default_value)


class _VocabularyColumn(_Categorical, collections.namedtuple(
        "VocabularyColumn", ["key", "vocabulary", "dtype", "default_value", "num_oov_buckets"])):
    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return len(self.vocabulary) + self.num_oov_buckets

    @property
    def parse_example_spec(self):
        return {self.key: _parsing.VarLenFeature(self.dtype)}

    def _transform(self, cache):
        """Ids from a lookup table of the vocabulary (TensorFlow's index_table_from_tensor): a
        graph's table is initialized by tf.tables_initializer(), as in TensorFlow."""
        sp = _to_sparse_dropping(cache.get(self.key), self.dtype)
        values = sp.values if self.dtype == _dtypes.string else _of.cast(sp.values, "int64")
        key_dtype = _dtypes.string if self.dtype == _dtypes.string else _dtypes.int64
        vocab = _of.constant(np.asarray(self.vocabulary, object if key_dtype == _dtypes.string else np.int64),
                             dtype=key_dtype)
        init = _lookup.KeyValueTensorInitializer(vocab, np.arange(len(self.vocabulary), dtype=np.int64),
                                                 name=f"{self.key}_lookup/table_init")
        if self.num_oov_buckets:
            table = _lookup.StaticVocabularyTable(init, self.num_oov_buckets, name=f"{self.key}_lookup")
        else:
            table = _lookup.StaticHashTable(init, np.int64(self.default_value), name=f"{self.key}_lookup")
        return SparseTensor(sp.indices, table.lookup(values), sp.dense_shape)


def _vocab_dtype(vocabulary, dtype):
    if dtype is not None:
        return _dtypes.as_dtype(dtype)
    return _dtypes.string if isinstance(vocabulary[0], (str, bytes)) else _dtypes.int64


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Ids by position in an in-memory vocabulary (tf.feature_column.categorical_column_with_vocabulary_list)."""
    vocabulary_list = list(vocabulary_list)
    if not vocabulary_list:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    if num_oov_buckets < 0:
        raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets}.")
    if num_oov_buckets and default_value != -1:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
    return _VocabularyColumn(key, tuple(vocabulary_list), _vocab_dtype(vocabulary_list, dtype), default_value,
                             int(num_oov_buckets))


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=_dtypes.string):
    """Ids by line number in a vocabulary file, one entry a line (tf.feature_column's)."""
    with open(vocabulary_file, encoding="utf-8") as f:
        words = [line.rstrip("\n") for line in f]
    if vocabulary_size is not None:
        if vocabulary_size > len(words):
            raise ValueError(f"Invalid vocab_size in {key}: {vocabulary_size}.")
        words = words[:vocabulary_size]
    dtype = _dtypes.as_dtype(dtype)
    if dtype.is_integer:
        words = [int(w) for w in words]
    return categorical_column_with_vocabulary_list(key, words, dtype, -1 if default_value is None else default_value,
                                                   num_oov_buckets)


class _HashColumn(_Categorical, collections.namedtuple("HashColumn", ["key", "hash_bucket_size", "dtype"])):
    @property
    def name(self):
        return self.key

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    @property
    def parse_example_spec(self):
        return {self.key: _parsing.VarLenFeature(self.dtype)}

    def _transform(self, cache):
        sp = _to_sparse_dropping(cache.get(self.key), self.dtype)
        text = sp.values if self.dtype == _dtypes.string else _of.as_string(sp.values)
        return SparseTensor(sp.indices, _st.to_hash_bucket_fast(text, self.hash_bucket_size), sp.dense_shape)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=_dtypes.string):
    """Ids as Fingerprint64 of the value modulo hash_bucket_size (tf.feature_column's)."""
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype == _dtypes.string or dtype.is_integer):
        raise ValueError(f"dtype must be string or integer. dtype: {dtype}, column_name: {key}")
    return _HashColumn(key, int(hash_bucket_size), dtype)


class _CrossedColumn(_Categorical, collections.namedtuple("CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    @property
    def parse_example_spec(self):
        spec = {}
        for k in self.keys:
            spec.update({k: _parsing.VarLenFeature(_dtypes.string)} if isinstance(k, str) else k.parse_example_spec)
        return spec

    def _transform(self, cache):
        inputs = []
        for k in self.keys:
            if isinstance(k, str):
                x = cache.get(k)  # as TF: the raw feature, a dense one kept dense (crossed after the sparse)
                if not _is_sparse(x):
                    x = x if hasattr(x, "op") else _of.constant(x)
                    x = _of.expand_dims(x, -1) if x.shape.ndims == 1 else x
                inputs.append(x)
            else:
                inputs.append(k.ids(cache)[0])
        return _sp.cross_hashed(inputs, num_buckets=self.hash_bucket_size, hash_key=self.hash_key)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed cross of string keys and categorical columns (tf.feature_column.crossed_column)."""
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for k in keys:
        if not isinstance(k, (str, _Categorical)) or isinstance(k, _HashColumn):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {k}")
    return _CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


class _WeightedColumn(_Categorical, collections.namedtuple("WeightedColumn",
                                                           ["categorical_column", "weight_feature_key", "dtype"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def num_buckets(self):
        return self.categorical_column.num_buckets

    @property
    def parse_example_spec(self):
        spec = dict(self.categorical_column.parse_example_spec)
        spec[self.weight_feature_key] = _parsing.VarLenFeature(self.dtype)
        return spec

    def _transform(self, cache):
        return cache.get(self.categorical_column)

    def ids(self, cache):
        ids = cache.get(self.categorical_column)
        w = _to_sparse_dropping(cache.get(self.weight_feature_key), self.dtype)
        return ids, SparseTensor(ids.indices, _of.cast(w.values, "float32"), ids.dense_shape)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=_dtypes.float32):
    """A categorical column whose ids carry weights from another feature (tf.feature_column's)."""
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return _WeightedColumn(categorical_column, weight_feature_key, dtype)
