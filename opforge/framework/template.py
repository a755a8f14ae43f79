"""tf.make_template: a function whose variables are created on its first call and shared by
every later call, under one variable scope."""

from __future__ import annotations

import functools

from .errors import UnimplementedError
from .variable_scope import variable_scope


class Template:
    """func_ wrapped so that its tf.get_variable calls make variables the first time and reuse
    them afterwards (TensorFlow's template.Template)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None):
        self._name, self._func, self._unique_name = name, func, unique_name
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:
            with variable_scope(unique_name, default_name=name) as vs:
                self._variable_scope = vs

    @property
    def name(self):
        return self._name

    @property
    def variable_scope(self):
        return self._variable_scope

    @property
    def variable_scope_name(self):
        return None if self._variable_scope is None else self._variable_scope.name

    def __call__(self, *args, **kwargs):
        if self._variable_scope is None:
            with variable_scope(self._unique_name, default_name=self._name) as vs:
                self._variable_scope = vs
                result = self._func(*args, **kwargs)
        else:
            with variable_scope(self._variable_scope, reuse=True if self._variables_created else None):
                result = self._func(*args, **kwargs)
        self._variables_created = True
        return result


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """A Template of func_ (with kwargs bound): its first call creates the variables, later
    calls share them (tf.make_template)."""
    if custom_getter_ is not None:
        raise UnimplementedError("make_template: custom_getter_ is not supported yet", "make_template")
    func = functools.partial(func_, **kwargs) if kwargs else func_
    return Template(name_, func, create_scope_now=create_scope_now_, unique_name=unique_name_)
