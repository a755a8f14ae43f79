"""Writes tests/data/string_hashes.npz: TensorFlow's hash-bucket numbers for a fixed set of
strings (every length 0..70, random bytes and ASCII; stored as one byte blob and the
lengths, so no pickle), so that the tests check opforge's
StringToHashBucketFast / Strong / StringToHashBucket and Fingerprint against TF's values without TensorFlow.

    python tools/tf_string_hashes.py       # needs tensorflow
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "string_hashes.npz")
BUCKETS = 2**62 + 7  # large, so that the bucket shows most of the 64-bit hash
KEY = (0x0123456789ABCDEF, 0x7EDCBA9876543210)
SER_INDICES = np.array([[0, 1, 1], [2, 0, 3], [2, 1, 0]], np.int64)
SER_FLOATS = np.array([1.5, -2.0, 0.25], np.float32)
NUMBERS = np.random.default_rng(5).normal(size=(7, 3, 2))  # Fingerprint of numeric rows: their raw bytes


def crosses() -> dict:
    """TF's feature crosses of random sparse and dense inputs of 6 rows: string features b"f<id>"
    (sparse A), int features (sparse B), string features b"d<id>" (dense D); the test rebuilds
    the inputs from the ints stored here."""
    rng = np.random.default_rng(7)
    parts = {}
    for name in ("a", "b"):
        counts = rng.integers(0, 4, 6)
        parts[f"{name}_indices"] = np.array([[r, k] for r in range(6) for k in range(counts[r])], np.int64)
        parts[f"{name}_ids"] = rng.integers(0, 50, len(parts[f"{name}_indices"])).astype(np.int64)
    parts["d_ids"] = rng.integers(0, 50, (6, 2)).astype(np.int64)
    a = tf.sparse.SparseTensor(parts["a_indices"].reshape(-1, 2), [b"f%d" % i for i in parts["a_ids"]], [6, 4])
    b = tf.sparse.SparseTensor(parts["b_indices"].reshape(-1, 2), parts["b_ids"], [6, 4])
    d = tf.constant([[b"d%d" % i for i in row] for row in parts["d_ids"]])
    crossed = tf.sparse.cross([a, b, d])
    parts.update(cross_indices=crossed.indices.numpy(), cross_values=crossed.values.numpy().astype(bytes),
                 cross_hashed=tf.sparse.cross_hashed([a, b, d]).values.numpy(),
                 cross_hashed_100=tf.compat.v1.sparse.cross_hashed([a, b, d], num_buckets=100, hash_key=99).values.numpy())
    return parts


def serialized() -> dict:
    """TF's serialize_sparse / serialize_many_sparse bytes of a float and a string SparseTensor
    (indices SER_INDICES, dense shape [3, 2, 4]; values SER_FLOATS, or b"s<k>" for value k)."""
    t = tf.sparse.SparseTensor(SER_INDICES, SER_FLOATS, [3, 2, 4])
    u = tf.sparse.SparseTensor(SER_INDICES, [b"s%d" % k for k in range(len(SER_INDICES))], [3, 2, 4])
    out = dict(ser_indices=SER_INDICES, ser_floats=SER_FLOATS)
    for key, value in (("ser_one", tf.io.serialize_sparse(t)), ("ser_many", tf.io.serialize_many_sparse(t)),
                       ("ser_many_strings", tf.io.serialize_many_sparse(u))):
        # (bytes that may end in NUL: a blob and lengths, as the strings above, not a fixed-width array)
        flat = value.numpy().reshape(-1).tolist()
        out[f"{key}_blob"] = np.frombuffer(b"".join(flat), np.uint8)
        out[f"{key}_lengths"] = np.array([len(x) for x in flat], np.int64)
        out[f"{key}_shape"] = np.array(value.shape, np.int64)
    return out


def main() -> None:
    rng = np.random.default_rng(20261126)
    strings = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(71)]
    strings += [bytes(rng.integers(32, 127, n, dtype=np.uint8)) for n in range(0, 71, 3)]
    strings += [b"hello", b"tensorflow", "héllo wörld".encode()]
    t = tf.constant(strings)
    np.savez_compressed(
        OUT, blob=np.frombuffer(b"".join(strings), np.uint8), lengths=np.array([len(x) for x in strings], np.int64),
        buckets=np.int64(BUCKETS), key=np.array(KEY, np.int64),
        fast=tf.strings.to_hash_bucket_fast(t, BUCKETS).numpy(),
        strong=tf.strings.to_hash_bucket_strong(t, BUCKETS, list(KEY)).numpy(),
        legacy=tf.strings.to_hash_bucket(t, BUCKETS).numpy(),
        fingerprint=tf.fingerprint(t).numpy(), fingerprint_pairs=tf.fingerprint(tf.reshape(t, [-1, 2])).numpy(),
        numbers=NUMBERS, fingerprint_numbers=tf.fingerprint(NUMBERS).numpy(),
        tf_version=np.array(tf.__version__), **crosses(), **serialized())
    print(f"wrote {OUT}: {len(strings)} strings")


if __name__ == "__main__":
    main()
