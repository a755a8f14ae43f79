"""Writes tests/data/lookup_tables.npz: TensorFlow's answers for tf.lookup tables (static and
vocabulary tables from tensors and from a text file, out-of-vocabulary hash buckets, a mutable
table of vectors), so tests/ops/test_lookup_ops.py checks opforge's without TensorFlow.

    python tools/tf_lookup_answers.py       # needs tensorflow
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "lookup_tables.npz")


def inputs() -> dict:
    """The tables' contents and the keys looked up (stored with the answers, the text file too)."""
    rng = np.random.default_rng(11)
    words = np.array([b"w%d" % i for i in rng.permutation(50)[:30]])
    return {
        "words": words,
        "ids": rng.permutation(30).astype(np.int64),
        "counts": rng.integers(1, 1000, 30).astype(np.int64),
        "scores": rng.normal(size=30).astype(np.float32),
        "queries": np.array([b"w%d" % i for i in range(60)] + [b"", b"W1", b"w1 "]),
        "int_vocab": rng.choice(1000, 20, replace=False).astype(np.int64),
        "int_queries": rng.integers(0, 1000, 40).astype(np.int64),
    }


def vocab_file_lines(d: dict) -> list[str]:
    """The text file the file-initialized tables read: word, count, score per line, tab-separated."""
    return [f"{w.decode()}\t{c}\t{s!r}" for w, c, s in zip(d["words"], d["counts"], d["scores"].tolist())]


def answers(d: dict, path: str) -> dict:
    out = {}
    kv = tf.lookup.KeyValueTensorInitializer(d["words"], d["ids"])
    out["static_find"] = tf.lookup.StaticHashTable(kv, -1).lookup(tf.constant(d["queries"])).numpy()
    out["vocab_oov"] = tf.lookup.StaticVocabularyTable(kv, 7).lookup(tf.constant(d["queries"])).numpy()
    kv_int = tf.lookup.KeyValueTensorInitializer(d["int_vocab"], np.arange(20, dtype=np.int64))
    out["vocab_int_oov"] = tf.lookup.StaticVocabularyTable(kv_int, 5).lookup(tf.constant(d["int_queries"])).numpy()
    T = tf.lookup.TextFileIndex
    q = tf.constant(d["queries"])
    line_ids = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int64, T.LINE_NUMBER, value_index_offset=3)
    out["file_line_number"] = tf.lookup.StaticHashTable(line_ids, -1).lookup(q).numpy()
    scores = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.float32, 2)
    out["file_scores"] = tf.lookup.StaticHashTable(scores, -1.0).lookup(q).numpy()
    counts = tf.lookup.TextFileInitializer(path, tf.string, 0, tf.int32, 1, vocab_size=10)
    out["file_counts_vocab10"] = tf.lookup.StaticHashTable(counts, 0).lookup(q).numpy()
    by_line = tf.lookup.TextFileInitializer(path, tf.int64, T.LINE_NUMBER, tf.string, T.WHOLE_LINE)
    out["file_whole_lines"] = tf.lookup.StaticHashTable(by_line, "UNK").lookup(
        tf.range(-2, 35, dtype=tf.int64)).numpy().astype(bytes)
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [-1.0, -2.0])
    m.insert(d["words"][:20], np.stack([d["scores"][:20], d["counts"][:20].astype(np.float32)], 1))
    m.insert(d["words"][5:8], np.zeros((3, 2), np.float32))
    m.remove(d["words"][:4])
    out["mutable_find"] = m.lookup(q).numpy()
    out["mutable_size"] = np.int64(m.size().numpy())
    return out


def main() -> None:
    d = inputs()
    text = ("\n".join(vocab_file_lines(d)) + "\n").encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "vocab.txt")
        with open(path, "wb") as f:
            f.write(text)
        out = answers(d, path)
    np.savez_compressed(OUT, **d, vocab_file=np.frombuffer(text, np.uint8),
                        **{f"tf_{k}": v for k, v in out.items()})
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
