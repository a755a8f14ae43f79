"""The Example parser's wire-format corners (hand-encoded protos: unpacked repeated fields,
unknown fields, repeated keys and messages, empty features) and every error it reports, with
TensorFlow's wording (checked against TF itself where installed)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import opforge as of
from opforge.ops.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, parse_example, parse_single_example,
)

IAE = of.errors.InvalidArgumentError


# ------------------------------------------------------------------------- protobuf's wire format by hand


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire_type, payload=b""):
    tag = varint(number << 3 | wire_type)
    return tag + (varint(len(payload)) + payload if wire_type == 2 else payload)


def example(*entries, extra=b""):
    """An Example of (key, feature bytes) map entries; `extra` goes inside Features."""
    features = b"".join(field(1, 2, field(1, 2, key.encode()) + field(2, 2, value)) for key, value in entries)
    return field(1, 2, features + extra)


def floats_unpacked(*values):
    return field(2, 2, b"".join(field(1, 5, struct.pack("<f", v)) for v in values))


def floats_packed(*values):
    return field(2, 2, field(1, 2, struct.pack(f"<{len(values)}f", *values)))


def ints_unpacked(*values):
    return field(3, 2, b"".join(field(1, 0, varint(v)) for v in values))


def ints_packed(*values):
    return field(3, 2, field(1, 2, b"".join(varint(v) for v in values)))


def strings(*values):
    return field(1, 2, b"".join(field(1, 2, v) for v in values))


SPEC = {"f": VarLenFeature(of.float32), "i": VarLenFeature(of.int64), "s": VarLenFeature(of.string)}


def _values(protos, spec=SPEC):
    got = parse_example(protos, spec)
    return {k: (v.values.numpy().tolist() if isinstance(v, of.SparseTensor) else v.numpy().tolist())
            for k, v in got.items()}


def test_packed_and_unpacked_repeated_fields_alike():
    ints = [0, 1, -1, 2**63 - 1, -2**63, 300]
    a = example(("f", floats_packed(1.5, -2.0)), ("i", ints_packed(*ints)), ("s", strings(b"x", b"")))
    b = example(("f", floats_unpacked(1.5, -2.0)), ("i", ints_unpacked(*ints)), ("s", strings(b"x", b"")))
    assert _values([a]) == _values([b]) == {"f": [1.5, -2.0], "i": ints, "s": [b"x", b""]}


def test_unknown_fields_are_skipped_everywhere():
    unknown = field(9, 0, varint(5)) + field(10, 1, b"12345678") + field(11, 5, b"1234") + field(12, 2, b"zz")
    feature = field(2, 2, field(1, 2, struct.pack("<2f", 1.0, 2.0)) + unknown) + unknown
    proto = unknown + example(("f", feature), extra=unknown) + unknown
    assert _values([proto], {"f": VarLenFeature(of.float32)}) == {"f": [1.0, 2.0]}


def test_repeated_key_last_wins_and_repeated_messages_merge():
    proto = example(("i", ints_packed(1, 2)), ("i", ints_packed(3)))
    assert _values([proto], {"i": VarLenFeature(of.int64)}) == {"i": [3]}
    # Features given twice merge their maps; a list field given twice concatenates
    proto = example(("i", ints_packed(1))) + example(("f", field(2, 2, field(1, 2, struct.pack("<f", 1.0))
                                                                  + field(1, 5, struct.pack("<f", 2.0)))))
    assert _values([proto], {"i": VarLenFeature(of.int64), "f": VarLenFeature(of.float32)}) == {"i": [1], "f": [1.0, 2.0]}
    # a oneof set twice: the last member wins
    proto = example(("x", ints_packed(1) + floats_packed(4.0)))
    assert _values([proto], {"x": VarLenFeature(of.float32)}) == {"x": [4.0]}


def test_empty_feature_and_entry_without_value_count_as_missing():
    empty = example(("a", b""))
    no_value = field(1, 2, field(1, 2, field(1, 2, b"a")))
    for proto in (empty, no_value, b""):
        got = parse_example([proto], {"a": FixedLenFeature([2], of.int64, default_value=[5, 6]),
                                      "b": VarLenFeature(of.float32)})
        assert got["a"].numpy().tolist() == [[5, 6]]
        assert got["b"].dense_shape.numpy().tolist() == [1, 0]
    with pytest.raises(IAE, match=r"Name: <unknown>, Feature: a \(data type: int64\) is required"):
        parse_example([empty], {"a": FixedLenFeature([], of.int64)})


@pytest.mark.parametrize("proto", [
    b"\x0a\x05abc",                                    # a length past the end
    b"\x0a",                                           # a tag without its value
    b"\x08" + b"\xff" * 11,                            # a varint over 10 bytes
    b"\x00\x01",                                       # field number 0
    b"\x0b\x0c",                                       # a group (wire type 3)
    b"\x0f",                                           # wire type 7
    example(("f", field(2, 2, field(1, 2, b"\x00\x00\x80")))),  # packed floats of 3 bytes
    example(("i", field(3, 2, field(1, 2, b"\x80")))),           # a packed varint cut short
    example(("f", field(2, 2, field(1, 1, b"12345678")))),       # a float as fixed64
    example(("s", field(1, 2, field(1, 0, varint(3))))),         # a bytes value as a varint
])
def test_malformed_protos_are_invalid_argument(proto):
    with pytest.raises(IAE, match="ParseExampleV2: Could not parse example input, value: '"):
        parse_example([proto], SPEC)


def test_type_count_and_stride_errors_name_example_and_feature():
    p = example(("a", ints_packed(1)), ("b", floats_packed(1.0, 2.0)), ("c", floats_packed(1.0, 2.0, 3.0)),
                ("y", ints_packed(1)))
    cases = [
        ({"a": FixedLenFeature([], of.float32)},
         r"Name: <unknown>, Key: a, Index: 1.  Data types don't match. Data type: int64 but expected type: float"),
        ({"y": VarLenFeature(of.string)},
         r"Name: <unknown>, Key: y, Index: 1.  Data types don't match. Expected type: string, Actual type: int64"),
        ({"b": FixedLenFeature([3], of.float32)},
         r"Key: b, Index: 1.  Number of float values != expected.  Values size: 2 but output shape: \[3\]"),
        ({"c": FixedLenSequenceFeature([2], of.float32, allow_missing=True)},
         r"Key: c, Index: 1.  Number of float values is not a multiple of stride length. Saw 3 values"),
        ({"z": FixedLenFeature([], of.string)},
         r"Name: <unknown>, Feature: z \(data type: string\) is required but could not be found."),
    ]
    ok = example(("a", floats_packed(0.0)), ("b", floats_packed(1.0, 2.0, 3.0)), ("c", floats_packed(1.0, 2.0)),
                 ("y", strings(b"q")), ("z", strings(b"z")))
    for spec, message in cases:
        with pytest.raises(IAE, match=message):
            parse_example([ok, p], spec)
    with pytest.raises(IAE, match=r"Name: second, Key: a, Index: 1\."):
        parse_example([ok, p], cases[0][0], example_names=["first", "second"])
    # one proto: TensorFlow's shorter wording
    with pytest.raises(IAE, match=r"ParseSingleExample: Key: a.  Data types don't match"):
        parse_single_example(p, cases[0][0])
    with pytest.raises(IAE, match=r"ParseSingleExample: Feature: z \(data type: string\) is required"):
        parse_single_example(p, cases[4][0])


def test_tensorflow_words_the_errors_the_same():
    tf = pytest.importorskip("tensorflow")
    p = example(("a", ints_packed(1)), ("b", floats_packed(1.0, 2.0)))
    for ours, theirs in [
        ({"a": FixedLenFeature([], of.float32)}, {"a": tf.io.FixedLenFeature([], tf.float32)}),
        ({"a": VarLenFeature(of.string)}, {"a": tf.io.VarLenFeature(tf.string)}),
        ({"b": FixedLenFeature([3], of.float32)}, {"b": tf.io.FixedLenFeature([3], tf.float32)}),
        ({"z": FixedLenFeature([], of.int64)}, {"z": tf.io.FixedLenFeature([], tf.int64)}),
    ]:
        with pytest.raises(tf.errors.InvalidArgumentError) as tf_error:
            tf.io.parse_example(tf.constant([p]), theirs)
        with pytest.raises(IAE) as of_error:
            parse_example([p], ours)
        # TF's message: "{{function_node ...}} <message> [Op:ParseExampleV2]"
        message = str(tf_error.value).split("}} ", 1)[-1].rsplit(" [Op:", 1)[0]
        assert str(of_error.value) == f"ParseExampleV2: {message}"


def test_shape_and_argument_errors():
    p = example(("a", ints_packed(1)))
    with pytest.raises(IAE, match="ParseExampleV2: Expected serialized to be a scalar or vector, got shape"):
        parse_example(np.array([[p]], dtype=object), {"a": VarLenFeature(of.int64)})
    with pytest.raises(IAE, match="ParseSingleExample: Expected serialized to be a scalar"):
        parse_single_example([p], {"a": VarLenFeature(of.int64)})
    with pytest.raises(IAE, match="names to have the shape of serialized"):
        parse_example([p], {"a": VarLenFeature(of.int64)}, example_names=["x", "y"])
    with pytest.raises(ValueError, match="default value has 3 values but the shape"):
        parse_example([p], {"a": FixedLenFeature([2], of.int64, default_value=[1, 2, 3])})
    with pytest.raises(ValueError, match="unsupported dtype int32"):
        parse_example([p], {"a": VarLenFeature(of.int32)})
    with pytest.raises(ValueError, match="fully defined"):
        parse_example([p], {"a": FixedLenFeature([None], of.int64)})
    with pytest.raises(ValueError, match="allow_missing"):
        parse_example([p], {"a": FixedLenSequenceFeature([], of.int64)})
    with pytest.raises(ValueError, match="features was empty"):
        parse_example([p], {})
    with pytest.raises(ValueError, match="Unsupported feature spec"):
        parse_example([p], {"a": of.int64})


def _v2(**kw):
    args = dict(serialized=of.constant([example(("a", ints_packed(1)))]), names=of.constant([], dtype=of.string),
                sparse_keys=of.constant([], dtype=of.string), dense_keys=of.constant([], dtype=of.string),
                ragged_keys=of.constant([], dtype=of.string), dense_defaults=[], num_sparse=0, sparse_types=[],
                ragged_value_types=[], ragged_split_types=[], dense_shapes=[])
    args.update(kw)
    return of.raw_ops.ParseExampleV2(**args)


def test_raw_op_argument_errors():
    keys = of.constant(["a"])
    with pytest.raises(IAE, match="sparse_keys has 1 entries but num_sparse has 0"):
        _v2(sparse_keys=keys)
    with pytest.raises(IAE, match="dense_keys has 1 entries but Tdense has 0"):
        _v2(dense_keys=keys)
    with pytest.raises(IAE, match="ragged_keys has 1 entries but ragged_value_types has 0"):
        _v2(ragged_keys=keys)
    with pytest.raises(IAE, match="Duplicate feature key: a"):
        _v2(sparse_keys=keys, num_sparse=1, sparse_types=[of.int64], ragged_keys=keys,
            ragged_value_types=[of.int64], ragged_split_types=[of.int64])
    with pytest.raises(IAE, match=r"attr 'Tdense' contains int32, which is not allowed \(allowed: float32, int64, "
                                  r"string\)"):
        _v2(dense_keys=keys, dense_defaults=[of.constant([1], dtype=of.int32)], dense_shapes=[[1]])
    with pytest.raises(IAE, match="unknown dimension other than the first"):
        _v2(dense_keys=keys, dense_defaults=[of.constant([], dtype=of.int64)], dense_shapes=[[2, -1]])
    with pytest.raises(IAE, match=r"must be empty or a scalar \(the padding"):
        _v2(dense_keys=keys, dense_defaults=[of.constant([1, 2], dtype=of.int64)], dense_shapes=[[-1]])
    with pytest.raises(IAE, match=r"must be empty or of shape \[2\]"):
        _v2(dense_keys=keys, dense_defaults=[of.constant([1, 2, 3], dtype=of.int64)], dense_shapes=[[2]])


def test_ragged_features_as_tensorflow_gives_them():
    protos = [example(("a", ints_packed(1, 2))), example(), example(("a", ints_packed(3)))]
    out = _v2(serialized=of.constant(protos), ragged_keys=of.constant(["a"]), ragged_value_types=[of.int64],
              ragged_split_types=[of.int32])
    assert out[4][0].numpy().tolist() == [1, 2, 3]
    assert out[5][0].numpy().tolist() == [0, 2, 2, 3] and out[5][0].dtype == of.int32
    single = _v2(serialized=of.constant(protos[0]), ragged_keys=of.constant(["a"]), ragged_value_types=[of.int64],
                 ragged_split_types=[of.int64])
    assert single[4][0].numpy().tolist() == [1, 2] and single[5][0].numpy().shape == (0,)


def test_parse_example_v1_op_matches_v2():
    rng = np.random.default_rng(5)
    protos = [example(("a", ints_packed(*rng.integers(-9, 9, size=k).tolist())), ("d", floats_packed(*rng.normal(size=2))))
              for k in range(4)]
    v1 = of.raw_ops.ParseExample(serialized=of.constant(protos), names=of.constant([], dtype=of.string),
                                 sparse_keys=[of.constant("a")], dense_keys=[of.constant("d")],
                                 dense_defaults=[of.constant(np.zeros(0, np.float32))], sparse_types=[of.int64],
                                 dense_shapes=[[2]])
    v2 = parse_example(protos, {"a": VarLenFeature(of.int64), "d": FixedLenFeature([2], of.float32)})
    np.testing.assert_array_equal(v1[0][0].numpy(), v2["a"].indices.numpy())
    np.testing.assert_array_equal(v1[1][0].numpy(), v2["a"].values.numpy())
    np.testing.assert_array_equal(v1[2][0].numpy(), v2["a"].dense_shape.numpy())
    np.testing.assert_array_equal(v1[3][0].numpy(), v2["d"].numpy())
    with pytest.raises(IAE, match="ParseExample: Expected serialized to be a vector"):
        of.raw_ops.ParseExample(serialized=of.constant(protos[0]), names=of.constant([], dtype=of.string),
                                sparse_keys=[of.constant("a")], dense_keys=[], dense_defaults=[],
                                sparse_types=[of.int64], dense_shapes=[])


def test_mutated_protos_parse_or_raise_invalid_argument():
    """Random bytes flipped, cut or inserted in valid Examples and SequenceExamples: each
    parses or is an InvalidArgumentError, never a crash or another error."""
    from opforge.ops.parsing_ops import parse_sequence_example  # noqa: PLC0415
    rng = np.random.default_rng(17)
    base = [example(("f", floats_packed(1.0, 2.0)), ("i", ints_unpacked(5, -1)), ("s", strings(b"ab", b""))),
            example(("i", ints_packed(*range(20))), ("d", floats_unpacked(0.5, 0.25)))]
    sequence = field(1, 2, field(1, 2, field(1, 2, b"i") + field(2, 2, ints_packed(3)))) + \
        field(2, 2, field(1, 2, field(1, 2, b"l") + field(2, 2, ints_packed(1, 2) + ints_packed(3, 4))))
    spec = dict(SPEC, d=FixedLenFeature([2], of.float32, default_value=[0.0, 0.0]))
    outcomes = {"ok": 0, "error": 0}
    for trial in range(600):
        proto = bytearray((base + [sequence])[trial % 3])
        for _ in range(int(rng.integers(1, 4))):
            kind = rng.integers(3)
            at = int(rng.integers(0, len(proto) + 1))
            if kind == 0 and proto:
                proto[min(at, len(proto) - 1)] = int(rng.integers(256))
            elif kind == 1:
                del proto[at:at + int(rng.integers(1, 4))]
            else:
                proto[at:at] = rng.bytes(int(rng.integers(1, 4)))
        try:
            if trial % 3 == 2:
                parse_sequence_example([bytes(proto)], {"i": VarLenFeature(of.int64)},
                                       {"l": FixedLenSequenceFeature([2], of.int64, allow_missing=True)})
            else:
                parse_example([bytes(proto)], spec)
            outcomes["ok"] += 1
        except IAE:
            outcomes["error"] += 1
    assert outcomes["ok"] > 20 and outcomes["error"] > 20, outcomes
