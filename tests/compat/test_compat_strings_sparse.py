"""TF1 programs' spellings of the string and SparseTensor ops (opforge/compat/v1/_tf1_strings.py):
graphs built with tf.string_split, tf.strings.*, tf.sparse_* and nn.embedding_lookup_sparse run in
a Session, TF1's keywords (reduction_axes, keep_dims, delimiter, split_dim ...) are accepted, and
a model with a sparse embedding trains."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_text_pipeline_in_a_session():
    lines = tf.placeholder(tf.string, [None])
    tokens = tf.string_split(lines, delimiter=" ")
    ids = tf.string_to_hash_bucket_fast(tokens.values, 1000)
    counts = tf.sparse_reduce_sum(tf.SparseTensor(tokens.indices, tf.ones_like(ids), tokens.dense_shape),
                                  reduction_axes=1, keep_dims=True)
    upper = tf.strings.upper(tf.strings.strip(lines))
    joined = tf.reduce_join(tf.strings.split(lines).values, separator="_")
    numbers = tf.string_to_number(tf.substr(lines, 0, 1), out_type=tf.int32)
    with tf.Session() as sess:
        out = sess.run([counts, upper, joined, numbers, ids], {lines: [b"1 a b", b"2  c ", b"3"]})
    assert out[0].tolist() == [[3], [2], [1]]
    assert out[1].tolist() == [b"1 A B", b"2  C", b"3"]
    assert out[2] == b"1_a_b_2_c_3"
    assert out[3].tolist() == [1, 2, 3]
    assert out[4].shape == (6,) and out[4].min() >= 0 and out[4].max() < 1000


def test_sparse_ops_with_tf1_keywords():
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
    parts = tf.sparse_split(sp_input=sp, num_split=2, split_dim=1)
    whole = tf.sparse_concat(concat_dim=1, sp_inputs=parts)
    with tf.Session() as sess:
        dense, indicator, total, maxed = sess.run([
            tf.sparse_tensor_to_dense(whole),
            tf.sparse_to_indicator(tf.SparseTensor([[0, 0], [1, 0]], tf.constant([2, 3], tf.int64), [2, 1]), 4),
            tf.sparse_reduce_sum(sp), tf.sparse.reduce_max(sp, axis=0, keepdims=True)])
    want = np.zeros((3, 4), np.float32)
    want[0, 0], want[1, 2], want[2, 1] = 1, 2, 3
    np.testing.assert_array_equal(dense, want)
    assert indicator.tolist() == [[False, False, True, False], [False, False, False, True]]
    assert total == 6.0
    assert maxed.tolist() == [[1.0, 3.0, 2.0, 0.0]]


def test_sparse_embedding_model_trains():
    rng = np.random.default_rng(3)
    ids = tf.sparse_placeholder(tf.int64)
    labels = tf.placeholder(tf.float32, [None, 1])
    table = tf.get_variable("table", [20, 4], initializer=tf.random_normal_initializer(seed=1))
    w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
    features = tf.nn.embedding_lookup_sparse(table, ids, None, combiner="mean")
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    batch = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64),
                                 rng.integers(0, 20, 6).astype(np.int64), np.array([3, 3], np.int64))
    feed = {ids: batch, labels: np.array([[1.0], [-1.0], [0.5]], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(60):
            sess.run(step, feed)
        last = sess.run(loss, feed)
    assert last < 0.05 * first


def test_safe_embedding_lookup_of_ids_of_unknown_rank():
    ids = tf.sparse_placeholder(tf.int64)  # rank unknown when the graph is built
    table = tf.constant(np.arange(12.0).reshape(4, 3))
    out = tf.nn.safe_embedding_lookup_sparse(table, ids, combiner="sum", default_id=3)
    value = tf.SparseTensorValue(np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0]], np.int64), np.array([1, -1, 2], np.int64),
                                 np.array([2, 2, 2], np.int64))
    with tf.Session() as sess:
        got = sess.run(out, {ids: value})
    want = np.array([[[3, 4, 5], [9, 10, 11]], [[9, 10, 11], [6, 7, 8]]], np.float64)  # empty rows: default_id 3
    np.testing.assert_array_equal(got, want)


def test_absent_names_say_why():
    with pytest.raises(AttributeError, match="opforge does not have tf.strings.unicode_script yet: .*ICU"):
        tf.strings.unicode_script  # noqa: B018
    assert tf.SparseTensorSpec([2, 3], tf.float32).shape.as_list() == [2, 3]  # present now (issue 32)


def test_indexed_slices_and_conversions():
    rows = tf.IndexedSlices(values=tf.constant([[1.0, 2.0], [3.0, 4.0]]), indices=tf.constant([2, 0]),
                            dense_shape=tf.constant([3, 2], tf.int64))
    assert tf.convert_to_tensor_or_indexed_slices(rows) is rows
    sp = tf.SparseTensorValue([[0, 1]], [5.0], [2, 2])
    assert isinstance(tf.convert_to_tensor_or_sparse_tensor(sp), tf.SparseTensor)
    with pytest.raises(ValueError, match="Sparse dtype mismatch"):
        tf.convert_to_tensor_or_sparse_tensor(sp, dtype=tf.int32)
    with tf.Session() as sess:
        assert sess.run(rows.to_dense()).tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]]
        assert sess.run(tf.fingerprint(tf.constant([b"hello"]))).tolist() == [[232, 12, 56, 49, 169, 229, 139, 180]]
