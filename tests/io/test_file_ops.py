"""ReadFile, WriteFile and MatchingFiles (tf.read_file, tf.write_file, tf.matching_files): whole
files as string tensors, eagerly and in Session graphs, with TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf


def test_write_then_read_round_trips_bytes(tmp_path):
    data = bytes(np.random.default_rng(3).integers(0, 256, 1000, dtype=np.uint8))  # NULs included
    path = str(tmp_path / "new" / "dir" / "blob.bin")  # parents are created
    with tf.Graph().as_default():
        name = tf.placeholder(tf.string, [])
        write = tf.write_file(name, tf.constant(data))
        read = tf.read_file(name)
        assert read.shape.as_list() == []
        with tf.Session() as sess:
            sess.run(write, {name: path})
            assert sess.run(read, {name: path}) == data
    assert open(path, "rb").read() == data
    assert of.ops.read_file(path).numpy() == data  # eagerly too


def test_matching_files_sorted_and_empty(tmp_path):
    for n in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / n).write_text(n)
    got = of.ops.matching_files(str(tmp_path / "*.txt")).numpy()
    assert [os.path.basename(p.decode()) for p in got] == ["a.txt", "b.txt"]
    both = of.ops.matching_files([str(tmp_path / "*.csv"), str(tmp_path / "a.*")]).numpy()
    assert [os.path.basename(p.decode()) for p in both] == ["a.txt", "c.csv"]
    assert of.ops.matching_files(str(tmp_path / "*.none")).numpy().shape == (0,)
    with tf.Graph().as_default():
        assert tf.io.matching_files("x*").shape.as_list() == [None]


def test_errors_name_the_op_and_file(tmp_path):
    with pytest.raises(of.errors.NotFoundError, match=r"ReadFile: .*missing\.txt"):
        of.ops.read_file(str(tmp_path / "missing.txt"))
    with pytest.raises(of.errors.InvalidArgumentError, match="ReadFile: .* is a directory"):
        of.ops.read_file(str(tmp_path))
    with pytest.raises(of.errors.InvalidArgumentError, match="ReadFile: filename must be a scalar string"):
        of.ops.read_file([str(tmp_path), str(tmp_path)])
    (tmp_path / "file").write_text("x")
    with pytest.raises(of.errors.InvalidArgumentError, match="WriteFile: cannot open .*below for writing"):
        of.ops.write_file(str(tmp_path / "file" / "below"), "y")  # a file where a directory must go


def test_tensorflow_reads_what_opforge_writes(tmp_path):
    tfm = pytest.importorskip("tensorflow")
    path = str(tmp_path / "t.bin")
    of.ops.write_file(path, b"\x00opforge\xff")
    assert tfm.io.read_file(path).numpy() == b"\x00opforge\xff"
    assert [p.decode() for p in of.ops.matching_files(str(tmp_path / "*")).numpy()] == \
        [p.decode() for p in tfm.io.matching_files(str(tmp_path / "*")).numpy()]
