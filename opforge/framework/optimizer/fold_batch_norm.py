"""Folds inference batch normalization into the weights of the preceding contraction.

Runs with ``constant_folding`` (TensorFlow's constant folding does the same push-down of a
constant Mul into a Conv2D's filter). Patterns, with C a Conv2D, DepthwiseConv2dNative or
MatMul whose filter/weights are a constant and whose output has no other consumer:

* ``Mul(C, s)`` with s a constant per output channel (or scalar): C's weights become w * s.
  Keras 3 freezes BatchNormalization into exactly this Mul followed by an Add; the Rsqrt etc.
  on its constants are folded first.
* ``Mul(BiasAdd(C, b), s)``: weights w * s, bias b * s.
* ``Add/AddV2(C, b)`` and ``Sub(C, b)`` with b a constant per output channel: BiasAdd(C, ±b),
  which remapping then fuses into the contraction.
* ``FusedBatchNormV3(C, scale, offset, mean, variance)`` with is_training=false and only its
  first output used: weights w * scale / sqrt(variance + epsilon), then a BiasAdd of
  offset - mean * that factor.

The node that ends a pattern keeps its name (it becomes the BiasAdd, or an Identity when it
is preserved), so fetches and error messages still find it.
"""

from __future__ import annotations

import numpy as np

from .graph_view import GraphView, parse_input

CONTRACTIONS = ("Conv2D", "DepthwiseConv2dNative", "MatMul")
_FLOAT_TYPES = {1, 2, 14, 19}  # float, double, bfloat16, half (DataType enums)


def _data_format(nd) -> str:
    return nd.attr["data_format"].s.decode() if "data_format" in nd.attr else "NHWC"


def _channels(view: GraphView, c) -> int | None:
    """Number of output channels of contraction c, from its constant weights."""
    w = view.constant_value(view.data_inputs(c)[1])
    if w is None:
        return None
    if c.op == "Conv2D":
        return w.shape[3] if w.ndim == 4 else None
    if c.op == "DepthwiseConv2dNative":
        return w.shape[2] * w.shape[3] if w.ndim == 4 else None
    tb = c.attr["transpose_b"].b if "transpose_b" in c.attr else False
    return (w.shape[0] if tb else w.shape[1]) if w.ndim == 2 else None


def per_channel(value: np.ndarray, c, channels: int) -> np.ndarray | None:
    """value as a [channels] vector when broadcasting it against c's output applies it per
    output channel without changing the output's shape; else None."""
    if value.size == 1 and value.ndim <= 1:
        return np.full(channels, value.reshape(()), value.dtype)
    nchw = c.op != "MatMul" and _data_format(c) == "NCHW"
    shape = tuple(value.shape)
    if nchw:
        ok = shape in ((channels, 1, 1), (1, channels, 1, 1))
    else:
        rank = 2 if c.op == "MatMul" else 4
        ok = len(shape) <= rank and shape[-1:] == (channels,) and all(d == 1 for d in shape[:-1])
    return value.reshape(channels) if ok else None


def _contraction(view: GraphView, tensor: str):
    """The contraction producing tensor, when it may be rewritten."""
    src, idx = parse_input(tensor)
    c = view.node(src)
    if (c is None or idx != 0 or c.op not in CONTRACTIONS or c.attr["T"].type not in _FLOAT_TYPES
            or not view.has_single_data_consumer(c.name)):
        return None
    if view.constant_value(view.data_inputs(c)[1]) is None:
        return None
    if c.op == "MatMul" and "transpose_b" not in c.attr:
        return None
    return c


def _scale_weights(view: GraphView, c, scale: np.ndarray) -> None:
    """Gives c new constant weights w * scale (per output channel)."""
    w_name = view.data_inputs(c)[1]
    w = view.constant_value(w_name)
    wide = w.astype(np.float64)
    if c.op == "Conv2D":
        wide = wide * scale
    elif c.op == "DepthwiseConv2dNative":
        wide = wide * scale.reshape(w.shape[2], w.shape[3])
    elif c.attr["transpose_b"].b:
        wide = wide * scale[:, None]
    else:
        wide = wide * scale[None, :]
    new = view.unique_name(f"{c.name}/folded_weights")
    view.make_const(new, wide.astype(w.dtype), view.node(parse_input(w_name)[0]).device)
    inputs = list(c.input)
    inputs[[i for i, s in enumerate(inputs) if not s.startswith("^")][1]] = new
    del c.input[:]
    c.input.extend(inputs)
    view.changed()


def _become_bias_add(view: GraphView, nd, value_input: str, bias: np.ndarray, c, dtype) -> None:
    """Rewrites nd (keeping its name, device and control inputs) as BiasAdd(value_input, bias)."""
    b = view.unique_name(f"{nd.name}/folded_bias")
    view.make_const(b, bias.astype(dtype), nd.device)
    ctrl = view.control_inputs(nd)
    t = nd.attr["T"].type
    nd.ClearField("input")
    nd.ClearField("attr")
    nd.op = "BiasAdd"
    nd.input.extend([value_input, b] + ctrl)
    nd.attr["T"].type = t
    nd.attr["data_format"].s = (_data_format(c) if c.op != "MatMul" else "NHWC").encode()
    view.changed()


def _become_identity(view: GraphView, nd, value_input: str) -> None:
    ctrl = view.control_inputs(nd)
    t = nd.attr["T"].type
    nd.ClearField("input")
    nd.ClearField("attr")
    nd.op = "Identity"
    nd.input.extend([value_input] + ctrl)
    nd.attr["T"].type = t
    view.changed()


def _fold_mul(view: GraphView, nd) -> bool:
    ins = view.data_inputs(nd)
    for k in (0, 1):
        s = view.constant_value(ins[1 - k])
        if s is None:
            continue
        src = view.node(parse_input(ins[k])[0])
        bias_add = None
        if src is not None and src.op == "BiasAdd" and view.has_single_data_consumer(src.name):
            bias_add = src
            c = _contraction(view, view.data_inputs(src)[0])
            b = view.constant_value(view.data_inputs(src)[1])
            if c is None or b is None:
                continue
        else:
            c = _contraction(view, ins[k])
            if c is None:
                continue
        channels = _channels(view, c)
        scale = per_channel(s, c, channels) if channels else None
        if scale is None:
            continue
        _scale_weights(view, c, scale.astype(np.float64))
        if bias_add is not None:
            dtype = b.dtype
            _become_bias_add(view, nd, c.name, b.astype(np.float64) * scale, c, dtype)
            view.remove([bias_add.name])  # nd was its one reader: C has one reader again
        elif nd.name in view.preserve:
            _become_identity(view, nd, c.name)
        else:
            view.replace_uses(nd.name, c.name)
            view.remove([nd.name])
        return True
    return False


def _fold_add(view: GraphView, nd) -> bool:
    ins = view.data_inputs(nd)
    for k in ((0, 1) if nd.op != "Sub" else (0,)):
        b = view.constant_value(ins[1 - k])
        c = _contraction(view, ins[k]) if b is not None else None
        if c is None:
            continue
        channels = _channels(view, c)
        bias = per_channel(b, c, channels) if channels else None
        if bias is None:
            continue
        _become_bias_add(view, nd, c.name, -bias if nd.op == "Sub" else bias, c, b.dtype)
        return True
    return False


def _fold_fused_batch_norm(view: GraphView, nd) -> bool:
    if nd.attr["is_training"].b or nd.name in view.preserve:
        return False  # a fetched batch norm may be fetched for its other outputs
    for cons in view.consumers(nd.name):
        for i in cons.input:
            src, idx = parse_input(i)
            if src == nd.name and idx != 0:
                return False  # the batch statistics outputs are used
    ins = view.data_inputs(nd)
    c = _contraction(view, ins[0])
    if c is None or c.op == "MatMul" or _data_format(c) != _data_format(nd):
        return False
    vals = [view.constant_value(t) for t in ins[1:5]]
    if any(v is None for v in vals):
        return False
    channels = _channels(view, c)
    vals = [per_channel(v, c, channels) for v in vals]
    if any(v is None for v in vals):
        return False
    scale, offset, mean, var = (v.astype(np.float64) for v in vals)
    eps = nd.attr["epsilon"].f if "epsilon" in nd.attr else 1e-4
    factor = scale / np.sqrt(var + eps)
    _scale_weights(view, c, factor)
    w_dtype = view.constant_value(view.data_inputs(c)[1]).dtype
    _become_bias_add(view, nd, c.name, offset - mean * factor, c, w_dtype)
    return True


_FOLDS = {"Mul": _fold_mul, "Add": _fold_add, "AddV2": _fold_add, "Sub": _fold_add,
          "FusedBatchNormV3": _fold_fused_batch_norm}


def run(view: GraphView) -> None:
    view.rewrite_to_fixpoint(lambda nd: nd.op in _FOLDS and _FOLDS[nd.op](view, nd))
