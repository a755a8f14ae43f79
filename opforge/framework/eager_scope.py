"""Running ops eagerly inside a graph program (tf.py_function's body, opforge/ops/script_ops.py)."""

from __future__ import annotations

import contextlib
import threading

from .. import _C
from . import graph as _graph

_state = threading.local()


@contextlib.contextmanager
def eager_scope():
    """No default graph is entered inside, and compat.v1's functions do not enter one
    (compat/_namespace.in_default_graph): ops run eagerly. The graph stack is process-wide, as
    TensorFlow's default graph is per thread only in name: a py_function body runs while the
    Session that called it waits."""
    saved = _graph._stack[:]
    depth = getattr(_state, "depth", 0)
    _state.depth = depth + 1
    del _graph._stack[:]
    _C.set_graph_mode(False)
    try:
        yield
    finally:
        _graph._stack[:] = saved
        _state.depth = depth
        _C.set_graph_mode(bool(_graph._stack))


def in_eager_scope() -> bool:
    return getattr(_state, "depth", 0) > 0
