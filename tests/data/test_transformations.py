"""Dataset transformations TF1 input code uses beyond batch/map/shuffle: padded_batch,
flat_map, interleave, window, unbatch, shard, concatenate, cache (memory and file),
from_generator, list_files and tf.data.experimental's helpers. Each pipeline's elements are
pinned here and, where TensorFlow is installed, compared with tf.data's; static shapes and
cardinalities are TensorFlow's; bad arguments raise typed errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, OutOfRangeError


def _drain(sess, t, limit=500):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(t))
        except OutOfRangeError:
            return out
    raise AssertionError("the iterator did not end")


def _ours(build):
    with tf1.Graph().as_default():
        ds = build(tf1)
        shapes = ds.output_shapes
        nxt = tf1.data.make_one_shot_iterator(ds).get_next()
        with tf1.Session() as sess:
            return _drain(sess, nxt), shapes


def _theirs(build):
    tf = pytest.importorskip("tensorflow")
    with tf.Graph().as_default():
        ds = build(tf.compat.v1)
        shapes = tf.compat.v1.data.get_output_shapes(ds)
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        with tf.compat.v1.Session() as sess:
            out = []
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out, shapes


def _flat(element):
    if isinstance(element, dict):
        return [v for k in sorted(element) for v in _flat(element[k])]
    if isinstance(element, (tuple, list)):
        return [v for e in element for v in _flat(e)]
    return [np.asarray(element)]


def _same(a, b):
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b):
        for u, v in zip(_flat(x), _flat(y), strict=True):
            assert u.shape == v.shape and u.dtype == v.dtype, (u, v)
            np.testing.assert_array_equal(u, v)


def _shape_lists(shapes):
    return [None if s.rank is None else s.as_list() for s in _flat_shapes(shapes)]


def _flat_shapes(shapes):
    if isinstance(shapes, dict):
        return [v for k in sorted(shapes) for v in _flat_shapes(shapes[k])]
    if isinstance(shapes, (tuple, list)):
        return [v for s in shapes for v in _flat_shapes(s)]
    return [shapes]


RAGGED = [np.arange(n, dtype=np.int32) + 1 for n in (1, 3, 2, 4, 0)]

# name -> (pipeline over a tf-like namespace, its expected elements)
PIPELINES = {
    "padded_batch": (
        lambda tf: tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None]),
        [np.array([[1, 0], [2, 2]]), np.array([[3, 3, 3, 0], [4, 4, 4, 4]]), np.array([[5] * 5])]),
    "padded_batch_fixed_and_values": (
        lambda tf: tf.data.Dataset.range(1, 4).map(lambda x: (tf.fill([x], x), tf.cast(x, tf.float32)))
        .padded_batch(2, padded_shapes=([5], []), padding_values=(tf.constant(-1, tf.int64), 0.0),
                      drop_remainder=True),
        [(np.array([[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]]), np.array([1.0, 2.0], np.float32))]),
    "flat_map": (
        lambda tf: tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)),
        [np.int64(v) for v in [0, 0, 1, 0, 1, 2]]),
    "interleave": (
        lambda tf: tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x),
                                                          cycle_length=2, block_length=2),
        [np.int64(v) for v in [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 5]]),
    "interleave_parallel": (
        lambda tf: tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.range(10 * x, 10 * x + x),
                                                          cycle_length=3, num_parallel_calls=3),
        [np.int64(v) for v in [10, 20, 30, 21, 31, 40, 32, 41, 50, 42, 51, 43, 52, 53, 54]]),
    "window_flat_map": (
        lambda tf: tf.data.Dataset.range(7).window(3, shift=2, stride=2).flat_map(lambda w: w.batch(3)),
        [np.array([0, 2, 4]), np.array([2, 4, 6]), np.array([4, 6]), np.array([6])]),
    "window_tuple_drop_remainder": (
        lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(5).map(lambda x: -x)))
        .window(2, drop_remainder=True).flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2)))),
        [(np.array([0, 1]), np.array([0, -1])), (np.array([2, 3]), np.array([-2, -3]))]),
    "unbatch": (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 2, 2)).unbatch(),
        [np.array([0, 1]), np.array([2, 3]), np.array([4, 5]), np.array([6, 7]), np.array([8, 9]),
         np.array([10, 11])]),
    "shard_concatenate": (
        lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 14)).shard(3, 1),
        [np.int64(1), np.int64(11)]),
    "cache_repeat": (
        lambda tf: tf.data.Dataset.range(3).map(lambda x: x * 3).cache().repeat(2),
        [np.int64(v) for v in [0, 3, 6, 0, 3, 6]]),
    "take_skip_tensor_args": (
        lambda tf: tf.data.Dataset.range(10).skip(tf.constant(2, tf.int64)).take(tf.constant(3, tf.int64))
        .batch(tf.constant(2, tf.int64)),
        [np.array([2, 3]), np.array([4])]),
    "map_and_batch": (
        lambda tf: tf.data.Dataset.range(5).apply(tf.data.experimental.map_and_batch(lambda x: x + 1, 2)),
        [np.array([1, 2]), np.array([3, 4]), np.array([5])]),
    "lists_are_tensors": (
        lambda tf: tf.data.Dataset.from_tensor_slices({"s": ["ab", "c", ""], "x": [[1, 2], [3, 4], [5, 6]]}).batch(2),
        [{"s": np.array([b"ab", b"c"], object), "x": np.array([[1, 2], [3, 4]], np.int32)},
         {"s": np.array([b""], object), "x": np.array([[5, 6]], np.int32)}]),
    "group_by_window": (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.array([5, 3, 1, 8, 2, 9, 4, 7, 6], np.int64))
        .group_by_window(lambda x: x % 3, lambda k, w: w.batch(5).map(lambda b: (k, b)), window_size=2),
        [(np.int64(k), np.array(v)) for k, v in [(2, [5, 8]), (0, [3, 9]), (1, [1, 4]), (0, [6]), (1, [7]),
                                                  (2, [2])]]),
    "group_by_window_size_func": (
        lambda tf: tf.data.Dataset.range(10).apply(tf.data.experimental.group_by_window(
            lambda x: x % 3, lambda k, w: w.batch(9), window_size_func=lambda k: k + 2)),
        [np.array(v) for v in [[0, 3], [1, 4, 7], [6, 9], [2, 5, 8]]]),
    "bucket_by_sequence_length": (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.array([1, 2, 3, 4, 5, 6, 7, 1, 2], np.int64))
        .map(lambda n: tf.fill([n], n)).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 3]),
        [np.array(v) for v in [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]],
                               [[5] * 5 + [0, 0], [6] * 6 + [0], [7] * 7], [[1, 0], [2, 2]]]]),
    "bucket_to_boundary": (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.array([1, 2, 3, 4, 2, 1], np.int64))
        .map(lambda n: tf.fill([n], n)).apply(tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [3, 5], [2, 2, 3], pad_to_bucket_boundary=True)),
        [np.array(v) for v in [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[2, 2], [1, 0]]]]),
    "enumerate": (
        lambda tf: tf.data.Dataset.from_tensor_slices(np.array([5.0, 7.0], np.float32)).enumerate(3),
        [(np.int64(3), np.float32(5.0)), (np.int64(4), np.float32(7.0))]),
    "unbatch_experimental": (
        lambda tf: tf.data.Dataset.range(4).batch(3).apply(tf.data.experimental.unbatch()),
        [np.int64(v) for v in range(4)]),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_elements(name):
    build, expected = PIPELINES[name]
    got, _ = _ours(build)
    _same(got, expected)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_matches_tensorflow(name):
    build, _ = PIPELINES[name]
    theirs, their_shapes = _theirs(build)
    ours, our_shapes = _ours(build)
    _same(ours, theirs)
    assert _shape_lists(our_shapes) == _shape_lists(their_shapes)


def test_static_shapes_and_cardinality():
    with tf1.Graph().as_default():
        ds = tf1.data.Dataset.range(1, 4).map(lambda x: tf1.fill([x], x))
        assert ds.padded_batch(2, [None]).output_shapes.as_list() == [None, None]
        assert ds.padded_batch(2, [6], drop_remainder=True).output_shapes.as_list() == [2, 6]
        assert tf1.data.Dataset.from_tensor_slices(np.zeros((4, 3, 2))).unbatch().output_shapes.as_list() == [2]
        r = tf1.data.Dataset.range(7)
        cards = [r.window(3, 2, 2).cardinality(), r.window(3, 2, 2, drop_remainder=True).cardinality(),
                 r.batch(3).cardinality(), r.repeat().cardinality(), r.filter(lambda x: x > 2).cardinality(),
                 r.shard(3, 2).cardinality(), r.concatenate(r).take(9).cardinality(),
                 tf1.data.experimental.cardinality(r.skip(5))]
        with tf1.Session() as sess:
            assert sess.run(cards) == [4, 2, 3, tf1.data.INFINITE_CARDINALITY, tf1.data.UNKNOWN_CARDINALITY, 2, 9, 2]


def test_cache_to_a_file_is_read_back(tmp_path):
    calls = []

    def gen():
        calls.append(1)
        yield from ([b"a", b"bc"], [b"", b"d"])

    path = str(tmp_path / "cache")

    def run():
        with tf1.Graph().as_default():
            ds = tf1.data.Dataset.from_generator(gen, tf1.string, [2]).cache(path)
            return _drain(tf1.Session(), tf1.data.make_one_shot_iterator(ds).get_next())
    first, second = run(), run()
    _same(first, [np.array([b"a", b"bc"], object), np.array([b"", b"d"], object)])
    _same(second, first)
    assert len(calls) == 1 and [p.name for p in tmp_path.iterdir()] == ["cache.ofcache"]


def test_an_unfinished_file_cache_is_not_kept(tmp_path):
    path = str(tmp_path / "cache")
    with tf1.Graph().as_default():
        nxt = tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(5).cache(path)).get_next()
        with tf1.Session() as sess:
            sess.run(nxt)
    assert list(tmp_path.iterdir()) == []


def test_from_generator_args_and_checks():
    def gen(n, scale):
        for i in range(int(n)):
            yield {"x": [i * float(scale)] * 2, "y": i}

    with tf1.Graph().as_default():
        n = tf1.placeholder(tf1.int64, [])
        ds = tf1.data.Dataset.from_generator(gen, {"x": tf1.float32, "y": tf1.int32}, {"x": [2], "y": []},
                                             args=(n, 0.5))
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf1.Session() as sess:
            sess.run(it.initializer, {n: 3})
            got = _drain(sess, nxt)
    assert [g["y"] for g in got] == [0, 1, 2] and got[2]["x"].tolist() == [1.0, 1.0]
    assert got[0]["x"].dtype == np.float32

    for bad, message in [(lambda: iter([[1, 2, 3]]), "shape"), (lambda: iter(["a"]), "expected type")]:
        with tf1.Graph().as_default():
            nxt = tf1.data.make_one_shot_iterator(tf1.data.Dataset.from_generator(bad, tf1.int32, [2])).get_next()
            with tf1.Session() as sess, pytest.raises(InvalidArgumentError, match=message):
                sess.run(nxt)


def test_list_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text(name)
    pattern = str(tmp_path / "*.txt")
    with tf1.Graph().as_default():
        ordered = tf1.data.make_one_shot_iterator(tf1.data.Dataset.list_files(pattern, shuffle=False)).get_next()
        mixed = tf1.data.make_one_shot_iterator(tf1.data.Dataset.list_files(pattern, seed=3).repeat(8)).get_next()
        none = tf1.data.make_one_shot_iterator(tf1.data.Dataset.list_files(str(tmp_path / "*.x"))).get_next()
        with tf1.Session() as sess:
            assert _drain(sess, ordered) == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
            orders = [tuple(sess.run(mixed) for _ in range(2)) for _ in range(8)]
            assert {frozenset(o) for o in orders} == {frozenset(str(tmp_path / n).encode() for n in ("a.txt", "b.txt"))}
            assert len(set(orders)) == 2  # reshuffled each pass
            with pytest.raises(InvalidArgumentError, match="No files matched"):
                sess.run(none)


@pytest.mark.parametrize("build, error, message", [
    (lambda tf: tf.data.Dataset.range(3).shard(0, 0), InvalidArgumentError, "greater than zero"),
    (lambda tf: tf.data.Dataset.range(3).shard(2, 2), InvalidArgumentError, "between 0 and 1"),
    (lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, [None, None]),
     InvalidArgumentError, "not compatible"),
    (lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.fill([2], x)).padded_batch(2, [1]),
     InvalidArgumentError, "not compatible"),
    (lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.int32))),
     TypeError, "Incompatible"),
    (lambda tf: tf.data.Dataset.range(3).window(0), InvalidArgumentError, "size must be positive"),
    (lambda tf: tf.data.Dataset.range(3).flat_map(lambda x: x), InvalidArgumentError, "must return a Dataset"),
    (lambda tf: tf.data.Dataset.range(3).window(2).batch(2), InvalidArgumentError, "windows"),
    (lambda tf: tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.range(x), cycle_length=0),
     InvalidArgumentError, "cycle_length"),
    (lambda tf: tf.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=0), InvalidArgumentError,
     "num_parallel_calls"),
    (lambda tf: tf.data.Dataset.range(3).prefetch(-3), InvalidArgumentError, "buffer_size"),
    (lambda tf: tf.data.Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w), InvalidArgumentError,
     "either window_size or window_size_func"),
    (lambda tf: tf.data.Dataset.range(3).group_by_window(lambda x: tf.cast(x, tf.float32), lambda k, w: w, 2),
     InvalidArgumentError, "key_func must return a scalar int64"),
    (lambda tf: tf.data.Dataset.range(3).bucket_by_sequence_length(lambda x: x, [2], [1]), InvalidArgumentError,
     "len\\(bucket_batch_sizes\\)"),
])
def test_bad_transformations_raise(build, error, message):
    with tf1.Graph().as_default(), pytest.raises(error, match=message):
        build(tf1)


@pytest.mark.parametrize("build, message", [
    (lambda tf: tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(3, [2]), "smaller size"),
    (lambda tf: tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).batch(3), "different shapes"),
    (lambda tf: tf.data.Dataset.from_tensors((np.zeros(2), np.zeros(3))).unbatch(), "first dimensions differ"),
    (lambda tf: tf.data.Dataset.range(3).batch(tf.constant(0, tf.int64)), "batch_size must be positive"),
])
def test_bad_elements_raise_when_run(build, message):
    with tf1.Graph().as_default():
        nxt = tf1.data.make_one_shot_iterator(build(tf1)).get_next()
        with tf1.Session() as sess, pytest.raises(InvalidArgumentError, match=message):
            sess.run(nxt)


def test_ignore_errors_drops_failing_elements():
    values = np.array([1.0, 0.0, 2.0, -1.0, 3.0], np.float32)
    with tf1.Graph().as_default():
        ds = tf1.data.Dataset.from_tensor_slices(values).map(_checked, num_parallel_calls=2).filter(lambda x: x < 3)
        strict = tf1.data.make_one_shot_iterator(ds).get_next()
        lenient = tf1.data.make_one_shot_iterator(ds.ignore_errors()).get_next()
        applied = tf1.data.make_one_shot_iterator(ds.apply(tf1.data.experimental.ignore_errors())).get_next()
        with tf1.Session() as sess:
            assert sess.run(strict) == 1.0
            with pytest.raises(InvalidArgumentError):
                sess.run(strict)
            assert _drain(sess, lenient) == [1.0, 2.0] and _drain(sess, applied) == [1.0, 2.0]


def _checked(x):
    with tf1.control_dependencies([tf1.Assert(x > 0, [x])]):
        return tf1.identity(x)


def test_options():
    opts = tf1.data.Options()
    opts.experimental_deterministic = False
    opts.threading.private_threadpool_size = 4
    with pytest.raises(AttributeError):
        opts.no_such_option = 1
    with tf1.Graph().as_default():
        ds = tf1.data.Dataset.range(3).with_options(opts)
        assert ds.options().deterministic is False and ds.options().threading.private_threadpool_size == 4
        got = _drain(tf1.Session(), tf1.data.make_one_shot_iterator(ds.map(lambda x: x, 2)).get_next())
    assert sorted(got) == [0, 1, 2]


def _sparse_file(tmp_path):
    path = str(tmp_path / "tags.tfrecord")
    with tf1.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            ex = tf1.train.Example()
            ex.features.feature["tags"].int64_list.value.extend(range(10 * i, 10 * i + i))
            ex.features.feature["x"].float_list.value.append(float(i))
            w.write(ex.SerializeToString())
    return path


def _sparse_pipelines(path):
    def parsed(tf):
        spec = {"tags": tf.VarLenFeature(tf.int64), "x": tf.FixedLenFeature([], tf.float32)}
        return tf.data.TFRecordDataset(path).map(lambda r: tf.parse_single_example(r, spec), num_parallel_calls=2) \
            .map(lambda d: (d["tags"], d["x"])).filter(lambda t, x: x > 0)
    return {
        "batched": lambda tf: parsed(tf).batch(2),
        "densified": lambda tf: parsed(tf).batch(3).map(lambda t, x: (tf.sparse_tensor_to_dense(t), x)),
    }


def test_sparse_components(tmp_path):
    """VarLenFeature's SparseTensor through map, filter and batch (TensorFlow's sparse batching:
    a leading batch dimension, the dense shape the largest), fetched from get_next."""
    pipelines = _sparse_pipelines(_sparse_file(tmp_path))
    batches, shapes = _ours(pipelines["batched"])
    first = batches[0][0]
    assert first.indices.tolist() == [[0, 0], [1, 0], [1, 1]] and first.values.tolist() == [10, 20, 21]
    assert first.dense_shape.tolist() == [2, 2] and batches[1][0].dense_shape.tolist() == [2, 4]
    assert _shape_lists(shapes) == [[None, None], [None]]
    dense, _ = _ours(pipelines["densified"])
    assert dense[0][0].tolist() == [[10, 0, 0], [20, 21, 0], [30, 31, 32]]
    with tf1.Graph().as_default():
        ds = pipelines["batched"](tf1)
        # (compat.v1's SparseTensor builds into the default graph: a stand-in class, the same
        # for isinstance and issubclass)
        assert issubclass(tf1.data.get_output_classes(ds)[0], tf1.SparseTensor)
        with pytest.raises(InvalidArgumentError, match="SparseTensor"):
            ds.unbatch()


def test_sparse_components_match_tensorflow(tmp_path):
    for build in _sparse_pipelines(_sparse_file(tmp_path)).values():
        theirs, their_shapes = _theirs(build)
        ours, our_shapes = _ours(build)
        _same(ours, theirs)
        assert _shape_lists(our_shapes) == _shape_lists(their_shapes)
