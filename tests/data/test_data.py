"""tf.data in graphs, as TensorFlow 1 programs use it: datasets from arrays and placeholders,
batch / repeat / shuffle / map / filter / take / skip / zip, one-shot and initializable
iterators, OutOfRangeError at the end, and the same sequence of elements as TensorFlow's."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError


def _drain(sess, t, limit=1000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(t))
        except OutOfRangeError:
            return out
    raise AssertionError("the iterator did not end")


def _pipeline_values(build):
    """Every element the pipeline yields, through a one-shot iterator in a Session."""
    with tf1.Graph().as_default():
        nxt = tf1.data.make_one_shot_iterator(build(tf1)).get_next()
        with tf1.Session() as sess:
            return _drain(sess, nxt)


def test_batches_repeat_and_the_end_of_the_sequence():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(10, 3)).astype(np.float32), rng.integers(0, 5, size=10)
    got = _pipeline_values(lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat(2))
    assert [b[0].shape for b in got] == [(4, 3), (4, 3), (2, 3)] * 2
    np.testing.assert_array_equal(np.concatenate([b[0] for b in got]), np.concatenate([x, x]))
    np.testing.assert_array_equal(np.concatenate([b[1] for b in got]), np.concatenate([y, y]))
    assert len(_pipeline_values(lambda tf: tf.data.Dataset.from_tensor_slices(x).batch(4, drop_remainder=True))) == 2


def test_shapes_and_types():
    with tf1.Graph().as_default():
        ds = tf1.data.Dataset.from_tensor_slices({"a": np.zeros((6, 2), np.float32), "b": np.arange(6)}).batch(3)
        assert ds.output_types == {"a": of.float32, "b": of.int64}
        assert ds.output_shapes["a"].as_list() == [None, 2]
        it = ds.make_one_shot_iterator()
        nxt = it.get_next()
        assert nxt["a"].shape.as_list() == [None, 2] and nxt["b"].dtype == of.int64
        assert tf1.data.get_output_types(it) == ds.output_types


def test_shuffle_permutes_each_epoch_reproducibly():
    def epochs(seed):
        with tf1.Graph().as_default():
            tf1.set_random_seed(seed)
            ds = tf1.data.Dataset.range(20).shuffle(20).batch(20).repeat(3)
            nxt = ds.make_one_shot_iterator().get_next()
            with tf1.Session() as sess:
                return [sess.run(nxt) for _ in range(3)]
    a, b = epochs(1), epochs(1)
    for e in a:
        np.testing.assert_array_equal(np.sort(e), np.arange(20))  # a permutation of every element
    assert not np.array_equal(a[0], a[1])  # reshuffled each epoch
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)  # the graph seed fixes the order
    assert not np.array_equal(a[0], epochs(2)[0])


def test_small_shuffle_buffer_keeps_every_element():
    got = _pipeline_values(lambda tf: tf.data.Dataset.range(50).shuffle(5, seed=3))
    assert sorted(int(v) for v in got) == list(range(50)) and [int(v) for v in got] != list(range(50))


def test_initializable_iterator_reads_placeholders_at_initialization():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    with tf1.Graph().as_default():
        p = tf1.placeholder(tf1.float64, [None, 2])
        it = tf1.data.Dataset.from_tensor_slices(p).batch(2).make_initializable_iterator()
        nxt = it.get_next()
        doubled = nxt * 2.0
        with tf1.Session() as sess:
            with pytest.raises(FailedPreconditionError, match="not been initialized"):
                sess.run(nxt)
            sess.run(it.initializer, {p: a})
            np.testing.assert_array_equal(np.concatenate(_drain(sess, doubled)), 2 * a)
            sess.run(it.initializer, {p: b})  # starts over on new data
            np.testing.assert_array_equal(np.concatenate(_drain(sess, nxt)), b)


def test_which_runs_take_an_element():
    with tf1.Graph().as_default():
        it = tf1.data.Dataset.range(10).make_one_shot_iterator()
        x = it.get_next()
        y = it.get_next()  # a second get_next takes its own element
        other = tf1.constant(5)
        with tf1.Session() as sess:
            assert sess.run(x) == 0
            assert sess.run(other) == 5  # a run that does not need x takes nothing
            assert sess.run(x + 0) == 1
            assert sess.run(x, {x: np.int64(42)}) == 42  # a fed get_next takes nothing
            assert sorted(sess.run([x, y])) == [2, 3]  # an element each (TF leaves their order open)


def test_map_filter_take_skip_zip():
    got = _pipeline_values(lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(10, dtype=np.float32), np.arange(10) % 3))
        .map(lambda v, k: (v * 2.0 + 1.0, tf.equal(k, 0)))
        .filter(lambda v, keep: keep)
        .map(lambda v, keep: v)
        .skip(1).take(2))
    np.testing.assert_array_equal(got, [7.0, 13.0])
    zipped = _pipeline_values(lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(3), tf.data.Dataset.from_tensor_slices(np.array([5.0, 6.0, 7.0, 8.0])))))
    assert [(int(a), float(b)) for a, b in zipped] == [(0, 5.0), (1, 6.0), (2, 7.0)]


def test_training_loop_with_a_dataset():
    rng = np.random.default_rng(2)
    xs = rng.uniform(-1, 1, size=(256, 1)).astype(np.float32)
    ys = 3 * xs - 1
    with tf1.Graph().as_default():
        tf1.set_random_seed(0)
        bx, by = tf1.data.Dataset.from_tensor_slices((xs, ys)).shuffle(256).batch(32).repeat() \
            .make_one_shot_iterator().get_next()
        w, b = tf1.Variable(0.0), tf1.Variable(0.0)
        loss = tf1.reduce_mean(tf1.square(bx * w + b - by))
        train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(200):
                sess.run(train)
            np.testing.assert_allclose(sess.run([w, b]), [3.0, -1.0], atol=1e-3)


def test_eager_iteration():
    got = [t.numpy() for t in of.data.Dataset.from_tensor_slices(np.arange(6)).map(lambda v: v * 10).batch(4)]
    np.testing.assert_array_equal(np.concatenate(got), np.arange(6) * 10)


@pytest.mark.parametrize("build, error, message", [
    (lambda tf: tf.data.Dataset.range(3).batch(0), InvalidArgumentError, "batch_size must be positive"),
    (lambda tf: tf.data.Dataset.from_tensor_slices(np.float32(1)), InvalidArgumentError, "at least one dimension"),
    (lambda tf: tf.data.Dataset.from_tensor_slices(tf.placeholder(tf.float32, [None])).make_one_shot_iterator(),
     InvalidArgumentError, "make_initializable_iterator"),
    (lambda tf: tf.data.Dataset.range(3).filter(lambda v: v), InvalidArgumentError, "scalar bool"),
])
def test_bad_pipelines_raise(build, error, message):
    with tf1.Graph().as_default(), pytest.raises(error, match=message):
        build(tf1)


def test_components_of_different_lengths():
    with tf1.Graph().as_default():
        it = tf1.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4))).make_one_shot_iterator()
        with tf1.Session() as sess, pytest.raises(InvalidArgumentError, match="different first dimensions"):
            sess.run(it.get_next())


def test_same_elements_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(11, 2)).astype(np.float32)
    y = rng.integers(0, 4, size=11).astype(np.int32)

    def build(ns):
        return (ns.data.Dataset.from_tensor_slices((x, y))
                .map(lambda a, b: (a * 2.0 + 1.0, ns.cast(b, ns.float32) - 0.5))
                .filter(lambda a, b: b > 0)
                .batch(3).repeat(2).skip(1).take(4))

    ours = _pipeline_values(build)
    with tf.Graph().as_default():
        nxt = tf.compat.v1.data.make_one_shot_iterator(build(tf.compat.v1)).get_next()
        with tf.compat.v1.Session() as sess:
            theirs = []
            while True:
                try:
                    theirs.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
    assert len(ours) == len(theirs)
    for (a, b), (c, d) in zip(ours, theirs):
        np.testing.assert_allclose(a, c, rtol=1e-6)
        np.testing.assert_allclose(b, d, rtol=1e-6)
