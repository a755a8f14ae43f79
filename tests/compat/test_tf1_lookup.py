"""tf.lookup as TF1 programs use it (opforge/compat/v1/_tf1_lookup.py): tables built into the
default graph, initialized by tf.tables_initializer() in a Session; the same program under
TensorFlow's compat.v1 where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as otf

WORDS = ["the", "quick", "brown", "fox", "jumps"]


def _program(tf, vocab_path):
    """A TF1 program: words to ids (file vocabulary with OOV buckets), ids back to words, a
    mutable counter table. Returns what it fetches."""
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None])
        vocab = tf.lookup.StaticVocabularyTable(
            tf.lookup.TextFileInitializer(vocab_path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=3)
        ids = vocab.lookup(words)
        back = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(tf.range(len(WORDS), dtype=tf.int64), tf.constant(WORDS)), "<oov>")
        names = back.lookup(ids)
        counts = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
        bump = counts.insert(words, counts.lookup(words) + 1)
        with tf.control_dependencies([bump]):
            after = counts.lookup(tf.constant(["fox", "cat"]))
        shapes = (ids.shape.as_list(), names.shape.as_list())
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            feed = {words: ["fox", "cat", "the", "fox", "dog"]}
            got = s.run([ids, names, after, vocab.size()], feed)
    return shapes, got


@pytest.fixture
def vocab_path(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("\n".join(WORDS) + "\n")
    return str(p)


def test_tf1_program_runs(vocab_path):
    shapes, (ids, names, after, size) = _program(otf, vocab_path)
    assert shapes == ([None], [None])
    assert ids[0] == 3 and ids[2] == 0 and ids[3] == 3 and 5 <= ids[1] < 8 and 5 <= ids[4] < 8
    assert names.tolist() == [b"fox", b"<oov>", b"the", b"fox", b"<oov>"]
    assert after.tolist() == [1, 1]  # one insert of the run's words: each set to 0 + 1
    assert size == 8


def test_tf1_program_matches_tensorflow(vocab_path):
    tf = pytest.importorskip("tensorflow").compat.v1
    ours, theirs = _program(otf, vocab_path), _program(tf, vocab_path)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)


def test_tables_initializer_is_in_the_initializers_namespace():
    with otf.Graph().as_default() as g:
        assert otf.initializers.tables_initializer().type == "NoOp"
        t = otf.lookup.StaticHashTable(otf.lookup.KeyValueTensorInitializer([1, 2], [3, 4]), -1)
        assert g.get_collection(otf.GraphKeys.TABLE_INITIALIZERS) == [t.initializer]
