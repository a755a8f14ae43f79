"""TensorFlow 1's queue-based input pipelines, run on demand: DecodeCSV against NumPy-built
expectations and TensorFlow, string_input_producer + TextLineReader over several files and
epochs, tf.train.batch / shuffle_batch, and OutOfRangeError when the epochs are used up."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, OutOfRangeError

RECORDS = ['1,2.5,"a,b",7', ',-3e2,plain,', '4,,"say ""hi""",-1']


def _decode(records, defaults, **kwargs):
    with tf1.Graph().as_default():
        out = tf1.decode_csv(tf1.constant(records), defaults, **kwargs)
        with tf1.Session() as sess:
            return sess.run(out)


def test_decode_csv_columns_defaults_and_quotes():
    ints, floats, strings, longs = _decode(RECORDS, [[0], [9.5], [""], np.array([-5], np.int64)])
    np.testing.assert_array_equal(ints, np.array([1, 0, 4], np.int32))
    np.testing.assert_array_equal(floats, np.array([2.5, -300.0, 9.5], np.float32))
    assert list(strings) == [b"a,b", b"plain", b'say "hi"']
    np.testing.assert_array_equal(longs, np.array([7, -5, -1], np.int64))
    assert ints.dtype == np.int32 and floats.dtype == np.float32 and longs.dtype == np.int64


def test_decode_csv_options():
    got = _decode(["1;NA;3", "4;5;NA"], [[0.0], [-1.0], [0.0]], field_delim=";", na_value="NA")
    np.testing.assert_array_equal(np.stack(got), [[1, 4], [-1, 5], [3, 0]])
    first, third = _decode(["1,x,3,y", "4,z,6,w"], [[0], [0]], select_cols=[0, 2])
    np.testing.assert_array_equal(first, [1, 4])
    np.testing.assert_array_equal(third, [3, 6])
    scalar = _decode("10,20", [[0], [0]])
    assert scalar[0].shape == () and scalar[1] == 20


@pytest.mark.parametrize("records, defaults, kwargs, message", [
    (["1,2"], [[0], [0], [0]], {}, "Expect 3 fields but have 2 in record 0"),
    (["1,x"], [[0], [0]], {}, "Field 1 in record 0 is not a valid int32: x"),
    (["1,"], [[0], np.array([], np.int32)], {}, "Field 1 is required but missing in record 0"),
    (["1,2"], [[0], [0, 1]], {}, "length-0 or length-1"),
    (["1,2"], [[0], [0]], {"field_delim": "ab"}, "only 1 char"),
    (['1,a"b'], [[0], [""]], {}, "Unquoted fields cannot have quotes"),
    (['1,"ab'], [[0], [""]], {}, "Quoted field has to end"),
    (["99999999999,1"], [[0], [0]], {}, "not a valid int32"),
])
def test_decode_csv_errors(records, defaults, kwargs, message):
    with pytest.raises(InvalidArgumentError, match=message):
        _decode(records, defaults, **kwargs)


def test_decode_csv_same_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    ours = _decode(RECORDS, [[0], [9.5], [""], np.array([-5], np.int64)])
    theirs = tf.io.decode_csv(RECORDS, [[0], [9.5], [""], tf.constant([-5], tf.int64)])
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b.numpy())


def _write(tmp_path, name, rows, header=None):
    path = tmp_path / name
    lines = ([header] if header else []) + [",".join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_reader_batches_files_in_order_for_the_epochs(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 100, size=(7, 3))
    b = rng.integers(0, 100, size=(5, 3))
    files = [_write(tmp_path, "a.csv", a, header="x,y,z"), _write(tmp_path, "b.csv", b, header="x,y,z")]
    with tf1.Graph().as_default():
        queue = tf1.train.string_input_producer(files, num_epochs=2, shuffle=False)
        key, value = tf1.TextLineReader(skip_header_lines=1).read(queue)
        cols = tf1.decode_csv(value, [[0], [0], [0]])
        features, label = tf1.train.batch([cols[0:-1], cols[-1:]], batch_size=4)
        assert features.shape.as_list() == [4, 2] and label.shape.as_list() == [4, 1]
        with tf1.Session() as sess:
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(sess=sess, coord=coord)
            assert sess.run(key) == f"{files[0]}:2".encode()  # the header is line 1
            got = []
            with pytest.raises(OutOfRangeError):
                while True:
                    f, l = sess.run([features, label])
                    got.append(np.concatenate([f, l], axis=1))
            coord.request_stop()
            coord.join(threads)
    rows = np.concatenate([a, b, a, b])[1:]  # the first row went to the key/value run above
    np.testing.assert_array_equal(np.concatenate(got), rows[:len(rows) // 4 * 4])


def test_shuffled_batches_and_a_smaller_final_batch(tmp_path):
    data = np.arange(30).reshape(10, 3)
    path = _write(tmp_path, "d.csv", data)
    with tf1.Graph().as_default():
        tf1.set_random_seed(1)
        queue = tf1.train.string_input_producer([path], num_epochs=1)
        _, value = tf1.TextLineReader().read(queue)
        row = tf1.stack(tf1.decode_csv(value, [[0], [0], [0]]))
        shuffled = tf1.train.shuffle_batch([row], batch_size=4, capacity=20, min_after_dequeue=3,
                                           allow_smaller_final_batch=True)
        with tf1.Session() as sess:
            got = []
            with pytest.raises(OutOfRangeError):
                while True:
                    got.append(sess.run(shuffled)[0])
    assert [len(g) for g in got] == [4, 4, 2]
    rows = np.concatenate(got)
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, data.tolist()))
    assert not np.array_equal(rows, data)


def test_missing_file_is_not_found(tmp_path):
    with tf1.Graph().as_default():
        _, value = tf1.TextLineReader().read(tf1.train.string_input_producer([str(tmp_path / "none.csv")]))
        with tf1.Session() as sess, pytest.raises(of.errors.NotFoundError, match="none.csv"):
            sess.run(value)


def test_filename_queue_dequeue_and_size_are_tensors():
    """q.dequeue() is a string tensor taking the next file name in each run, q.size() the names
    left in the epoch (TF1 programs print them); the epochs end in OutOfRangeError."""
    with tf1.Graph().as_default():
        q = tf1.train.string_input_producer(["a.txt", "b.txt", "c.txt"], num_epochs=2, shuffle=False)
        name, size = q.dequeue(), q.size()
        assert name.dtype == tf1.string and size.dtype == tf1.int32
        with tf1.Session() as sess:
            sess.run(tf1.local_variables_initializer())
            assert sess.run(size) == 3
            got = [sess.run(name) for _ in range(4)]
            assert sess.run(size) == 2
            got += [sess.run(name) for _ in range(2)]
            with pytest.raises(OutOfRangeError):
                sess.run(name)
    assert got == [b"a.txt", b"b.txt", b"c.txt", b"a.txt", b"b.txt", b"c.txt"]
