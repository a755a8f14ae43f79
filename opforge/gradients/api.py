"""TensorFlow's Python API over opforge's gradient registry: RegisterGradient, NotDifferentiable,
custom_gradient, grad_pass_through, hessians, AggregationMethod and UnconnectedGradients.

opforge's gradient functions take ``(op, grads)`` with the op's inputs grouped per argument (a
list for a list argument) and return one entry per argument; TensorFlow's take ``(op, *grads)``
with flat ``op.inputs`` and return one gradient per flat input. RegisterGradient adapts the
latter to the former, so a TF1 gradient function works unchanged, in graphs (with
``Graph.gradient_override_map``) and on the eager tape.
"""

from __future__ import annotations

import functools
import itertools

from ..framework.errors import InvalidArgumentError
from . import registry
from .options import AggregationMethod, UnconnectedGradients, check_aggregation, check_unconnected  # noqa: F401


class _TFOpView:
    """What a TensorFlow-style gradient function sees of an op: flat inputs and outputs."""

    def __init__(self, view):
        self._view = view
        self.type = view.type
        self.name = view.name
        self.inputs = _flatten(view.inputs)
        self.outputs = _flatten(view.outputs)

    def get_attr(self, name):
        attrs = self._view.attrs
        if name not in attrs:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'")
        return attrs[name]


def _flatten(groups) -> list:
    out = []
    for g in groups:
        out.extend(g) if isinstance(g, (list, tuple)) else out.append(g)
    return out


def _regroup(view_inputs, flat, op_type):
    n = len(_flatten(view_inputs))
    if len(flat) != n:
        raise InvalidArgumentError(
            f"{op_type}: the registered gradient function returned {len(flat)} gradients for {n} inputs", op_type)
    it = iter(flat)
    return [list(itertools.islice(it, len(g))) if isinstance(g, (list, tuple)) else next(it) for g in view_inputs]


def adapt_tf_gradient(fn, op_type_name):
    """``fn(op, *grads)`` (TensorFlow's convention) as an opforge gradient function."""

    def grad(view, grads):
        result = fn(_TFOpView(view), *grads)
        flat = list(result) if isinstance(result, (list, tuple)) else [result]
        return _regroup(view.inputs, flat, op_type_name)

    grad.__name__ = getattr(fn, "__name__", "gradient")
    return grad


class RegisterGradient:
    """Decorator registering ``fn(op, *grads)`` as the gradient of op type ``op_type``
    (tf.RegisterGradient); a name no op has serves gradient_override_map."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if registry.is_registered(self._op_type):  # as TensorFlow: override with gradient_override_map
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        registry.register_gradient(self._op_type)(adapt_tf_gradient(fn, self._op_type))
        return fn


def no_gradient(op_type):
    """Declares op type ``op_type`` not differentiable: gradients() passes over it (None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    registry.register_not_differentiable(op_type)


NotDifferentiable = NoGradient = no_gradient


_custom_ids = itertools.count()


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; gradients of y then come from
    ``grad_fn(*dy)`` (one gradient per x) instead of f's ops (tf.custom_gradient). Works in graphs
    (an IdentityN whose gradient is overridden, as TensorFlow builds it) and on the eager tape."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call_with_custom_gradient(f, args, kwargs)

    return decorated


def _call_with_custom_gradient(f, args, kwargs):
    from .. import ops  # noqa: PLC0415
    from ..framework import graph as _graph  # noqa: PLC0415
    from . import tape as _tape  # noqa: PLC0415

    graph_mode = bool(_graph._stack) or any(isinstance(a, _graph.GraphTensor) for a in args)
    args = [a if _is_tensor(a) else ops.identity(a) for a in args]
    if graph_mode:
        result, grad_fn = f(*args, **kwargs)
    else:
        recording = [t for t in _tape._active if t._recording]
        for t in recording:
            t._recording = False
        _tape._sync_hook()
        try:
            result, grad_fn = f(*args, **kwargs)
        finally:
            for t in recording:
                t._recording = True
            _tape._sync_hook()
    single = not isinstance(result, (list, tuple))
    flat = [result] if single else list(result)
    n = len(flat)
    name = f"CustomGradient-{next(_custom_ids)}"

    def grad(op, grads):
        dys = list(grads[:n])
        in_grads = grad_fn(*dys)
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        if len(in_grads) != len(args):
            raise ValueError(f"custom_gradient: the gradient function returned {len(in_grads)} gradients "
                             f"for {len(args)} inputs")
        return [[None] * n + in_grads]

    registry.register_gradient(name)(grad)
    if graph_mode:
        graph = (flat[0].graph if flat and hasattr(flat[0], "graph") else _graph.get_default_graph())
        with graph.gradient_override_map({"IdentityN": name}):
            outs = ops.identity_n(flat + args)
    else:
        outs = ops.identity_n(flat + args)
        for t in _tape._active:
            if t._records and t._records[-1].type == "IdentityN" and t._records[-1].outputs[0] is outs:
                t._records[-1].gradient_op_type = name
    outs = list(outs)[:n]
    return outs[0] if single else type(result)(outs) if isinstance(result, tuple) else outs


def _is_tensor(x) -> bool:
    from ..framework.graph import GraphTensor  # noqa: PLC0415
    from ..framework.tensor import Tensor  # noqa: PLC0415
    return isinstance(x, (GraphTensor, Tensor))


def grad_pass_through(f):
    """f's value with the identity's gradient (tf.grad_pass_through): gradients pass to f's
    inputs as if f were the identity (straight-through estimators)."""

    @custom_gradient
    def passed(*args, **kwargs):
        return f(*args, **kwargs), lambda *dy: list(dy)

    return functools.wraps(f)(passed)


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessian of sum(ys) with respect to each x in xs, of shape x.shape + x.shape
    (tf.hessians). Each x must have a fully known static shape: the rows are built one per
    element of x."""
    from .. import ops  # noqa: PLC0415
    from .graph_grad import gradients  # noqa: PLC0415

    del colocate_gradients_with_ops, gate_gradients
    check_aggregation(aggregation_method)
    single = not isinstance(xs, (list, tuple))
    xs = [xs] if single else list(xs)
    result = []
    for x in xs:
        shape = x.shape.as_list() if x.shape.rank is not None else None
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"hessians: the shape of {getattr(x, 'name', 'x')} must be fully known, got {x.shape}")
        size = 1
        for d in shape:
            size *= d
        grad = gradients(ys, [x], name=name)[0]
        if grad is None:
            result.append(None)
            continue
        flat = ops.reshape(grad, [-1])
        rows = []
        for j in range(size):
            g = gradients(ops.gather_v2(flat, j, 0), [x], name=name)[0]
            rows.append(ops.reshape(g if g is not None else ops.zeros_like(x), [-1]))
        result.append(ops.reshape(ops.pack(rows, axis=0), shape + shape))
    return result
