"""init_from_checkpoint / warm_start (opforge/training/warm_start.py), ClusterSpec and
replica_device_setter (opforge/training/server_lib.py), noisy_linear_cosine_decay."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _write_checkpoint(path, values):
    with tf.Graph().as_default():
        vs = [tf.Variable(v, name=n) for n, v in values.items()]
        saver = tf.train.Saver(vs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, os.path.join(path, "model"))


def test_init_from_checkpoint_by_scope_and_name(tmp_path):
    rng = np.random.default_rng(0)
    old = {"old/w": rng.standard_normal((3, 2)).astype(np.float32), "old/b": rng.standard_normal(2).astype(np.float32),
           "solo": np.float32(4.0)}
    prefix = _write_checkpoint(str(tmp_path), old)
    with tf.Graph().as_default():
        with tf.variable_scope("new"):
            w = tf.get_variable("w", [3, 2])
            b = tf.get_variable("b", [2])
        s = tf.Variable(0.0, name="s")
        other = tf.Variable(7.0, name="other")
        tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "solo": "s"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(w), old["old/w"])
            np.testing.assert_array_equal(sess.run(b), old["old/b"])
            assert sess.run(s) == 4.0 and sess.run(other) == 7.0
        with pytest.raises(ValueError, match="is not found in"):
            tf.train.init_from_checkpoint(prefix, {"missing": "s"})
        with pytest.raises(ValueError, match="doesn't match with shape"):
            tf.train.init_from_checkpoint(prefix, {"old/b": w})
        with pytest.raises(ValueError, match="should map to scope only"):
            tf.train.init_from_checkpoint(prefix, {"old/w": "new/"})


def test_warm_start_with_vocabulary(tmp_path):
    emb = np.arange(12, dtype=np.float32).reshape(4, 3)  # rows of the old vocabulary a b c d
    _write_checkpoint(str(tmp_path), {"emb": emb, "dense": np.ones(2, np.float32)})
    (tmp_path / "old.txt").write_text("a\nb\nc\nd\n")
    (tmp_path / "new.txt").write_text("d\nx\nb\n")
    with tf.Graph().as_default():
        new_emb = tf.Variable(np.full((4, 3), -1.0, np.float32), name="new_emb")  # 3 words + 1 OOV bucket
        dense = tf.Variable(np.zeros(2, np.float32), name="dense")
        info = tf.train.VocabInfo(str(tmp_path / "new.txt"), 3, 1, str(tmp_path / "old.txt"),
                                  backup_initializer=tf.constant_initializer(0.5))
        tf.train.warm_start(str(tmp_path), vars_to_warm_start=["new_emb", "dense"],
                            var_name_to_vocab_info={"new_emb": info}, var_name_to_prev_var_name={"new_emb": "emb"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(new_emb), [emb[3], [0.5] * 3, emb[1], [0.5] * 3])
            np.testing.assert_array_equal(sess.run(dense), [1, 1])
        with pytest.raises(ValueError, match="not used"):
            tf.train.warm_start(str(tmp_path), "dense", var_name_to_prev_var_name={"nothing": "x"})


def test_cluster_spec_and_replica_device_setter_match_tensorflow():
    cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": {0: "w0:2222", 2: "w2:2222"}}
    spec = tf.train.ClusterSpec(cluster)
    assert spec.jobs == ["ps", "worker"] and spec.num_tasks("worker") == 2
    assert spec.as_dict() == cluster and spec.job_tasks("worker") == ["w0:2222", None, "w2:2222"]
    assert tf.train.ClusterSpec(spec.as_cluster_def()) == spec
    assert spec.as_cluster_def().job[0].tasks[1] == "ps1:2222"
    with pytest.raises(ValueError, match="No such job"):
        spec.task_address("chief", 0)
    with pytest.raises(ValueError, match="No task with index"):
        spec.task_address("worker", 1)
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    devices = {}
    with tf.Graph().as_default() as g:
        with g.device(tf.train.replica_device_setter(cluster=spec)):
            for name in ("v0", "v1", "v2"):
                tf.Variable(1.0, name=name)
            with g.device("/job:ps/task:1"):
                tf.Variable(1.0, name="pinned")
            tf.constant(1.0, name="c")
        for op in g.get_operations():
            devices[op.name] = op.device
    assert [devices[n] for n in ("v0", "v1", "v2", "pinned", "c")] == [
        "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1", "/job:worker"]
    tf2 = pytest.importorskip("tensorflow").compat.v1
    with tf2.Graph().as_default() as g:
        with tf2.device(tf2.train.replica_device_setter(cluster=tf2.train.ClusterSpec(cluster))):
            for name in ("v0", "v1", "v2"):
                tf2.Variable(1.0, name=name)
            with tf2.device("/job:ps/task:1"):
                tf2.Variable(1.0, name="pinned")
            tf2.constant(1.0, name="c")
        expected = {op.name: op.device for op in g.get_operations()}
    assert all(devices[n] == expected[n] for n in ("v0", "v1", "v2", "pinned", "c"))
    assert tf2.train.ClusterSpec(cluster).as_dict() == spec.as_dict()


def test_noisy_linear_cosine_decay_is_linear_cosine_plus_noise():
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        noisy = tf.train.noisy_linear_cosine_decay(0.1, step, 10, initial_variance=0.0)
        plain = tf.train.linear_cosine_decay(0.1, step, 10)
        noisier = tf.train.noisy_linear_cosine_decay(0.1, step, 10)
        with tf.Session() as sess:
            for s in (0, 3, 12):
                np.testing.assert_allclose(*sess.run([noisy, plain], {step: s}), rtol=1e-6)
            draws = [sess.run(noisier, {step: 3}) for _ in range(3)]
            assert len(set(draws)) == 3
