"""TF1's queue-era readers beyond TextLineReader: FixedLengthRecordReader (header, footer,
hop, compressed files), TFRecordReader, WholeFileReader and IdentityReader, fed by
string_input_producer; keys and values as TensorFlow gives them (compared where it is
installed), OutOfRangeError when the epochs end, typed errors for bad arguments and files."""

from __future__ import annotations

import gzip

import pytest

import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, NotFoundError, OutOfRangeError


def _files(tmp_path):
    fixed = [tmp_path / "a.bin", tmp_path / "b.bin"]
    fixed[0].write_bytes(bytes(range(15)))
    fixed[1].write_bytes(bytes(range(100, 112)))
    gz = tmp_path / "c.bin.gz"
    gz.write_bytes(gzip.compress(bytes(range(50, 62))))
    records = str(tmp_path / "r.tfrecord")
    with tf1.python_io.TFRecordWriter(records) as w:
        for r in (b"one", b"", b"three"):
            w.write(r)
    return [str(f) for f in fixed], str(gz), records


def _read_all(ns, reader, names, n=None):
    """(key, value) pairs, one epoch of unshuffled files, until OutOfRangeError."""
    queue = ns.train.string_input_producer(names, num_epochs=1, shuffle=False)
    key, value = reader.read(queue)
    out = []
    with ns.Session() as sess:
        sess.run(ns.local_variables_initializer())
        coord = ns.train.Coordinator()
        threads = ns.train.start_queue_runners(sess, coord)
        try:
            while n is None or len(out) < n:
                out.append(tuple(sess.run([key, value])))
        except ns.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads)
    return out


def _cases(ns, files):
    fixed, gz, records = files
    return {
        "fixed": lambda: _read_all(ns, ns.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=1), fixed),
        "fixed_hop": lambda: _read_all(ns, ns.FixedLengthRecordReader(5, hop_bytes=3), fixed[:1]),
        "fixed_gzip": lambda: _read_all(ns, ns.FixedLengthRecordReader(6, encoding="GZIP"), [gz]),
        "tfrecord": lambda: _read_all(ns, ns.TFRecordReader(), [records]),
        "whole_file": lambda: _read_all(ns, ns.WholeFileReader(), fixed),
        "identity": lambda: _read_all(ns, ns.IdentityReader(), ["x", "y"]),
    }


def test_readers(tmp_path):
    files = _files(tmp_path)
    a, b = files[0]
    with tf1.Graph().as_default():
        got = {name: run() for name, run in _cases(tf1, files).items()}
    assert got["fixed"] == [(f"{a}:0".encode(), bytes(range(2, 6))), (f"{a}:1".encode(), bytes(range(6, 10))),
                            (f"{a}:2".encode(), bytes(range(10, 14))), (f"{b}:0".encode(), bytes(range(102, 106))),
                            (f"{b}:1".encode(), bytes(range(106, 110)))]
    assert [v for _, v in got["fixed_hop"]] == [bytes(range(s, s + 5)) for s in (0, 3, 6, 9)]
    assert [v for _, v in got["fixed_gzip"]] == [bytes(range(50, 56)), bytes(range(56, 62))]
    assert [v for _, v in got["tfrecord"]] == [b"one", b"", b"three"]
    assert [k.rsplit(b":", 1)[1] for k, _ in got["tfrecord"]] == [b"0", b"19", b"35"]  # byte offsets
    assert got["whole_file"] == [(a.encode(), bytes(range(15))), (b.encode(), bytes(range(100, 112)))]
    assert got["identity"] == [(b"x", b"x"), (b"y", b"y")]


def test_readers_match_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    files = _files(tmp_path)
    for name in _cases(tf1, files):
        with tf1.Graph().as_default():
            ours = _cases(tf1, files)[name]()
        with tf.Graph().as_default():
            theirs = _cases(tf.compat.v1, files)[name]()
        assert ours == theirs, name


def test_reader_errors(tmp_path):
    with pytest.raises(InvalidArgumentError, match="record_bytes"):
        tf1.FixedLengthRecordReader(0)
    with pytest.raises(InvalidArgumentError, match="encoding"):
        tf1.FixedLengthRecordReader(4, encoding="BZ2")
    with tf1.Graph().as_default():
        with pytest.raises(TypeError, match="string_input_producer"):
            tf1.WholeFileReader().read("not a queue")
        with pytest.raises(NotFoundError, match="missing.bin"):
            _read_all(tf1, tf1.WholeFileReader(), [str(tmp_path / "missing.bin")])
        assert _read_all(tf1, tf1.TFRecordReader(), [_files(tmp_path)[2]], n=10)[-1][1] == b"three"
        queue = tf1.train.string_input_producer([_files(tmp_path)[2]], num_epochs=1, shuffle=False)
        key, value = tf1.TFRecordReader().read(queue)
        with tf1.Session() as sess:
            for _ in range(3):
                sess.run(value)
            with pytest.raises(OutOfRangeError):
                sess.run(value)
