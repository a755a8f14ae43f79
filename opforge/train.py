"""Optimizers (TensorFlow 1's tf.train): GradientDescent, Momentum, Adam.

``minimize(loss)`` = ``compute_gradients`` (symbolic, of.gradients) + ``apply_gradients``
(assign ops on the variables, grouped into one op to run). The updates are compositions of
generated ops, so they run wherever the ops run.
"""

from __future__ import annotations

import os

import numpy as np

from . import ops as _ops
from .framework.graph import GraphTensor, get_default_graph
from .framework.variables import RefVariable, Variable, trainable_variables
from .gradients.graph_grad import gradients


def _group(graph, updates, scope):
    with graph.control_dependencies([u.op if isinstance(u, GraphTensor) else u for u in updates]):
        return graph.create_op("NoOp", [], {}, name=scope, exact_name=True)


def _ops_const(graph, var):
    from .framework.graph import constant_node  # noqa: PLC0415
    return constant_node(graph, np.ones((), var.dtype.as_numpy_dtype), name="update_global_step/one")


class Optimizer:
    """Base class: subclasses define _create_slots and _apply_dense."""

    def __init__(self, use_locking: bool, name: str):
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[tuple[str, int], RefVariable] = {}

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """[(gradient, variable)] for the trainable variables (or var_list)."""
        graph = loss.graph
        var_list = list(var_list) if var_list is not None else trainable_variables(graph)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = [(g, v) for g, v in grads_and_vars]
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in grads_and_vars]}")
        graph = grads_and_vars[0][1].graph
        with graph.name_scope(name or self._name) as scope:
            self._create_slots([v for g, v in grads_and_vars if g is not None])
            updates = [self._apply_dense(g, v) for g, v in grads_and_vars if g is not None]
            with graph.control_dependencies([u.op for u in updates]):
                updates += self._finish(graph)
        # The returned op is named after the scope ("train" for name="train"), as in TF.
        if global_step is None:
            return _group(graph, updates, scope)
        with graph.control_dependencies([u.op if isinstance(u, GraphTensor) else u for u in updates]):
            return graph.create_op("AssignAdd", [global_step._ref, _ops_const(graph, global_step)],
                                   {}, name=scope, exact_name=True)

    def minimize(self, loss, global_step=None, var_list=None, name=None):
        """An op that takes one optimization step on loss."""
        return self.apply_gradients(self.compute_gradients(loss, var_list), global_step, name)

    def _slot(self, var, slot_name, initial=0.0):
        key = (slot_name, id(var))
        if key not in self._slots:
            init = np.full([d for d in var.shape], initial, dtype=var.dtype.as_numpy_dtype)
            self._slots[key] = Variable(init, name=f"{var.op.name}/{self._name}/{slot_name}",
                                        trainable=False, _graph=True)
        return self._slots[key]

    def get_slot(self, var, name):
        return self._slots.get((name, id(var)))

    def _create_slots(self, var_list):
        pass

    def _finish(self, graph):
        return []

    def _cast(self, value, var):
        return np.asarray(value, dtype=var.dtype.as_numpy_dtype)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * gradient."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply_dense(self, grad, var):
        return _ops.assign_sub(var, _ops.mul(grad, self._cast(self._lr, var)), use_locking=self._use_locking)


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (Nesterov: lr * (grad + momentum * accum))."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "Momentum")

    def _apply_dense(self, grad, var):
        acc = self._slot(var, "Momentum")
        new_acc = _ops.assign(acc, _ops.add_v2(_ops.mul(acc, self._cast(self._momentum, var)), grad))
        step = _ops.add_v2(grad, _ops.mul(new_acc, self._cast(self._momentum, var))) if self._nesterov else new_acc
        return _ops.assign_sub(var, _ops.mul(step, self._cast(self._lr, var)))


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba), with TensorFlow's epsilon-hat form of the update."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._b1, self._b2, self._eps = learning_rate, beta1, beta2, epsilon
        self._powers = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "m")
            self._slot(v, "v")
        if self._powers is None:
            dt = var_list[0].dtype.as_numpy_dtype
            self._powers = (Variable(np.asarray(self._b1, dt), name="beta1_power", trainable=False, _graph=True),
                            Variable(np.asarray(self._b2, dt), name="beta2_power", trainable=False, _graph=True))

    def _apply_dense(self, grad, var):
        b1p, b2p = self._powers
        c = lambda x: self._cast(x, var)  # noqa: E731
        lr_t = _ops.real_div(_ops.mul(c(self._lr), _ops.sqrt(_ops.sub(c(1.0), b2p))), _ops.sub(c(1.0), b1p))
        m, v = self._slot(var, "m"), self._slot(var, "v")
        m_t = _ops.assign(m, _ops.add_v2(_ops.mul(m, c(self._b1)), _ops.mul(grad, c(1 - self._b1))))
        v_t = _ops.assign(v, _ops.add_v2(_ops.mul(v, c(self._b2)), _ops.mul(_ops.square(grad), c(1 - self._b2))))
        step = _ops.real_div(_ops.mul(lr_t, m_t), _ops.add_v2(_ops.sqrt(v_t), c(self._eps)))
        return _ops.assign_sub(var, step)

    def _finish(self, graph):
        # The beta powers advance after every variable's update has read them.
        b1p, b2p = self._powers
        return [_ops.assign(b1p, _ops.mul(b1p, self._cast(self._b1, b1p))),
                _ops.assign(b2p, _ops.mul(b2p, self._cast(self._b2, b2p)))]


def read_graph(path, as_text=None):
    """Reads a GraphDef written by write_graph (binary, or text for .pbtxt/.txt names)."""
    from .framework.graph_def import read_graph_def  # noqa: PLC0415
    return read_graph_def(path, as_text)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a GraphDef to logdir/name (text or binary protobuf); returns the path."""
    from google.protobuf import text_format  # noqa: PLC0415
    gd = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") else graph_or_graph_def
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        with open(path, "w") as f:
            f.write(text_format.MessageToString(gd))
    else:
        with open(path, "wb") as f:
            f.write(gd.SerializeToString())
    return path


def get_global_step(graph=None):
    g = graph or get_default_graph()
    steps = g.get_collection("global_step")
    return steps[0] if steps else None


def get_or_create_global_step(graph=None):
    g = graph or get_default_graph()
    step = get_global_step(g)
    if step is None:
        step = Variable(np.zeros((), np.int64), name="global_step", trainable=False, _graph=True)
        g.add_to_collection("global_step", step)
    return step


def create_global_step(graph=None):
    return get_or_create_global_step(graph)
