"""Ops by their opdef names with keyword-only arguments: ``of.raw_ops.MatMul(a=x, b=y)``."""

from __future__ import annotations

import functools
import sys

from .. import ops as _ops
from ..generated import op_index as _index


def _keyword_only(fn, op_name):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args:
            raise TypeError(f"raw_ops.{op_name} only takes keyword arguments")
        return fn(**kwargs)
    return wrapper


def __getattr__(name):
    entry = _index.OPS.get(name)
    if entry is not None:
        fn = _keyword_only(getattr(_ops, entry[1]), name)
    else:
        from .op_library import RAW_OPS  # ops of loaded op libraries  # noqa: PLC0415
        lib = RAW_OPS.get(name)
        if lib is None:
            raise AttributeError(f"module 'opforge.raw_ops' has no op {name!r}")
        fn = _keyword_only(getattr(sys.modules[lib[0]], lib[1]), name)
    globals()[name] = fn
    return fn


def __dir__():
    from .op_library import RAW_OPS  # noqa: PLC0415
    return sorted(set(_index.OPS) | set(RAW_OPS))
