"""TF1's Python-callback ops and its Python-level gradient API (names only: the implementations
are opforge.ops.script_ops and opforge.gradients.api)."""

from opforge.gradients.api import (  # noqa: F401
    AggregationMethod, NoGradient, NotDifferentiable, RegisterGradient, UnconnectedGradients, custom_gradient,
    grad_pass_through, hessians, no_gradient,
)
from opforge.ops.script_ops import numpy_function, py_func, py_function  # noqa: F401

__all__ = ["AggregationMethod", "NoGradient", "NotDifferentiable", "RegisterGradient", "UnconnectedGradients",
           "custom_gradient", "grad_pass_through", "hessians", "no_gradient", "numpy_function", "py_func",
           "py_function"]
