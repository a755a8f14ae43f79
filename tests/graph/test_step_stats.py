"""Session.run with RunOptions(trace_level=FULL_TRACE) fills RunMetadata.step_stats as
TensorFlow's does (framework/step_stats.py, the executors' StepTrace): every node that ran, once
per run (per iteration in a while loop), with sane times, its outputs' dtypes, shapes and bytes,
under the straight-line, concurrent and dataflow executors; nothing without a trace level; the
same fields filled as TensorFlow's; and FileWriter.add_run_metadata hands it to TensorBoard."""

from __future__ import annotations

import glob
import threading
import time

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge import _C

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
NO_OPTIMIZER = tf1.ConfigProto(graph_options=tf1.GraphOptions(
    rewrite_options=tf1.RewriterConfig(disable_meta_optimizer=True)))
DTYPES = {1: np.float32, 3: np.int32}


@pytest.fixture
def executor():
    before = _C._testing.concurrent_executor()
    yield _C._testing.set_concurrent_executor
    _C._testing.set_concurrent_executor(before)


def _traced(sess, fetches, feed=None):
    md = tf1.RunMetadata()
    before = time.time_ns() // 1000
    out = sess.run(fetches, feed, options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE), run_metadata=md)
    after = time.time_ns() // 1000
    return out, md, before, after


def _node_stats(md):
    return [ns for dev in md.step_stats.dev_stats for ns in dev.node_stats]


def _mlp(rng):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [None, 5], name="x")
        w = tf1.Variable(rng.standard_normal((5, 3)).astype(np.float32), name="w")
        b = tf1.constant(rng.standard_normal(3).astype(np.float32), name="b")
        h = tf1.nn.relu(tf1.nn.bias_add(tf1.matmul(x, w, name="mm"), b, name="ba"), name="h")
        loss = tf1.reduce_sum(tf1.square(h, name="sq"), name="loss")
    return g, x, w, loss


def test_every_node_that_ran_appears_once_with_times_and_outputs():
    rng = np.random.default_rng(0)
    g, x, w, loss = _mlp(rng)
    feed = rng.standard_normal((7, 5)).astype(np.float32)
    with tf1.Session(graph=g, config=NO_OPTIMIZER) as sess:
        sess.run(tf1.variables_initializer([w]))
        w_value = sess.run(w)
        for _ in range(2):  # each run has its own stats
            value, md, before, after = _traced(sess, loss, {x: feed})
        h = sess.run(g.get_tensor_by_name("h:0"), {x: feed})
    stats = md.step_stats
    assert [d.device for d in stats.dev_stats] == [CPU]
    nodes = _node_stats(md)
    names = [ns.node_name for ns in nodes]
    # The fed placeholder does not run; everything loss needs does, once.
    assert sorted(names) == sorted(["w", "mm", "b", "ba", "h", "sq", "Const", "loss"])
    by_name = {ns.node_name: ns for ns in nodes}
    assert by_name["mm"].timeline_label == "mm = MatMul(x, w)"
    assert by_name["h"].timeline_label == "h = Relu(ba)"
    assert by_name["loss"].timeline_label.startswith("loss = Sum(sq, ")
    ends = []
    for ns in nodes:
        assert before <= ns.all_start_micros <= after
        assert ns.all_start_micros + ns.all_end_rel_micros <= after
        assert ns.all_start_nanos // 1000 == ns.all_start_micros
        assert 0 <= ns.op_start_rel_nanos <= ns.op_end_rel_nanos <= ns.all_end_rel_nanos
        assert ns.op_end_rel_micros == ns.op_end_rel_nanos // 1000
        assert ns.thread_id > 0
        ends.append(ns.all_start_nanos + ns.all_end_rel_nanos)
    assert ends == sorted(ends)  # one step after another
    # Outputs: TensorFlow's tensor descriptions of what the run computed.
    for name, want in (("mm", feed @ w_value), ("h", h), ("sq", h * h), ("loss", np.float32(value))):
        [out] = by_name[name].output
        desc = out.tensor_description
        assert out.slot == 0 and DTYPES[desc.dtype] == np.float32
        assert [d.size for d in desc.shape.dim] == list(np.shape(want))
        assert desc.allocation_description.requested_bytes == np.asarray(want, np.float32).nbytes
        assert desc.allocation_description.allocator_name == "cpu"
        [mem] = by_name[name].memory
        assert mem.allocator_name == "cpu" and mem.total_bytes >= desc.allocation_description.requested_bytes
        assert mem.allocator_bytes_in_use > 0
    np.testing.assert_allclose(value, (h * h).sum(), rtol=1e-5)
    # A variable's output is a reference: its dtype, no shape or buffer of its own.
    [ref] = by_name["w"].output
    assert ref.tensor_description.shape.unknown_rank and not ref.tensor_description.HasField("allocation_description")


def test_no_stats_without_a_trace_level():
    rng = np.random.default_rng(1)
    g, x, w, loss = _mlp(rng)
    feed = rng.standard_normal((2, 5)).astype(np.float32)
    with tf1.Session(graph=g) as sess:
        sess.run(w.initializer)
        for options in (None, tf1.RunOptions(), tf1.RunOptions(trace_level=tf1.RunOptions.NO_TRACE)):
            md = tf1.RunMetadata()
            sess.run(loss, {x: feed}, options=options, run_metadata=md)
            assert not md.HasField("step_stats")
        # A trace level without run metadata to fill is not an error (as in TensorFlow).
        sess.run(loss, {x: feed}, options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE))
        # The executors record nothing unless asked: the untraced binding returns the tensors alone.
        assert isinstance(sess._c.run([(x._ref(), sess._feed_value(x, feed))], [loss._ref()], []), list)
        # A traced run after untraced ones fills its metadata, and replaces what was there.
        md = tf1.RunMetadata()
        for _ in range(2):
            sess.run(loss, {x: feed}, options=tf1.RunOptions(trace_level=tf1.RunOptions.SOFTWARE_TRACE),
                     run_metadata=md)
        assert len(md.step_stats.dev_stats) == 1
        assert sorted(ns.node_name for ns in _node_stats(md)).count("loss") == 1


def _branchy(rng, width=4, depth=4):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [6, 9], name="x")
        level = [x]
        for d in range(depth):
            nxt = []
            for b in range(width):
                a = level[int(rng.integers(len(level)))]
                c = level[int(rng.integers(len(level)))]
                nxt.append(tf1.tanh(a * 0.5 + c, name=f"t{d}_{b}"))
            level = nxt
        out = tf1.add_n(level, name="out")
    return g, x, out


def _needed(op, seen=None):
    """The names of the ops that computing op needs (op included)."""
    seen = set() if seen is None else seen
    if op.name not in seen:
        seen.add(op.name)
        for t in op.inputs:
            _needed(t.op, seen)
        for c in op.control_inputs:
            _needed(c, seen)
    return seen


@pytest.mark.parametrize("mode", ["off", "always", "auto"])
def test_each_executor_traces_every_step_once(executor, mode):
    rng = np.random.default_rng(2)
    g, x, out = _branchy(rng)
    feed = rng.standard_normal((6, 9)).astype(np.float32)
    executor(mode)
    with tf1.Session(graph=g, config=NO_OPTIMIZER) as sess:
        want = sess.run(out, {x: feed})
        for _ in range(12):  # through 'auto's tuning runs, traced or not
            got, md, before, after = _traced(sess, out, {x: feed})
            np.testing.assert_array_equal(got, want)
            nodes = _node_stats(md)
            ran = sorted(ns.node_name for ns in nodes)
            assert ran == sorted(_needed(out.op) - {"x"})
            for ns in nodes:
                assert before <= ns.all_start_micros and ns.all_start_micros + ns.all_end_rel_micros <= after
                if ns.node_name.startswith("t"):
                    [o] = ns.output
                    assert [d.size for d in o.tensor_description.shape.dim] == [6, 9]
                    assert o.tensor_description.allocation_description.requested_bytes == 6 * 9 * 4
            # One thread number per executor thread, each named.
            dev = md.step_stats.dev_stats[0]
            assert {ns.thread_id for ns in nodes} == set(dev.thread_names)


def test_traced_runs_from_several_threads_each_get_their_own_stats(executor):
    rng = np.random.default_rng(6)
    g, x, out = _branchy(rng)
    feeds = [rng.standard_normal((6, 9)).astype(np.float32) for _ in range(4)]
    executor("always")
    want = sorted(_needed(out.op) - {"x"})
    with tf1.Session(graph=g, config=NO_OPTIMIZER) as sess:
        expected = [sess.run(out, {x: f}) for f in feeds]
        errors = []

        def work(k):
            try:
                for _ in range(5):
                    got, md, before, after = _traced(sess, out, {x: feeds[k]})
                    np.testing.assert_array_equal(got, expected[k])
                    nodes = _node_stats(md)
                    assert sorted(ns.node_name for ns in nodes) == want
                    assert all(before <= ns.all_start_micros <= after for ns in nodes)
            except Exception as e:  # noqa: BLE001  (reported below, in the test's thread)
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors[0]


def test_while_loop_nodes_appear_once_per_iteration():
    """TensorFlow's executor records a loop's nodes each time they run live: the body's per
    iteration, the condition's and the Merge/Switch one more time, Enter and Exit once."""
    n = 5
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [3], name="x")
        i0 = tf1.constant(0, name="i0")
        _, out = tf1.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 2.0 + 1.0), [i0, x], name="loop")
    with tf1.Session(graph=g, config=NO_OPTIMIZER) as sess:
        got, md, before, after = _traced(sess, out, {x: np.ones(3, np.float32)})
    np.testing.assert_allclose(got, np.full(3, 2.0 ** n * 2 - 1))
    counts = {}
    ops = {op.name: op.type for op in g.get_operations()}
    for ns in _node_stats(md):
        counts[ns.node_name] = counts.get(ns.node_name, 0) + 1
        assert ns.timeline_label.startswith(f"{ns.node_name} = {ops[ns.node_name]}(")
    by_type = {}
    for name, c in counts.items():
        by_type.setdefault(ops[name], set()).add(c)
    assert by_type["Merge"] == {n + 1} and by_type["Switch"] == {n + 1} and by_type["Less"] == {n + 1}
    assert by_type["NextIteration"] == {n} and by_type["Mul"] == {n}
    assert by_type["Exit"] == {1}  # live in the last iteration only
    assert by_type["Enter"] == {1}
    # Switch: only the taken side is an output of the run.
    switch = [ns for ns in _node_stats(md) if ops[ns.node_name] == "Switch"]
    assert all(len(ns.output) == 1 for ns in switch)
    assert sorted({ns.output[0].slot for ns in switch}) == [0, 1]  # the exit's side, and the body's


def _loop_counts(api, session, n=4):
    """(op type, times in the step stats) per node of a TF1 while loop of n iterations, sorted."""
    g = api.Graph()
    with g.as_default():
        x = api.placeholder(api.float32, [3], name="x")
        i0 = api.constant(0, name="i0")
        _, out = api.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 2.0 + 1.0), [i0, x], name="loop")
        md = api.RunMetadata()
        with session(g) as sess:
            sess.run(out, {x: np.ones(3, np.float32)}, options=api.RunOptions(trace_level=3), run_metadata=md)
    counts = {}
    for d in md.step_stats.dev_stats:
        for ns in d.node_stats:
            counts[ns.node_name] = counts.get(ns.node_name, 0) + 1
    # TensorFlow's own nodes (_SOURCE, _arg_x_0_0, _retval_...) aside.
    types = {op.name: op.type for op in g.get_operations()}
    return sorted((types[name], c) for name, c in counts.items() if not name.startswith("_"))


def test_while_loop_counts_are_tensorflows():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_control_flow_v2()
    try:
        config = tf.compat.v1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        theirs = _loop_counts(tf.compat.v1, lambda g: tf.compat.v1.Session(graph=g, config=config))
    finally:
        tf.compat.v1.enable_control_flow_v2()
    ours = _loop_counts(tf1, lambda g: tf1.Session(graph=g, config=NO_OPTIMIZER))
    assert ours == theirs  # node names differ ("loop/add" there, "loop/AddV2" here)


def test_same_fields_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    feed = rng.standard_normal((4, 5)).astype(np.float32)
    wv = rng.standard_normal((5, 3)).astype(np.float32)

    def build(api):
        x = api.placeholder(api.float32, [None, 5], name="x")
        w = api.constant(wv, name="w")
        h = api.nn.relu(api.matmul(x, w, name="mm"), name="h")
        return x, api.reduce_sum(api.tanh(h, name="t"), name="loss")

    with tf.Graph().as_default() as tg:
        tx, tloss = build(tf.compat.v1)
        config = tf.compat.v1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf.compat.v1.Session(graph=tg, config=config) as tsess:
            tmd = tf.compat.v1.RunMetadata()
            tsess.run(tloss, {tx: feed}, options=tf.compat.v1.RunOptions(trace_level=3), run_metadata=tmd)
    with tf1.Graph().as_default() as g:
        x, loss = build(tf1)
        with tf1.Session(graph=g, config=NO_OPTIMIZER) as sess:
            _, md, _, _ = _traced(sess, loss, {x: feed})
    ours = {ns.node_name: ns for ns in _node_stats(md)}
    theirs = {ns.node_name: ns for d in tmd.step_stats.dev_stats for ns in d.node_stats}
    assert [d.device for d in tmd.step_stats.dev_stats] == [d.device for d in md.step_stats.dev_stats]
    common = sorted(set(ours) & set(theirs))
    assert {"mm", "h", "t", "loss"} <= set(common), (sorted(ours), sorted(theirs))
    timing = {"node_name", "all_start_micros", "timeline_label", "all_start_nanos", "all_end_rel_nanos",
              "op_end_rel_nanos", "scheduled_micros", "scheduled_nanos", "output"}
    for name in common:
        mine = {f.name for f, _ in ours[name].ListFields()}
        tfs = {f.name for f, _ in theirs[name].ListFields()}
        assert timing & tfs <= mine, name
        if theirs[name].memory:
            assert ours[name].memory
        for a, b in zip(ours[name].output, theirs[name].output):
            da, db = a.tensor_description, b.tensor_description
            assert (a.slot, da.dtype, [d.size for d in da.shape.dim]) == (b.slot, db.dtype, [d.size for d in db.shape.dim])
            assert da.allocation_description.requested_bytes == db.allocation_description.requested_bytes
    # Our step stats are TensorFlow's wire format: TensorFlow parses them to the same message.
    parsed = tf.compat.v1.RunMetadata.FromString(md.SerializeToString())
    assert parsed.step_stats.SerializeToString() == md.step_stats.SerializeToString()


def test_optimized_graphs_show_the_nodes_that_ran():
    """With the graph optimizer on, the stats name the nodes of the graph it made (as
    TensorFlow's show grappler's): MatMul, BiasAdd and Relu ran as one fused node."""
    rng = np.random.default_rng(4)
    g, x, w, loss = _mlp(rng)
    with tf1.Session(graph=g) as sess:
        sess.run(w.initializer)
        _, md, _, _ = _traced(sess, loss, {x: np.ones((2, 5))})
    labels = [ns.timeline_label for ns in _node_stats(md)]
    assert "h = _FusedMatMul(x, w, b)" in labels
    assert not {"mm", "ba"} & {ns.node_name for ns in _node_stats(md)}


def test_run_metadata_of_tensorflow_is_filled_too():
    """A TensorFlow RunMetadata passed to opforge's Session gets the same bytes."""
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    g, x, w, loss = _mlp(rng)
    with tf1.Session(graph=g) as sess:
        sess.run(w.initializer)
        tmd = tf.compat.v1.RunMetadata()
        sess.run(loss, {x: np.ones((2, 5))}, options=tf1.RunOptions(trace_level=3), run_metadata=tmd)
    assert {"w", "h", "loss"} <= {ns.node_name for d in tmd.step_stats.dev_stats for ns in d.node_stats}


def test_add_run_metadata_reaches_tensorboard(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    rng = np.random.default_rng(5)
    g, x, w, loss = _mlp(rng)
    with g.as_default():
        train = tf1.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    with tf1.Session(graph=g) as sess, tf1.summary.FileWriter(str(tmp_path), g) as writer:
        sess.run(tf1.global_variables_initializer())
        md = tf1.RunMetadata()
        sess.run(train, {x: rng.standard_normal((8, 5))}, options=tf1.RunOptions(trace_level=3), run_metadata=md)
        writer.add_run_metadata(md, "step_1", 1)
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 1
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["step_1"]
    read = acc.RunMetadata("step_1")  # TensorBoard's own RunMetadata class
    assert read.step_stats.SerializeToString() == md.step_stats.SerializeToString()
    # TensorBoard's graph dashboard puts each stat on the graph node of that name.
    graph_names = {n.name for n in acc.Graph().node}
    traced = {ns.node_name for d in read.step_stats.dev_stats for ns in d.node_stats}
    assert {"h", "loss"} <= traced and traced <= graph_names
    # The graph plugin serves it as text for the dashboard.
    from tensorboard.compat.proto import config_pb2

    assert "node_stats" in str(config_pb2.RunMetadata.FromString(read.SerializeToString()))
