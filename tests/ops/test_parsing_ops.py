"""The Example parsing ops (ParseExampleV2, ParseExample, ParseSingleExample) and DecodeRaw:
values against TensorFlow's (the committed answers of tools/make_tfrecord_fixtures.py, and TF
itself where installed) on random Examples, the wire format's corners (unpacked repeated
fields, unknown fields, repeated keys), and every error TensorFlow gives."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.io.example import BytesList, Example, Feature, Features, FloatList, Int64List
from opforge.ops.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, decode_raw, parse_example, parse_single_example,
)

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tfrecord", "examples.npz")


def features():
    """tools/make_tfrecord_fixtures.py's features(), in opforge's spelling."""
    return {
        "image": FixedLenFeature([], of.string),
        "label": FixedLenFeature([], of.int64),
        "score": FixedLenFeature([3], of.float32),
        "weight": FixedLenFeature([2, 2], of.float32, default_value=[[1.0, 2.0], [3.0, 4.0]]),
        "name": FixedLenFeature([], of.string, default_value="none"),
        "tags": VarLenFeature(of.string),
        "ids": VarLenFeature(of.int64),
        "values": VarLenFeature(of.float32),
    }


@pytest.fixture(scope="module")
def expected():
    return np.load(DATA, allow_pickle=True)


def _value(t):
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


def _assert_parsed(got, expected, prefix):
    for key, value in got.items():
        if isinstance(value, (of.SparseTensor, of.SparseTensorValue)):
            for part in ("indices", "values", "dense_shape"):
                np.testing.assert_array_equal(_value(getattr(value, part)), expected[f"{prefix}/{key}/{part}"],
                                              err_msg=f"{key}.{part}")
        else:
            np.testing.assert_array_equal(_value(value), expected[f"{prefix}/{key}"], err_msg=key)


def test_parse_example_equals_tensorflows_answers(expected):
    got = parse_example(list(expected["records"]), features())
    assert sorted(got) == sorted(features())
    _assert_parsed(got, expected, "parsed")
    assert got["score"].dtype == of.float32 and got["weight"].shape == (6, 2, 2)
    assert got["ids"].indices.shape[1] == 2


def test_parse_single_example_equals_tensorflows_answers(expected):
    got = parse_single_example(expected["records"][5], features())
    _assert_parsed(got, expected, "single")
    assert got["ids"].indices.shape[1] == 1 and got["ids"].values.shape == (5,)


def test_parse_in_a_graph_fetches_sparse_tensor_values(expected):
    with of.Graph().as_default():
        serialized = of.placeholder(of.string, [None])
        parsed = parse_example(serialized, features())
        assert parsed["score"].shape.as_list() == [None, 3]
        assert parsed["weight"].shape.as_list() == [None, 2, 2]
        assert parsed["ids"].indices.shape.as_list() == [None, 2]
        with of.Session() as sess:
            got = sess.run(parsed, {serialized: np.array(list(expected["records"]), dtype=object)})
    assert isinstance(got["ids"], of.SparseTensorValue)
    _assert_parsed(got, expected, "parsed")


def test_decode_raw_equals_tensorflows_answers(expected):
    images = parse_example(list(expected["records"]), {"image": FixedLenFeature([], of.string)})["image"]
    for dt in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
        np.testing.assert_array_equal(decode_raw(images, of.as_dtype(dt)).numpy(), expected[f"raw/{dt}"], err_msg=dt)
    # a bool is true for any non-zero byte (TensorFlow's array holds the raw byte)
    np.testing.assert_array_equal(decode_raw(images, of.bool_).numpy(), expected["raw/bool"].view(np.uint8) != 0)
    np.testing.assert_array_equal(decode_raw(images, of.int32, little_endian=False).numpy(), expected["raw_be/int32"])
    np.testing.assert_array_equal(decode_raw(bytes=images, out_type=of.float64, little_endian=False).numpy(),
                                  expected["raw_be/float64"])


def test_decode_raw_against_numpy_on_random_bytes():
    rng = np.random.default_rng(7)
    raw = [rng.bytes(48) for _ in range(12)]
    strings = np.array(raw, dtype=object).reshape(3, 4)
    for dt in (np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64):
        got = decode_raw(strings, of.as_dtype(dt)).numpy()
        want = np.stack([np.frombuffer(b, dtype=dt) for b in raw]).reshape(3, 4, -1)
        np.testing.assert_array_equal(got, want)
        big = decode_raw(strings, of.as_dtype(dt), little_endian=False).numpy()
        np.testing.assert_array_equal(big, np.stack([np.frombuffer(b, dtype=np.dtype(dt).newbyteorder(">"))
                                                     for b in raw]).reshape(3, 4, -1).astype(dt))
    assert decode_raw(np.array([], dtype=object), of.int32).numpy().shape == (0, 0)


def test_decode_raw_errors():
    with pytest.raises(of.errors.InvalidArgumentError, match="DecodeRaw.*all be the same size.*element 1 has size 5"):
        decode_raw([b"abcd", b"abcde"], of.uint8)
    with pytest.raises(of.errors.InvalidArgumentError, match="DecodeRaw.*length 6 that is not a multiple of 4"):
        decode_raw([b"abcdef"], of.int32)
    with pytest.raises(of.errors.InvalidArgumentError, match=r"DecodePaddedRaw: fixed_length \(6\) must be a multiple "
                                                          r"of the size of out_type \(4\)"):
        decode_raw([b"abcd"], of.int32, fixed_length=6)
    with pytest.raises(of.errors.InvalidArgumentError, match=r"fixed_length \(0\) must be greater than zero"):
        decode_raw([b"abcd"], of.int32, fixed_length=0)


def test_decode_raw_fixed_length_pads_and_cuts():
    rng = np.random.default_rng(12)
    raw = [rng.bytes(int(n)) for n in rng.integers(0, 20, size=9)]
    for dt, fixed in ((np.int16, 10), (np.float32, 8), (np.uint8, 3), (np.int64, 16)):
        padded = [(b + bytes(fixed))[:fixed] for b in raw]
        want = np.stack([np.frombuffer(b, dtype=dt) for b in padded]).reshape(3, 3, -1)
        got = decode_raw(np.array(raw, dtype=object).reshape(3, 3), of.as_dtype(dt), fixed_length=fixed).numpy()
        np.testing.assert_array_equal(got, want)
        big = decode_raw(raw, of.as_dtype(dt), little_endian=False, fixed_length=fixed).numpy()
        np.testing.assert_array_equal(big, want.reshape(9, -1).byteswap())
    with of.Graph().as_default():
        x = decode_raw(of.placeholder(of.string, [None]), of.int32, fixed_length=12)
        assert x.shape.as_list() == [None, 3]


def test_decode_raw_fixed_length_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    raw = [b"\x01\x02\x03", b"", b"\x04\x05\x06\x07\x08\x09"]
    for dt in ("int16", "int32", "float32"):  # TF has no float16 kernel for it
        for little in (True, False):
            theirs = tf.io.decode_raw(raw, getattr(tf, dt), little_endian=little, fixed_length=4).numpy()
            ours = decode_raw(raw, of.as_dtype(dt), little_endian=little, fixed_length=4).numpy()
            np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8))


# ------------------------------------------------------------------------- building Examples


def _example(**features):
    f = {}
    for key, values in features.items():
        if isinstance(values, Feature):
            f[key] = values
        elif values and isinstance(values[0], (bytes, str)):
            f[key] = Feature(bytes_list=BytesList(value=[v.encode() if isinstance(v, str) else v for v in values]))
        elif values and isinstance(values[0], float):
            f[key] = Feature(float_list=FloatList(value=values))
        else:
            f[key] = Feature(int64_list=Int64List(value=values))
    return Example(features=Features(feature=f)).SerializeToString()


def _random_examples(rng, n):
    out, want = [], {"f": [], "i": [], "s": [], "v": []}
    for _ in range(n):
        f = rng.normal(size=(2, 3)).astype(np.float32)
        i = rng.integers(-2**62, 2**62, size=int(rng.integers(0, 5)))
        s = [rng.bytes(int(rng.integers(0, 9))) for _ in range(int(rng.integers(0, 4)))]
        v = rng.normal(size=3 * int(rng.integers(0, 4))).astype(np.float32)
        kw = {"f": f.ravel().tolist(), "i": i.tolist(), "s": s}
        if v.size:
            kw["v"] = v.tolist()
        out.append(_example(**{k: x for k, x in kw.items() if len(x)}))
        for k, x in (("f", f), ("i", i), ("s", s), ("v", v)):
            want[k].append(x)
    return out, want


def test_random_examples_against_numpy():
    rng = np.random.default_rng(3)
    protos, want = _random_examples(rng, 25)
    got = parse_example(protos, {
        "f": FixedLenFeature([2, 3], of.float32),
        "i": VarLenFeature(of.int64),
        "s": VarLenFeature(of.string),
        "v": FixedLenSequenceFeature([3], of.float32, allow_missing=True, default_value=-1.0),
    })
    np.testing.assert_array_equal(got["f"].numpy(), np.stack(want["f"]))
    for key in ("i", "s"):
        sp = got[key]
        rows = [(b, j) for b, vals in enumerate(want[key]) for j in range(len(vals))]
        np.testing.assert_array_equal(sp.indices.numpy(), np.array(rows, np.int64).reshape(-1, 2))
        assert list(sp.values.numpy()) == [x for vals in want[key] for x in vals]
        assert list(sp.dense_shape.numpy()) == [25, max(len(v) for v in want[key])]
    rows = max(len(v) for v in want["v"]) // 3
    padded = np.full((25, rows, 3), -1.0, np.float32)
    for b, v in enumerate(want["v"]):
        padded[b, :len(v) // 3] = v.reshape(-1, 3)
    np.testing.assert_array_equal(got["v"].numpy(), padded)


def test_random_examples_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    protos, _ = _random_examples(rng, 30)
    spec = {
        "f": ("fixed", [2, 3], "float32", None), "i": ("var", None, "int64", None), "s": ("var", None, "string", None),
        "v": ("seq", [3], "float32", 0.5), "missing": ("fixed", [2], "int64", [7, 8]),
    }

    def build(mod, fixed, var, seq):
        out = {}
        for key, (kind, shape, dt, default) in spec.items():
            dtype = getattr(mod, dt)
            out[key] = (fixed(shape, dtype, default) if kind == "fixed" else var(dtype) if kind == "var"
                        else seq(shape, dtype, allow_missing=True, default_value=default))
        return out

    theirs = tf.io.parse_example(tf.constant(protos), build(tf, tf.io.FixedLenFeature, tf.io.VarLenFeature,
                                                             tf.io.FixedLenSequenceFeature))
    ours = parse_example(protos, build(of, FixedLenFeature, VarLenFeature, FixedLenSequenceFeature))
    for key, t in theirs.items():
        parts = ("indices", "values", "dense_shape") if isinstance(t, tf.SparseTensor) else (None,)
        for part in parts:
            a = getattr(t, part) if part else t
            b = getattr(ours[key], part) if part else ours[key]
            np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=f"{key} {part}")
    single_theirs = tf.io.parse_single_example(protos[3], build(tf, tf.io.FixedLenFeature, tf.io.VarLenFeature,
                                                                tf.io.FixedLenSequenceFeature))
    single_ours = parse_single_example(protos[3], build(of, FixedLenFeature, VarLenFeature, FixedLenSequenceFeature))
    for key, t in single_theirs.items():
        a = t.values if isinstance(t, tf.SparseTensor) else t
        b = single_ours[key].values if isinstance(single_ours[key], of.SparseTensor) else single_ours[key]
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=key)


def test_tensorflow_graph_def_with_parsing_ops_imports_and_runs(expected):
    """A TF1 input graph (ParseExampleV2, ParseSingleExample, ParseExample, DecodeRaw, SparseToDense)
    imports and computes TF's values."""
    tf = pytest.importorskip("tensorflow")
    tf1 = tf.compat.v1
    records = list(expected["records"])
    g = tf.Graph()
    with g.as_default():
        serialized = tf1.placeholder(tf.string, [None], name="serialized")
        parsed = tf1.io.parse_example(serialized, {
            "image": tf1.io.FixedLenFeature([], tf.string), "ids": tf1.io.VarLenFeature(tf.int64),
            "weight": tf1.io.FixedLenFeature([2, 2], tf.float32, default_value=[[1.0, 2.0], [3.0, 4.0]])})
        tf.identity(tf1.decode_raw(parsed["image"], tf.int16), name="pixels")
        tf.identity(tf1.sparse_tensor_to_dense(parsed["ids"], default_value=-7), name="ids")
        tf.identity(parsed["weight"], name="weight")
        one = tf1.placeholder(tf.string, [], name="one")
        single = tf1.io.parse_single_example(one, {"ids": tf1.io.VarLenFeature(tf.int64)})
        tf.identity(single["ids"].values, name="single_ids")
        v1 = tf.raw_ops.ParseExample(serialized=serialized, names=[], sparse_keys=["ids"], dense_keys=[],
                                     dense_defaults=[], sparse_types=[tf.int64], dense_shapes=[])
        tf.identity(v1.sparse_values[0], name="v1_ids")
    ops = {op.type for op in g.get_operations()}
    assert {"ParseExampleV2", "DecodeRaw", "SparseToDense", "ParseExample"} <= ops
    names = ["pixels:0", "ids:0", "weight:0", "single_ids:0", "v1_ids:0"]
    with tf1.Session(graph=g) as sess:
        theirs = sess.run(names, {"serialized:0": records, "one:0": records[3]})
    with of.Graph().as_default() as og:
        of.import_graph_def(g.as_graph_def().SerializeToString(), name="")
        with of.Session() as sess:
            ours = sess.run([og.get_tensor_by_name(n) for n in names],
                            {og.get_tensor_by_name("serialized:0"): np.array(records, dtype=object),
                             og.get_tensor_by_name("one:0"): records[3]})
    for name, a, b in zip(names, theirs, ours):
        np.testing.assert_array_equal(b, a, err_msg=name)


@pytest.mark.parametrize("threads", [1, 4])
def test_large_batches_parse_in_parallel_parts_like_one(threads):
    """Batches over a few hundred examples are split across threads: values, sparse indices and
    the first error (in example order) are those of one serial pass."""
    rng = np.random.default_rng(8)
    protos, want = _random_examples(rng, 1500)
    spec = {"f": FixedLenFeature([2, 3], of.float32), "i": VarLenFeature(of.int64), "s": VarLenFeature(of.string)}
    before = of.config.threading.get_intra_op_parallelism_threads()
    of.config.threading.set_intra_op_parallelism_threads(threads)
    try:
        got = parse_example(protos, spec)
        bad = list(protos)
        bad[1100] = _example(f=[1.0])  # a wrong count late in the batch
        bad[1300] = b"\x0a\x05abc"     # and a malformed proto after it
        with pytest.raises(of.errors.InvalidArgumentError, match="Index: 1100.  Number of float values"):
            parse_example(bad, spec)
    finally:
        of.config.threading.set_intra_op_parallelism_threads(before)
    np.testing.assert_array_equal(got["f"].numpy(), np.stack(want["f"]))
    rows = [(b, j) for b, vals in enumerate(want["i"]) for j in range(len(vals))]
    np.testing.assert_array_equal(got["i"].indices.numpy(), np.array(rows, np.int64))
    assert got["i"].values.numpy().tolist() == [int(x) for vals in want["i"] for x in vals]
    assert got["s"].values.numpy().tolist() == [x for vals in want["s"] for x in vals]
