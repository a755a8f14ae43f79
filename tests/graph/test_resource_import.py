"""TF2 resource variables in imported GraphDefs (framework/resource_import.py): VarHandleOp,
ReadVariableOp, Assign*VariableOp, ResourceGather become reference-variable ops that compute
the same thing; handles reach them through function calls, conds and loops; what opforge
cannot express is a typed error naming the node."""

from __future__ import annotations

import os

import numpy as np
import pytest
from google.protobuf import text_format

import opforge as of
from opforge.codegen._proto import graph_pb2
from opforge.errors import UnimplementedError
from opforge.framework import resource_import

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

_VAR = '''node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } }
  attr { key: "shared_name" value { s: "v" } } }
node { name: "value" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
'''


def _import(text):
    gd = text_format.Parse(text, graph_pb2.GraphDef())
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd, name="")
    return g, of.Session(graph=g)


def test_read_assign_add_sub_gather():
    g, s = _import(_VAR + '''
node { name: "assign" op: "AssignVariableOp" input: "v" input: "value" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "add" op: "AssignAddVariableOp" input: "v" input: "value" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "sub" op: "AssignSubVariableOp" input: "v" input: "value" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "id" op: "Identity" input: "v" attr { key: "T" value { type: DT_RESOURCE } } }
node { name: "read" op: "ReadVariableOp" input: "id" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "idx" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "gather" op: "ResourceGather" input: "v" input: "idx" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "Tindices" value { type: DT_INT32 } } }
node { name: "init" op: "VarIsInitializedOp" input: "v" }
''')
    assert g.get_operation_by_name("v").type == "VariableV2"
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 2)).astype(np.float32)
    s.run("assign", {"value:0": a})
    np.testing.assert_allclose(s.run("read:0"), a)
    s.run("add", {"value:0": b})
    np.testing.assert_allclose(s.run("read:0"), a + b, rtol=1e-6)
    s.run("sub", {"value:0": a})
    np.testing.assert_allclose(s.run("read:0"), b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.run("gather:0", {"idx:0": np.array([2, 0], np.int32)}), b[[2, 0]], rtol=1e-5,
                               atol=1e-6)
    s.run("init")  # no consumer: a NoOp
    # AssignVariableOp does not check shapes (a variable restored to another shape)
    s.run("assign", {"value:0": np.ones((4,), np.float32)})
    np.testing.assert_allclose(s.run("read:0"), np.ones(4))


def test_read_of_an_uninitialized_variable_is_failed_precondition():
    _, s = _import(_VAR + 'node { name: "read" op: "ReadVariableOp" input: "v" '
                          'attr { key: "dtype" value { type: DT_FLOAT } } }')
    with pytest.raises(of.errors.FailedPreconditionError, match="uninitialized value v"):
        s.run("read:0")


def test_handle_into_an_unknown_op_is_refused():
    with pytest.raises(UnimplementedError, match=r"Shape takes the resource handle of variable 'v'.*\[\[node s\]\]"):
        _import(_VAR + 'node { name: "s" op: "Shape" input: "v" attr { key: "T" value { type: DT_RESOURCE } } }')


def test_handle_not_from_a_variable_is_refused():
    with pytest.raises(UnimplementedError, match=r"does not come from a VarHandleOp.*\[\[node read\]\]"):
        _import('node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }\n'
                'node { name: "read" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }')


def test_consumed_effect_only_op_is_refused():
    with pytest.raises(UnimplementedError, match=r"VarIsInitializedOp is read by another op.*\[\[node init\]\]"):
        _import(_VAR + 'node { name: "init" op: "VarIsInitializedOp" input: "v" }\n'
                       'node { name: "not" op: "LogicalNot" input: "init" }')


def test_assign_through_a_switch_is_refused():
    with pytest.raises(UnimplementedError, match=r"updates variable 'v' through a cond or loop.*\[\[node a\]\]"):
        _import(_VAR + '''
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "sw" op: "Switch" input: "v" input: "p" attr { key: "T" value { type: DT_RESOURCE } } }
node { name: "a" op: "AssignVariableOp" input: "sw:1" input: "value" attr { key: "dtype" value { type: DT_FLOAT } } }
''')


def test_read_through_a_switch_stays_in_its_branch():
    g, s = _import(_VAR + '''
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "assign" op: "AssignVariableOp" input: "v" input: "value" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "sw" op: "Switch" input: "v" input: "p" attr { key: "T" value { type: DT_RESOURCE } } }
node { name: "read" op: "ReadVariableOp" input: "sw:1" attr { key: "dtype" value { type: DT_FLOAT } } }
''')
    assert g.get_operation_by_name("sw").get_attr("T") == of.float32  # it carries the value now
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    s.run("assign", {"value:0": a})
    np.testing.assert_allclose(s.run("read:0", {"p:0": True}), a)


def test_no_resource_ops_no_lowering():
    gd = text_format.Parse('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }',
                           graph_pb2.GraphDef())
    assert not resource_import.needs_lowering(gd)


def test_tf_graph_with_variables_in_calls_cond_and_loop():
    """A graph TensorFlow built (resource variables read inside a tf.function call, a cond
    and a while loop, all function-library ops in TF2) imports, initializes with its own
    initializers and computes TensorFlow's answer."""
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(3)
    with tf.Graph().as_default() as tg:
        w = tf.Variable(rng.normal(size=(3, 3)).astype(np.float32), name="w")
        k = tf.Variable(np.float32(0.5), name="k")

        @tf.function
        def inner(x):
            return tf.matmul(x, w)

        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        flag = tf.compat.v1.placeholder(tf.bool, [], name="flag")
        y = tf.cond(flag, lambda: inner(x), lambda: x * k)
        _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * k + inner(y)), [0, tf.zeros_like(y)])
        out = tf.identity(acc, name="out")
        init = tf.compat.v1.global_variables_initializer()
        gd = tg.as_graph_def()
        ops = {n.op for n in gd.node} | {n.op for f in gd.library.function for n in f.node_def}
        assert {"VarHandleOp", "ReadVariableOp", "StatefulPartitionedCall"} <= ops
        xv = rng.normal(size=(4, 3)).astype(np.float32)
        with tf.compat.v1.Session(graph=tg) as ts:
            ts.run(init)
            want = {f: ts.run(out, {x: xv, flag: f}) for f in (True, False)}
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd.SerializeToString(), name="")
    s = of.Session(graph=g)
    s.run(g.get_operation_by_name(init.name))
    for f in (True, False):
        np.testing.assert_allclose(s.run("out:0", {"x:0": xv, "flag:0": f}), want[f], rtol=1e-5, atol=1e-6)
