"""The global step (tf.train.get_or_create_global_step and friends): an int64 variable kept in
the graph's "global_step" collection."""

from __future__ import annotations

import numpy as np

from ..framework.collections import GLOBAL_STEP
from ..framework import dtypes as _dtypes
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.variables import RefVariable, Variable


def get_global_step(graph=None):
    g = graph or get_default_graph()
    steps = g.get_collection(GLOBAL_STEP)
    return steps[0] if steps else None


def get_or_create_global_step(graph=None):
    g = graph or get_default_graph()
    step = get_global_step(g)
    if step is None:
        step = Variable(np.zeros((), np.int64), name="global_step", trainable=False, _graph=True)
        g.add_to_collection(GLOBAL_STEP, step)
    return step


def create_global_step(graph=None):
    return get_or_create_global_step(graph)


def global_step(sess, global_step_tensor):
    """The global step's current value in sess (an int)."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor):
    """TypeError unless global_step_tensor is a scalar integer variable or tensor, as a global
    step must be (tf.train.assert_global_step)."""
    if not isinstance(global_step_tensor, (GraphTensor, RefVariable)):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: {global_step_tensor}.")
    if not _dtypes.as_dtype(global_step_tensor.dtype).is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: {global_step_tensor.dtype}")
    shape = global_step_tensor.shape
    if shape.rank not in (None, 0):
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")
