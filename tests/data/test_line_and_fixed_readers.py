"""TextLineDataset and FixedLengthRecordDataset: lines and fixed-size records of plain, GZIP
and ZLIB files (with parallel reads), TensorFlow's line ends and header/footer handling, and
its errors for a body that is not whole records, a damaged stream and a missing file."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import DataLossError, InvalidArgumentError, NotFoundError, OutOfRangeError

TEXTS = [b"a\r\nb\n\nlast", b"x,1\ny,2\n", b""]


def _write(path, data, kind):
    if kind == "GZIP":
        data = gzip.compress(data)
    elif kind == "ZLIB":
        data = zlib.compress(data)
    path.write_bytes(data)
    return str(path)


def _run(ds, feed=None):
    nxt = ds.make_initializable_iterator()
    out = []
    with tf1.Session() as sess:
        sess.run(nxt.initializer, feed)
        value = nxt.get_next()
        while True:
            try:
                out.append(sess.run(value))
            except OutOfRangeError:
                return out


@pytest.mark.parametrize("kind", ["", "GZIP", "ZLIB"])
def test_text_lines(tmp_path, kind):
    paths = [_write(tmp_path / f"t{i}.txt", t, kind) for i, t in enumerate(TEXTS)]
    expected = [b"a", b"b", b"", b"last", b"x,1", b"y,2"]
    with tf1.Graph().as_default():
        names = tf1.placeholder(tf1.string, [None])
        ds = tf1.data.TextLineDataset(names, compression_type=kind)
        assert ds.output_types == tf1.string and ds.output_shapes.as_list() == []
        assert _run(ds, {names: paths}) == expected
        interleaved = _run(tf1.data.TextLineDataset(paths, kind, num_parallel_reads=2))
    assert interleaved == [b"a", b"x,1", b"b", b"y,2", b"", b"last"]


@pytest.mark.parametrize("kind", ["", "GZIP"])
def test_fixed_length_records(tmp_path, kind):
    path = _write(tmp_path / "f.bin", bytes(range(20)), kind)
    with tf1.Graph().as_default():
        ds = tf1.data.FixedLengthRecordDataset(path, 5, header_bytes=2, footer_bytes=3, compression_type=kind)
        got = _run(ds.map(lambda r: tf1.decode_raw(r, tf1.uint8)))
    assert [g.tolist() for g in got] == [list(range(2, 7)), list(range(7, 12)), list(range(12, 17))]


@pytest.mark.parametrize("kind, error", [("", InvalidArgumentError), ("GZIP", DataLossError)])
def test_fixed_length_partial_record_is_an_error(tmp_path, kind, error):
    path = _write(tmp_path / "f.bin", bytes(range(23)), kind)
    with tf1.Graph().as_default(), pytest.raises(error, match="not an exact multiple of the record length"):
        _run(tf1.data.FixedLengthRecordDataset(path, 5, 2, 3, compression_type=kind))


def test_reader_errors(tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b"line\n" * 100)[:-20])
    with tf1.Graph().as_default():
        with pytest.raises(DataLossError, match="bad.gz"):
            _run(tf1.data.TextLineDataset(str(bad), "GZIP"))
        with pytest.raises(NotFoundError, match="missing.txt"):
            _run(tf1.data.TextLineDataset(str(tmp_path / "missing.txt")))
        with pytest.raises(InvalidArgumentError, match="record_bytes"):
            tf1.data.FixedLengthRecordDataset("x", 0)
        with pytest.raises(InvalidArgumentError, match="num_parallel_reads"):
            tf1.data.TextLineDataset("x", num_parallel_reads=0)


def test_same_records_as_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    blob = rng.integers(0, 256, size=4 + 7 * 12 + 5, dtype=np.uint8).tobytes()
    fixed = _write(tmp_path / "f.gz", blob, "GZIP")
    texts = [_write(tmp_path / f"t{i}.txt", t, "") for i, t in enumerate(TEXTS)]

    def build(ns):
        a = ns.data.FixedLengthRecordDataset(fixed, 7, 4, 5, compression_type="GZIP")
        b = ns.data.TextLineDataset(texts, num_parallel_reads=3)
        return a, b
    theirs = [list(d.as_numpy_iterator()) for d in build(tf)]
    with tf1.Graph().as_default():
        ours = [_run(d) for d in build(tf1)]
    assert ours == theirs
