"""The queue-fed producers and batching of tf.compat.v1.train (data/queue_input.py): epochs
counted by a local variable, OutOfRangeError at the end, queue runners in the collection, and
the batches against what TensorFlow's definitions give."""

import os

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _drain(sess, fetch, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("the producer did not stop")


def _session_with_runners():
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    return sess, coord, threads


def _stop(sess, coord, threads):
    coord.request_stop()
    coord.join(threads)
    sess.close()


def test_limit_epochs_counts_with_a_local_variable(graph):
    x = tf.constant([1, 2])
    limited = tf.train.limit_epochs(x, num_epochs=2)
    epochs = [v for v in tf.local_variables() if v.op.name.endswith("epochs")]
    assert len(epochs) == 1 and tf.train.limit_epochs(x) is x
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert [list(sess.run(limited)) for _ in range(2)] == [[1, 2], [1, 2]]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(limited)
        assert sess.run(epochs[0]) == 2
    with pytest.raises(ValueError, match="num_epochs must be > 0"):
        tf.train.limit_epochs(x, num_epochs=0)


def test_range_and_input_producer_epochs(graph):
    q = tf.train.range_input_producer(5, num_epochs=2, shuffle=True, seed=3)
    rows = tf.train.input_producer(tf.constant([[1., 2.], [3., 4.]]), num_epochs=1, shuffle=False)
    assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 2
    row = rows.dequeue()
    assert row.shape.as_list() == [2]
    sess, coord, threads = _session_with_runners()
    got = _drain(sess, q.dequeue())
    assert sorted(got) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4] and sorted(got[:5]) == [0, 1, 2, 3, 4]
    assert [r.tolist() for r in _drain(sess, row)] == [[1., 2.], [3., 4.]]
    _stop(sess, coord, threads)
    with pytest.raises(ValueError, match="fully defined shape"):
        tf.train.input_producer(tf.placeholder(tf.float32, [None, None]))


def test_slice_input_producer_keeps_rows_together(graph, rng):
    a = rng.standard_normal((6, 2)).astype(np.float32)
    b = np.arange(6, dtype=np.int64)
    x, i = tf.train.slice_input_producer([a, b], num_epochs=1, shuffle=True, seed=1)
    assert x.shape.as_list() == [2] and i.shape.as_list() == []
    sess, coord, threads = _session_with_runners()
    got = _drain(sess, [x, i])
    _stop(sess, coord, threads)
    assert sorted(int(k) for _, k in got) == list(range(6))
    for row, k in got:
        np.testing.assert_array_equal(row, a[k])


def test_batch_join_and_smaller_final_batch(graph):
    q1 = tf.train.range_input_producer(4, num_epochs=1, shuffle=False)
    q2 = tf.train.range_input_producer(3, num_epochs=1, shuffle=False)
    one, two = q1.dequeue(), q2.dequeue() + 10
    batch = tf.train.batch_join([[one], [two]], batch_size=3, allow_smaller_final_batch=True)
    assert batch.shape.as_list() == [None]
    sess, coord, threads = _session_with_runners()
    got = np.concatenate(_drain(sess, batch))
    _stop(sess, coord, threads)
    assert sorted(got.tolist()) == [0, 1, 2, 3, 10, 11, 12]


def test_maybe_batch_keeps_what_keep_input_selects(graph):
    q = tf.train.range_input_producer(8, num_epochs=1, shuffle=False)
    v = q.dequeue()
    kept = tf.train.maybe_batch({"v": v}, keep_input=tf.equal(v % 2, 0), batch_size=2)
    many = tf.train.maybe_batch([tf.constant([1, 2, 3, 4])], keep_input=tf.constant([True, False, True, False]),
                                batch_size=2, enqueue_many=True)
    sess, coord, threads = _session_with_runners()
    got = _drain(sess, kept["v"])
    assert np.concatenate(got).tolist() == [0, 2, 4, 6]
    assert sess.run(many).tolist() == [1, 3]
    _stop(sess, coord, threads)
    with pytest.raises(ValueError, match="cannot be a vector"):
        tf.train.maybe_batch([v], keep_input=[True], batch_size=2)
    with pytest.raises(ValueError, match="fully defined"):
        tf.train.batch_join([[tf.placeholder(tf.float32, [None])]], batch_size=2)


def test_shuffle_batch_join_and_maybe_shuffle(graph):
    q = tf.train.range_input_producer(10, num_epochs=1, shuffle=False)
    v = q.dequeue()
    b = tf.train.shuffle_batch_join([[v]], batch_size=5, capacity=20, min_after_dequeue=2, seed=7)
    # (its own producer: runners of two batches over one dequeue would split the ten values)
    ones = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue() * 0 + 1
    m = tf.train.maybe_shuffle_batch_join([[ones]], 2, 10, 0, keep_input=True)
    assert b.shape.as_list() == [5] and m.shape.as_list() == [2]
    sess, coord, threads = _session_with_runners()
    got = _drain(sess, b)
    assert sess.run(m).tolist() == [1, 1]
    _stop(sess, coord, threads)
    assert len(got) == 2 and sorted(np.concatenate(got).tolist()) == list(range(10))


def test_match_filenames_once_and_reader_on_input_producer(graph, tmp_path):
    for k in range(3):
        (tmp_path / f"f{k}.txt").write_text(f"a{k}\nb{k}\n")
    files = tf.train.match_filenames_once(os.path.join(str(tmp_path), "*.txt"))
    assert files in tf.local_variables() and tf.io.match_filenames_once is tf.train.match_filenames_once
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    work = tf.train.input_producer(files, element_shape=[], num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader().read(queue)
    _, line2 = tf.TextLineReader().read(work)
    sess, coord, threads = _session_with_runners()
    assert sorted(sess.run(files).tolist()) == [str(tmp_path / f"f{k}.txt").encode() for k in range(3)]
    assert sorted(_drain(sess, line)) == [b"a0", b"a1", b"a2", b"b0", b"b1", b"b2"]
    assert sorted(_drain(sess, line2)) == [b"a0", b"a1", b"a2", b"b0", b"b1", b"b2"]
    _stop(sess, coord, threads)


def test_reader_base_is_the_readers_base():
    assert issubclass(tf.TextLineReader, tf.ReaderBase) and issubclass(tf.WholeFileReader, tf.ReaderBase)
    with pytest.raises(ValueError, match="reader resource"):
        tf.ReaderBase(reader_ref=object())
    with pytest.raises(TypeError, match="queue of file names"):
        tf.WholeFileReader().read(object())
