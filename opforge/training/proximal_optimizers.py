"""TensorFlow 1's proximal optimizers (tf.compat.v1.train): ProximalGradientDescent,
ProximalAdagrad (FOBOS, Duchi & Singer 2009) and AdagradDA (Adagrad dual averaging, Duchi et
al. 2011), on TensorFlow's ApplyProximalGradientDescent, ApplyProximalAdagrad and ApplyAdagradDA
ops (opdefs/training/, kernels/cpu/training/training_ops.cc)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from .optimizers import Optimizer

__all__ = ["AdagradDAOptimizer", "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer"]


def _check_strengths(l1, l2):
    for what, v in (("l1_regularization_strength", l1), ("l2_regularization_strength", l2)):
        if not callable(v) and isinstance(v, (int, float)) and v < 0.0:
            raise ValueError(f"{what} {v} needs to be positive or zero")


class ProximalGradientDescentOptimizer(Optimizer):
    """prox = var - lr * grad; var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)
    (ApplyProximalGradientDescent)."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        _check_strengths(l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name)
        self._lr, self._l1, self._l2 = learning_rate, l1_regularization_strength, l2_regularization_strength

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        return _ops.apply_proximal_gradient_descent(var, h(self._lr), h(self._l1), h(self._l2), grad,
                                                    use_locking=self._use_locking)


class ProximalAdagradOptimizer(Optimizer):
    """accum += grad^2, then a proximal gradient step at rate lr / sqrt(accum)
    (ApplyProximalAdagrad); slot "accumulator"."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        _check_strengths(l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name)
        self._lr, self._init = learning_rate, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "accumulator", initial=self._init)

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        return _ops.apply_proximal_adagrad(var, self.get_slot(var, "accumulator"), h(self._lr), h(self._l1),
                                           h(self._l2), grad, use_locking=self._use_locking)


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging: the gradients and their squares accumulate in the slots
    "gradient_accumulator" and "gradient_squared_accumulator"; var is recomputed from them at
    step global_step + 1 (ApplyAdagradDA). ``global_step`` is the training step's variable."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        _check_strengths(l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name)
        self._lr, self._global_step = learning_rate, global_step
        self._init = initial_gradient_squared_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._step = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._slot(v, "gradient_accumulator")
            self._slot(v, "gradient_squared_accumulator", initial=self._init)

    def _prepare(self, var):
        step = _ops.identity(self._global_step)
        if step.dtype != _dtypes.int64:
            step = _ops.cast(step, _dtypes.int64)
        self._step = _ops.add_v2(step, np.int64(1))

    def _apply_dense(self, grad, var):
        h = lambda x: self._hyper(x, var)  # noqa: E731
        return _ops.apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                     self.get_slot(var, "gradient_squared_accumulator"), grad, h(self._lr),
                                     h(self._l1), h(self._l2), self._step, use_locking=self._use_locking)
