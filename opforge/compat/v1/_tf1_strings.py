"""TensorFlow 1's names for the string and SparseTensor ops: tf.strings, tf.sparse, their
top-level TF1 spellings (tf.string_split, tf.substr, tf.sparse_add, tf.sparse_reduce_sum,
tf.sparse_tensor_dense_matmul, ...), tf.io's base64 names and tf.nn's sparse embedding lookups.
Each is backed by opforge's own modules (ops/string_ops, ops/sparse_ops, ops/embedding_ops);
this file spells them. It is imported after _tf1_io, whose tf.sparse it extends."""

from __future__ import annotations

import numpy as np

import opforge as _of
from opforge.compat._namespace import Namespace, SparseTensor, in_default_graph
from opforge.compat.v1 import _tf1
from opforge.framework.sparse_tensor import IndexedSlices, SparseTensorValue, sparse_placeholder
from opforge.ops import embedding_ops as _embedding
from opforge.ops import sparse_ops as _sp
from opforge.ops import string_ops as _st

_STRING_NAMES = (
    "as_string", "join", "length", "lower", "upper", "strip", "reduce_join", "ngrams", "regex_full_match", "regex_replace",
    "split", "substr", "to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "to_number",
    "unsorted_segment_join",
)
_SPARSE_NAMES = (
    "add", "bincount", "concat", "cross", "cross_hashed", "eye", "mask", "fill_empty_rows", "from_dense", "matmul", "maximum", "minimum", "merge", "reduce_max",
    "reduce_max_sparse", "reduce_sum", "reduce_sum_sparse", "reorder", "reset_shape", "reshape", "retain",
    "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "softmax", "sparse_dense_matmul", "split",
    "to_dense", "to_indicator", "transpose", "expand_dims",
)

__all__ = [
    "strings", "sparse", "as_string", "string_join", "string_split", "string_strip", "string_to_hash_bucket",
    "string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "string_to_number", "substr", "reduce_join",
    "regex_replace", "encode_base64", "decode_base64", "fingerprint", "sparse_add", "sparse_concat", "sparse_fill_empty_rows",
    "sparse_maximum", "sparse_minimum", "sparse_merge", "sparse_reduce_max", "sparse_reduce_max_sparse",
    "sparse_reduce_sum", "sparse_reduce_sum_sparse", "sparse_reset_shape", "sparse_reshape", "sparse_retain",
    "sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum", "sparse_slice", "sparse_softmax",
    "sparse_split", "sparse_tensor_dense_matmul", "sparse_to_dense", "sparse_to_indicator", "sparse_transpose",
    "sparse_matmul", "sparse_mask", "serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse", "convert_to_tensor_or_sparse_tensor", "IndexedSlices", "convert_to_tensor_or_indexed_slices",
]

strings = Namespace("strings", {n: getattr(_st, n) for n in _STRING_NAMES})
sparse = Namespace("sparse", {n: getattr(_sp, n) for n in _SPARSE_NAMES}, SparseTensor=SparseTensor,
                   placeholder=sparse_placeholder)

# ---- TF1's top-level spellings
as_string, string_join, string_strip, substr = _st.as_string, _st.join, _st.strip, _st.substr
string_split, string_to_number, string_to_hash_bucket = _st.string_split, _st.to_number, _st.to_hash_bucket
string_to_hash_bucket_fast, string_to_hash_bucket_strong = _st.to_hash_bucket_fast, _st.to_hash_bucket_strong
regex_replace, encode_base64, decode_base64 = _st.regex_replace, _st.encode_base64, _st.decode_base64
fingerprint = _st.fingerprint


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None, reduction_indices=None, keepdims=None):
    """tf.compat.v1.reduce_join (and tf.compat.v1.strings.reduce_join): TF1's keywords."""
    from opforge.compat._namespace import legacy_argument  # noqa: PLC0415
    axis = legacy_argument("axis", axis, "reduction_indices", reduction_indices)
    keep = legacy_argument("keepdims", keepdims, "keep_dims", keep_dims)
    return _st.reduce_join(inputs, axis=axis, keepdims=bool(keep), separator=separator, name=name)


strings.reduce_join = in_default_graph(reduce_join)

sparse_add, sparse_concat, sparse_fill_empty_rows = _sp.add, _sp.concat, _sp.fill_empty_rows
sparse_maximum, sparse_minimum, sparse_merge = _sp.maximum, _sp.minimum, _sp.merge
sparse_reduce_max, sparse_reduce_max_sparse = _sp.reduce_max, _sp.reduce_max_sparse
sparse_reduce_sum, sparse_reduce_sum_sparse = _sp.reduce_sum, _sp.reduce_sum_sparse
sparse_reset_shape, sparse_reshape, sparse_retain = _sp.reset_shape, _sp.reshape, _sp.retain
sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum = _sp.segment_mean, _sp.segment_sqrt_n, _sp.segment_sum
sparse_slice, sparse_softmax, sparse_split, sparse_transpose = _sp.slice, _sp.softmax, _sp.split, _sp.transpose
sparse_tensor_dense_matmul, sparse_to_indicator = _sp.sparse_dense_matmul, _sp.to_indicator
sparse_mask = _sp.mask
serialize_sparse, serialize_many_sparse = _sp.serialize_sparse, _sp.serialize_many_sparse
deserialize_many_sparse = _sp.deserialize_many_sparse


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """tf.sparse_to_dense: the SparseToDense op with TF1's argument order."""
    values = sparse_values if hasattr(sparse_values, "dtype") else np.asarray(sparse_values)
    dtype = _of.as_dtype(values.dtype)
    default = default_value if hasattr(default_value, "dtype") else np.asarray(default_value, dtype.as_numpy_dtype)
    return _of.ops.sparse_to_dense(sparse_indices, output_shape, values, default,
                                   validate_indices=bool(validate_indices), name=name)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """tf.sparse_matmul: a dense matrix product (the *_is_sparse flags are TF's hints)."""
    return _of.matmul(a, b, transpose_a, transpose_b, name=name)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor (from a SparseTensorValue too) as is, anything else as a tensor."""
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        sp = SparseTensor.from_value(value)
        if dtype is not None and _of.as_dtype(dtype) != _of.as_dtype(sp.dtype):
            raise ValueError(f"Sparse dtype mismatch: requested {_of.as_dtype(dtype).name}, got {sp.dtype.name}")
        return sp
    return _tf1.convert_to_tensor(value, dtype=dtype, name=name)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """An IndexedSlices as is, anything else as a tensor."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and _of.as_dtype(dtype) != _of.as_dtype(value.dtype):
            raise ValueError(f"Incompatible dtype: requested {_of.as_dtype(dtype).name}, got {value.dtype.name}")
        return value
    return _tf1.convert_to_tensor(value, dtype=dtype, name=name)


# ---- tf.io's base64 names and tf.nn's sparse embedding lookups
_tf1.io.encode_base64 = in_default_graph(encode_base64)
_tf1.io.decode_base64 = in_default_graph(decode_base64)
_tf1.io.serialize_sparse = in_default_graph(serialize_sparse)
_tf1.io.serialize_many_sparse = in_default_graph(serialize_many_sparse)
_tf1.io.deserialize_many_sparse = in_default_graph(deserialize_many_sparse)
_tf1.nn.embedding_lookup_sparse = in_default_graph(_embedding.embedding_lookup_sparse)
_tf1.nn.safe_embedding_lookup_sparse = in_default_graph(_embedding.safe_embedding_lookup_sparse)
