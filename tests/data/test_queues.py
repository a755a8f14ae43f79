"""TF1 queues (opforge/data/queues.py) and QueueRunner threads (training/queue_runner.py):
enqueue / dequeue in Session.run, blocking, close, OutOfRangeError, padding, priorities, and a
producer thread under a Coordinator feeding a training loop."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import opforge.compat.v1 as tf


def test_fifo_enqueue_dequeue_close_and_sizes():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[2], []])
        x, i = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.int32, [])
        enqueue = q.enqueue([x, i])
        rows = np.arange(6, dtype=np.float32).reshape(3, 2)
        enqueue_many = q.enqueue_many([rows, [10, 11, 12]])
        one = q.dequeue()
        many = q.dequeue_many(2)
        up_to = q.dequeue_up_to(5)
        size, closed, close = q.size(), q.is_closed(), q.close()
        assert many[0].shape.as_list() == [2, 2] and up_to[0].shape.as_list() == [None, 2]
        with tf.Session() as sess:
            sess.run(enqueue, {x: [-1, -2], i: 9})
            sess.run(enqueue_many)
            assert sess.run(size) == 4 and not sess.run(closed)
            v, k = sess.run(one)
            np.testing.assert_array_equal(v, [-1, -2])
            assert k == 9
            got = sess.run(many)
            np.testing.assert_array_equal(got[0], rows[:2])
            np.testing.assert_array_equal(got[1], [10, 11])
            sess.run(close)
            assert sess.run(closed)
            with pytest.raises(tf.errors.CancelledError, match="closed"):
                sess.run(enqueue, {x: [0, 0], i: 0})
            with pytest.raises(tf.errors.OutOfRangeError, match="requested 2, current size 1"):
                sess.run(many)
            got = sess.run(up_to)  # what is left after close
            np.testing.assert_array_equal(got[1], [12])
            with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient elements"):
                sess.run(one)
        with tf.Session() as other:  # a queue's state is per Session
            assert other.run(size) == 0
        with pytest.raises(ValueError, match="components"):
            q.enqueue([1.0])
        with pytest.raises(ValueError, match="incompatible"):  # a static shape is checked when built
            q.enqueue([tf.constant([1.0, 2.0, 3.0]), 1])
        p = tf.placeholder(tf.float32, [None])
        unknown = q.enqueue([p, 1])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
            sess.run(unknown, {p: [1.0, 2.0, 3.0]})


def test_blocking_dequeue_and_full_enqueue_wait_for_other_threads():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        v = tf.placeholder(tf.int32, [])
        enqueue, dequeue = q.enqueue(v), q.dequeue()
        with tf.Session() as sess:
            got = []
            reader = threading.Thread(target=lambda: got.extend(sess.run(dequeue) for _ in range(3)))
            reader.start()  # blocks until the enqueues below
            for k in range(3):
                sess.run(enqueue, {v: k})  # capacity 1: waits for the reader between them
            reader.join(30)
            assert got == [0, 1, 2]


def test_padding_random_shuffle_and_priority_queues():
    with tf.Graph().as_default():
        pq = tf.PaddingFIFOQueue(5, [tf.int32], shapes=[[None]])
        s = tf.placeholder(tf.int32, [None])
        enqueue, batch = pq.enqueue([s]), pq.dequeue_many(2)
        rq = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
        fill, take, close = rq.enqueue_many([tf.range(6)]), rq.dequeue(), rq.close()
        prio = tf.PriorityQueue(5, [tf.string], shapes=[[]])
        p_fill = prio.enqueue_many([tf.constant([3, 1, 2], tf.int64), tf.constant(["c", "a", "b"])])
        p_take = prio.dequeue_many(3)
        with tf.Session() as sess:
            sess.run(enqueue, {s: [1, 2, 3]})
            sess.run(enqueue, {s: [4]})
            np.testing.assert_array_equal(sess.run(batch), [[1, 2, 3], [4, 0, 0]])
            sess.run(fill)
            first = [int(sess.run(take)) for _ in range(4)]  # leaves min_after_dequeue=2
            sess.run(close)
            rest = [int(sess.run(take)) for _ in range(2)]
            assert sorted(first + rest) == list(range(6))
            sess.run(p_fill)
            priorities, values = sess.run(p_take)
            np.testing.assert_array_equal(priorities, [1, 2, 3])
            assert list(values) == [b"a", b"b", b"c"]


def test_queue_runner_feeds_a_training_loop():
    rng = np.random.default_rng(0)
    data_x = rng.standard_normal((64, 3)).astype(np.float32)
    w_true = np.array([1.0, -2.0, 0.5], np.float32)
    data_y = data_x @ w_true
    with tf.Graph().as_default():
        q = tf.FIFOQueue(8, [tf.float32, tf.float32], shapes=[[3], []])
        idx = tf.Variable(0, dtype=tf.int32)
        take = tf.assign_add(idx, 1) - 1
        row = tf.mod(take, 64)
        enqueue = q.enqueue([tf.gather(tf.constant(data_x), row), tf.gather(tf.constant(data_y), row)])
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [enqueue]))
        xb, yb = q.dequeue_many(16)
        w = tf.Variable(tf.zeros([3]))
        loss = tf.reduce_mean(tf.square(tf.reduce_sum(xb * w, 1) - yb))
        train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            assert len(threads) == 2  # the enqueue thread and the one closing the queue on stop
            for _ in range(60):
                sess.run(train)
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=30)
            np.testing.assert_allclose(sess.run(w), w_true, atol=1e-2)
            assert not any(t.is_alive() for t in threads)


def test_queue_runner_closes_the_queue_when_its_input_ends():
    with tf.Graph().as_default():
        source = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        sink = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        with tf.Session() as sess:
            sess.run(source.enqueue_many([tf.range(5)]))
            sess.run(source.close())
            qr = tf.train.queue_runner.QueueRunner(sink, [sink.enqueue(source.dequeue() * 10)])
            threads = qr.create_threads(sess, start=True)
            for t in threads:
                t.join(30)
            out = sink.dequeue_up_to(10)
            np.testing.assert_array_equal(sess.run(out), [0, 10, 20, 30, 40])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(out)  # the runner closed the sink when the source ran out
    with pytest.raises(ValueError, match="must be specified"):
        tf.train.QueueRunner()
