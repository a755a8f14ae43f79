"""The behaviour switches (each a documented no-op for opforge's behaviour or an
UnimplementedError naming what opforge lacks), init_scope, executing_eagerly_outside_functions,
is_symbolic_tensor, variable_creator_scope, the variable enums, and tf.Module."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework import tf2_behavior as tb
from opforge.framework import tf_function
from opforge.framework.errors import UnimplementedError
from opforge.framework.module import Module


@pytest.mark.parametrize("switch,what", [
    (tb.enable_control_flow_v2, "TensorFlow 1's control flow"), (tb.enable_resource_variables, "reference variables"),
    (tb.disable_v2_tensorshape, "dimension_value"), (tb.enable_v2_behavior, "import opforge as of"),
])
def test_unsupported_switches_raise(switch, what):
    with pytest.raises(UnimplementedError, match=what):
        switch()


def test_switches_that_select_opforges_behaviour_and_queries():
    for switch in (tb.disable_control_flow_v2, tb.disable_resource_variables, tb.enable_v2_tensorshape):
        assert switch() is None
    assert tb.control_flow_v2_enabled() is False and tb.resource_variables_enabled() is False


def test_tensor_equality_switch_changes_eager_tensors():
    a, b = of.constant([1, 2]), of.constant([1, 3])
    try:
        tb.disable_tensor_equality()
        assert not tb.tensor_equality_enabled()
        assert (a == b) is False and (a == a) is True and len({a, b}) == 2
    finally:
        tb.enable_tensor_equality()
    assert tb.tensor_equality_enabled()
    np.testing.assert_array_equal((a == b).numpy(), [True, False])
    with pytest.raises(TypeError):
        hash(a)


def test_executing_eagerly_outside_functions_and_init_scope():
    assert tb.executing_eagerly_outside_functions() is True
    g = of.Graph()
    with g.as_default():
        assert tb.executing_eagerly_outside_functions() is False
        made = []

        @tf_function.function
        def f(x):
            with tb.init_scope():
                made.append(of.constant(1.0, name="lifted"))
            return x + 1.0

        with g.control_dependencies([of.no_op(name="dep")]):
            f(of.placeholder(of.float32, []))
        assert made[0].graph is g and made[0].op.name == "f/lifted"  # the name scope stays, as TF's
        assert made[0].op.control_inputs == []  # and its control dependencies
        assert tb.is_symbolic_tensor(made[0]) and tb.is_symbolic_tensor(of.Variable(1.0))
    assert not tb.is_symbolic_tensor(of.constant(1.0)) and not tb.is_symbolic_tensor(np.ones(2))


def test_variable_creator_scope_order_and_kwargs(graph):
    seen = []

    def outer(next_creator, **kwargs):
        seen.append(("outer", kwargs["name"]))
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        seen.append(("inner", kwargs["name"]))
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tb.variable_creator_scope(outer), tb.variable_creator_scope(inner):
        v = of.Variable(np.zeros(2, np.float32), name="v")
    assert seen == [("inner", "v"), ("outer", "v")] and v.trainable is False
    w = of.Variable(1.0, name="w")  # outside: no creator
    assert w.trainable and len(seen) == 2


def test_variable_enums():
    assert tb.VariableAggregation.ONLY_FIRST_TOWER is tb.VariableAggregation.ONLY_FIRST_REPLICA
    assert [m.name for m in tb.VariableSynchronization] == ["AUTO", "NONE", "ON_WRITE", "ON_READ"]
    assert tb.VariableAggregation.SUM.value == 1


class _Dense(Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = of.Variable(np.ones((n_in, n_out), np.float32), name="w")
        self.b = of.Variable(np.zeros(n_out, np.float32), name="b", trainable=False)

    def __call__(self, x):
        return of.matmul(x, self.w) + self.b


class _Net(Module):
    def __init__(self):
        super().__init__()
        self.layers = [_Dense(3, 4), _Dense(4, 2)]
        self.extra = {"scale": of.Variable(2.0, name="scale")}


def test_module_tracks_variables_and_submodules(graph):
    net = _Net()
    assert net.name == "__net" or net.name == "_net"
    assert [m.name for m in net.submodules] == ["_dense", "_dense"]
    assert len(net.variables) == 5 and len(net.trainable_variables) == 3 and len(net.non_trainable_variables) == 2
    paths = [p for p, _ in net._flatten(predicate=lambda v: hasattr(v, "_variable_op"), with_path=True)]
    assert paths[0] == ("extra", "scale") and ("layers", 0, "b") in paths
    layer = _Dense(2, 2, name="dense")
    again = _Dense(2, 2, name="dense")
    with layer.name_scope:
        c = of.constant(1.0, name="c")
    assert c.op.name == "dense/c" and again._scope_name == "dense_1/"
    with pytest.raises(ValueError, match="valid module name"):
        Module(name="bad name!")


def test_module_against_tensorflow_order():
    tf = pytest.importorskip("tensorflow")

    class TfNet(tf.Module):
        def __init__(self):
            super().__init__()
            self.z = tf.Variable(1.0, name="z")
            self.a = [tf.Variable(2.0, name="a0"), tf.Variable(3.0, name="a1")]

    class OfNet(Module):
        def __init__(self):
            super().__init__()
            self.z = of.Variable(1.0, name="z")
            self.a = [of.Variable(2.0, name="a0"), of.Variable(3.0, name="a1")]

    assert [v.name.split(":")[0] for v in TfNet().variables] == [v.name.split(":")[0] for v in OfNet().variables]
