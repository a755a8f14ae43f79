"""MetaGraphDef: Saver writes <prefix>.meta, import_meta_graph rebuilds the graph and its
collections (variables included) in a fresh program and restores the checkpoint; TensorFlow
reads opforge's meta graphs and opforge reads TensorFlow's (its SaveV2/RestoreV2 subgraph
left out) when TensorFlow is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError, NotFoundError


def _train_and_save(directory):
    """A small model trained a few steps, saved; returns (checkpoint prefix, y on probe)."""
    rng = np.random.default_rng(0)
    probe = rng.normal(size=(2, 3)).astype(np.float32)
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None, 3], name="x")
        w = tf1.Variable(rng.normal(size=(3, 1)).astype(np.float32), name="w")
        step = tf1.Variable(0, name="step", trainable=False)
        y = tf1.identity(tf1.matmul(x, w), name="y")
        loss = tf1.reduce_mean(tf1.square(y - 1.0))
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        tf1.add_to_collection("train_op", train)
        tf1.add_to_collection("sizes", 3)
        tf1.add_to_collection("rates", 0.1)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: probe})
            prefix = tf1.train.Saver().save(sess, str(directory / "model"), global_step=step)
            return prefix, sess.run(y, {x: probe}), probe


def test_save_writes_meta_and_import_restores_it(tmp_path):
    prefix, want, probe = _train_and_save(tmp_path)
    assert prefix.endswith("model-3") and (tmp_path / "model-3.meta").exists()
    with tf1.Graph().as_default() as g:
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in tf1.global_variables()] == ["w", "step"]
        assert [v.op.name for v in tf1.trainable_variables()] == ["w"]
        assert g.get_collection("sizes") == [3] and g.get_collection("rates") == [pytest.approx(0.1)]
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": probe}), want, rtol=1e-6)
            sess.run(tf1.get_collection("train_op")[0], {"x:0": probe})  # training goes on
            assert sess.run("step:0") == 4


def test_export_as_text_and_import_scope(tmp_path):
    with tf1.Graph().as_default():
        a = tf1.constant(2.0, name="a")
        tf1.add_to_collection("things", tf1.multiply(a, 3.0, name="b"))
        tf1.train.export_meta_graph(str(tmp_path / "g.pbtxt"), as_text=True)
    assert "collection_def" in (tmp_path / "g.pbtxt").read_text()
    with tf1.Graph().as_default():
        assert tf1.train.import_meta_graph(str(tmp_path / "g.pbtxt"), import_scope="m") is None  # no variables
        [b] = tf1.get_collection("things")
        assert b.name == "m/b:0" and tf1.Session().run(b) == 6.0


def test_bad_meta_graph_files(tmp_path):
    with pytest.raises(NotFoundError, match="does not exist"):
        tf1.train.import_meta_graph(str(tmp_path / "absent.meta"))
    (tmp_path / "junk.meta").write_bytes(b"\xff\x00 not a proto")
    with tf1.Graph().as_default(), pytest.raises(InvalidArgumentError, match="not a MetaGraphDef"):
        tf1.train.import_meta_graph(str(tmp_path / "junk.meta"))


def test_tensorflow_imports_opforge_meta_graphs(tmp_path):
    tf = pytest.importorskip("tensorflow")
    prefix, want, probe = _train_and_save(tmp_path)
    with tf.Graph().as_default():
        saver = tf.compat.v1.train.import_meta_graph(prefix + ".meta")
        with tf.compat.v1.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": probe}), want, rtol=1e-6)


def test_opforge_imports_tensorflow_meta_graphs(tmp_path):
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    rng = np.random.default_rng(1)
    probe = rng.normal(size=(2, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = v1.Variable(rng.normal(size=(3, 1)).astype(np.float32), name="w", use_resource=False)
        y = v1.identity(v1.matmul(x, w) * 2.0, name="y")
        v1.add_to_collection("train_op", v1.train.GradientDescentOptimizer(0.1).minimize(v1.reduce_mean(y)))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            prefix = v1.train.Saver().save(sess, str(tmp_path / "tf_model"))
            want = sess.run(y, {x: probe})
            sess.run(v1.get_collection("train_op")[0], {x: probe})
            after_step = sess.run(y, {x: probe})
    with tf1.Graph().as_default():
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            np.testing.assert_allclose(sess.run("y:0", {"x:0": probe}), want, rtol=1e-6)
            sess.run(tf1.get_collection("train_op")[0], {"x:0": probe})
            np.testing.assert_allclose(sess.run("y:0", {"x:0": probe}), after_step, rtol=1e-5)
