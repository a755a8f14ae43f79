"""Gradient functions by op name. Generated modules (gen_*_grads.py) fill it at import."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..framework.errors import NotFoundError

_GRADIENTS: dict[str, Callable] = {}
_NOT_DIFFERENTIABLE: set[str] = set()


def register_gradient(op_name: str):
    """Decorator: ``fn(op, grads) -> list`` computes the input gradients of ``op_name``."""

    def deco(fn):
        _GRADIENTS[op_name] = fn
        return fn

    return deco


def register_gradient_fn(op_name: str, qualified: str) -> None:
    """Binds a hand-written gradient ``module:function`` (or a name in opforge.gradients.custom)."""
    module, _, fn = qualified.rpartition(":")
    if not module:
        module, fn = "opforge.gradients.custom", qualified
    _GRADIENTS[op_name] = getattr(importlib.import_module(module), fn)


def register_not_differentiable(op_name: str) -> None:
    _NOT_DIFFERENTIABLE.add(op_name)


def is_not_differentiable(op_name: str) -> bool:
    return op_name in _NOT_DIFFERENTIABLE


def get_gradient(op_name: str) -> Callable:
    fn = _GRADIENTS.get(op_name)
    if fn is None:
        raise NotFoundError(f"{op_name}: no gradient is defined for this op (its opdef has no "
                            f"gradient entry)", op_name)
    return fn


def is_registered(op_name: str) -> bool:
    """Whether op_name has a gradient, or is declared not differentiable."""
    return op_name in _GRADIENTS or op_name in _NOT_DIFFERENTIABLE
