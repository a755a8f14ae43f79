"""Optimizers (TensorFlow 1's tf.train): GradientDescent, Momentum, Adam, RMSProp, Adagrad,
Adadelta, Ftrl.

``minimize(loss)`` = ``compute_gradients`` (symbolic, of.gradients) + ``apply_gradients``
(one of TensorFlow's Apply* ops per variable, opdefs in opdefs/training/, grouped into one op
to run).
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.graph import GraphTensor
from ..framework.variables import RefVariable, Variable, trainable_variables
from ..gradients.helpers import row_slices
from ..gradients.graph_grad import gradients


def _group(graph, updates, scope):
    with graph.control_dependencies([u.op if isinstance(u, GraphTensor) else u for u in updates]):
        return graph.create_op("NoOp", [], {}, name=scope, exact_name=True)


def _ops_const(graph, var):
    from ..framework.graph import constant_node  # noqa: PLC0415
    return constant_node(graph, np.ones((), var.dtype.as_numpy_dtype), name="update_global_step/one")


class Optimizer:
    """Base class (tf.compat.v1.train.Optimizer): subclasses define _create_slots and
    _apply_dense, which run one of TensorFlow's Apply* ops on the variable and its slots."""

    def __init__(self, use_locking: bool, name: str):
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[int, RefVariable]] = {}
        self._non_slots: dict[str, RefVariable] = {}
        self._hyper_cache: dict[tuple, object] = {}

    def get_name(self):
        return self._name

    def compute_gradients(self, loss, var_list=None, gate_gradients=1, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """[(gradient, variable)] for the trainable variables (or var_list); None gradients
        for variables loss does not depend on, as in TensorFlow."""
        if callable(loss):
            loss = loss()
        graph = loss.graph
        var_list = list(var_list) if var_list is not None else trainable_variables(graph)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op applying the gradients (and incrementing global_step, when given)."""
        grads_and_vars = [(g, v) for g, v in grads_and_vars]
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError(f"No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[v.name for _, v in grads_and_vars]} and loss.")
        graph = grads_and_vars[0][1].graph
        with graph.as_default():
            return self._apply(graph, grads_and_vars, global_step, name)

    def _apply(self, graph, grads_and_vars, global_step, name):
        live = [(g, v) for g, v in grads_and_vars if g is not None]
        with graph.control_dependencies(None):  # slots are created outside any control scope
            self._create_slots([v for _, v in live])
        with graph.name_scope(name or self._name) as scope:
            self._prepare(live[0][1])
            updates = []
            for g, v in live:
                with graph.name_scope("update_" + v.op.name):
                    updates.append(self._apply_dense(g, v))
            with graph.control_dependencies([u.op for u in updates]):
                updates += self._finish(graph)
        # The returned op is named after the scope ("train" for name="train"), as in TF.
        if global_step is None:
            return _group(graph, updates, scope)
        with graph.control_dependencies([u.op if isinstance(u, GraphTensor) else u for u in updates]):
            return graph.create_op("AssignAdd", [global_step._ref, _ops_const(graph, global_step)],
                                   {}, name=scope, exact_name=True)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=1, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """An op that takes one optimization step on loss."""
        return self.apply_gradients(self.compute_gradients(loss, var_list, grad_loss=grad_loss),
                                    global_step, name)

    # ---- slots: per-variable state, named as TensorFlow names them ("w/Adam", "w/Adam_1")
    def _slot(self, var, slot_name, initial=0.0):
        per_var = self._slots.setdefault(slot_name, {})
        if id(var) not in per_var:
            graph = var.graph
            with graph.name_scope(None):
                full = graph.unique_name(f"{var.op.name}/{self._name}")
            init = np.full([d for d in var.shape], initial, dtype=var.dtype.as_numpy_dtype)
            per_var[id(var)] = Variable(init, name=full + "/", trainable=False, _graph=True)
        return per_var[id(var)]

    def _non_slot(self, name, initial, like):
        """A variable shared by all updates (Adam's beta powers): float32 for Python-number
        initial values, as TensorFlow makes them."""
        if name not in self._non_slots:
            with like.graph.name_scope(None):
                self._non_slots[name] = Variable(np.float32(initial), name=name, trainable=False, _graph=True)
        return self._non_slots[name]

    def get_slot(self, var, name):
        return self._slots.get(name, {}).get(id(var))

    def get_slot_names(self):
        return sorted(self._slots)

    def variables(self):
        return list(self._non_slots.values()) + [v for d in self._slots.values() for v in d.values()]

    def _create_slots(self, var_list):
        pass

    def _prepare(self, var):
        pass

    def _finish(self, graph):
        return []

    def _hyper(self, value, var):
        """A hyperparameter (number, tensor or callable) as a tensor of var's dtype. Python
        numbers pass through float32 first, as TensorFlow converts them, so float64 models
        see the same rounded hyperparameters as under TensorFlow."""
        if callable(value):
            value = value()
        if isinstance(value, (GraphTensor, RefVariable)):
            return value if value.dtype == var.dtype else _ops.cast(value, var.dtype)
        if isinstance(value, (float, int)):
            value = np.float32(value)
        return np.asarray(value, dtype=var.dtype.as_numpy_dtype)


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * gradient (ApplyGradientDescent)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._lr = learning_rate

    def _apply_dense(self, grad, var):
        lr = self._hyper(self._lr, var)
        sparse = row_slices(grad)
        if sparse is not None and isinstance(var, RefVariable):
            # The gradient of a gather (an embedding lookup): only its rows change, as TensorFlow
            # applies an IndexedSlices gradient (ScatterSub of lr * rows; repeated rows add), not
            # a dense update of every row (word2vec's [50000, 128]: 13.7 -> under 1 ms a step).
            values, indices = sparse
            return _ops.scatter_sub(var, indices, _ops.mul(values, lr), use_locking=self._use_locking)
        return _ops.apply_gradient_descent(var, lr, grad, use_locking=self._use_locking)


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (Nesterov: lr * (grad + momentum *
    accum)) (ApplyMomentum)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._lr, self._momentum, self._nesterov = learning_rate, momentum, use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "momentum")

    def _apply_dense(self, grad, var):
        return _ops.apply_momentum(var, self.get_slot(var, "momentum"), self._hyper(self._lr, var), grad,
                                   self._hyper(self._momentum, var), use_locking=self._use_locking,
                                   use_nesterov=self._nesterov)


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba), with TensorFlow's epsilon-hat form of the update (ApplyAdam); the
    beta powers are non-slot variables advanced after every variable's update."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._b1, self._b2, self._eps = learning_rate, beta1, beta2, epsilon

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.op.name)
        self._non_slot("beta1_power", self._b1, first)
        self._non_slot("beta2_power", self._b2, first)
        for v in var_list:
            self._slot(v, "m")
            self._slot(v, "v")

    def _apply_dense(self, grad, var):
        b1p, b2p = self._non_slots["beta1_power"], self._non_slots["beta2_power"]
        h = lambda x: self._hyper(x, var)  # noqa: E731
        return _ops.apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"), h(b1p), h(b2p),
                               h(self._lr), h(self._b1), h(self._b2), h(self._eps), grad,
                               use_locking=self._use_locking)

    def _finish(self, graph):
        b1p, b2p = self._non_slots["beta1_power"], self._non_slots["beta2_power"]
        return [_ops.assign(b1p, _ops.mul(b1p, self._hyper(self._b1, b1p)), name="update_beta1_power"),
                _ops.assign(b2p, _ops.mul(b2p, self._hyper(self._b2, b2p)), name="update_beta2_power")]


class RMSPropOptimizer(Optimizer):
    """RMSProp (Hinton's lecture 6e) with momentum, and the centered variant (ApplyRMSProp,
    ApplyCenteredRMSProp). The mean square starts at one, as in TensorFlow 1."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._lr, self._decay, self._momentum, self._eps, self._centered = (
            learning_rate, decay, momentum, epsilon, centered)

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "rms", initial=1.0)
            if self._centered:
                self._slot(v, "mg")
            self._slot(v, "momentum")

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        args = (h(self._lr), h(self._decay), h(self._momentum), h(self._eps), grad)
        if self._centered:
            return _ops.apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *args,
                                                use_locking=self._use_locking)
        return _ops.apply_rms_prop(var, rms, mom, *args, use_locking=self._use_locking)


class AdagradOptimizer(Optimizer):
    """Adagrad (Duchi et al.): accum += grad^2; var -= lr * grad / sqrt(accum) (ApplyAdagrad)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._lr, self._init = learning_rate, initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "accumulator", initial=self._init)

    def _apply_dense(self, grad, var):
        return _ops.apply_adagrad(var, self.get_slot(var, "accumulator"), self._hyper(self._lr, var), grad,
                                  use_locking=self._use_locking)


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler) (ApplyAdadelta)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._eps = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "accum")
            self._slot(v, "accum_update")

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        return _ops.apply_adadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                   h(self._lr), h(self._rho), h(self._eps), grad, use_locking=self._use_locking)


class FtrlOptimizer(Optimizer):
    """FTRL-proximal (McMahan et al.), with optional L2 shrinkage (ApplyFtrl, ApplyFtrlV2)."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="Ftrl", accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0,
                 beta=None):
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value {initial_accumulator_value} needs to be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power} needs to be negative or zero")
        for what, v in (("l1_regularization_strength", l1_regularization_strength),
                        ("l2_regularization_strength", l2_regularization_strength),
                        ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)):
            if v < 0.0:
                raise ValueError(f"{what} {v} needs to be positive or zero")
        super().__init__(use_locking, name)
        self._lr, self._power, self._init = learning_rate, learning_rate_power, initial_accumulator_value
        self._l1, self._l2, self._shrink = l1_regularization_strength, l2_regularization_strength, \
            l2_shrinkage_regularization_strength
        self._l2 += (beta or 0.0) / (2.0 * learning_rate) if beta and not callable(learning_rate) else 0.0

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "accum", initial=self._init)
            self._slot(v, "linear")

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        if self._shrink:
            return _ops.apply_ftrl_v2(var, accum, linear, grad, h(self._lr), h(self._l1), h(self._l2),
                                      h(self._shrink), h(self._power), use_locking=self._use_locking)
        return _ops.apply_ftrl(var, accum, linear, grad, h(self._lr), h(self._l1), h(self._l2), h(self._power),
                               use_locking=self._use_locking)
