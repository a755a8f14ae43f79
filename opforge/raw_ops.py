"""Ops by their opdef names with keyword-only arguments: ``of.raw_ops.MatMul(a=x, b=y)``."""

from __future__ import annotations

import functools

from . import ops as _ops
from .generated import op_index as _index


def _keyword_only(fn, op_name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args:
            raise TypeError(f"raw_ops.{op_name} only takes keyword arguments")
        return fn(**kwargs)
    return wrapper


def __getattr__(name):
    entry = _index.OPS.get(name)
    if entry is None:
        raise AttributeError(f"module 'opforge.raw_ops' has no op {name!r}")
    fn = _keyword_only(getattr(_ops, entry[1]), name)
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(_index.OPS)
