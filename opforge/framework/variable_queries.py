"""Initialization queries over graph variables (TensorFlow 1's variables module):
is_variable_initialized (the IsVariableInitialized op), report_uninitialized_variables (the
names of those not initialized yet, e.g. for a Supervisor's ready_op) and
assert_variables_initialized (a tensor whose evaluation fails on an uninitialized one).

    ready = tf.report_uninitialized_variables()   # sess.run(ready) -> [b'w', b'b'] before init
"""

from __future__ import annotations

import numpy as np

from .api import constant
from .collections import GLOBAL_VARIABLES, LOCAL_VARIABLES
from .graph import GraphTensor, get_default_graph


def _ops():
    from .. import ops  # noqa: PLC0415
    return ops


def _all_variables(var_list):
    if var_list is not None:
        return list(var_list)
    g = get_default_graph()
    return list(g.get_collection(GLOBAL_VARIABLES)) + list(g.get_collection(LOCAL_VARIABLES))


def _ref(variable):
    """The VariableV2 reference of a graph variable (or the reference tensor itself); None for an
    eager variable, which holds its value from the start."""
    if isinstance(variable, GraphTensor):
        return variable
    return getattr(variable, "_ref", None)


def is_variable_initialized(variable):
    """A bool scalar: whether `variable` has been initialized (IsVariableInitialized). An eager
    variable holds its value from the start: True."""
    ref = _ref(variable)
    if ref is None:
        return constant(True)
    return _ops().is_variable_initialized(ref)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor of the names (op names, without ':0') of the variables of var_list
    (default: all global and local variables) that are not initialized yet."""
    ops = _ops()
    var_list = _all_variables(var_list)
    if not var_list:
        return constant(np.array([], dtype=bytes), name=name)
    initialized = ops.cast(ops.pack([is_variable_initialized(v) for v in var_list]), "int32")
    names = constant(np.array([v.op.name.encode() for v in var_list]))
    return ops.dynamic_partition(names, initialized, num_partitions=2, name=name)[0]


def assert_variables_initialized(var_list=None):
    """A tensor (the ranks of the variables' values) whose evaluation fails with
    FailedPreconditionError while any variable of var_list (default: all global and local
    variables) is uninitialized; None when there are no variables."""
    ops = _ops()
    var_list = _all_variables(var_list)
    if not var_list:
        return None
    ranks = [ops.rank(ops.identity(_ref(v) if _ref(v) is not None else v)) for v in var_list]
    return ranks[0] if len(ranks) == 1 else ops.pack(ranks)
