"""Iterators as TensorFlow 1 has them: a position per Session, reinitializable
(from_structure + make_initializer) and feedable (from_string_handle + string_handle)
iterators, map functions that capture placeholders and variables, and the threads: a parallel
map keeps the input order (or not, with deterministic=False) and really overlaps its calls,
and prefetch fills its buffer while the consumer is busy."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError


def test_each_session_has_its_own_position():
    with tf1.Graph().as_default():
        nxt = tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(5)).get_next()
        x = tf1.placeholder(tf1.int64, [None])
        it = tf1.data.Dataset.from_tensor_slices(x).make_initializable_iterator()
        got = it.get_next()
        s1, s2 = tf1.Session(), tf1.Session()
        assert [s1.run(nxt), s1.run(nxt), s2.run(nxt), s1.run(nxt)] == [0, 1, 0, 2]
        s1.run(it.initializer, {x: [1, 2, 3]})
        with pytest.raises(FailedPreconditionError, match="not been initialized"):
            s2.run(got)
        s2.run(it.initializer, {x: [7]})
        assert [s1.run(got), s2.run(got), s1.run(got)] == [1, 7, 2]
        with pytest.raises(OutOfRangeError):
            s2.run(got)
        s1.close()
        s2.close()


def test_map_captures_placeholders_and_variables_at_initialization():
    with tf1.Graph().as_default():
        scale = tf1.placeholder(tf1.float32, [])
        offset = tf1.Variable(1.0)
        ds = tf1.data.Dataset.range(4).map(lambda x: tf1.cast(x, tf1.float32) * scale + offset)
        ds = ds.filter(lambda v: v < scale * 1000)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        bump = tf1.assign_add(offset, 100.0)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(it.initializer, {scale: 2.0})
            first = sess.run(nxt, {scale: 50.0})  # the value at initialization counts
            sess.run(bump)
            second = sess.run(nxt)
            sess.run(it.initializer, {scale: 1.0})
            third = sess.run(nxt)
        with pytest.raises(InvalidArgumentError, match="Cannot capture a (placeholder|stateful node)"):
            tf1.data.make_one_shot_iterator(ds)
    assert (first, second, third) == (1.0, 3.0, 101.0)


def test_nested_functions_capture_through_flat_map():
    with tf1.Graph().as_default():
        k = tf1.placeholder(tf1.int64, [])
        ds = tf1.data.Dataset.range(1, 3).flat_map(lambda x: tf1.data.Dataset.range(x).map(lambda y: y * 10 + x + k))
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf1.Session() as sess:
            sess.run(it.initializer, {k: 1000})
            assert [sess.run(nxt) for _ in range(3)] == [1001, 1002, 1012]


def test_reinitializable_iterator():
    with tf1.Graph().as_default():
        train = tf1.data.Dataset.range(10).batch(4)
        valid = tf1.data.Dataset.range(100, 103).batch(4)
        it = tf1.data.Iterator.from_structure(train.output_types, train.output_shapes)
        train_init, valid_init = it.make_initializer(train), it.make_initializer(valid)
        nxt = it.get_next()
        assert nxt.shape.as_list() == [None]
        with tf1.Session() as sess:
            with pytest.raises(FailedPreconditionError):
                sess.run(nxt)
            sess.run(train_init)
            assert sess.run(nxt).tolist() == [0, 1, 2, 3]
            sess.run(valid_init)
            assert sess.run(nxt).tolist() == [100, 101, 102]
            sess.run(train_init)
            assert sess.run(nxt).tolist() == [0, 1, 2, 3]
        with pytest.raises(TypeError, match="output types"):
            it.make_initializer(tf1.data.Dataset.range(3).map(lambda x: tf1.cast(x, tf1.float32)))
        with pytest.raises(ValueError, match="initializer"):
            _ = it.initializer


def test_feedable_iterator():
    with tf1.Graph().as_default():
        handle = tf1.placeholder(tf1.string, [])
        train = tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(100).repeat())
        valid_x = tf1.placeholder(tf1.int64, [None])
        valid = tf1.data.Dataset.from_tensor_slices(valid_x).make_initializable_iterator()
        it = tf1.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
        nxt = it.get_next()
        other = tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(3).map(lambda x: tf1.cast(x, tf1.float32)))
        with tf1.Session() as sess:
            th, vh, oh = sess.run([train.string_handle(), valid.string_handle(), other.string_handle()])
            sess.run(valid.initializer, {valid_x: [-1, -2]})
            got = [sess.run(nxt, {handle: h}) for h in (th, th, vh, th, vh)]
            assert got == [0, 1, -1, 2, -2]
            with pytest.raises(OutOfRangeError):
                sess.run(nxt, {handle: vh})
            with pytest.raises(InvalidArgumentError, match="not the string handle"):
                sess.run(nxt, {handle: b"nonsense"})
            with pytest.raises(InvalidArgumentError, match="expects"):
                sess.run(nxt, {handle: oh})


def test_feedable_iterator_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")

    def run(ns, graph_cls, session_cls):
        with graph_cls().as_default():
            handle = ns.placeholder(ns.string, [])
            a = ns.data.make_one_shot_iterator(ns.data.Dataset.range(5).map(lambda x: x * 2))
            b = ns.data.make_one_shot_iterator(ns.data.Dataset.range(50, 60))
            it = ns.data.Iterator.from_string_handle(handle, ns.int64, ns.TensorShape([]))
            nxt = it.get_next()
            with session_cls() as sess:
                ha, hb = sess.run([a.string_handle(), b.string_handle()])
                return [int(sess.run(nxt, {handle: h})) for h in (ha, hb, ha, ha, hb)]
    v1 = tf.compat.v1
    assert run(tf1, tf1.Graph, tf1.Session) == run(v1, tf.Graph, v1.Session)


@pytest.mark.parametrize("deterministic", [True, False])
def test_parallel_map_keeps_the_order_unless_told(deterministic):
    with tf1.Graph().as_default():
        ds = tf1.data.Dataset.range(40).map(lambda x: x * x, num_parallel_calls=tf1.data.experimental.AUTOTUNE,
                                            deterministic=deterministic)
        got = _drain_all(ds)
    assert got == [i * i for i in range(40)] if deterministic else sorted(got) == [i * i for i in range(40)]


def test_parallel_map_runs_calls_at_once(monkeypatch):
    """The Python pipeline's parallel map (OPFORGE_PYTHON_DATA=1); tests/data/test_dataset_ops.py
    checks the ParallelMapDatasetV2 op's threads."""
    monkeypatch.setenv("OPFORGE_PYTHON_DATA", "1")
    from opforge.data.functions import TracedFunction
    state = {"running": 0, "most": 0, "threads": set()}
    lock = threading.Lock()
    original = TracedFunction.__call__

    def call(self, element, values):
        with lock:
            state["running"] += 1
            state["most"] = max(state["most"], state["running"])
            state["threads"].add(threading.get_ident())
        time.sleep(0.01)  # the GIL is free, as while kernels run
        try:
            return original(self, element, values)
        finally:
            with lock:
                state["running"] -= 1

    monkeypatch.setattr(TracedFunction, "__call__", call)
    with tf1.Graph().as_default():
        got = _drain_all(tf1.data.Dataset.range(16).map(lambda x: x + 1, num_parallel_calls=4))
    assert got == list(range(1, 17))
    assert state["most"] >= 2 and len(state["threads"]) >= 2 and threading.get_ident() not in state["threads"]


def _drain_all(ds):
    nxt = tf1.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf1.Session() as sess:
        while True:
            try:
                out.append(int(sess.run(nxt)))
            except OutOfRangeError:
                return out


def test_prefetch_fills_its_buffer_in_the_background():
    produced = []

    def gen():
        for i in range(6):
            produced.append(i)
            yield i

    with tf1.Graph().as_default():
        nxt = tf1.data.make_one_shot_iterator(tf1.data.Dataset.from_generator(gen, tf1.int64, []).prefetch(3)).get_next()
        with tf1.Session() as sess:
            assert sess.run(nxt) == 0
            deadline = time.time() + 5
            while len(produced) < 4 and time.time() < deadline:
                time.sleep(0.01)  # the consumer "computes"; the pipeline runs ahead meanwhile
            assert len(produced) == 4  # the element taken plus a full buffer of 3, no more
            assert [sess.run(nxt) for _ in range(5)] == [1, 2, 3, 4, 5]
            with pytest.raises(OutOfRangeError):
                sess.run(nxt)


def test_prefetch_passes_errors_on_and_stops_with_the_session():
    with tf1.Graph().as_default():
        x = np.array([1.0, -1.0], np.float32)
        ds = tf1.data.Dataset.from_tensor_slices(x).map(_checked).repeat().prefetch(2)
        nxt = tf1.data.make_one_shot_iterator(ds).get_next()
        sess = tf1.Session()
        assert sess.run(nxt) == 1.0
        with pytest.raises(InvalidArgumentError):
            sess.run(nxt)
        sess2 = tf1.Session()
        assert sess2.run(nxt) == 1.0  # its own pipeline, with its own thread
        sess2.close()
        sess.close()
        deadline = time.time() + 5
        while _prefetch_threads() and time.time() < deadline:
            time.sleep(0.01)
        assert not _prefetch_threads()


def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name.startswith("opforge-prefetch")]


def _checked(x):
    with tf1.control_dependencies([tf1.Assert(x > 0, [x])]):
        return tf1.identity(x)


def test_placeholder_arguments_are_read_at_initialization():
    with tf1.Graph().as_default():
        batch = tf1.placeholder(tf1.int64, [])
        epochs = tf1.placeholder(tf1.int64, [])
        ds = tf1.data.Dataset.range(5).repeat(epochs).batch(batch)
        assert ds.output_shapes.as_list() == [None]
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf1.Session() as sess:
            sess.run(it.initializer, {batch: 4, epochs: 2})
            assert [b.tolist() for b in [sess.run(nxt) for _ in range(3)]] == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4]]
            # as in TensorFlow, the dataset op fails when the initializer runs it (the Python
            # pipeline, OPFORGE_PYTHON_DATA=1, at the first element)
            with pytest.raises(InvalidArgumentError, match="batch_size must be positive"):
                sess.run(it.initializer, {batch: 0, epochs: 1})
                sess.run(nxt)
        with pytest.raises(InvalidArgumentError, match="integer scalar"):
            tf1.data.Dataset.range(3).batch(tf1.placeholder(tf1.float32, []))
        shards, index = tf1.placeholder(tf1.int64, []), tf1.placeholder(tf1.int64, [])
        it = tf1.data.Dataset.range(10).shard(shards, index).make_initializable_iterator()
        nxt = it.get_next()
        with tf1.Session() as sess:
            sess.run(it.initializer, {shards: 3, index: 2})
            assert [sess.run(nxt) for _ in range(3)] == [2, 5, 8]
            with pytest.raises(InvalidArgumentError, match="Index must be between 0 and 2"):
                sess.run(it.initializer, {shards: 3, index: 3})
                sess.run(nxt)
