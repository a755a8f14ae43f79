"""tf.graph_util: freezing a trained model's variables into its GraphDef, pruning, and
dropping training-only nodes; the frozen graph imports and computes what the session did."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.io import graph_util

RNG = np.random.default_rng(7)


def _model():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(RNG.standard_normal((4, 3)).astype(np.float32), name="w")
    b = tf.Variable(RNG.standard_normal(3).astype(np.float32), name="b")
    h = tf.identity(tf.matmul(x, w) + b, name="h")
    y = tf.nn.softmax(tf.check_numerics(h, "bad"), name="y")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y * y))
    return x, y, train


def test_convert_variables_to_constants_freezes_what_the_session_holds():
    data = RNG.standard_normal((5, 4)).astype(np.float32)
    with tf.Graph().as_default():
        x, y, train = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {x: data})  # the frozen values are the trained ones
            want = sess.run(y, {x: data})
            frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph.as_graph_def(), ["y"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["w"] == "Const" and ops["b"] == "Const"
    assert not any(op in ("VariableV2", "Assign", "ApplyGradientDescent") for op in ops.values())
    restored = tf.GraphDef()
    restored.ParseFromString(frozen.SerializeToString())
    with tf.Graph().as_default():
        tf.import_graph_def(restored, name="")
        with tf.Session() as sess:
            got = sess.run("y:0", {"x:0": data})
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_whitelist_and_blacklist_choose_the_variables():
    with tf.Graph().as_default():
        x, _, _ = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            gd = sess.graph.as_graph_def()
            only_w = graph_util.convert_variables_to_constants(sess, gd, ["y"], variable_names_whitelist=["w"])
            not_w = graph_util.convert_variables_to_constants(sess, gd, ["y"], variable_names_blacklist=["w"])
    assert {n.name: n.op for n in only_w.node}["b"] == "VariableV2"
    assert {n.name: n.op for n in not_w.node}["w"] == "VariableV2"


def test_extract_sub_graph_keeps_only_what_the_outputs_need():
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        c = tf.add(a, b, name="c")
        with tf.control_dependencies([b]):
            tf.identity(a, name="d")
        tf.multiply(c, 3.0, name="unused")
        gd = g.as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["d"])
    assert [n.name for n in sub.node] == ["a", "b", "d"]  # the graph's order, control inputs kept
    assert {n.name for n in tf.graph_util.extract_sub_graph(gd, ["c"]).node} == {"a", "b", "c"}
    with pytest.raises(AssertionError, match="nope is not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["nope"])
    with pytest.raises(TypeError, match="list of node names"):
        tf.graph_util.extract_sub_graph(gd, "d")


def test_remove_training_nodes_bypasses_identity_and_check_numerics():
    with tf.Graph().as_default() as g:
        x, y, _ = _model()
        gd = g.as_graph_def()
    pruned = tf.graph_util.remove_training_nodes(gd, protected_nodes=["y"])
    names = {n.name for n in pruned.node}
    assert "h" not in names and not any(n.op == "CheckNumerics" for n in pruned.node)
    data = RNG.standard_normal((2, 4)).astype(np.float32)
    with tf.Graph().as_default():
        tf.import_graph_def(pruned, name="")
        with tf.Session() as sess:
            sess.run(["w/Assign", "b/Assign"])
            got = sess.run("y:0", {"x:0": data})
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run(["w/Assign", "b/Assign"])
            want = sess.run("y:0", {"x:0": data})
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_must_run_on_cpu_and_static_shape_by_name():
    with tf.Graph().as_default() as g:
        s = tf.constant(["a"], name="s")
        v = tf.Variable(1.0, name="v")
        tf.placeholder(tf.float32, [None, 3], name="p")
        assert tf.graph_util.must_run_on_cpu(s.op)
        assert tf.graph_util.must_run_on_cpu(v.op, pin_variables_on_cpu=True)
        assert not tf.graph_util.must_run_on_cpu(v.op)
        assert tf.graph_util.tensor_shape_from_node_def_name(g, "p").as_list() == [None, 3]


def test_frozen_graph_matches_tensorflows_freezing():
    """TensorFlow freezes the same program to the same values (where it is installed)."""
    tfm = pytest.importorskip("tensorflow")
    tf1 = tfm.compat.v1
    w0 = RNG.standard_normal((4, 2)).astype(np.float32)
    data = RNG.standard_normal((3, 4)).astype(np.float32)

    def freeze(t, graph):
        with graph.as_default():
            x = t.placeholder(t.float32, [None, 4], name="x")
            w = t.Variable(w0, name="w")
            t.nn.relu(t.matmul(x, w), name="out")
            with t.Session() as sess:
                sess.run(t.global_variables_initializer())
                return t.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["out"])

    ours, theirs = freeze(tf, tf.Graph()), freeze(tf1, tf1.Graph())
    assert {n.name: n.op for n in ours.node}["w"] == {n.name: n.op for n in theirs.node}["w"] == "Const"
    w_ours, w_theirs = (next(n for n in gd.node if n.name == "w") for gd in (ours, theirs))
    assert w_ours.attr["value"].tensor.tensor_content == w_theirs.attr["value"].tensor.tensor_content
    with tf.Graph().as_default():  # opforge runs TensorFlow's frozen graph
        tf.import_graph_def(tf.GraphDef.FromString(theirs.SerializeToString()), name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run("out:0", {"x:0": data}), np.maximum(data @ w0, 0), rtol=1e-5)
