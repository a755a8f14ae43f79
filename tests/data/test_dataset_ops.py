"""Datasets as ops (opdefs/data, kernels/cpu/data, data/native.py): the dataset and iterator
ops eagerly and in graphs, the C++ record readers against opforge's writers and damaged files,
parallel map's threads, interleave's order against the Python pipeline, GraphDef round trips,
and TensorFlow's own dataset GraphDefs imported and run."""

import gzip
import os
import threading

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework.errors import DataLossError, InvalidArgumentError, OutOfRangeError

R = of.raw_ops
INT64 = {"output_types": [of.int64], "output_shapes": [[]]}


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except OutOfRangeError:
            return out


def _run(ds):
    """Every element of ds through a graph iterator (dataset ops)."""
    with tf.Session() as sess:
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        sess.run(it.initializer)
        return _drain(sess, nxt)


def test_raw_dataset_ops_eagerly():
    ds = R.RangeDataset(start=np.int64(3), stop=np.int64(12), step=np.int64(2), **INT64)
    ds = R.BatchDatasetV2(input_dataset=ds, batch_size=np.int64(2), drop_remainder=False,
                          output_types=[of.int64], output_shapes=[[None]])
    it = R.AnonymousIteratorV3(output_types=[of.int64], output_shapes=[[None]])
    R.MakeIterator(dataset=ds, iterator=it)
    got = [R.IteratorGetNext(iterator=it, output_types=[of.int64], output_shapes=[[None]])[0].numpy().tolist()
           for _ in range(3)]
    assert got == [[3, 5], [7, 9], [11]]
    with pytest.raises(OutOfRangeError, match="End of sequence"):
        R.IteratorGetNext(iterator=it, output_types=[of.int64], output_shapes=[[None]])


@pytest.mark.parametrize("call, message", [
    (lambda: R.RangeDataset(start=np.int64(0), stop=np.int64(3), step=np.int64(0), **INT64),
     "RangeDataset: step must be a non-zero integer"),
    (lambda: R.BatchDatasetV2(input_dataset=R.RangeDataset(start=np.int64(0), stop=np.int64(3), step=np.int64(1),
                                                           **INT64),
                              batch_size=np.int64(0), drop_remainder=True, output_types=[of.int64],
                              output_shapes=[[None]]), "BatchDatasetV2: batch_size must be positive"),
    (lambda: R.BatchDatasetV2(input_dataset=np.int64(1), batch_size=np.int64(2), drop_remainder=True,
                              output_types=[of.int64], output_shapes=[[None]]), "BatchDatasetV2: input 'input_dataset'"),
    (lambda: R.TensorSliceDataset(components=[np.zeros(3), np.zeros(4)], output_shapes=[[], []]),
     "different first dimensions"),
    (lambda: R.ShardDataset(input_dataset=R.RangeDataset(start=np.int64(0), stop=np.int64(3), step=np.int64(1),
                                                         **INT64),
                            num_shards=np.int64(2), index=np.int64(5), **INT64), "Index must be between 0 and 1"),
    (lambda: R.TFRecordDataset(filenames=["x"], compression_type="LZ4", buffer_size=np.int64(0)),
     "compression_type must be"),
    (lambda: R.IteratorGetNext(iterator=R.RangeDataset(start=np.int64(0), stop=np.int64(3), step=np.int64(1),
                                                       **INT64), **INT64), "IteratorGetNext: input 'iterator' must be resource"),
])
def test_bad_calls_are_typed_errors_naming_the_op(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_uninitialized_iterator():
    it = R.AnonymousIteratorV3(**INT64)
    with pytest.raises(of.FailedPreconditionError, match="not been initialized"):
        R.IteratorGetNext(iterator=it, **INT64)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_what_the_writer_wrote(tmp_path, compression):
    rng = np.random.default_rng(0)
    files, want = [], []
    for k in range(2):
        recs = [bytes(rng.integers(0, 256, rng.integers(0, 300), dtype=np.uint8)) for _ in range(20)]
        path = str(tmp_path / f"f{k}.tfrecord")
        with tf.python_io.TFRecordWriter(path, tf.python_io.TFRecordOptions(compression or None)) as w:
            for r in recs:
                w.write(r)
        files.append(path)
        want += recs
    with tf.Graph().as_default():
        got = _run(tf.data.TFRecordDataset(files, compression_type=compression))
    assert got == want
    with tf.Graph().as_default():  # two files at a time: one record of each in turn
        got = _run(tf.data.TFRecordDataset(files, compression_type=compression, num_parallel_reads=2))
    assert got == [r for pair in zip(want[:20], want[20:]) for r in pair]


def test_damaged_tfrecord_files_are_data_loss_errors(tmp_path):
    path = tmp_path / "r.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as w:
        w.write(b"first record")
        w.write(b"second record")
    data = bytearray(path.read_bytes())
    bad = tmp_path / "bad.tfrecord"
    data[12 + 3] ^= 0xFF  # a byte of the first record's data
    bad.write_bytes(bytes(data))
    short = tmp_path / "short.tfrecord"
    short.write_bytes(path.read_bytes()[:-5])
    with tf.Graph().as_default():
        with pytest.raises(DataLossError, match=r"corrupted record at 12 in .*bad.tfrecord"):
            _run(tf.data.TFRecordDataset(str(bad)))
        with pytest.raises(DataLossError, match=r"truncated record at 28 in .*short.tfrecord"):
            _run(tf.data.TFRecordDataset(str(short)))
        gz = tmp_path / "cut.gz"
        gz.write_bytes(gzip.compress(path.read_bytes())[:-9])
        with pytest.raises(DataLossError, match="cut.gz"):
            _run(tf.data.TFRecordDataset(str(gz), "GZIP"))


def test_text_lines_and_fixed_length_records(tmp_path):
    rng = np.random.default_rng(1)
    lines = [b"".join(bytes([int(c)]) for c in rng.integers(97, 123, rng.integers(0, 30))) for _ in range(25)]
    text = tmp_path / "t.txt"
    text.write_bytes(b"\r\n".join(lines[:10]) + b"\n" + b"\n".join(lines[10:]))
    body = bytes(rng.integers(0, 256, 7 * 6, dtype=np.uint8))
    fixed = tmp_path / "f.bin"
    fixed.write_bytes(b"HDR" + body + b"FT")
    with tf.Graph().as_default():
        assert _run(tf.data.TextLineDataset(str(text))) == lines
        assert _run(tf.data.FixedLengthRecordDataset(str(fixed), 6, 3, 2)) == [body[i:i + 6] for i in range(0, 42, 6)]


def test_parallel_map_runs_on_threads_in_order():
    seen, lock = set(), threading.Lock()

    def record(x):
        with lock:
            seen.add(threading.get_ident())
        return x * 3

    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(40).map(lambda x: tf.py_func(record, [x], tf.int64), num_parallel_calls=4)
        got = _run(ds)
    assert got == [3 * i for i in range(40)]
    assert len(seen) >= 2 and threading.get_ident() not in seen


def test_map_captures_graph_tensors_and_reads_them_at_initialization():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.float32, [])
        data = tf.placeholder(tf.float32, [None, 2])
        ds = tf.data.Dataset.from_tensor_slices(data).map(lambda r: tf.reduce_sum(r) * scale).batch(2)
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        x = np.random.default_rng(2).normal(size=(3, 2)).astype(np.float32)
        with tf.Session() as sess:
            sess.run(it.initializer, {scale: 2.0, data: x})
            got = np.concatenate(_drain(sess, nxt))
    np.testing.assert_allclose(got, x.sum(1) * 2.0, rtol=1e-6)


@pytest.mark.parametrize("build", [
    lambda tf: tf.data.Dataset.range(6).interleave(lambda x: tf.data.Dataset.range(x).repeat(2), cycle_length=3,
                                                   block_length=2),
    lambda tf: tf.data.Dataset.range(5).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x),
                                                   cycle_length=2, num_parallel_calls=2),
    lambda tf: tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)),
    lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(10, 13))).skip(1).take(5),
    lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(7, 9)).shard(2, 1).repeat(2),
    lambda tf: tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([n], n)).padded_batch(2, padded_shapes=[None]),
    lambda tf: tf.data.Dataset.range(10).filter(lambda x: x % 3 > 0).batch(3, drop_remainder=True),
    lambda tf: tf.data.Dataset.range(7).batch(3).unbatch().cache().repeat(2),
    lambda tf: tf.data.Dataset.range(5).map(lambda x: tf.py_func(lambda v: 10 // (v - 2), [x], tf.int64))
    .ignore_errors(),
])
def test_same_elements_as_the_python_pipeline(build, monkeypatch):
    with tf.Graph().as_default():
        ops = _run(build(tf))
    monkeypatch.setenv("OPFORGE_PYTHON_DATA", "1")
    with tf.Graph().as_default():
        python = _run(build(tf))
    assert len(ops) == len(python)
    for a, b in zip(ops, python):
        for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            np.testing.assert_array_equal(x, y)


def test_shuffle_is_seeded_and_reshuffles_each_pass():
    def passes(seed):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.range(20).shuffle(20, seed=seed).batch(20).repeat(3)
            return [list(b) for b in _run(ds)]
    a, b = passes(7), passes(7)
    assert a == b
    assert all(sorted(p) == list(range(20)) for p in a)
    assert len({tuple(p) for p in a}) == 3


def test_each_session_has_its_own_iterator():
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(tf.data.Dataset.range(4)).get_next()
        with tf.Session() as s1, tf.Session() as s2:
            assert [s1.run(nxt), s1.run(nxt), s2.run(nxt), s1.run(nxt)] == [0, 1, 0, 2]


def test_graph_def_round_trip_keeps_the_functions():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(6).map(lambda x: x * x).filter(lambda x: tf.equal(x % 2, 0))
        tf.data.make_one_shot_iterator(ds).get_next(name="out")
    gd = g.as_graph_def()
    assert {f.signature.name for f in gd.library.function} >= {n.attr["dataset_factory"].func.name
                                                              for n in gd.node if n.op == "OneShotIterator"}
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            assert _drain(sess, "out:0") == [0, 4, 16]


def test_tensorflow_dataset_graph_defs_import_and_run(tmp_path):
    tfr = pytest.importorskip("tensorflow")
    t1 = tfr.compat.v1
    path = str(tmp_path / "a.tfrecord")
    with t1.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(b"rec%d" % i)
    g = tfr.Graph()
    with g.as_default():
        x = np.random.default_rng(3).normal(size=(6, 3)).astype(np.float32)
        ds = t1.data.Dataset.from_tensor_slices((x, np.arange(6)))
        ds = ds.map(lambda a, b: (a * 2.0, b + 1), num_parallel_calls=2).filter(lambda a, b: b > 1)
        nxt = t1.data.make_one_shot_iterator(ds.repeat(2).batch(4).prefetch(1)).get_next(name="batches")
        files = t1.data.TFRecordDataset([path, path]).interleave(
            lambda f: t1.data.Dataset.from_tensors(f).repeat(2), cycle_length=2)
        it = t1.data.make_initializable_iterator(files)
        n2 = it.get_next(name="records")
        with t1.Session(graph=g) as sess:
            def drain(t):
                out = []
                while True:
                    try:
                        out.append(sess.run(t))
                    except tfr.errors.OutOfRangeError:
                        return out
            want = drain(nxt)
            sess.run(it.initializer)
            want2 = drain(n2)
        gd = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(gd.SerializeToString(), name="")
        with tf.Session() as sess:
            got = _drain(sess, ["batches:0", "batches:1"])
            sess.run(it.initializer.name)
            got2 = _drain(sess, "records:0")
    assert len(got) == len(want) and got2 == want2
    for (a, b), (c, d) in zip(got, want):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)


def test_tensorflow_experimental_dataset_ops_import_and_run():
    """The ops TF1's tf.data.experimental transformations put in graphs."""
    tfr = pytest.importorskip("tensorflow")
    t1 = tfr.compat.v1
    g = tfr.Graph()
    with g.as_default():
        ds = t1.data.Dataset.range(10)
        pipelines = {
            "map_and_batch": ds.apply(t1.data.experimental.map_and_batch(lambda x: x * 2, 3)),
            "unbatch": ds.batch(4).apply(t1.data.experimental.unbatch()).cache(),
            "take_while": ds.take_while(lambda x: x < 5),
            "scan": ds.scan(tfr.constant(0, tfr.int64), lambda s, x: (s + x, s)),
            "parallel_interleave": ds.apply(t1.data.experimental.parallel_interleave(
                lambda x: t1.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)),
            "shuffle_and_repeat": ds.apply(t1.data.experimental.shuffle_and_repeat(4, 2, seed=1)),
            "ignore_errors": ds.apply(t1.data.experimental.ignore_errors()),
        }
        outs = {k: t1.data.make_one_shot_iterator(p).get_next(name=k) for k, p in pipelines.items()}
        want = {}
        with t1.Session(graph=g) as sess:
            for k, t in outs.items():
                vals = []
                while True:
                    try:
                        vals.append(sess.run(t).tolist())
                    except tfr.errors.OutOfRangeError:
                        break
                want[k] = vals
        gd = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(gd.SerializeToString(), name="")
        with tf.Session() as sess:
            got = {k: [v.tolist() for v in _drain(sess, f"{k}:0")] for k in outs}
    for k in outs:
        if k == "shuffle_and_repeat":  # (opforge's shuffle order is its own)
            assert sorted(got[k]) == sorted(want[k]), k
        else:
            assert got[k] == want[k], k


def test_errors_in_a_prefetched_pipeline_come_at_their_element():
    def check(x):
        if x == 3:
            raise ValueError("bad element 3")
        return x

    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(6).map(lambda x: tf.py_func(check, [x], tf.int64), num_parallel_calls=2).prefetch(4)
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(of.OpError, match="bad element 3"):
                sess.run(nxt)


def test_reinitializing_an_iterator_while_its_threads_run():
    """The old iterator's threads (parallel map, prefetch) may still run when its initializer
    runs again: they end before the old dataset goes (an AddressSanitizer run checks)."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10_000).map(lambda x: x * 2, num_parallel_calls=4).prefetch(8)
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        with tf.Session() as sess:
            for start in range(30):
                sess.run(it.initializer)
                assert [sess.run(nxt) for _ in range(start % 3 + 1)] == [0, 2, 4][: start % 3 + 1]


def test_a_session_collected_on_its_own_iterator_thread():
    """A py_func on a parallel map's worker may run the garbage collector, which may collect
    the Session whose iterator that worker belongs to: the iterator must not join its own
    thread (that aborted the process) nor wait for it."""
    import gc

    def collect(x):
        gc.collect()
        return x

    for _ in range(4):
        g = tf.Graph()
        with g.as_default():
            ds = tf.data.Dataset.range(1000).map(lambda x: tf.py_func(collect, [x], tf.int64), num_parallel_calls=2)
            nxt = tf.data.make_one_shot_iterator(ds.prefetch(8)).get_next()
            sess = tf.Session(graph=g)
            assert sess.run(nxt) == 0
            cycle = [sess]
            cycle.append(cycle)  # garbage that only a collection finds, while the workers read ahead
            del sess, cycle
    gc.collect()


def test_custom_dataset_variant_from_python():
    v = R.RangeDataset(start=np.int64(0), stop=np.int64(4), step=np.int64(1), **INT64)
    ds = tf.data.experimental.from_variant(v, of.TensorSpec([], of.int64))
    assert [int(x) for x in ds] == [0, 1, 2, 3]
    with tf.Graph().as_default():
        v = R.RangeDataset(start=np.int64(0), stop=np.int64(4), step=np.int64(1), **INT64)
        ds = tf.data.experimental.from_variant(v, of.TensorSpec([], of.int64)).map(lambda x: x + 1)
        assert _run(ds) == [1, 2, 3, 4]
        assert tf.data.experimental.to_variant(ds).dtype == of.variant


def test_python_only_pipelines_run_in_a_generator_dataset():
    """window has no op: the pipeline runs in Python inside a GeneratorDataset."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).window(3, 2).flat_map(lambda w: w.batch(3))
        got = [list(b) for b in _run(ds)]
        gd = tf.get_default_graph().as_graph_def()
    assert got == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    assert any(n.op == "GeneratorDataset" for n in gd.node)
    assert os.environ.get("OPFORGE_PYTHON_DATA", "") != "1"
