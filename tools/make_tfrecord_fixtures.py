"""Writes TFRecord files of tf.train.Examples as TensorFlow writes them, with TensorFlow's
answers, for opforge's tests (tests/io/test_tfrecord.py, tests/ops/test_parsing_ops.py), so CI
checks reading and parsing them without TF.

    python tools/make_tfrecord_fixtures.py [out_dir]     (default tests/data/tfrecord)

Needs tensorflow (2.21). Writes examples.tfrecord, examples.gzip.tfrecord and
examples.zlib.tfrecord (the same records: uncompressed, GZIP, ZLIB) and examples.npz:
``records`` (the serialized Examples, an object array of bytes), and TensorFlow's
tf.io.parse_example of them under FEATURES: ``dense/NAME`` for each FixedLenFeature and
``sparse/NAME/{indices,values,dense_shape}`` for each VarLenFeature; ``single/...`` the same
from tf.io.parse_single_example of record SINGLE; ``raw/<dtype>``: tf.io.decode_raw of the
``image`` feature of every record, little-endian, and ``raw_be/int32`` big-endian.

It also writes sequence_examples.tfrecord (tf.train.SequenceExamples) and sequence.npz:
``records``, and TensorFlow's tf.io.parse_sequence_example of them under CONTEXT and
SEQUENCE: ``context/...``, ``lists/...`` (as above) and ``lengths/NAME``; ``single/...`` from
tf.io.parse_single_sequence_example of record SINGLE.

Records are random (seeded); some leave out the optional features, so defaults and empty
sparse rows are exercised. The files are a few KB.
"""

from __future__ import annotations

import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUM_RECORDS = 6
IMAGE_BYTES = 24  # divisible by every decode_raw item size
SINGLE = 5  # the record parse_single_example reads (it has values in every sparse feature but one)


def features():
    """The parse spec the tests use (keep in step with tests/ops/test_parsing_ops.py FEATURES)."""
    return {
        "image": tf.io.FixedLenFeature([], tf.string),
        "label": tf.io.FixedLenFeature([], tf.int64),
        "score": tf.io.FixedLenFeature([3], tf.float32),
        "weight": tf.io.FixedLenFeature([2, 2], tf.float32, default_value=[[1.0, 2.0], [3.0, 4.0]]),
        "name": tf.io.FixedLenFeature([], tf.string, default_value="none"),
        "tags": tf.io.VarLenFeature(tf.string),
        "ids": tf.io.VarLenFeature(tf.int64),
        "values": tf.io.VarLenFeature(tf.float32),
    }


def context_features():
    """The context spec of the SequenceExample tests (tests/ops/test_parsing_sequence.py CONTEXT)."""
    return {
        "length": tf.io.FixedLenFeature([], tf.int64),
        "lang": tf.io.FixedLenFeature([], tf.string, default_value="en"),
        "topics": tf.io.VarLenFeature(tf.string),
    }


def sequence_features():
    """The feature-list spec of the SequenceExample tests (tests/ops/test_parsing_sequence.py SEQUENCE)."""
    return {
        "frames": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
        "steps": tf.io.FixedLenSequenceFeature([], tf.int64),
        "tokens": tf.io.VarLenFeature(tf.string),
        "ids": tf.io.VarLenFeature(tf.int64),
    }


def make_sequence_records(rng):
    def feature_list(kind, steps):
        if kind == "float":
            return tf.train.FeatureList(feature=[tf.train.Feature(float_list=tf.train.FloatList(value=v)) for v in steps])
        if kind == "int":
            return tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=v)) for v in steps])
        return tf.train.FeatureList(feature=[tf.train.Feature(bytes_list=tf.train.BytesList(value=v)) for v in steps])

    out = []
    for i in range(NUM_RECORDS):
        n = int(rng.integers(0, 5))
        context = {"length": tf.train.Feature(int64_list=tf.train.Int64List(value=[n]))}
        if i % 2:
            context["lang"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"fr"]))
            context["topics"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t%d" % k for k in range(i)]))
        lists = {
            "steps": feature_list("int", [[int(rng.integers(-99, 99))] for _ in range(n)]),
            "tokens": feature_list("bytes", [[rng.bytes(int(rng.integers(0, 4))) for _ in range(int(rng.integers(0, 3)))]
                                             for _ in range(n)]),
            "ids": feature_list("int", [rng.integers(-2**40, 2**40, size=int(rng.integers(0, 4))).tolist()
                                        for _ in range(int(rng.integers(0, 4)))]),
        }
        if i % 3:
            lists["frames"] = feature_list("float", [rng.normal(size=2).tolist() for _ in range(int(rng.integers(0, 4)))])
        out.append(tf.train.SequenceExample(context=tf.train.Features(feature=context),
                                            feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString())
    return out


def make_records(rng):
    out = []
    for i in range(NUM_RECORDS):
        f = {
            "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[rng.bytes(IMAGE_BYTES)])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(rng.integers(-2**40, 2**40))])),
            "score": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=3).tolist())),
            "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=rng.integers(-1000, 1000, size=i).tolist())),
            "values": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=(i * 2) % 5).tolist())),
        }
        if i % 2:
            f["weight"] = tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=4).tolist()))
            f["name"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"record-{i}".encode()]))
        if i % 3 != 1:
            words = [bytes(rng.choice(list(b"abcxyz"), size=int(rng.integers(0, 6)))) for _ in range(i % 4)]
            f["tags"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=words))
        out.append(tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString())
    return out


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    records = make_records(np.random.default_rng(31))
    for suffix, kind in (("", ""), (".gzip", "GZIP"), (".zlib", "ZLIB")):
        with tf.io.TFRecordWriter(os.path.join(out_dir, f"examples{suffix}.tfrecord"), options=kind) as w:
            for r in records:
                w.write(r)
    arrays = {"records": np.array(records, dtype=object)}

    def put(prefix, parsed):
        for name, value in parsed.items():
            if isinstance(value, tf.SparseTensor):
                arrays[f"{prefix}/{name}/indices"] = value.indices.numpy()
                arrays[f"{prefix}/{name}/values"] = value.values.numpy()
                arrays[f"{prefix}/{name}/dense_shape"] = value.dense_shape.numpy()
            else:
                arrays[f"{prefix}/{name}"] = value.numpy()

    put("parsed", tf.io.parse_example(tf.constant(records), features()))
    put("single", tf.io.parse_single_example(tf.constant(records[SINGLE]), features()))
    images = tf.io.parse_example(tf.constant(records), {"image": tf.io.FixedLenFeature([], tf.string)})["image"]
    for dt in (tf.uint8, tf.int8, tf.int16, tf.uint16, tf.int32, tf.int64, tf.float16, tf.float32, tf.float64,
               tf.bool):
        arrays[f"raw/{dt.name}"] = tf.io.decode_raw(images, dt).numpy()
    arrays["raw_be/int32"] = tf.io.decode_raw(images, tf.int32, little_endian=False).numpy()
    arrays["raw_be/float64"] = tf.io.decode_raw(images, tf.float64, little_endian=False).numpy()
    np.savez(os.path.join(out_dir, "examples.npz"), **arrays)
    print(f"wrote {len(records)} records and {len(arrays)} arrays to {out_dir}")

    sequences = make_sequence_records(np.random.default_rng(32))
    with tf.io.TFRecordWriter(os.path.join(out_dir, "sequence_examples.tfrecord")) as w:
        for r in sequences:
            w.write(r)
    arrays = {"records": np.array(sequences, dtype=object)}
    context, lists, lengths = tf.io.parse_sequence_example(tf.constant(sequences), context_features(),
                                                           sequence_features())
    put("context", context)
    put("lists", lists)
    put("lengths", lengths)
    context, lists = tf.io.parse_single_sequence_example(tf.constant(sequences[SINGLE]), context_features(),
                                                         sequence_features())
    put("single/context", context)
    put("single/lists", lists)
    np.savez(os.path.join(out_dir, "sequence.npz"), **arrays)
    print(f"wrote {len(sequences)} sequence records and {len(arrays)} arrays to {out_dir}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "tfrecord"))
