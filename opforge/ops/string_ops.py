"""``of.strings``: TensorFlow's tf.strings over the string ops (opdefs/strings/): joining,
splitting into SparseTensors, substrings, case, regular expressions (RE2), number conversion,
hash buckets (TensorFlow's values) and web-safe base64."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.arguments import legacy_argument as _either
from ..framework import dtypes as _dtypes
from ..framework.errors import UnimplementedError
from ..framework.api import constant
from ..framework.sparse_tensor import SparseTensor

__all__ = [
    "as_string", "decode_base64", "encode_base64", "fingerprint", "join", "ngrams", "length", "lower", "reduce_join", "regex_full_match",
    "regex_replace", "split", "string_split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
    "to_hash_bucket_strong", "to_number", "unsorted_segment_join", "upper",
]


def _strings(x):
    """x as a string tensor (Python str and bytes, lists of them, or a tensor)."""
    if hasattr(x, "dtype") and (hasattr(x, "op") or hasattr(x, "numpy")):
        return x
    from ..framework.api import constant  # noqa: PLC0415
    return constant(x, dtype=_dtypes.string)


def _static(x):
    """x as bytes when it is a Python string (a pattern fixed at graph construction), else None."""
    if isinstance(x, str):
        return x.encode()
    return x if isinstance(x, bytes) else None


def _rank(t):
    return getattr(getattr(t, "shape", None), "rank", None)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each element formatted as a string (printf rules; see the AsString op)."""
    return _ops.as_string(input, precision=precision, scientific=scientific, shortest=shortest, width=width,
                          fill=fill, name=name)


def join(inputs, separator="", name=None):
    """Element-wise concatenation of the string tensors in inputs, separator between them."""
    return _ops.string_join([_strings(x) for x in inputs], separator=separator, name=name)


def length(input, name=None, unit="BYTE"):  # noqa: A002
    return _ops.string_length(_strings(input), unit=unit, name=name)


def lower(input, encoding="", name=None):  # noqa: A002
    return _ops.string_lower(_strings(input), encoding=encoding, name=name)


def upper(input, encoding="", name=None):  # noqa: A002
    return _ops.string_upper(_strings(input), encoding=encoding, name=name)


def strip(input, name=None):  # noqa: A002
    return _ops.string_strip(_strings(input), name=name)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along axis (all of them, row-major, when None)."""
    inputs = _strings(inputs)
    if axis is None:
        rank = _rank(inputs)
        if rank is not None:
            axis = np.arange(rank - 1, -1, -1, dtype=np.int32)  # the op joins its first axis fastest
        else:
            r = _ops.rank(inputs)
            axis = _ops.range(_ops.sub(r, np.int32(1)), np.int32(-1), np.int32(-1))
    elif not hasattr(axis, "dtype"):
        axis = np.asarray(axis, np.int32)
    return _ops.reduce_join(inputs, axis, keep_dims=bool(keepdims), separator=separator, name=name)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each string matches pattern (RE2) as a whole; a Python-string pattern compiles
    once (StaticRegexFullMatch), as in TensorFlow."""
    static = _static(pattern)
    if static is not None:
        return _ops.static_regex_full_match(_strings(input), pattern=static, name=name)
    return _ops.regex_full_match(_strings(input), pattern, name=name)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """The matches of pattern (RE2) replaced by rewrite (\\1 .. \\9 name groups)."""
    sp, sr = _static(pattern), _static(rewrite)
    if sp is not None and sr is not None:
        return _ops.static_regex_replace(_strings(input), pattern=sp, rewrite=sr, replace_global=replace_global,
                                         name=name)
    return _ops.regex_replace(_strings(input), _strings(pattern), _strings(rewrite), replace_global=replace_global,
                              name=name)


def _as_vector(t):
    return _ops.reshape(t, np.array([-1], np.int64)) if _rank(t) == 0 else t


def _sparse_result(parts, result_type):
    if result_type != "SparseTensor":
        raise UnimplementedError(f"result_type={result_type!r}: opforge has no RaggedTensor; use 'SparseTensor'",
                                 "StringSplitV2")
    indices, values, shape = parts
    return SparseTensor(indices, values, shape)


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):  # noqa: A002
    """Splits each string of a vector at sep (whitespace when None), as Python's str.split, into
    a SparseTensor of shape [len(input), max tokens] (tf.compat.v1.strings.split)."""
    input = _as_vector(_strings(_either("input", input, "source", source)))  # noqa: A001
    parts = _ops.string_split_v2(input, _strings(b"" if sep is None else sep), maxsplit=maxsplit, name=name)
    return _sparse_result(parts, result_type)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """TensorFlow 1's tf.string_split: splits at any character of the delimiter (' ' when
    neither sep nor delimiter is given; '' splits into bytes), empty tokens dropped with
    skip_empty."""
    delimiter = _either("sep", sep, "delimiter", delimiter)
    parts = _ops.string_split(_as_vector(_strings(source)), _strings(b" " if delimiter is None else delimiter),
                              skip_empty=skip_empty, name=name)
    return _sparse_result(parts, result_type)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """input[pos:pos + len] per element, in bytes or UTF-8 characters (unit)."""
    def index(v):
        return v if hasattr(v, "dtype") else np.asarray(v, np.int32)
    pos, len_ = index(pos), index(len)
    if hasattr(pos, "dtype") and hasattr(len_, "dtype") and _dtypes.as_dtype(pos.dtype) != _dtypes.as_dtype(len_.dtype):
        len_ = _ops.cast(len_, _dtypes.as_dtype(pos.dtype))
    return _ops.substr(_strings(input), pos, len_, unit=unit, name=name)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string modulo num_buckets: TensorFlow's bucket numbers."""
    return _ops.string_to_hash_bucket_fast(_strings(input), num_buckets=int(num_buckets), name=name)


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 keyed by key (two integers) of each string modulo num_buckets."""
    return _ops.string_to_hash_bucket_strong(_strings(input), num_buckets=int(num_buckets),
                                             key=[int(k) for k in key], name=name)


def to_hash_bucket(string_tensor=None, num_buckets=None, name=None, input=None):  # noqa: A002
    """TensorFlow's legacy Hash64 of each string modulo num_buckets (prefer to_hash_bucket_fast)."""
    t = _either("input", input, "string_tensor", string_tensor)
    return _ops.string_to_hash_bucket(_strings(t), num_buckets=int(num_buckets), name=name)


def to_number(string_tensor=None, out_type=_dtypes.float32, name=None, input=None):  # noqa: A002
    t = _either("input", input, "string_tensor", string_tensor)
    return _ops.string_to_number(_strings(t), out_type=out_type, name=name)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    return _ops.unsorted_segment_join(_strings(inputs), segment_ids, num_segments, separator=separator, name=name)


def encode_base64(input, pad=False, name=None):  # noqa: A002
    return _ops.encode_base64(_strings(input), pad=pad, name=name)


def decode_base64(input, name=None):  # noqa: A002
    return _ops.decode_base64(_strings(input), name=name)


def fingerprint(data, method="farmhash64", name=None):
    """8 bytes (uint8) per row of data: FarmHash Fingerprint64 of the row, TensorFlow's values
    (tf.fingerprint)."""
    if not (hasattr(data, "op") or hasattr(data, "numpy")):  # Python or NumPy data
        arr = np.asarray(data)
        data = _strings(arr) if arr.dtype.kind in "OSU" else arr
    return _ops.fingerprint(data, _strings(method), name=name)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The ngrams of the last dimension of a dense string tensor (tf.strings.ngrams): for each
    width in ngram_width, the joined runs of that many consecutive strings, the rows padded
    with pad_values (a string, or a (left, right) pair) padding_width times (width - 1 when
    None). The output has data's shape with the last dimension the number of ngrams (opforge
    has no RaggedTensor: rows of different lengths are not offered)."""
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2 or not all(isinstance(v, (str, bytes)) for v in pad_values):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values
    elif isinstance(pad_values, (str, bytes)):
        left_pad = right_pad = pad_values
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    if any(w < 1 for w in widths):
        raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
    data = _strings(data)
    rank = _rank(data)
    if rank is None:
        raise ValueError("Rank of data must be known.")
    if rank == 0:
        raise ValueError("Data must have rank>0")
    # (opforge's Reshape, Gather and Shape take no strings: a same-shaped int proxy gives the shape,
    # UnsortedSegmentJoin with one segment per element flattens, SparseToDense lays the result out.)
    proxy = _ops.string_length(data)
    shape = _ops.shape(proxy, out_type="int64")
    n = _ops.size(proxy, out_type="int64")
    width = _ops.gather_v2(shape, np.int64(rank - 1), np.int32(0))
    outer = _ops.slice(shape, np.array([0], np.int64), np.array([rank - 1], np.int64))
    rows = _ops.prod(outer, np.int32(0), keep_dims=False)
    flat = _ops.unsorted_segment_join(data, _ops.reshape(_ops.range(np.int64(0), n, np.int64(1)), shape), n)
    splits = _ops.mul(_ops.range(np.int64(0), _ops.add_v2(rows, np.int64(1)), np.int64(1)), width)
    grams, _ = _ops.string_n_grams(flat, splits, separator=separator, ngram_widths=[int(w) for w in widths],
                                   left_pad=left_pad, right_pad=right_pad, pad_width=int(pad_width),
                                   preserve_short_sequences=bool(preserve_short_sequences))
    # ngrams per row (TensorFlow's reshape to [..., -1] makes it 1 when there are no rows)
    per_row = _ops.select_v2(_ops.greater(rows, np.int64(0)),
                             _ops.floor_div(_ops.size(_ops.string_length(grams), out_type="int64"),
                                            _ops.maximum(rows, np.int64(1))), np.int64(1))
    out_shape = _ops.concat_v2([outer, _ops.reshape(per_row, np.array([1], np.int64))], np.int32(0))
    positions = _ops.where(_ops.equal(_ops.fill(out_shape, np.int32(0)), np.int32(0)))  # row-major
    return _ops.sparse_to_dense(positions, out_shape, grams, constant(b"", dtype=_dtypes.string), name=name)
