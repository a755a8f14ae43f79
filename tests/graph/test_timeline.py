"""of.timeline.Timeline (TensorFlow's tensorflow.python.client.timeline): the Chrome trace of a
traced step is valid Trace Event JSON with one complete event per node run on its thread's row,
process and thread names, dataflow arrows between rows, tensor lifetimes and allocator
counters; it reads TensorFlow's step stats, and TensorFlow's timeline reads opforge's."""

from __future__ import annotations

import json

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge import _C
from opforge import timeline

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _traced_step(rng, mode="off"):
    before = _C._testing.concurrent_executor()
    _C._testing.set_concurrent_executor(mode)
    try:
        g = tf1.Graph()
        with g.as_default():
            x = tf1.placeholder(tf1.float32, [16, 32], name="x")
            branches = [tf1.tanh(tf1.matmul(x, tf1.constant(rng.standard_normal((32, 32)).astype(np.float32)),
                                            name=f"mm{i}"), name=f"t{i}") for i in range(4)]
            out = tf1.add_n(branches, name="out")
        with tf1.Session(graph=g) as sess:
            md = tf1.RunMetadata()
            for _ in range(3):
                sess.run(out, {x: rng.standard_normal((16, 32))},
                         options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE), run_metadata=md)
        return md
    finally:
        _C._testing.set_concurrent_executor(before)


def _events(trace_json, phase):
    return [e for e in json.loads(trace_json)["traceEvents"] if e["ph"] == phase]


@pytest.mark.parametrize("mode", ["off", "always"])
def test_one_complete_event_per_node_run(mode):
    md = _traced_step(np.random.default_rng(0), mode)
    nodes = [ns for d in md.step_stats.dev_stats for ns in d.node_stats]
    trace = timeline.Timeline(md.step_stats).generate_chrome_trace_format()
    doc = json.loads(trace)
    assert set(doc) == {"traceEvents"}
    complete = _events(trace, "X")
    assert sorted(e["args"]["name"] for e in complete) == sorted(ns.node_name for ns in nodes)
    by_name = {ns.node_name: ns for ns in nodes}
    for e in complete:
        ns = by_name[e["args"]["name"]]
        assert e["cat"] == "Op" and e["name"] == ns.timeline_label.split(" = ")[1].split("(")[0]
        assert e["ts"] == pytest.approx(ns.all_start_nanos / 1000) and e["dur"] == pytest.approx(ns.all_end_rel_nanos / 1000)
        assert e["tid"] == ns.thread_id and e["pid"] == 1
    assert by_name["t0"].timeline_label == "t0 = Tanh(mm0)"
    assert [e["args"]["input0"] for e in complete if e["args"]["name"] == "t0"] == ["mm0"]
    meta = _events(trace, "M")
    processes = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert processes == {0: "Allocators", 1: CPU + " Compute", 2: CPU + " Tensors"}
    threads = {e["tid"] for e in meta if e["name"] == "thread_name"}
    assert threads == {e["tid"] for e in complete}
    # Arrows only between rows: each starts where its producer ended and ends where the reader starts.
    starts, ends = _events(trace, "s"), _events(trace, "f")
    assert [e["id"] for e in starts] == [e["id"] for e in ends]
    for s, f in zip(starts, ends):
        assert (s["pid"], s["tid"]) != (f["pid"], f["tid"]) and s["ts"] <= f["ts"]
    if len(threads) == 1:
        assert not starts
    else:  # the concurrent executor ran some steps on another thread than their inputs' producers
        assert starts


def test_memory_counters_follow_tensor_lifetimes():
    md = _traced_step(np.random.default_rng(1))
    analysis = timeline.Timeline(md.step_stats).analyze_step_stats(show_memory=True)
    trace = analysis.chrome_trace.format_to_string()
    created, deleted = _events(trace, "N"), _events(trace, "D")
    assert sorted(e["name"] for e in created) == sorted(e["name"] for e in deleted)
    assert {"mm0", "t0", "out"} <= {e["name"] for e in created}
    counters = _events(trace, "C")
    assert counters and {e["name"] for e in counters} == {"cpu"}
    values = [e["args"]["cpu"] for e in counters]
    assert values[-1] == 0 and min(values) >= 0
    # The most held at once: every mm output is 16x32 float32, live until its tanh ran.
    peak = analysis.allocator_maximums["cpu"]
    assert peak.num_bytes == max(values) >= 2 * 16 * 32 * 4
    assert all(e["ts"] <= f["ts"] for e, f in zip(counters, counters[1:]))
    # Without show_memory: no tensors, no counters.
    plain = timeline.Timeline(md.step_stats).generate_chrome_trace_format(show_dataflow=False)
    assert not _events(plain, "C") and not _events(plain, "N") and not _events(plain, "s")


def test_bad_op_time_is_a_value_error():
    md = _traced_step(np.random.default_rng(2))
    with pytest.raises(ValueError, match="op_time must be one of schedule, gpu, all, got 'cpu'"):
        timeline.Timeline(md.step_stats).generate_chrome_trace_format(op_time="cpu")


def test_public_spellings():
    assert of.timeline is timeline and tf1.timeline is timeline
    assert timeline.Timeline.__module__ == "opforge.framework.timeline"


def test_tensorflows_timeline_reads_opforges_step_stats_and_back():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.client import timeline as tf_timeline

    md = _traced_step(np.random.default_rng(3))
    tf_stats = tf.compat.v1.RunMetadata.FromString(md.SerializeToString()).step_stats
    theirs = tf_timeline.Timeline(tf_stats).generate_chrome_trace_format(show_memory=True)
    ours = timeline.Timeline(md.step_stats).generate_chrome_trace_format(show_memory=True)
    assert sorted(e["args"]["name"] for e in _events(theirs, "X")) == sorted(
        e["args"]["name"] for e in _events(ours, "X"))
    # The same tensors, on the same allocator (TensorFlow's peak differs: it rounds lifetimes to
    # whole microseconds).
    assert sorted(e["name"] for e in _events(theirs, "N")) == sorted(e["name"] for e in _events(ours, "N"))
    assert {e["name"] for e in _events(theirs, "C")} == {e["name"] for e in _events(ours, "C")} == {"cpu"}

    # TensorFlow's own step stats (thread ids left 0): rows are assigned so events do not overlap.
    with tf.Graph().as_default() as g:
        x = tf.compat.v1.placeholder(tf.float32, [4, 4], name="x")
        y = tf.tanh(tf.matmul(x, x), name="y")
        with tf.compat.v1.Session(graph=g) as sess:
            tmd = tf.compat.v1.RunMetadata()
            sess.run(y, {x: np.ones((4, 4))}, options=tf.compat.v1.RunOptions(trace_level=3), run_metadata=tmd)
    stats = of.compat.v1.RunMetadata.FromString(tmd.SerializeToString()).step_stats
    trace = timeline.Timeline(stats).generate_chrome_trace_format()
    complete = _events(trace, "X")
    assert len(complete) == sum(len(d.node_stats) for d in stats.dev_stats)
    for tid in {e["tid"] for e in complete}:
        row = sorted((e["ts"], e["ts"] + e["dur"]) for e in complete if e["tid"] == tid and e["pid"] == 1)
        assert all(end <= start for (_, end), (start, _) in zip(row, row[1:]))
