"""TFRecord files: opforge's writer and reader against each other, against files TensorFlow
wrote (committed under tests/data/tfrecord, and fresh ones where TF is installed), and every
way a record can be damaged."""

from __future__ import annotations

import gzip
import os
import struct
import zlib

import numpy as np
import pytest

import opforge as of
from opforge.io import tfrecord
from opforge.io.tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tfrecord")
KINDS = ["", "GZIP", "ZLIB"]


def _random_records(seed, n=40):
    rng = np.random.default_rng(seed)
    sizes = np.concatenate([[0, 1, 11, 12, 13], rng.integers(0, 5000, size=n - 5)])
    return [rng.bytes(int(s)) for s in sizes]


@pytest.mark.parametrize("kind", KINDS)
def test_round_trip_of_random_records(tmp_path, kind):
    records = _random_records(1)
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path, kind) as w:
        for r in records:
            w.write(r)
    assert list(tf_record_iterator(path, kind)) == records
    assert list(tf_record_iterator(str(path), TFRecordOptions(kind))) == records


def test_uncompressed_bytes_are_tensorflows_framing(tmp_path):
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path) as w:
        w.write(b"abc")
    data = path.read_bytes()
    assert len(data) == 12 + 3 + 4
    assert struct.unpack("<Q", data[:8]) == (3,)
    # masked CRC-32C as TensorFlow computes it: rotate right by 15 and add 0xa282ead8
    crc = of._C.crc32c(b"abc")
    assert crc == 0x364B3FB7  # CRC-32C check value of "abc"
    masked = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    assert struct.unpack("<I", data[-4:]) == (masked,)


@pytest.mark.parametrize("kind,opener", [("GZIP", gzip.decompress), ("ZLIB", zlib.decompress)])
def test_compressed_files_are_standard_streams(tmp_path, kind, opener):
    records = _random_records(2, 10)
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path, TFRecordOptions(compression_type=kind, compression_level=9)) as w:
        for r in records:
            w.write(r)
            w.flush()
    assert opener(path.read_bytes()) == b"".join(tfrecord.encode_record(r) for r in records)


def test_options_spellings():
    assert TFRecordOptions.get_compression_type_string(None) == ""
    assert TFRecordOptions.get_compression_type_string(TFRecordCompressionType.GZIP) == "GZIP"
    assert TFRecordOptions.get_compression_type_string(TFRecordCompressionType.ZLIB) == "ZLIB"
    assert TFRecordOptions.get_compression_type_string(TFRecordCompressionType.NONE) == ""
    assert TFRecordOptions.get_compression_type_string("gzip") == "GZIP"
    assert TFRecordOptions(TFRecordOptions("ZLIB")).compression_type == "ZLIB"
    with pytest.raises(of.errors.InvalidArgumentError, match="BZIP2"):
        TFRecordOptions("BZIP2")
    with pytest.raises(of.errors.InvalidArgumentError, match="7"):
        TFRecordOptions(7)


def test_writer_after_close_and_missing_file(tmp_path):
    w = TFRecordWriter(tmp_path / "a.tfrecord")
    w.close()
    w.close()  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        w.write(b"x")
    with pytest.raises(of.errors.NotFoundError, match="nope"):
        list(tf_record_iterator(tmp_path / "nope.tfrecord"))


def test_empty_file_has_no_records(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    assert list(tf_record_iterator(tmp_path / "e")) == []


# ------------------------------------------------------------------------- damage


def _file_of(tmp_path, records, kind=""):
    path = tmp_path / "r.tfrecord"
    with TFRecordWriter(path, kind) as w:
        for r in records:
            w.write(r)
    return path


def _damage(path, edit):
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(edit(data)))


def _flip(i):
    def edit(data):
        data[i] ^= 0x01
        return data
    return edit


RECORDS = [b"first record", b"second", b"the third one"]
SECOND = 12 + len(RECORDS[0]) + 4  # byte offset of the second record


@pytest.mark.parametrize("case,edit,match", [
    ("bad length crc", _flip(SECOND + 9), f"corrupted record at {SECOND} in .*length"),
    ("bad length", _flip(SECOND + 0), f"corrupted record at {SECOND} in .*length"),
    ("bad data crc", _flip(SECOND + 12 + 6 + 1), f"corrupted record at {SECOND + 12} in .*data"),
    ("bad data", _flip(SECOND + 12 + 2), f"corrupted record at {SECOND + 12} in .*data"),
    ("truncated header", lambda d: d[:SECOND + 5], f"truncated record at {SECOND} in .*header has 5 of 12"),
    ("truncated data", lambda d: d[:SECOND + 12 + 3], f"truncated record at {SECOND} in .*got 3 bytes"),
    ("truncated footer", lambda d: d[:SECOND + 12 + 6 + 2], f"truncated record at {SECOND} in .*got 8 bytes"),
])
def test_damaged_record_is_data_loss_naming_file_and_offset(tmp_path, case, edit, match):
    path = _file_of(tmp_path, RECORDS)
    _damage(path, edit)
    it = tf_record_iterator(path)
    assert next(it) == RECORDS[0]  # records before the damage still read
    with pytest.raises(of.errors.DataLossError, match=match) as info:
        next(it)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_damaged_compressed_stream_is_data_loss(tmp_path, kind):
    path = _file_of(tmp_path, _random_records(3, 8), kind)
    size = path.stat().st_size
    _damage(path, lambda d: d[:size // 2])
    with pytest.raises(of.errors.DataLossError, match="r.tfrecord"):
        list(tf_record_iterator(path, kind))
    path = _file_of(tmp_path, _random_records(3, 8), kind)
    _damage(path, lambda d: d[:20] + bytes(255 - b for b in d[20:60]) + d[60:])
    with pytest.raises(of.errors.DataLossError, match="r.tfrecord"):
        list(tf_record_iterator(path, kind))


def test_uncompressed_file_read_as_gzip_is_data_loss(tmp_path):
    path = _file_of(tmp_path, RECORDS)
    with pytest.raises(of.errors.DataLossError, match="r.tfrecord"):
        list(tf_record_iterator(path, "GZIP"))


# ------------------------------------------------------------------------- TensorFlow's files


@pytest.mark.parametrize("suffix,kind", [("", ""), (".gzip", "GZIP"), (".zlib", "ZLIB")])
def test_reads_committed_files_tensorflow_wrote(suffix, kind):
    expected = list(np.load(os.path.join(DATA, "examples.npz"), allow_pickle=True)["records"])
    got = list(tf_record_iterator(os.path.join(DATA, f"examples{suffix}.tfrecord"), kind))
    assert got == expected and len(got) == 6


@pytest.mark.parametrize("kind", KINDS)
def test_tensorflow_reads_ours_and_we_read_tensorflows(tmp_path, kind):
    tf = pytest.importorskip("tensorflow")
    records = _random_records(4)
    ours = tmp_path / "ours.tfrecord"
    with TFRecordWriter(ours, kind) as w:
        for r in records:
            w.write(r)
    assert [r.numpy() for r in tf.data.TFRecordDataset(str(ours), compression_type=kind)] == records
    theirs = tmp_path / "theirs.tfrecord"
    with tf.io.TFRecordWriter(str(theirs), kind) as w:
        for r in records:
            w.write(r)
    assert list(tf_record_iterator(theirs, kind)) == records


@pytest.mark.parametrize("edit,message", [
    (_flip(SECOND + 9), f"corrupted record at {SECOND}"),
    (_flip(SECOND + 12 + 2), f"corrupted record at {SECOND + 12}"),
    (lambda d: d[:SECOND + 12 + 3], f"truncated record at {SECOND}"),
])
def test_tensorflow_reports_the_same_damage_at_the_same_offset(tmp_path, edit, message):
    tf = pytest.importorskip("tensorflow")
    path = _file_of(tmp_path, RECORDS)
    _damage(path, edit)
    with pytest.raises(tf.errors.DataLossError, match=message):
        list(tf.compat.v1.io.tf_record_iterator(str(path)))
    with pytest.raises(of.errors.DataLossError, match=message):
        list(tf_record_iterator(path))


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_files_read_or_raise_data_loss(tmp_path, kind):
    """Bytes flipped, cut or inserted anywhere in a file: every record read is one that was
    written, and anything else is a DataLossError, never a crash, a hang or another error."""
    rng = np.random.default_rng(9)
    records = _random_records(5, 12)
    clean = _file_of(tmp_path, records, kind).read_bytes()
    path = tmp_path / "m.tfrecord"
    losses = 0
    for _ in range(150):
        data = bytearray(clean)
        at = int(rng.integers(0, len(data)))
        choice = rng.integers(3)
        if choice == 0:
            data[at] ^= 1 << int(rng.integers(8))
        elif choice == 1:
            del data[at:]
        else:
            data[at:at] = rng.bytes(int(rng.integers(1, 5)))
        path.write_bytes(bytes(data))
        got = []
        try:
            for record in tf_record_iterator(path, kind):
                got.append(record)
        except of.errors.DataLossError:
            losses += 1
        assert got == records[:len(got)]
    assert losses > 50
