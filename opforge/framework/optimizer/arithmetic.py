"""Arithmetic simplification (RewriterConfig ``arithmetic_optimization``).

Removes operations that return one of their inputs unchanged: x * 1, 1 * x, x + 0, 0 + x,
x - 0, x / 1, Identity(Identity(x)) (the outer one reads x), Neg(Neg(x)) and
Reciprocal(Reciprocal(x))... only where the constant cannot change the result's shape or dtype
(a scalar, or a constant whose broadcast against x's known shape is x's shape), since a
broadcasting constant would. A preserved node keeps its name as an Identity of the input.
"""

from __future__ import annotations

import numpy as np

from .graph_view import GraphView, parse_input

_NEUTRAL = {  # op: {input position of the constant: neutral value}
    "Mul": {0: 1, 1: 1}, "Add": {0: 0, 1: 0}, "AddV2": {0: 0, 1: 0}, "Sub": {1: 0},
    "RealDiv": {1: 1}, "Div": {1: 1},
}
_INVOLUTIONS = {"Neg", "Reciprocal", "LogicalNot"}


def _known_shape(view: GraphView, tensor: str):
    """The static shape recorded for tensor (GraphDefs written with add_shapes=True), when
    every dimension is known."""
    dims = view.recorded_shape(tensor)
    return None if dims is None or any(d < 0 for d in dims) else dims


def _shape_safe(view: GraphView, x: str, const: np.ndarray) -> bool:
    if const.ndim == 0:
        return True
    shape = _known_shape(view, x)
    if shape is None:
        return False
    try:
        return np.broadcast_shapes(shape, const.shape) == shape
    except ValueError:
        return False


def _bypass(view: GraphView, nd, src: str) -> None:
    if nd.name in view.preserve:
        ctrl = view.control_inputs(nd)
        t = nd.attr["T"].type
        nd.ClearField("input")
        for k in [k for k in nd.attr if k != "_output_shapes"]:
            del nd.attr[k]
        nd.op = "Identity"
        nd.input.extend([src] + ctrl)
        nd.attr["T"].type = t
        view.changed()
        return
    if any(("^" + nd.name) in c.input for c in view.consumers(nd.name)):
        return
    view.forward_controls(nd, nd.name)
    view.replace_uses(nd.name, src)
    view.remove([nd.name])


def _simplify(view: GraphView, nd) -> bool:
    ins = view.data_inputs(nd)
    if nd.op in _NEUTRAL and len(ins) == 2:
        for pos, neutral in _NEUTRAL[nd.op].items():
            c = view.constant_value(ins[pos])
            x = ins[1 - pos]
            if c is None or c.dtype.kind not in "fiu" or not np.all(c == neutral):
                continue
            if not _shape_safe(view, x, c):
                continue
            _bypass(view, nd, x)
            return True
    elif nd.op in _INVOLUTIONS | {"Identity"} and len(ins) == 1:
        inner = view.node(parse_input(ins[0])[0])
        if (inner is not None and inner.op == nd.op and parse_input(ins[0])[1] == 0
                and not view.control_inputs(inner) and inner.name not in view.fed
                and nd.op != "Identity"):
            _bypass(view, nd, view.data_inputs(inner)[0])
            return True
    return False


def run(view: GraphView) -> None:
    view.rewrite_to_fixpoint(lambda nd: _simplify(view, nd))
