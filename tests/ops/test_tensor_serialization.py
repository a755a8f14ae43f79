"""SerializeTensor / ParseTensor (tf.io.serialize_tensor, tf.io.parse_tensor) and DecodeCompressed
(tf.io.decode_compressed): bytes equal to TensorFlow's for every dtype (the committed answers of
tools/make_miscops_fixtures.py, and TF itself where installed), TensorProtos in every form
TensorFlow's reader takes, zlib / gzip streams, and the errors."""

from __future__ import annotations

import gzip
import os
import zlib

import ml_dtypes
import numpy as np
import pytest

import opforge as of
from opforge.codegen._proto import tensor_pb2
from opforge.ops.parsing_ops import decode_compressed, parse_tensor, serialize_tensor

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "miscops_expected.npz")
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool", "string"]


@pytest.fixture(scope="module")
def expected():
    return np.load(DATA)


def fixture_input(expected, name):
    arr = expected[f"in_{name}"]
    if name in ("float16", "bfloat16"):
        arr = arr.view(np.float16 if name == "float16" else ml_dtypes.bfloat16)
    return arr.astype(object) if name == "string" else arr


@pytest.mark.parametrize("name", DTYPES)
def test_bytes_are_tensorflows_and_read_back(expected, name):
    arr = fixture_input(expected, name)
    ser = serialize_tensor(of.constant(arr, dtype=name)).numpy()
    assert ser == expected[f"ser_{name}"].tobytes()
    back = parse_tensor(ser, name).numpy()
    assert back.shape == arr.shape
    if name == "string":
        assert back.tolist() == arr.tolist()
    else:
        assert back.dtype == arr.dtype
        np.testing.assert_array_equal(back, arr)


def test_tensorflow_parity_on_random_tensors():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    for dtype in ("float32", "int64", "float16", "bool", "uint8"):
        for shape in [(), (0,), (3,), (2, 0, 4), (2, 3, 2)]:
            arr = (rng.normal(size=shape) * 50).astype(dtype)
            ours = serialize_tensor(of.constant(arr)).numpy()
            theirs = tf.io.serialize_tensor(tf.constant(arr)).numpy()
            assert ours == theirs, (dtype, shape)
            np.testing.assert_array_equal(tf.io.parse_tensor(ours, dtype).numpy(), arr)


def proto_bytes(dtype, dims, **fields):
    tp = tensor_pb2.TensorProto(dtype=dtype)
    for d in dims:
        tp.tensor_shape.dim.add(size=d)
    for k, v in fields.items():
        getattr(tp, k).extend(v)
    return tp.SerializeToString()


@pytest.mark.parametrize("dtype, dims, fields, want", [
    # typed repeated fields instead of tensor_content; fewer values than elements repeat the last
    (1, [2, 2], dict(float_val=[1.5, -2.0]), np.array([[1.5, -2.0], [-2.0, -2.0]], np.float32)),
    (2, [3], dict(double_val=[0.25]), np.full(3, 0.25)),
    (3, [3], dict(int_val=[-5, 7, 9]), np.array([-5, 7, 9], np.int32)),
    (6, [2], dict(int_val=[-3, 100]), np.array([-3, 100], np.int8)),
    (9, [2], dict(int64_val=[2**40, -1]), np.array([2**40, -1], np.int64)),
    (10, [3], dict(bool_val=[True, False]), np.array([True, False, False])),
    (19, [2], dict(half_val=[int(np.float16(1.5).view(np.uint16))]), np.array([1.5, 1.5], np.float16)),
    (14, [1], dict(half_val=[int(np.array(3.0, ml_dtypes.bfloat16).view(np.uint16))]),
     np.array([3.0], ml_dtypes.bfloat16)),
    (5, [2, 1], {}, np.zeros((2, 1), np.int16)),  # no values at all: zeros
    (7, [3], dict(string_val=[b"a", b"bc"]), np.array([b"a", b"bc", b"bc"], object)),
])
def test_reads_every_form_tensorflow_reads(dtype, dims, fields, want):
    ser = proto_bytes(dtype, dims, **fields)
    got = parse_tensor(ser, of.as_dtype(want.dtype) if want.dtype != object else of.string).numpy()
    assert got.shape == want.shape
    assert got.tolist() == want.tolist()


def test_parse_tensor_in_a_graph_has_an_unknown_shape():
    with of.Graph().as_default():
        s = serialize_tensor(of.constant(np.arange(6, dtype=np.int32).reshape(2, 3)))
        assert s.shape.as_list() == []
        p = parse_tensor(s, of.int32)
        assert p.shape.rank is None
        with of.Session() as sess:
            np.testing.assert_array_equal(sess.run(p), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("serialized, out_type, match", [
    (b"\xff\xff\xff", of.float32, "ParseTensor: could not parse"),
    (proto_bytes(1, [2], float_val=[1.0]), of.int32, r"ParseTensor: type mismatch.*\(float32\).*\(int32\)"),
    (b"", of.float32, "ParseTensor: type mismatch"),
    (proto_bytes(1, [3]) + b"\x22\x04abcd", of.float32, "ParseTensor: .*do not fit its shape"),
    (proto_bytes(7, [2]) + b"\x22\x02\x05a", of.string, "ParseTensor: .*do not fit"),
])
def test_parse_tensor_errors(serialized, out_type, match):
    with pytest.raises(of.errors.InvalidArgumentError, match=match):
        parse_tensor(serialized, out_type)


def test_parse_tensor_wants_a_scalar():
    with pytest.raises(of.errors.InvalidArgumentError, match="ParseTensor.*scalar"):
        parse_tensor([serialize_tensor(of.constant(1.0)).numpy()], of.float32)


def test_decode_compressed_zlib_gzip_and_none():
    rng = np.random.default_rng(1)
    data = [bytes(rng.integers(0, 4, n).astype(np.uint8)) for n in (0, 1, 300, 70000)]
    shape = (2, 2)
    want = np.array(data, object).reshape(shape)
    for kind, compress in [("ZLIB", zlib.compress), ("GZIP", gzip.compress), ("", lambda b: b)]:
        packed = np.array([compress(b) for b in data], object).reshape(shape)
        got = decode_compressed(packed, compression_type=kind).numpy()
        assert got.shape == shape and got.tolist() == want.tolist(), kind


def test_decode_compressed_errors_and_truncation():
    with pytest.raises(of.errors.DataLossError, match=r"DecodeCompressed: bytes\[1\].*incorrect header check"):
        decode_compressed([zlib.compress(b"ok"), b"not zlib"], compression_type="ZLIB")
    with pytest.raises(of.errors.DataLossError, match="DecodeCompressed"):
        decode_compressed([zlib.compress(b"ok")], compression_type="GZIP")
    with pytest.raises(of.errors.InvalidArgumentError, match="DecodeCompressed: Only ZLIB, GZIP"):
        decode_compressed([b""], compression_type="LZ4")
    # as TensorFlow's: a stream cut short gives the bytes it holds
    text = b"the quick brown fox " * 50
    cut = zlib.compress(text)[:-10]
    got = decode_compressed([cut, b""], compression_type="ZLIB").numpy().tolist()
    assert text.startswith(got[0]) and len(got[0]) > 100 and got[1] == b""


def test_decode_compressed_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    text = b"abc" * 1000
    for b in (zlib.compress(text), zlib.compress(text)[:-7], zlib.compress(text)[:5], b""):
        assert decode_compressed([b], "ZLIB").numpy()[0] == tf.io.decode_compressed([b], "ZLIB").numpy()[0]
