"""TensorFlow's behaviour switches and graph-context queries, in opforge's terms.

TensorFlow 1 programs flip TF2 behaviours on or off (tf.enable_resource_variables,
tf.disable_control_flow_v2, tf.enable_tensor_equality, tf.enable_v2_behavior ...). opforge has
one behaviour for each of these; a switch that selects that behaviour is a no-op that says so,
a switch that selects one opforge does not have raises UnimplementedError naming what it lacks,
and the queries answer truthfully:

- control flow: opforge builds TF1's control flow (Switch/Merge, frames); v2 (If/While
  functions) is imported from GraphDefs by lowering, never built.
- variables: opforge's graph variables are reference variables (VariableV2); resource
  variables (VarHandleOp) are imported by rewriting them into reference variables.
- tensor equality: eager tensors compare elementwise and are unhashable (TF2); graph tensors
  compare by identity and hash (TF's rule for graph tensors, which TF applies whenever it is
  not executing eagerly, equality switch or not). The switch changes eager tensors, as TF's.
- TensorShape: an unknown size is None and a known one an int that also has TF1's ``.value``:
  TF2's behaviour, with TF1's attribute where it can be had.

Also here: tf.init_scope, tf.executing_eagerly_outside_functions, tf.is_symbolic_tensor,
tf.variable_creator_scope and the VariableSynchronization / VariableAggregation enums.
"""

from __future__ import annotations

import contextlib
import enum
import threading

from . import graph as _graph
from .errors import UnimplementedError
from .graph import GraphTensor

__all__ = [
    "VariableAggregation", "VariableSynchronization", "control_flow_v2_enabled", "disable_control_flow_v2",
    "disable_resource_variables", "disable_tensor_equality", "disable_v2_tensorshape", "enable_control_flow_v2",
    "enable_resource_variables", "enable_tensor_equality", "enable_v2_behavior", "enable_v2_tensorshape",
    "executing_eagerly_outside_functions", "init_scope", "is_symbolic_tensor", "resource_variables_enabled",
    "tensor_equality_enabled", "variable_creator_scope", "create_variable",
]


# ---- control flow v2
def control_flow_v2_enabled() -> bool:
    """False: opforge builds TensorFlow 1's control flow (Switch, Merge, Enter, Exit, ...)."""
    return False


def disable_control_flow_v2() -> None:
    """Selects TF1's control flow, which is what opforge builds: nothing to change."""


def enable_control_flow_v2() -> None:
    """Raises UnimplementedError: opforge builds TF1 control flow only (cond and while_loop
    make Switch/Merge and loop frames; If/While from a GraphDef are lowered into those)."""
    raise UnimplementedError(
        "enable_control_flow_v2: opforge builds TensorFlow 1's control flow (Switch/Merge, loop frames) only; "
        "functional If/While are imported by lowering them into it, never built", "enable_control_flow_v2")


# ---- resource variables
def resource_variables_enabled() -> bool:
    """False: opforge's graph variables are reference variables (VariableV2)."""
    return False


def disable_resource_variables() -> None:
    """Selects reference variables, which are opforge's graph variables: nothing to change."""


def enable_resource_variables() -> None:
    """Raises UnimplementedError: opforge's graph variables are reference variables
    (VariableV2 + Assign + Identity reads); it has no VarHandleOp variables to switch to."""
    raise UnimplementedError(
        "enable_resource_variables: opforge's graph variables are reference variables (VariableV2); resource "
        "variables (VarHandleOp/ReadVariableOp) are only imported, rewritten into reference variables",
        "enable_resource_variables")


# ---- tensor equality (eager tensors; graph tensors compare by identity either way, as in TF)
_saved_eager_ops: dict = {}


def _eager_tensor_class():
    from .tensor import Tensor  # noqa: PLC0415
    return Tensor


def tensor_equality_enabled() -> bool:
    return "__eq__" not in _saved_eager_ops


def enable_tensor_equality() -> None:
    """Eager tensors compare elementwise with == and != and are unhashable (TF2's rule; the
    default). Graph tensors keep comparing by identity, as TensorFlow's do outside eager mode."""
    if not _saved_eager_ops:
        return
    T = _eager_tensor_class()  # noqa: N806
    for name, fn in _saved_eager_ops.items():
        setattr(T, name, fn)
    _saved_eager_ops.clear()


def disable_tensor_equality() -> None:
    """Eager tensors compare by identity and can be dict keys and set members (TF1's rule)."""
    if _saved_eager_ops:
        return
    T = _eager_tensor_class()  # noqa: N806
    for name in ("__eq__", "__ne__", "__hash__"):
        _saved_eager_ops[name] = T.__dict__.get(name)
    T.__eq__ = object.__eq__
    T.__ne__ = object.__ne__
    T.__hash__ = object.__hash__


# ---- TensorShape
def enable_v2_tensorshape() -> None:
    """TF2's TensorShape behaviour (a size is an int, an unknown one None) is opforge's
    already; its known sizes keep TF1's ``.value`` as well. Nothing to change."""


def disable_v2_tensorshape() -> None:
    """Raises UnimplementedError: TF1 gave Dimension(None) for unknown sizes; opforge gives
    None always (its own shape code reads it so). ``tf.dimension_value(shape[i])`` reads a size
    in either spelling."""
    raise UnimplementedError(
        "disable_v2_tensorshape: opforge's TensorShape gives an unknown size as None (TF2's rule; known sizes are "
        "ints that also have TF1's .value): use tf.dimension_value(shape[i]) for code that reads .value",
        "disable_v2_tensorshape")


def enable_v2_behavior() -> None:
    """Raises UnimplementedError: TF2's behaviour is eager execution, resource variables and v2
    control flow by default, none of which a compat.v1 program in opforge can switch to. Use
    ``import opforge as of`` for eager code."""
    raise UnimplementedError(
        "enable_v2_behavior: opforge.compat.v1 builds graphs with reference variables and TF1 control flow; "
        "for TF2-style eager code use `import opforge as of`", "enable_v2_behavior")


# ---- graph contexts
def executing_eagerly_outside_functions() -> bool:
    """Whether ops built outside any function would run eagerly: False inside a graph (or in
    compat.v1, which builds into the default graph), True in opforge's eager mode."""
    from .eager_scope import in_eager_scope  # noqa: PLC0415
    outer = getattr(_trace_state, "outer_graphs", None)
    if outer:
        return outer[0] is None
    return in_eager_scope() or not _graph._stack


_trace_state = threading.local()


@contextlib.contextmanager
def tracing(outer_graph):
    """Marks a function body being traced (framework/tf_function.py); outer_graph is the graph
    the call is built into (None when the caller runs eagerly)."""
    stack = getattr(_trace_state, "outer_graphs", None)
    if stack is None:
        stack = _trace_state.outer_graphs = []
    stack.append(outer_graph)
    try:
        yield
    finally:
        stack.pop()


@contextlib.contextmanager
def init_scope():
    """Lifts the ops built inside out of any function being traced, into the outermost
    context: the graph the outermost tf.function call builds into, or eager mode when that
    call runs eagerly. Control dependencies of the function do not apply inside (tf.init_scope)."""
    outer = getattr(_trace_state, "outer_graphs", None)
    if not outer:
        yield
        return
    target = outer[0]
    if target is None:
        from .eager_scope import eager_scope  # noqa: PLC0415
        with eager_scope():
            yield
        return
    with target.as_default(), target.control_dependencies(None):
        yield


def is_symbolic_tensor(tensor) -> bool:
    """True for a graph tensor (or graph variable): a value computed only when a Session runs
    its graph; False for eager tensors and everything else (tf.is_symbolic_tensor)."""
    if isinstance(tensor, GraphTensor):
        return True
    return hasattr(tensor, "_variable_op")  # a graph (reference) variable


# ---- variables: creator scopes and the TF2 enums
class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (tf.VariableSynchronization). opforge keeps
    one copy of each variable, so every value means the one behaviour: reads see the last write."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's per-replica updates are combined (tf.VariableAggregation);
    with one copy per variable there is nothing to combine."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # TF1's spelling of ONLY_FIRST_REPLICA

    def __hash__(self):
        return self.value


_creators = threading.local()


def _creator_stack() -> list:
    stack = getattr(_creators, "stack", None)
    if stack is None:
        stack = _creators.stack = []
    return stack


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Inside, every variable creation (tf.Variable, tf.get_variable) calls
    ``variable_creator(next_creator, **kwargs)``; it may change kwargs, call next_creator(**kwargs)
    (the enclosing scope's creator, finally the default one) and return its result, or return
    another variable. The innermost scope's creator is called first (tf.variable_creator_scope)."""
    stack = _creator_stack()
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.pop()


def create_variable(default_creator, **kwargs):
    """A variable made through the active creator scopes, ending in default_creator(**kwargs)."""
    stack = list(_creator_stack())
    if not stack:
        return default_creator(**kwargs)

    def make(level):
        if level < 0:
            return default_creator
        return lambda **kw: stack[level](make(level - 1), **kw)

    return make(len(stack) - 1)(**kwargs)
