"""The global step (tf.train.get_or_create_global_step and friends): an int64 variable kept in
the graph's "global_step" collection."""

from __future__ import annotations

import numpy as np

from ..framework.collections import GLOBAL_STEP
from ..framework.graph import get_default_graph
from ..framework.variables import Variable


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
