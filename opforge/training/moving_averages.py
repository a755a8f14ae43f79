"""Exponential moving averages of variables (TensorFlow 1's tf.train.ExponentialMovingAverage):
a shadow variable per averaged variable, updated by ``apply``'s op as
``shadow -= (1 - decay) * (shadow - variable)``."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.api import no_op
from ..framework.collections import GraphKeys
from ..framework.errors import UnimplementedError
from ..framework.graph import get_default_graph
from ..framework.variables import RefVariable


class ExponentialMovingAverage:
    """Keeps moving averages of variables. With num_updates (a step counter) the decay used is
    min(decay, (1 + num_updates) / (10 + num_updates)), so early averages move faster."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        if zero_debias:
            raise UnimplementedError("ExponentialMovingAverage: zero_debias is not supported yet",
                                     "ExponentialMovingAverage")
        self._decay, self._num_updates, self._name = decay, num_updates, name
        self._averages: dict = {}

    @property
    def name(self):
        return self._name

    def average_name(self, var):
        """The name of var's shadow variable (what a Saver restoring averages looks for)."""
        return f"{var.op.name}/{self._name}"

    def average(self, var):
        """var's shadow variable, or None if apply() has not been given var."""
        return self._averages.get(id(var), (None, None))[1]

    def apply(self, var_list=None):
        """An op updating the averages of var_list (default: the trainable variables; tensors
        too, as batch statistics), creating their shadow variables on first use: initialized to
        a variable's initial value, or to zeros for a tensor."""
        g = get_default_graph()
        if var_list is None:
            var_list = g.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        for v in var_list:
            if id(v) in self._averages:
                continue
            if not v.dtype.is_floating:
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
            is_variable = isinstance(v, RefVariable)
            if is_variable:
                initial = v.initialized_value()
            elif v.shape.is_fully_defined():  # a tensor's average starts at zero (TensorFlow's rule)
                initial = np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype)
            else:
                initial = _ops.zeros_like(v)
            with g.name_scope(""):
                shadow = RefVariable(initial, name=self.average_name(v), trainable=False,
                                     collections=[GraphKeys.GLOBAL_VARIABLES])
            if is_variable:  # only variables, as TF's
                g.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, v)
            self._averages[id(v)] = (v, shadow)
        with g.name_scope(self._name):
            decay = np.float32(self._decay)
            if self._num_updates is not None:
                n = _ops.cast(self._num_updates, "float32")
                decay = _ops.minimum(decay, _ops.real_div(_ops.add_v2(np.float32(1), n),
                                                          _ops.add_v2(np.float32(10), n)))
            updates = []
            for v in var_list:
                shadow = self._averages[id(v)][1]
                rate = _ops.sub(np.float32(1), decay)
                rate = _ops.cast(rate, shadow.dtype.name) if shadow.dtype.name != "float32" else rate
                value = v.value() if isinstance(v, RefVariable) else v
                updates.append(shadow.assign_sub(_ops.mul(_ops.sub(shadow.value(), value), rate)))
            with g.control_dependencies(updates):
                return no_op(name="update")

    def variables_to_restore(self, moving_avg_variables=None):
        """{name in the checkpoint: variable} restoring each averaged variable from its shadow's
        checkpoint entry and every other global variable from its own (for a Saver)."""
        g = get_default_graph()
        if moving_avg_variables is None:
            moving_avg_variables = g.get_collection(GraphKeys.TRAINABLE_VARIABLES) + \
                g.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES)
        name_map = {self.average_name(v): v for v in moving_avg_variables}
        averaged = {id(v) for v in moving_avg_variables}
        for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES):
            if id(v) not in averaged and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
