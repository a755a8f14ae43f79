"""tf.Module: a named container of variables and other modules.

A Module finds its variables by walking its attributes (and lists, tuples and dicts in them)
in sorted attribute order, as TensorFlow's does: ``variables``, ``trainable_variables``,
``non_trainable_variables`` and ``submodules`` (depth first, each object once). ``name_scope``
is the module's name scope, the one made when the module was built (TF's ``dense/``, then
``dense_1/`` for the next module of that name in the same graph); ``with_name_scope`` wraps a
method to run inside it. tf.train.Checkpoint saves the variables a module tracks.
"""

from __future__ import annotations

import functools
import re

from . import graph as _graph
from .graph import get_default_graph
from .variables import _VariableBase

__all__ = ["Module", "is_variable"]

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")


def is_variable(value) -> bool:
    return isinstance(value, _VariableBase)


def _camel_to_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class Module:
    """Base class of objects that own variables and submodules (tf.Module)."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_scope_name",))

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python 3 identifiers.")
        self._name = name
        g = _graph._explicit_graph()
        if g is not None:  # a scope of its own in this graph (dense/, dense_1/, ...)
            with g.name_scope(name) as scope:
                self._scope_name = scope
        else:
            self._scope_name = name + "/"

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self):
        """The module's name scope: ops built inside are named under it."""
        return get_default_graph().name_scope(self._scope_name)

    @classmethod
    def with_name_scope(cls, method):
        """method, run inside its module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    # ---- walking the attributes
    def _flatten(self, recursive=True, predicate=None, expand_composites=False, with_path=False):
        """Every object reachable from the module's attributes (depth first, sorted attribute
        names, each object once) that predicate accepts; with_path, (path, object) pairs."""
        del expand_composites
        predicate = predicate or (lambda _: True)
        seen = {id(self)}
        out = []

        def visit(value, path, depth_ok):
            if isinstance(value, dict):
                for k in sorted(value, key=str):
                    visit(value[k], path + (k,), depth_ok)
                return
            if isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    visit(v, path + (i,), depth_ok)
                return
            if id(value) in seen:
                return
            if predicate(value):
                seen.add(id(value))
                out.append((path, value) if with_path else value)
            if isinstance(value, Module) and depth_ok:
                seen.add(id(value))
                walk(value, path, recursive)

        def walk(module, prefix, depth_ok):
            attrs = vars(module)
            for key in sorted(attrs):
                if key in module._TF_MODULE_IGNORED_PROPERTIES:
                    continue
                visit(attrs[key], prefix + (key,), depth_ok)

        walk(self, (), recursive)
        return out

    @property
    def variables(self):
        """Every variable of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=is_variable))

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if getattr(v, "trainable", True))

    @property
    def non_trainable_variables(self):
        return tuple(v for v in self.variables if not getattr(v, "trainable", True))

    @property
    def submodules(self):
        """Every module reachable from this one (not itself), depth first."""
        return tuple(self._flatten(predicate=lambda v: isinstance(v, Module)))

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named '{self._name}'>"
