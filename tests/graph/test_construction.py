"""Graph construction: node names, scopes, control dependencies, lookups, static shapes."""

import numpy as np
import pytest

import opforge as of


def test_as_default_and_default_graph():
    g = of.Graph()
    assert of.get_default_graph() is not g
    with g.as_default() as entered:
        assert entered is g
        assert of.get_default_graph() is g
        c = of.constant(1.0)
        assert isinstance(c, of.GraphTensor)
        assert c.graph is g
    assert of.get_default_graph() is not g
    # Outside a graph, constants are eager again.
    e = of.constant(2.0)
    assert not isinstance(e, of.GraphTensor)
    assert float(e.numpy()) == 2.0


def test_nested_default_graphs():
    g1, g2 = of.Graph(), of.Graph()
    with g1.as_default():
        a = of.constant(1.0)
        with g2.as_default():
            b = of.constant(1.0)
            assert of.get_default_graph() is g2
        c = of.constant(1.0)
    assert a.graph is g1 and c.graph is g1 and b.graph is g2
    assert [o.name for o in g1.get_operations()] == ["Const", "Const_1"]
    assert [o.name for o in g2.get_operations()] == ["Const"]


def test_unique_names(graph):
    a = of.constant(1.0)
    b = of.constant(2.0)
    s1 = of.add(a, b)
    s2 = of.add(a, b)
    s3 = a + b
    assert a.op.name == "Const" and b.op.name == "Const_1"
    # TensorFlow's names: tf.add is "Add", `+` is "add", made unique case-insensitively
    assert s1.op.name == "Add" and s2.op.name == "Add_1" and s3.op.name == "add_2"
    assert s1.name == "Add:0"
    assert s1.op.type == "AddV2"
    n1 = of.add(a, b, name="sum")
    n2 = of.add(a, b, name="sum")
    assert n1.op.name == "sum" and n2.op.name == "sum_1"
    # An explicit name that collides with a generated one is made unique too.
    n3 = of.add(a, b, name="sum_1")
    assert n3.op.name not in ("sum", "sum_1")
    names = [o.name for o in graph.get_operations()]
    assert len(names) == len(set(names))


def test_name_scope(graph):
    a = of.constant(1.0, name="a")
    with of.name_scope("layer") as scope:
        assert scope == "layer/"
        x = of.add(a, a)
        with of.name_scope("inner") as inner:
            assert inner == "layer/inner/"
            y = of.mul(a, a, name="prod")
        c = of.constant(3.0)
    with of.name_scope("layer") as scope2:
        assert scope2 == "layer_1/"
        z = of.add(a, a)
    with graph.name_scope("layer/"):  # reopening a scope by its full name
        w = of.add(a, a)
    assert x.op.name == "layer/Add"
    assert y.op.name == "layer/inner/prod"
    assert c.op.name == "layer/Const"
    assert z.op.name == "layer_1/Add"
    assert w.op.name == "layer/Add_1"
    with of.name_scope(None):
        top = of.add(a, a)
    assert top.op.name == "Add"


def test_get_operation_and_tensor_by_name(graph):
    x = of.placeholder(of.float32, [2], name="x")
    with of.name_scope("s"):
        y = of.mul(x, 2.0, name="y")
    assert graph.get_operation_by_name("x") is x.op
    assert graph.get_operation_by_name("s/y") is y.op
    assert graph.get_tensor_by_name("s/y:0") is y
    assert graph.get_tensor_by_name("x:0") is x
    with pytest.raises(KeyError):
        graph.get_operation_by_name("nope")
    with pytest.raises(KeyError):
        graph.get_tensor_by_name("x:1")
    with pytest.raises(ValueError):
        graph.get_tensor_by_name("x")
    with pytest.raises(KeyError):
        graph.get_tensor_by_name("nope:0")


def test_operation_properties(graph):
    x = of.placeholder(of.float32, [None, 3], name="x")
    w = of.constant(np.ones((3, 2), np.float32), name="w")
    y = of.matmul(x, w, transpose_b=False, name="mm")
    op = y.op
    assert op.type == "MatMul"
    assert op.inputs == [x, w]
    assert op.outputs == [y]
    assert op.get_attr("transpose_a") is False
    assert op.get_attr("transpose_b") is False
    assert of.as_dtype(op.get_attr("T")) == of.float32
    assert x.op.type == "Placeholder"
    assert y.dtype == of.float32
    with pytest.raises(ValueError):
        op.get_attr("no_such_attr")
    assert op in x.consumers()
    assert "mm" in repr(op) and "mm:0" in repr(y)


def test_control_dependencies_recorded(graph):
    a = of.constant(1.0, name="a")
    b = of.constant(2.0, name="b")
    with of.control_dependencies([a, b.op]):
        c = of.add(a, b, name="c")
        with of.control_dependencies([c]):
            d = of.identity(a, name="d")
        with of.control_dependencies(None):
            e = of.identity(a, name="e")
    f = of.identity(a, name="f")
    assert {o.name for o in c.op.control_inputs} == {"a", "b"}
    assert {o.name for o in d.op.control_inputs} == {"a", "b", "c"}
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []


def test_graph_tensor_misuse(graph):
    x = of.placeholder(of.float32, [3])
    with pytest.raises(TypeError):
        bool(x)
    with pytest.raises(TypeError):
        iter(x)


def test_tensor_from_other_graph_rejected(graph):
    other = of.Graph()
    with other.as_default():
        foreign = of.constant(1.0)
    local = of.constant(1.0)
    with pytest.raises(of.OpError):
        of.add(local, foreign)


def test_finalized_graph_rejects_new_nodes(graph):
    of.constant(1.0)
    graph.finalize()
    with pytest.raises(RuntimeError):
        of.constant(2.0)


# ------------------------------------------------------------------ static shapes


def test_placeholder_shapes(graph):
    x = of.placeholder(of.float32, [None, 3], name="x")
    assert x.shape.as_list() == [None, 3]
    assert x.shape.rank == 2
    assert x.dtype == of.float32
    u = of.placeholder(of.float64)
    assert u.shape.rank is None
    s = of.placeholder(of.int32, [])
    assert s.shape.as_list() == [] and s.shape.rank == 0
    with pytest.raises(ValueError):
        u.ndim  # noqa: B018


def test_shapes_through_matmul_reduce_broadcast(graph):
    x = of.placeholder(of.float32, [None, 3])
    w = of.constant(np.ones((3, 4), np.float32))
    y = of.matmul(x, w)
    assert y.shape.as_list() == [None, 4]
    yt = of.matmul(w, x, transpose_a=True, transpose_b=True)
    assert yt.shape.as_list() == [4, None]
    assert of.reduce_sum(y, axis=1).shape.as_list() == [None]
    assert of.reduce_sum(y, axis=0).shape.as_list() == [4]
    assert of.reduce_mean(y, axis=1, keepdims=True).shape.as_list() == [None, 1]
    assert of.reduce_max(y).shape.as_list() == []
    b = of.constant(np.ones((4,), np.float32))
    assert (y + b).shape.as_list() == [None, 4]
    col = of.placeholder(of.float32, [None, 1])
    assert (y * col).shape.as_list() == [None, 4]
    z = of.placeholder(of.float32, [5, None])
    assert (y + of.reshape(z, [5, 1, -1])).shape.rank == 3
    assert of.transpose(y).shape.as_list() == [4, None]
    assert of.reshape(y, [-1]).shape.as_list() == [None]
    assert of.reshape(w, [2, -1]).shape.as_list() == [2, 6]
    assert of.relu(y).shape.as_list() == [None, 4]


def test_shapes_with_unknown_rank(graph):
    u = of.placeholder(of.float32)
    v = of.tanh(u)
    assert v.shape.rank is None
    total = of.reduce_sum(u)
    assert total.shape.as_list() == []
    assert (u + of.constant(np.ones((2, 3), np.float32))).shape.rank is None or \
        (u + of.constant(np.ones((2, 3), np.float32))).shape.rank >= 2


def test_construction_error_names_the_node(graph):
    a = of.constant(np.ones((2, 3), np.float32))
    b = of.constant(np.ones((4, 5), np.float32))
    with pytest.raises(of.InvalidArgumentError) as exc:
        of.matmul(a, b, name="bad_matmul")
    assert "bad_matmul" in str(exc.value)
    assert "MatMul" in str(exc.value)
    # Partially known shapes that conflict on a known dim are caught too.
    x = of.placeholder(of.float32, [None, 3])
    with pytest.raises(of.InvalidArgumentError) as exc:
        of.matmul(x, b, name="mm2")
    assert "mm2" in str(exc.value)
    # A failed construction adds no node.
    assert all(o.name not in ("bad_matmul", "mm2") for o in graph.get_operations())
    # ... and unknown dims are accepted.
    y = of.placeholder(of.float32, [None, None])
    assert of.matmul(x, y).shape.as_list() == [None, None]


def test_broadcast_shape_mismatch_at_construction(graph):
    a = of.placeholder(of.float32, [None, 3])
    b = of.constant(np.ones((4,), np.float32))
    with pytest.raises(of.InvalidArgumentError) as exc:
        of.add(a, b, name="badadd")
    assert "badadd" in str(exc.value)


def test_dtype_mismatch_at_construction(graph):
    a = of.placeholder(of.float32, [3])
    b = of.placeholder(of.int32, [3])
    with pytest.raises(of.OpError):
        of.add(a, b)


def test_constant_conversion_follows_input_dtype(graph):
    x = of.placeholder(of.float64, [2])
    y = x * 2  # the Python int becomes a float64 Const
    assert y.dtype == of.float64
    assert y.op.inputs[1].op.type == "Const"
    assert y.op.inputs[1].dtype == of.float64


def test_group_and_no_op(graph):
    a = of.constant(1.0)
    b = of.constant(2.0)
    g = of.group(a, b.op, name="grp")
    assert g.type == "NoOp" and g.name == "grp"
    assert {o.name for o in g.control_inputs} == {a.op.name, b.op.name}
    n = of.no_op(name="nothing")
    assert n.type == "NoOp" and n.outputs == []


def test_device_scope_recorded(graph):
    with of.device("/cpu:0"):
        a = of.constant(1.0)
    b = of.constant(1.0)
    assert a.op.device == "/cpu:0"
    assert b.op.device == ""


def test_graph_tensor_inputs_build_outside_as_default():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 2], name="x")
    y = x * 2.0                       # no default graph: the input's graph is used
    z = of.add(y, np.float32(1.0))
    assert isinstance(z, of.GraphTensor) and z.graph is g and y.graph is g
    assert z.shape.as_list() == [None, 2]
    with of.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(z, {x: [[1.0, 2.0]]}), [[3.0, 5.0]])


def test_dynamic_axis_and_shape_arguments(graph):
    x = of.placeholder(of.float32, [None, 3], name="x")
    ax = of.placeholder(of.int32, [], name="ax")
    s = of.reduce_sum(x, axis=ax)
    k = of.reduce_sum(x, axis=ax, keepdims=True)
    assert k.shape.rank == 2
    sh = of.placeholder(of.int32, [2], name="sh")
    r = of.reshape(x, sh)
    assert r.shape.rank == 2
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    with of.Session() as sess:
        np.testing.assert_array_equal(sess.run(s, {x: xv, ax: 1}), xv.sum(1))
        np.testing.assert_array_equal(sess.run(k, {x: xv, ax: 0}), xv.sum(0, keepdims=True))
        np.testing.assert_array_equal(sess.run(r, {x: xv, sh: [3, 2]}), xv.reshape(3, 2))
        np.testing.assert_array_equal(sess.run(of.shape(x), {x: xv}), [2, 3])


def test_op_names_avoid_scope_names(graph):
    a = of.constant(1.0)
    with of.name_scope("foo"):
        pass
    f = of.add(a, a, name="foo")
    assert f.op.name == "foo_1"
