"""Checkpoints in TensorFlow's V2 format: Saver save/restore, the state file, max_to_keep,
the tensor-bundle files byte for byte, TensorFlow restoring opforge's checkpoints and the
other way round (when TensorFlow is installed), and corrupt, truncated, mismatched or
half-written checkpoints giving typed errors and restoring nothing."""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import DataLossError, InvalidArgumentError, NotFoundError
from opforge.io import tensor_bundle

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8, np.int16, np.bool_, np.float16,
          ml_dtypes.bfloat16]


def _values(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "dense/kernel": rng.normal(size=(4, 3)).astype(np.float32),
        "dense/bias": rng.normal(size=3).astype(np.float32),
        "step": np.int64(rng.integers(1, 100)),
        "table": rng.integers(-5, 5, size=(2, 2, 2)).astype(np.int32),
        "mask": rng.random(5) > 0.5,
    }


def _model(values):
    """A graph with one variable per entry of values; returns (graph, {name: variable})."""
    g = tf1.Graph()
    with g.as_default():
        variables = {name: tf1.Variable(v, name=name) for name, v in values.items()}
    return g, variables


def _read(sess, variables):
    return {n: sess.run(v) for n, v in variables.items()}


def _assert_values(got, want):
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_save_then_restore_into_another_graph(tmp_path):
    want = _values(1)
    g, variables = _model(want)
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.variables_initializer(list(variables.values())))
        prefix = tf1.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    assert prefix == str(tmp_path / "model.ckpt")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.ckpt.data-00000-of-00001", "model.ckpt.index",
                                           "model.ckpt.meta"]
    g2, variables2 = _model(_values(2))  # other initial values, same names
    with tf1.Session(graph=g2) as sess:
        tf1.train.Saver().restore(sess, prefix)
        _assert_values(_read(sess, variables2), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips_through_the_bundle(tmp_path, dtype):
    rng = np.random.default_rng(3)
    value = (rng.normal(size=(3, 5)) * 10).astype(dtype)
    tensor_bundle.write_bundle(str(tmp_path / "c"), {"v": value}, {"v": of.as_dtype(np.dtype(dtype))})
    reader = tensor_bundle.BundleReader(str(tmp_path / "c"))
    assert reader.dtype("v") == of.as_dtype(np.dtype(dtype)) and reader.shape("v") == [3, 5]
    np.testing.assert_array_equal(reader.tensor("v"), value)


def test_index_is_tensorflows_table_format_byte_for_byte(tmp_path):
    # The expected bytes are what TensorFlow 2.21's Saver wrote for the same two variables.
    tensor_bundle.write_bundle(str(tmp_path / "m"), {"a": np.arange(6, dtype=np.float32).reshape(2, 3),
                                                      "dir/b": np.int64(7)},
                               {"a": of.float32, "dir/b": of.int64})
    expected = bytes.fromhex(  # TF's m.index, 16 bytes a line
        "00000608011a02080100011361080112"
        "081202080212020803281835c0db3d17"
        "00050d6469722f620809120020182808"
        "35bbd79f1100000000010000000044c9"
        "359f000000000100000000c0f2a1b000"
        "010265003d000000000100000000326d"
        "2ae942084f0e00000000000000000000"
        "00000000000000000000000000000000"
        "0000000000000000000057fb808b2475"
        "47db")
    assert (tmp_path / "m.index").read_bytes() == expected
    assert (tmp_path / "m.data-00000-of-00001").read_bytes() == \
        np.arange(6, dtype=np.float32).tobytes() + np.int64(7).tobytes()


def test_many_variables_span_several_table_blocks(tmp_path):
    rng = np.random.default_rng(4)
    values = {f"layer_{i:03d}/weights_with_a_long_name": rng.normal(size=i % 7 + 1) for i in range(300)}
    tensor_bundle.write_bundle(str(tmp_path / "big"), values, {k: of.float64 for k in values})
    assert (tmp_path / "big.index").stat().st_size > 3 * 4096
    reader = tensor_bundle.BundleReader(str(tmp_path / "big"))
    assert reader.names() == sorted(values)
    for name, value in values.items():
        np.testing.assert_array_equal(reader.tensor(name), value)


def test_global_step_state_file_and_max_to_keep(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    g, variables = _model({"w": np.float32(1.0)})
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default():
            step = tf1.train.get_or_create_global_step()
            saver = tf1.train.Saver(var_list=[variables["w"]], max_to_keep=2)
        sess.run(step.initializer)
        prefixes = [saver.save(sess, "run/model.ckpt", global_step=s) for s in (10, 20, 30)]
        assert prefixes == ["run/model.ckpt-10", "run/model.ckpt-20", "run/model.ckpt-30"]
        assert saver.save(sess, "run/model.ckpt", global_step=step) == "run/model.ckpt-0"
    assert saver.last_checkpoints == ["run/model.ckpt-30", "run/model.ckpt-0"]
    assert not tf1.train.checkpoint_exists("run/model.ckpt-10") and not tf1.train.checkpoint_exists("run/model.ckpt-20")
    # Paths in the state file are relative to its folder, as TensorFlow writes them.
    text = (tmp_path / "run" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "model.ckpt-0"' in text
    state = tf1.train.get_checkpoint_state("run")
    assert state.model_checkpoint_path == os.path.join("run", "model.ckpt-0")
    assert list(state.all_model_checkpoint_paths) == [os.path.join("run", "model.ckpt-30"),
                                                      os.path.join("run", "model.ckpt-0")]
    assert tf1.train.latest_checkpoint("run") == os.path.join("run", "model.ckpt-0")
    assert tf1.train.latest_checkpoint("nowhere") is None
    assert tf1.train.list_variables("run") == [("w", [])]


def test_keep_checkpoint_every_n_hours_keeps_old_ones(tmp_path):
    g, variables = _model({"w": np.float32(1.0)})
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default():
            saver = tf1.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
        for s in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=s)
    assert all(tf1.train.checkpoint_exists(str(tmp_path / f"m-{s}")) for s in range(3))


def test_load_checkpoint_reader(tmp_path):
    want = _values(5)
    g, variables = _model(want)
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default():
            tf1.train.Saver().save(sess, str(tmp_path / "ck"))
    reader = of.train.load_checkpoint(str(tmp_path))
    assert reader.get_variable_to_shape_map() == {n: list(np.shape(v)) for n, v in want.items()}
    assert reader.get_variable_to_dtype_map()["mask"] == of.bool_
    for name, value in want.items():
        np.testing.assert_array_equal(reader.get_tensor(name), value)
    assert reader.has_tensor("step") and not reader.has_tensor("nope")
    with pytest.raises(NotFoundError, match="Key nope not found"):
        reader.get_tensor("nope")


# ---------------------------------------------------------------- bad checkpoints


def _saved(tmp_path):
    want = _values(6)
    g, variables = _model(want)
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default():
            prefix = tf1.train.Saver().save(sess, str(tmp_path / "ck"))
    return prefix, want


def _restore_fails(prefix, error, match, values=None):
    """Restoring into fresh variables raises `error` and leaves them at their initial values."""
    initial = values or _values(7)
    g, variables = _model(initial)
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default():
            saver = tf1.train.Saver()
        with pytest.raises(error, match=match):
            saver.restore(sess, prefix)
        _assert_values(_read(sess, variables), initial)


def test_corrupt_data_is_data_loss(tmp_path):
    prefix, _ = _saved(tmp_path)
    path = tmp_path / "ck.data-00000-of-00001"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x10  # one flipped bit in the last variable's bytes
    path.write_bytes(bytes(data))
    _restore_fails(prefix, DataLossError, "checksum mismatch")


@pytest.mark.parametrize("cut", [1, 20, 60])
def test_truncated_index_is_data_loss(tmp_path, cut):
    prefix, _ = _saved(tmp_path)
    path = tmp_path / "ck.index"
    path.write_bytes(path.read_bytes()[:-cut])
    _restore_fails(prefix, DataLossError, "truncated|magic|checksum|corrupt")


def test_corrupt_index_block_is_data_loss(tmp_path):
    prefix, _ = _saved(tmp_path)
    path = tmp_path / "ck.index"
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))
    _restore_fails(prefix, DataLossError, "checksum mismatch in a table block")


def test_truncated_data_file_is_data_loss(tmp_path):
    prefix, _ = _saved(tmp_path)
    path = tmp_path / "ck.data-00000-of-00001"
    path.write_bytes(path.read_bytes()[:-4])
    _restore_fails(prefix, DataLossError, "truncated")


def test_missing_variable_and_wrong_shape(tmp_path):
    prefix, want = _saved(tmp_path)
    extra = dict(_values(7), other=np.float32(1.0))
    _restore_fails(prefix, NotFoundError, "Key other not found in checkpoint", extra)
    reshaped = dict(_values(7), **{"dense/bias": np.zeros(4, np.float32)})
    _restore_fails(prefix, InvalidArgumentError, "shapes of both tensors to match", reshaped)
    retyped = dict(_values(7), step=np.int32(3))
    _restore_fails(prefix, InvalidArgumentError, "is int64, the variable is int32", retyped)


def test_missing_checkpoint(tmp_path):
    g, _ = _model({"w": np.float32(1.0)})
    with tf1.Session(graph=g) as sess, g.as_default():
        saver = tf1.train.Saver()
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "absent"))
        with pytest.raises(ValueError, match="None"):
            saver.restore(sess, None)
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        tensor_bundle.BundleReader(str(tmp_path / "absent"))


def test_a_crash_mid_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    prefix, want = _saved(tmp_path)
    real_replace = os.replace

    def crash_on_index(src, dst):
        if str(dst).endswith(".index"):
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_index)
    g, variables = _model(_values(8))
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        with g.as_default(), pytest.raises(OSError, match="disk full"):
            tf1.train.Saver().save(sess, prefix)
    monkeypatch.setattr(os, "replace", real_replace)
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]  # no temporary file left behind
    # The index on disk is the old one and still describes the data: either the old values,
    # or (the data file having been replaced) a checksum error, never silently mixed values.
    reader = tensor_bundle.BundleReader(prefix)
    try:
        got = {n: reader.tensor(n) for n in want}
    except DataLossError:
        return
    _assert_values(got, want)


# ---------------------------------------------------------------- TensorFlow interop


def test_tensorflow_restores_opforge_checkpoints(tmp_path):
    tf = pytest.importorskip("tensorflow")
    prefix, want = _saved(tmp_path)
    with tf.Graph().as_default():
        tvars = {n: tf.compat.v1.Variable(np.zeros_like(v), name=n) for n, v in want.items()}
        with tf.compat.v1.Session() as sess:
            tf.compat.v1.train.Saver().restore(sess, prefix)
            _assert_values({n: sess.run(v) for n, v in tvars.items()}, want)
    assert dict(tf.train.list_variables(str(tmp_path))) == {n: list(np.shape(v)) for n, v in want.items()}
    reader = tf.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("dense/kernel"), want["dense/kernel"])


def test_opforge_restores_tensorflow_checkpoints(tmp_path):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(9)
    values = {f"block{i}/kernel": rng.normal(size=(i + 2, 3)).astype(np.float32) for i in range(40)}
    values["global_step"] = np.int64(1234)
    with tf.Graph().as_default():
        tvars = [tf.compat.v1.Variable(v, name=n) for n, v in values.items()]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            prefix = tf.compat.v1.train.Saver(tvars).save(sess, str(tmp_path / "tf.ckpt"), global_step=7)
    assert tf1.train.latest_checkpoint(str(tmp_path)) == prefix
    g, variables = _model({n: np.zeros_like(v) for n, v in values.items()})
    with tf1.Session(graph=g) as sess:
        with g.as_default():
            tf1.train.Saver().restore(sess, tf1.train.latest_checkpoint(str(tmp_path)))
        _assert_values(_read(sess, variables), values)


def test_saver_keeps_its_arguments_as_tensorflow_does():
    """TF1 programs read a Saver's arguments back (saver._var_list is the var_list given, every
    variable when none is: TensorFlow 2.21's Saver fills it as it builds), as TensorFlow's Saver
    keeps them."""
    with tf1.Graph().as_default():
        a = tf1.Variable(1.0, name="a")
        b = tf1.Variable(2.0, name="b")
        everything = tf1.train.Saver()
        assert everything._var_list == [a, b] and everything._sharded is False
        only_a = tf1.train.Saver([a], max_to_keep=2, name="s", keep_checkpoint_every_n_hours=2.0)
        assert only_a._var_list == [a] and only_a._name == "s"
        assert only_a._keep_checkpoint_every_n_hours == 2.0 and only_a._write_version == 2
