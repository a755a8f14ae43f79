"""TFRecordDataset: records of TFRecord files, eagerly and in a Session, plain and compressed,
in TensorFlow's order (with parallel reads too), parsed into Examples as a TF1 input program
does, and a damaged file reported, not skipped."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
from opforge.data import TFRecordDataset
from opforge.io.tfrecord import TFRecordWriter
from opforge.ops.parsing_ops import FixedLenFeature, VarLenFeature, parse_example

DATA = os.path.join(os.path.dirname(__file__), "tfrecord")  # tools/make_tfrecord_fixtures.py
SIZES = [3, 1, 0, 4, 2]


def _files(tmp_path, kind=""):
    paths = []
    for f, n in enumerate(SIZES):
        path = str(tmp_path / f"part-{f}.tfrecord")
        with TFRecordWriter(path, kind) as w:
            for i in range(n):
                w.write(f"{f}-{i}".encode() + bytes([0, i]))  # binary, trailing NUL bytes kept
        paths.append(path)
    return paths


SEQUENTIAL = [f"{f}-{i}".encode() + bytes([0, i]) for f, n in enumerate(SIZES) for i in range(n)]


@pytest.mark.parametrize("kind", ["", "GZIP", "ZLIB"])
def test_eager_records_file_after_file(tmp_path, kind):
    paths = _files(tmp_path, kind)
    ds = TFRecordDataset(paths, compression_type=kind, buffer_size=1 << 16)
    assert ds.output_types == of.string and ds.output_shapes.as_list() == []
    assert [r.numpy() for r in ds] == SEQUENTIAL
    assert [r.numpy() for r in TFRecordDataset(paths[0], kind)] == SEQUENTIAL[:3]
    assert [r.numpy() for r in TFRecordDataset(of.constant(paths), kind)] == SEQUENTIAL


def test_session_reads_file_names_from_a_placeholder(tmp_path):
    paths = _files(tmp_path)
    with of.Graph().as_default():
        names = of.placeholder(of.string, [None])
        it = TFRecordDataset(names).batch(2).make_initializable_iterator()
        batch = it.get_next()
        with of.Session() as sess:
            sess.run(it.initializer, {names: np.array(paths[3:], dtype=object)})
            assert sess.run(batch).tolist() == SEQUENTIAL[4:6]
            assert sess.run(batch).tolist() == SEQUENTIAL[6:8]
            assert sess.run(batch).tolist() == SEQUENTIAL[8:]
            with pytest.raises(of.errors.OutOfRangeError):
                sess.run(batch)
            sess.run(it.initializer, {names: np.array(paths[:1], dtype=object)})
            assert sess.run(batch).tolist() == SEQUENTIAL[:2]


def test_dataset_of_file_names(tmp_path):
    paths = _files(tmp_path)
    assert [r.numpy() for r in TFRecordDataset(of.data.Dataset.from_tensor_slices(np.array(paths[1:4])))] == \
        SEQUENTIAL[3:8]


@pytest.mark.parametrize("reads", [None, 1, 2, 3, 8])
def test_parallel_reads_in_tensorflows_order(tmp_path, reads):
    tf = pytest.importorskip("tensorflow")
    paths = _files(tmp_path)
    theirs = [r.numpy() for r in tf.data.TFRecordDataset(paths, num_parallel_reads=reads)]
    assert [r.numpy() for r in TFRecordDataset(paths, num_parallel_reads=reads)] == theirs


def test_parallel_reads_order_without_tensorflow(tmp_path):
    paths = _files(tmp_path)
    # slots f0, f1; a file that ends hands its slot to the next file, which reads at the slot's
    # next turn: f1 ends -> f2 (empty) -> f3; f0 ends -> f4; f4 ends and its slot goes
    got = [r.numpy()[:3].decode() for r in TFRecordDataset(paths, num_parallel_reads=2)]
    assert got == ["0-0", "1-0", "0-1", "0-2", "3-0", "4-0", "3-1", "4-1", "3-2", "3-3"]


def test_tf1_input_program_over_committed_tensorflow_file():
    """TFRecordDataset -> batch -> parse_example in a Session, on the file TF wrote."""
    expected = np.load(os.path.join(DATA, "examples.npz"), allow_pickle=True)
    with of.Graph().as_default():
        ds = TFRecordDataset(os.path.join(DATA, "examples.gzip.tfrecord"), "GZIP").batch(4)
        serialized = ds.make_one_shot_iterator().get_next()
        parsed = parse_example(serialized, {"label": FixedLenFeature([], of.int64), "ids": VarLenFeature(of.int64)})
        with of.Session() as sess:
            first, second = sess.run(parsed), sess.run(parsed)
    np.testing.assert_array_equal(np.concatenate([first["label"], second["label"]]), expected["parsed/label"])
    assert isinstance(first["ids"], of.SparseTensorValue) and first["ids"].dense_shape.tolist() == [4, 3]


def test_damaged_file_is_data_loss_and_argument_errors(tmp_path):
    paths = _files(tmp_path)
    data = bytearray(open(paths[3], "rb").read())
    data[30] ^= 1
    open(paths[3], "wb").write(bytes(data))
    it = iter(TFRecordDataset(paths))
    for _ in range(4):
        next(it)
    with pytest.raises(of.errors.DataLossError, match=r"corrupted record at \d+ in .*part-3.tfrecord"):
        list(it)
    with pytest.raises(of.errors.NotFoundError, match="missing.tfrecord"):
        list(TFRecordDataset(str(tmp_path / "missing.tfrecord")))
    with pytest.raises(of.errors.InvalidArgumentError, match="Unsupported compression_type"):
        TFRecordDataset(paths, compression_type="LZ4")
    with pytest.raises(of.errors.InvalidArgumentError, match="buffer_size must be >= 0"):
        TFRecordDataset(paths, buffer_size=-5)
    with pytest.raises(of.errors.InvalidArgumentError, match="num_parallel_reads must be positive"):
        TFRecordDataset(paths, num_parallel_reads=0)
    with pytest.raises(of.errors.InvalidArgumentError, match="scalar string elements"):
        TFRecordDataset(of.data.Dataset.range(3))
    with of.Graph().as_default():
        with pytest.raises(of.errors.InvalidArgumentError, match="filenames must be strings"):
            TFRecordDataset(of.placeholder(of.int32, [None]))
