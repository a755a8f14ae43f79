"""API namespaces of the compat modules (tf.nn, tf.train, ...) and what they share: a missing
name raises an AttributeError naming it as TensorFlow spells it, and every function builds
into the default graph, as TensorFlow 1's functions do."""

from __future__ import annotations

import functools
import inspect
import types

from opforge.compat.v1.absent import ABSENT
from opforge.framework import graph as _graph
from opforge.framework import eager_scope as _eager_scope
from opforge.framework.arguments import legacy_argument  # noqa: F401  (compat's spelling of it)


def missing(path: str, name: str) -> AttributeError:
    """TensorFlow's error for a missing name, saying opforge lacks it (not that TF does) and,
    for a name of TF's surface, why (opforge/compat/v1/absent.py)."""
    where = f"tf.{path}.{name}" if path else f"tf.{name}"
    module = f"opforge.compat.v1.{path}" if path else "opforge.compat.v1"
    reason = ABSENT.get(f"{path or 'tf'}.{name}")
    why = f": {reason}" if reason else " (see opforge/compat/v1/absent.py)"
    return AttributeError(f"module '{module}' has no attribute '{name}': opforge does not have {where} "
                          f"yet{why}")


def in_default_graph(fn):
    """fn building its ops into the default graph (TF1 programs build graphs without entering
    one; outside a graph opforge would run ops eagerly)."""
    if getattr(fn, "_in_default_graph", False):
        return fn

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if _graph._stack or _eager_scope.in_eager_scope():
            return fn(*args, **kwargs)
        with _graph.get_default_graph().as_default():
            return fn(*args, **kwargs)

    wrapped._in_default_graph = True
    return wrapped


class _InDefaultGraphClass(type):
    """The metaclass of constructed_in_graph's stand-ins."""

    def __call__(cls, *args, **kwargs):
        return in_default_graph(cls._target)(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._target)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls._target)

    def __getattr__(cls, name):
        return getattr(cls._target, name)


def constructed_in_graph(target: type) -> type:
    """target as TensorFlow 1 spells it: constructed into the default graph (tf.SparseTensor
    of Python lists holds graph constants a Session can fetch), and the same class for isinstance
    and its class attributes (SparseTensor.from_value)."""
    return _InDefaultGraphClass(target.__name__, (), {"_target": target, "__doc__": target.__doc__,
                                                      "__module__": target.__module__,
                                                      "__signature__": inspect.signature(target)})


def _is_function(v) -> bool:
    return isinstance(v, (types.FunctionType, types.BuiltinFunctionType, functools.partial))


class Namespace(types.ModuleType):
    """A namespace such as tf.nn: its functions build into the default graph (unless
    builds_graph is False: tf.app, tf.gfile ...); a name it lacks raises
    AttributeError("... opforge does not have tf.nn.foo yet")."""

    def __init__(self, path: str, names: dict | None = None, *, builds_graph: bool = True, **more):
        super().__init__(f"opforge.compat.v1.{path}")
        self._tf_path = path
        for k, v in {**(names or {}), **more}.items():
            setattr(self, k, in_default_graph(v) if builds_graph and _is_function(v) else v)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise missing(self._tf_path, name)

    def __dir__(self):
        return sorted(k for k in self.__dict__ if not k.startswith("_"))

    def __repr__(self):
        return f"<namespace tf.{self._tf_path}>"


def wrap_module_functions(module_globals: dict, skip: set) -> None:
    """Makes the public functions of a compat module build into the default graph."""
    for k, v in list(module_globals.items()):
        if not k.startswith("_") and k not in skip and _is_function(v):
            module_globals[k] = in_default_graph(v)


def graph_class(cls):
    """A subclass of cls whose public methods (and __call__) build into the default graph: the
    compat spelling of classes that build ops (tf.nn.rnn_cell.LSTMCell ...)."""
    methods = {}
    for klass in reversed(cls.__mro__[:-1]):
        for k, v in vars(klass).items():
            if isinstance(v, types.FunctionType) and (k == "__call__" or not k.startswith("_")):
                methods[k] = in_default_graph(v)
    return type(cls.__name__, (cls,), {**methods, "__module__": cls.__module__, "__doc__": cls.__doc__})


# tf.SparseTensor in compat.v1 (both tf.SparseTensor and tf.sparse.SparseTensor).
from opforge.framework.sparse_tensor import SparseTensor as _SparseTensor  # noqa: E402

SparseTensor = constructed_in_graph(_SparseTensor)
