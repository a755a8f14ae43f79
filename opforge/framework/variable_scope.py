"""Variable scopes and get_variable (TensorFlow 1's variable sharing).

A graph keeps a store of the variables get_variable made, by full name, and a stack of
variable scopes. ``variable_scope("layer1")`` prefixes the names of variables made inside it
("layer1/w") and opens a name scope for ops; variable scope names are not made unique (entering
"layer1" twice addresses the same variables, which then needs ``reuse``), while the name scope
is ("layer1_1/"). ``reuse=True`` (inherited by inner scopes) makes get_variable return existing
variables and fail on new ones; ``AUTO_REUSE`` returns or creates. A scope may carry a default
initializer, regularizer and dtype for the variables made inside it.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from . import dtypes as _dtypes
from ..layers import initializers as _init
from .graph import GraphTensor, get_default_graph
from .tf2_behavior import create_variable

AUTO_REUSE = "auto_reuse"
from .collections import REGULARIZATION_LOSSES  # noqa: E402,F401


class VariableScope:
    """A variable scope: its full name and the defaults it gives get_variable."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, dtype=_dtypes.float32,
                 name_scope="", custom_getter=None):
        self._name, self._reuse = name, reuse
        self._initializer, self._regularizer, self._dtype = initializer, regularizer, dtype
        self._name_scope, self._custom_getter = name_scope, custom_getter

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    custom_getter = property(lambda self: self._custom_getter)

    def reuse_variables(self):
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def get_variable(self, name, *args, **kwargs):
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def global_variables(self):
        from .variables import global_variables  # noqa: PLC0415
        return [v for v in global_variables() if v.op.name.startswith(self._name + "/")]

    def trainable_variables(self):
        from .variables import trainable_variables  # noqa: PLC0415
        return [v for v in trainable_variables() if v.op.name.startswith(self._name + "/")]


class _Store:
    """Per graph: the variables get_variable made and the variable-scope stack."""

    def __init__(self):
        self.variables: dict[str, object] = {}
        self.stack: list[VariableScope] = [VariableScope(False)]
        self.scope_counts: dict[str, int] = {}


def _store(graph=None) -> _Store:
    g = graph or get_default_graph()
    if g._variable_store is None:
        g._variable_store = _Store()
    return g._variable_store


def get_variable_scope() -> VariableScope:
    return _store().stack[-1]


def _unique_scope_name(store, full):
    n = store.scope_counts.get(full, 0)
    store.scope_counts[full] = n + 1
    return full if n == 0 else f"{full}_{n}"


@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """Enters a variable scope (and, with auxiliary_name_scope, a name scope of the same name)."""
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if reuse is False:
        reuse = None
    g = get_default_graph()
    store = _store(g)
    parent = store.stack[-1]
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        base = name_or_scope
        name_scope_name = (name_or_scope.original_name_scope or full + "/")
    else:
        base = parent
        if name_or_scope is not None:
            full = f"{parent.name}/{name_or_scope}" if parent.name else str(name_or_scope)
        else:
            full = _unique_scope_name(store, f"{parent.name}/{default_name}" if parent.name else default_name)
        name_scope_name = None
        if name_or_scope is not None:
            store.scope_counts[full] = max(1, store.scope_counts.get(full, 0))
    if name_or_scope is not None:
        # Entering a scope by name restarts the default names of the scopes inside it, so a
        # model built twice under the same scope (the second time with reuse) names its layers
        # "dense", "dense_1", ... both times, as in TensorFlow.
        for key in [k for k in store.scope_counts if k.startswith(full + "/")]:
            del store.scope_counts[key]
    inherited = True if parent.reuse is True else parent.reuse
    if isinstance(name_or_scope, VariableScope):
        inherited = name_or_scope.reuse
    scope = VariableScope(
        reuse if reuse is not None else inherited, full,
        initializer if initializer is not None else base.initializer,
        regularizer if regularizer is not None else base.regularizer,
        _dtypes.as_dtype(dtype) if dtype is not None else base.dtype,
        custom_getter=custom_getter if custom_getter is not None else base.custom_getter)
    with contextlib.ExitStack() as stack:
        if auxiliary_name_scope:
            if name_scope_name is None:
                # The scope's name below its parent, as written ("stage0/block0" stays two
                # levels, as in TensorFlow), made unique among the graph's name scopes.
                relative = full[len(parent.name) + 1:] if parent.name else full
                ns = stack.enter_context(g.name_scope(relative))
            else:
                ns = stack.enter_context(g.name_scope(name_scope_name))
            scope._name_scope = ns
        elif isinstance(name_or_scope, VariableScope):
            scope._name_scope = name_or_scope.original_name_scope
        store.stack.append(scope)
        try:
            yield scope
        finally:
            store.stack.pop()


def _default_initializer(dtype):
    if dtype.is_floating:
        return _init.glorot_uniform_initializer()
    if dtype.is_integer or dtype == _dtypes.bool_:
        return _init.zeros_initializer()
    raise ValueError(f"An initializer for variable of type {dtype.name} is required")


def _initial_value(g, init, shape, dt, full):
    """The initializer's value for a new variable, as TensorFlow names it: its ops (a random
    initializer's) under the variable's ``Initializer`` scope."""
    with g.name_scope("Initializer"):
        try:
            value = init(shape, dtype=dt)
        except TypeError:
            if isinstance(init, _init.Initializer):
                raise
            value = init(shape)  # a user's callable taking only the shape
    if isinstance(value, GraphTensor) and value.dtype != dt:
        raise ValueError(f"initializer for {full} gives {value.dtype.name}, not {dt.name}")
    return value


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                 aggregation=None):
    """The variable scope/name if it exists and reuse allows, else a new variable made with
    the initializer (the scope's, else glorot_uniform for floats and zeros for integers)."""
    store = _store()
    scope = store.stack[-1]
    getter = custom_getter or scope.custom_getter
    if getter is not None:
        kwargs = dict(shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                      trainable=trainable, collections=collections, validate_shape=validate_shape)
        return getter(_get_variable, name, **kwargs)
    return _get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                         trainable=trainable, collections=collections, validate_shape=validate_shape)


def _get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                  collections=None, validate_shape=True, **_):
    from .variables import RefVariable  # noqa: PLC0415
    g = get_default_graph()
    store = _store(g)
    scope = store.stack[-1]
    full = f"{scope.name}/{name}" if scope.name else name
    reuse = scope.reuse
    if full in store.variables:
        if reuse is None or reuse is False:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True "
                             f"or reuse=tf.AUTO_REUSE in VarScope?")
        v = store.variables[full]
        if shape is not None and not v.shape.is_compatible_with(shape):
            raise ValueError(f"Trying to share variable {full}, but specified shape {list(shape)} and found "
                             f"shape {v.shape}.")
        if dtype is not None and _dtypes.as_dtype(dtype) != v.dtype:
            raise ValueError(f"Trying to share variable {full}, but specified dtype {_dtypes.as_dtype(dtype).name} "
                             f"and found dtype {v.dtype.name}.")
        return v
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). "
                         f"Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    initializer = initializer if initializer is not None else scope.initializer
    if isinstance(initializer, (GraphTensor, np.ndarray, list, tuple, int, float)) and \
            not isinstance(initializer, type):
        if shape is not None and isinstance(initializer, GraphTensor):
            raise ValueError("If initializer is a constant, do not specify shape.")
        value = initializer
        dt = _dtypes.as_dtype(dtype) if dtype is not None else None
    else:
        if shape is None:
            raise ValueError(f"Shape of a new variable ({full}) must be fully defined, but instead was None.")
        shape = [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]
        dt = _dtypes.as_dtype(dtype if dtype is not None else scope.dtype)
        init = initializer if initializer is not None else _default_initializer(dt)
        if isinstance(init, type):
            init = init()
        value = functools.partial(_initial_value, g, init, shape, dt, full)  # run under the variable's name
    trainable = True if trainable is None else trainable
    v = create_variable(RefVariable, initial_value=value, dtype=dt, name=full + "/", trainable=trainable, graph=g,
                        collections=collections, validate_shape=validate_shape)  # through variable_creator_scopes
    store.variables[full] = v
    regularizer = regularizer if regularizer is not None else scope.regularizer
    if regularizer is not None:
        with g.name_scope(full + "/Regularizer/"):
            loss = regularizer(v)
        if loss is not None:
            g.add_to_collection(REGULARIZATION_LOSSES, loss)
    return v
