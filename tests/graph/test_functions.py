"""GraphDefs with a function library: PartitionedCall / StatefulPartitionedCall, If /
StatelessIf, Case, While / StatelessWhile are lowered on import into plain nodes (as
TensorFlow's executor lowers them) and compute what TensorFlow computes; the library survives
an export; a missing function or a bad call is a typed error naming the node."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.codegen._proto import function_pb2, graph_pb2
from opforge.errors import NotFoundError

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _attr_type(av, t):
    av.type = t


def _square_plus_fdef(name="square_plus"):
    """f(x, y) = x * x + y, written by hand the way TensorFlow writes FunctionDefs."""
    f = function_pb2.FunctionDef()
    f.signature.name = name
    for arg in ("x", "y"):
        a = f.signature.input_arg.add()
        a.name, a.type = arg, 1
    out = f.signature.output_arg.add()
    out.name, out.type = "z", 1
    mul = f.node_def.add()
    mul.name, mul.op = "mul", "Mul"
    mul.input.extend(["x", "x"])
    _attr_type(mul.attr["T"], 1)
    add = f.node_def.add()
    add.name, add.op = "add", "AddV2"
    add.input.extend(["mul:z:0", "y"])
    _attr_type(add.attr["T"], 1)
    f.ret["z"] = "add:z:0"
    return f


def _graph_with_call(fname="square_plus"):
    gd = graph_pb2.GraphDef()
    for name in ("a", "b"):
        p = gd.node.add()
        p.name, p.op = name, "Placeholder"
        _attr_type(p.attr["dtype"], 1)
    call = gd.node.add()
    call.name, call.op = "call", "StatefulPartitionedCall"
    call.input.extend(["a", "b"])
    call.attr["f"].func.name = fname
    call.attr["Tin"].list.type.extend([1, 1])
    call.attr["Tout"].list.type.extend([1])
    out = gd.node.add()
    out.name, out.op = "out", "Neg"
    out.input.append("call")
    _attr_type(out.attr["T"], 1)
    gd.library.function.add().CopyFrom(_square_plus_fdef())
    return gd


def test_a_hand_written_function_call_runs_and_exports_its_library():
    gd = _graph_with_call()
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd, name="")
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=3).astype(np.float32), rng.normal(size=3).astype(np.float32)
    got = tf1.Session(graph=g).run("out:0", {"a:0": a, "b:0": b})
    np.testing.assert_allclose(got, -(a * a + b), rtol=1e-6)
    exported = g.as_graph_def()
    assert [f.signature.name for f in exported.library.function] == ["square_plus"]


def test_a_missing_function_names_the_node():
    gd = _graph_with_call(fname="nowhere")
    with of.Graph().as_default():
        with pytest.raises(NotFoundError, match=r"function 'nowhere' is not in the GraphDef's function library.*call"):
            of.import_graph_def(gd, name="")


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def test_tensorflow_functional_control_flow(tf):
    @tf.function
    def inner(x):
        return tf.nn.relu(x) * 2.0

    @tf.function
    def f(x, n, k):
        y = inner(x)
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: y + 1.0, lambda: y - 1.0)
        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 0.5 + 1.0), [tf.constant(0), y])
        return tf.switch_case(k, [lambda: y * 1.0, lambda: y * 2.0, lambda: y * 3.0])

    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.int32),
                                 tf.TensorSpec([], tf.int32))
    gd = cf.graph.as_graph_def()
    assert {"PartitionedCall", "StatelessIf", "StatelessWhile", "StatelessCase"} <= {n.op for n in gd.node}
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd.SerializeToString(), name="")
    s = tf1.Session(graph=g)
    names = [t.name for t in cf.inputs]
    rng = np.random.default_rng(1)
    for n, k in ((3, 0), (0, 2), (5, 7), (1, -1)):
        x = rng.normal(size=3).astype(np.float32)
        got = s.run(cf.outputs[0].name, dict(zip(names, [x, n, k])))
        np.testing.assert_allclose(got, f(x, tf.constant(n), tf.constant(k)).numpy(), rtol=1e-6)


def test_identity_n_forwards_each_input_and_its_gradient():
    a, b = of.raw_ops.IdentityN(input=[of.constant([1.5, -2.0]), of.constant([[3]])])
    assert a.numpy().tolist() == [1.5, -2.0] and b.numpy().tolist() == [[3]]
    g = of.Graph()
    with g.as_default():
        x = tf1.placeholder(of.float64, [2])
        y, z = of.raw_ops.IdentityN(input=[x * 3.0, of.sin(x)])
        gx = of.gradients(of.reduce_sum(y * z), x)[0]
    xv = np.array([0.3, -1.2])
    got = tf1.Session(graph=g).run(gx, {x: xv})
    np.testing.assert_allclose(got, 3 * np.sin(xv) + 3 * xv * np.cos(xv), rtol=1e-12)
