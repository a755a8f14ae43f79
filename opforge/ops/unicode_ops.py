"""tf.strings' Unicode ops: unicode_decode(_with_offsets), unicode_split(_with_offsets),
unicode_encode, unicode_transcode and bytes_split, over the ops UnicodeDecode(WithOffsets),
UnicodeEncode, UnicodeTranscode and StringSplit. The results with one value per character are
RaggedTensors (opforge.ragged), built as TensorFlow builds them."""

from __future__ import annotations

import opforge as _of
from opforge.framework import dtypes as _dtypes
from opforge.framework.tensor import TensorShape
from opforge.generated import gen_strings_ops as _gen
from opforge.ragged.ragged_ops import convert_to_tensor_or_ragged_tensor
from opforge.ragged.ragged_tensor import RaggedTensor

__all__ = [
    "unicode_decode", "unicode_decode_with_offsets", "unicode_split", "unicode_split_with_offsets", "unicode_encode",
    "unicode_transcode", "bytes_split",
]


def _static_rank(x):
    if isinstance(x, RaggedTensor):
        return x.shape.rank
    rank = TensorShape(x.shape).rank
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    return rank


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters, with_offsets):  # noqa: A002
    """TF's _unicode_decode: flatten (ragged or dense), decode, rebuild the row partition."""
    input = convert_to_tensor_or_ragged_tensor(input, _dtypes.string)  # noqa: A001
    rank = _static_rank(input)
    if rank > 1:
        if not isinstance(input, RaggedTensor):
            input = RaggedTensor.from_tensor(input, ragged_rank=rank - 1)  # noqa: A001
        elif input.ragged_rank < rank - 1:
            input = input.with_flat_values(  # noqa: A001
                RaggedTensor.from_tensor(input.flat_values, ragged_rank=rank - input.ragged_rank - 1))
    flat = _of.reshape(input.flat_values if isinstance(input, RaggedTensor) else input, [-1])
    op = _gen.unicode_decode_with_offsets if with_offsets else _gen.unicode_decode
    result = op(flat, input_encoding=input_encoding, errors=errors, replacement_char=replacement_char,
                replace_control_characters=replace_control_characters)
    splits, chars = result[0], result[1]
    parts = [chars] + ([result[2]] if with_offsets else [])
    if rank == 0:
        out = parts
    else:
        out = [RaggedTensor.from_row_splits(p, splits, validate=False) for p in parts]
        if rank > 1:
            out = [input.with_flat_values(p) for p in out]
    return tuple(out) if with_offsets else out[0]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The code points of each string: a RaggedTensor of shape input.shape + [None] (a vector for
    a scalar input)."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """(code points, the byte offset where each starts), each shaped as unicode_decode's result."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, True)


def _encode_each(codepoints, encoding, errors, replacement_char):
    """Each code point of codepoints (a RaggedTensor or vector) as its own string."""
    flat = codepoints.flat_values if isinstance(codepoints, RaggedTensor) else codepoints
    n = _of.shape(flat, out_type=_dtypes.int64)[0]
    chars = _gen.unicode_encode(flat, _of.range(n + 1), output_encoding=encoding, errors=errors,
                                replacement_char=replacement_char)
    return codepoints.with_flat_values(chars) if isinstance(codepoints, RaggedTensor) else chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string split into its characters (each re-encoded in input_encoding)."""
    codepoints = _decode(input, input_encoding, errors, replacement_char, False, False)
    return _encode_each(codepoints, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """(unicode_split's characters, the byte offset where each starts)."""
    codepoints, offsets = _decode(input, input_encoding, errors, replacement_char, False, True)
    return _encode_each(codepoints, input_encoding, errors, replacement_char), offsets


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Encodes the innermost dimension of code points ``input`` (a RaggedTensor or a dense int32
    tensor of rank >= 1) into strings: the result has one dimension less."""
    input = convert_to_tensor_or_ragged_tensor(input, _dtypes.int32)  # noqa: A001
    kwargs = dict(output_encoding=output_encoding, errors=errors, replacement_char=replacement_char)
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, **kwargs))
        if TensorShape(input.values.shape).rank not in (None, 1):  # a dense innermost dimension
            return input.with_values(unicode_encode(input.values, **kwargs))
        return _gen.unicode_encode(input.values, input.row_splits, **kwargs)
    rank = TensorShape(input.shape).rank
    if rank is None or rank == 0:
        raise ValueError(f"unicode_encode: input must have a known rank of at least 1, got shape {input.shape}")
    shape = _of.shape(input, out_type=_dtypes.int64)
    width = shape[-1]
    rows = _of.reduce_prod(shape[:-1])
    strings = _gen.unicode_encode(_of.reshape(input, [-1]), _of.range(rows + 1) * width, **kwargs)
    return _of.reshape(strings, shape[:-1])


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Each string re-encoded from input_encoding to output_encoding (UTF-8, UTF-16-BE, UTF-32-BE)."""
    return _gen.unicode_transcode(input, input_encoding=input_encoding, output_encoding=output_encoding,
                                  errors=errors, replacement_char=replacement_char,
                                  replace_control_characters=replace_control_characters, name=name)


def bytes_split(input, name=None):  # noqa: A002
    """Each string split into its bytes: a RaggedTensor (a vector for a scalar), as TensorFlow
    builds it from StringSplit with an empty delimiter."""
    input = convert_to_tensor_or_ragged_tensor(input, _dtypes.string)  # noqa: A001
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    rank = _static_rank(input)
    if rank == 0:
        return bytes_split(_of.reshape(input, [1]))[0]
    if rank > 1:
        return bytes_split(RaggedTensor.from_tensor(input, ragged_rank=rank - 1))
    indices, values, shape = _gen.string_split(input, "", skip_empty=False)
    return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=shape[0], validate=False)
