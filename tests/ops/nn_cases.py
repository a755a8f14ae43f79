"""The op matrix's tables for the nn ops (opmatrix.py's "nn" family reads them).

The nn ops need shapes that agree with each other (a filter for an input, an out_backprop of
the convolution's output shape, labels in range), so each op lists its cases here: data input
shapes, attrs, and the values of its index-like inputs (sizes, labels, batch-norm statistics)
built by ``build_index_inputs``. Plain NumPy: no opforge import, so opmatrix can use it freely.
"""

from __future__ import annotations

import numpy as np

import nn_reference as R

# ------------------------------------------------------------------------------ geometry


def _conv_out(x, f, attrs):
    return R.conv2d(np.zeros(x), np.zeros(f), attrs["strides"], attrs["padding"],
                    attrs.get("explicit_paddings", []), attrs.get("data_format", "NHWC"),
                    attrs.get("dilations", [1, 1, 1, 1])).shape


def _dw_out(x, f, attrs):
    return R.depthwise_conv2d_native(np.zeros(x), np.zeros(f), attrs["strides"], attrs["padding"],
                                     attrs.get("explicit_paddings", []),
                                     attrs.get("data_format", "NHWC"),
                                     attrs.get("dilations", [1, 1, 1, 1])).shape


def _pool_out(x, attrs):
    return R.max_pool(np.zeros(x), attrs["ksize"], attrs["strides"], attrs["padding"],
                      attrs.get("explicit_paddings", []), attrs.get("data_format", "NHWC")).shape


def _sid(s):
    return "s" if len(s) == 0 else "x".join(map(str, s))


# (input shape, filter shape, attrs): NHWC/NCHW, SAME/VALID/EXPLICIT, strides, dilations,
# a pointwise (1x1) filter, and an empty batch.
CONV = [
    ((2, 5, 6, 3), (3, 3, 3, 4), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((2, 6, 5, 3), (2, 3, 3, 2), {"strides": [1, 2, 2, 1], "padding": "VALID"}),
    ((1, 7, 7, 2), (3, 2, 2, 3), {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1]}),
    ((2, 4, 5, 2), (2, 2, 2, 3), {"strides": [1, 1, 2, 1], "padding": "EXPLICIT",
                                  "explicit_paddings": [0, 0, 1, 2, 0, 1, 0, 0]}),
    ((2, 3, 5, 6), (3, 3, 3, 2), {"strides": [1, 1, 2, 2], "padding": "SAME", "data_format": "NCHW"}),
    ((1, 2, 6, 5), (2, 2, 2, 2), {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "data_format": "NCHW",
                                  "explicit_paddings": [0, 0, 0, 0, 2, 1, 1, 0], "dilations": [1, 1, 2, 1]}),
    ((2, 4, 4, 3), (1, 1, 3, 5), {"strides": [1, 1, 1, 1], "padding": "VALID"}),
    ((0, 4, 4, 2), (2, 2, 2, 3), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    # (zero input channels is an error, as TensorFlow's Conv2D: test_errors.py)
    # 3x3, stride 1, >= 16 channels: float32 takes the Winograd path (odd sizes: partial tiles)
    ((1, 5, 7, 16), (3, 3, 16, 16), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((2, 6, 5, 16), (3, 3, 16, 17), {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                                     "explicit_paddings": [0, 0, 0, 2, 1, 0, 0, 0]}),
    # grouped (input depth a multiple of the filter's in_channels: 2 and 3 groups)
    ((2, 5, 6, 4), (3, 3, 2, 6), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((1, 6, 5, 6), (2, 2, 2, 3), {"strides": [1, 1, 2, 1], "padding": "EXPLICIT", "data_format": "NCHW",
                                  "explicit_paddings": [0, 0, 0, 0, 1, 0, 0, 2], "dilations": [1, 1, 1, 2]}),
    # a filter larger than the input but by less than 2 * stride - 1: an empty output (TensorFlow)
    ((1, 2, 3, 2), (3, 3, 2, 3), {"strides": [1, 1, 1, 1], "padding": "VALID"}),
    ((1, 2, 2, 2), (2, 4, 2, 2), {"strides": [1, 1, 2, 1], "padding": "VALID"}),
]
CONV_LARGE = [((4, 20, 20, 16), (3, 3, 16, 16), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
              ((2, 24, 24, 8), (3, 3, 8, 8), {"strides": [1, 2, 2, 1], "padding": "VALID"}),
              # stride 1, >= 16 filter input channels: float32 Conv2DBackpropInput runs as the
              # forward convolution of dy with the turned filter (Winograd, direct kernel, GEMM;
              # even kernels, asymmetric SAME padding)
              ((2, 7, 6, 16), (5, 4, 16, 20), {"strides": [1, 1, 1, 1], "padding": "VALID"}),
              ((1, 9, 8, 24), (3, 3, 24, 18), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
              ((1, 16, 6, 7), (2, 2, 16, 8), {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NCHW"})]

# Depthwise: filter [kh, kw, in_channels, multiplier].
DEPTHWISE = [
    ((2, 5, 6, 3), (3, 3, 3, 2), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((2, 6, 5, 2), (2, 3, 2, 1), {"strides": [1, 2, 2, 1], "padding": "VALID"}),
    ((1, 7, 7, 2), (3, 2, 2, 2), {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1]}),
    ((2, 3, 5, 6), (3, 3, 3, 1), {"strides": [1, 1, 2, 2], "padding": "EXPLICIT", "data_format": "NCHW",
                                  "explicit_paddings": [0, 0, 0, 0, 1, 1, 2, 0]}),
    ((0, 4, 4, 2), (2, 2, 2, 2), {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ((1, 2, 4, 2), (3, 2, 2, 2), {"strides": [1, 1, 1, 1], "padding": "VALID"}),  # empty output
]
DEPTHWISE_LARGE = [((4, 24, 24, 16), (3, 3, 16, 1), {"strides": [1, 1, 1, 1], "padding": "SAME"})]

# Pools: (input shape, attrs). EXPLICIT only for MaxPool/MaxPoolGrad.
POOL = [
    ((2, 5, 6, 3), {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}),
    ((2, 6, 5, 2), {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}),
    ((1, 4, 7, 2), {"ksize": [1, 2, 3, 1], "strides": [1, 1, 2, 1], "padding": "SAME"}),
    ((2, 3, 5, 6), {"ksize": [1, 1, 3, 2], "strides": [1, 1, 1, 2], "padding": "SAME", "data_format": "NCHW"}),
    ((1, 3, 3, 2), {"ksize": [1, 1, 1, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}),
    ((0, 4, 4, 2), {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}),
    # a window larger than the input (by less than 2 * stride - 1): an empty output (TensorFlow)
    ((1, 2, 3, 2), {"ksize": [1, 3, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}),
    ((1, 2, 2, 2), {"ksize": [1, 4, 4, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}),
]
# MaxPoolGradGrad has no EXPLICIT padding (as in TensorFlow), so MaxPoolGrad with EXPLICIT
# padding has no gradient: those cases skip the gradient check (see no_grad).
POOL_EXPLICIT = [((1, 5, 5, 2), {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "EXPLICIT",
                                 "explicit_paddings": [0, 0, 1, 1, 0, 2, 0, 0]})]
POOL_LARGE = [((4, 30, 30, 16), {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"})]

SAME_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)]


def _case(id_, shapes, attrs=None, **extra):
    return (id_, shapes, dict(attrs or {}), extra)


def _attr_id(attrs):
    parts = []
    for k, v in attrs.items():
        if isinstance(v, list):
            v = "".join(map(str, v))
        parts.append(f"{k}={v}")
    return ",".join(parts)


def _conv_cases(table, out_fn, kind):
    out = []
    for x, f, attrs in table:
        y = out_fn(x, f, attrs)
        cid = f"{_sid(x)}-{_sid(f)}-{_attr_id(attrs)}"
        if kind == "forward":
            out.append(_case(cid, {"input": x, "filter": f}, attrs))
        elif kind == "input":
            out.append(_case(cid, {"filter": f, "out_backprop": y}, attrs, input_sizes=x))
        else:
            out.append(_case(cid, {"input": x, "out_backprop": y}, attrs, filter_sizes=f))
    return out


def _pool_cases(table, kind):
    out = []
    for x, attrs in table:
        y = _pool_out(x, attrs)
        cid = f"{_sid(x)}-{_attr_id(attrs)}"
        if kind == "forward":
            out.append(_case(cid, {"input": x}, attrs))
        elif kind == "avg":
            out.append(_case(cid, {"value": x}, attrs))
        elif kind == "avg_grad":
            out.append(_case(cid, {"grad": y}, attrs, orig_input_shape=x))
        elif kind == "max_grad":
            no_grad = {"no_grad": True} if attrs["padding"] == "EXPLICIT" else {}
            out.append(_case(cid, {"orig_input": x, "orig_output": y, "grad": y}, attrs, **no_grad))
        else:  # max_grad_grad
            out.append(_case(cid, {"orig_input": x, "orig_output": y, "grad": x}, attrs))
    return out


def _same_shape_cases(a, b, attr_sets=({},)):
    return [_case(f"{_sid(s)}-{_attr_id(attrs)}" if attrs else _sid(s), {a: s, b: s}, attrs)
            for s in SAME_SHAPES for attrs in attr_sets]


def _bn_cases():
    out = []
    for x, fmt in (((2, 3, 4, 3), "NHWC"), ((2, 3, 4, 5), "NCHW"), ((1, 2, 2, 3, 2), "NDHWC"),
                   ((2, 2, 3, 2, 2), "NCDHW"), ((0, 2, 2, 3), "NHWC")):
        for training, factor in ((True, 1.0), (True, 0.25), (False, 1.0)):
            attrs = {"epsilon": 0.001, "exponential_avg_factor": factor, "data_format": fmt,
                     "is_training": training}
            out.append(_case(f"{_sid(x)}-{_attr_id(attrs)}", {"x": x}, attrs))
    return out


def _bn_grad_cases():
    out = []
    for x, fmt in (((2, 3, 4, 3), "NHWC"), ((2, 3, 4, 5), "NCHW"), ((1, 2, 2, 3, 2), "NDHWC"),
                   ((0, 2, 2, 3), "NHWC")):
        for training in (True, False):
            attrs = {"epsilon": 0.001, "data_format": fmt, "is_training": training}
            out.append(_case(f"{_sid(x)}-{_attr_id(attrs)}", {"y_backprop": x, "x": x}, attrs))
    return out


_BIAS = [((3, 4), "NHWC"), ((2, 3, 4, 5), "NHWC"), ((2, 3, 4, 5), "NCHW"), ((2, 3), "NCHW"),
         ((2, 3, 4), "NCHW"), ((0, 3), "NHWC")]


def _bias_index(shape, fmt):
    return 1 if fmt == "NCHW" else len(shape) - 1


# Op name -> [(case id, data input shapes, attrs, extra)].
CASES = {
    "Conv2D": _conv_cases(CONV, _conv_out, "forward"),
    "Conv2DBackpropInput": _conv_cases(CONV, _conv_out, "input"),
    "Conv2DBackpropFilter": _conv_cases(CONV, _conv_out, "filter"),
    "DepthwiseConv2dNative": _conv_cases(DEPTHWISE, _dw_out, "forward"),
    "DepthwiseConv2dNativeBackpropInput": _conv_cases(DEPTHWISE, _dw_out, "input"),
    "DepthwiseConv2dNativeBackpropFilter": _conv_cases(DEPTHWISE, _dw_out, "filter"),
    "MaxPool": _pool_cases(POOL + POOL_EXPLICIT, "forward"),
    "MaxPoolGrad": _pool_cases(POOL + POOL_EXPLICIT, "max_grad"),
    "MaxPoolGradGrad": _pool_cases(POOL, "max_grad_grad"),
    "AvgPool": _pool_cases(POOL, "avg"),
    "AvgPoolGrad": _pool_cases(POOL, "avg_grad"),
    "Softmax": [_case(_sid(s), {"logits": s}) for s in [(5,), (3, 4), (2, 3, 4), (1, 1), (0, 3)]],
    "LogSoftmax": [_case(_sid(s), {"logits": s}) for s in [(5,), (3, 4), (2, 3, 4), (1, 1), (0, 3)]],
    "SoftmaxCrossEntropyWithLogits": [
        _case(f"{_sid(a)}-{_sid(b)}", {"features": a, "labels": b})
        for a, b in [((3, 4), (3, 4)), ((1, 5), (1, 5)), ((3, 4), (1, 4)), ((1, 4), (3, 4)),
                     ((3, 1), (3, 4)), ((0, 4), (0, 4))]],
    "SparseSoftmaxCrossEntropyWithLogits": [
        _case(_sid(s), {"features": s}) for s in [(3, 4), (1, 5), (5, 1), (0, 4)]],
    "BiasAdd": [_case(f"{_sid(s)}-{fmt}", {"value": s, "bias": (s[_bias_index(s, fmt)],)},
                      {"data_format": fmt}) for s, fmt in _BIAS],
    "BiasAddGrad": [_case(f"{_sid(s)}-{fmt}", {"out_backprop": s}, {"data_format": fmt})
                    for s, fmt in _BIAS],
    "FusedBatchNormV3": _bn_cases(),
    "FusedBatchNormGradV3": _bn_grad_cases(),
    "Gelu": [_case(f"{_sid(s)}-approximate={a}", {"features": s}, {"approximate": a})
             for s in [(), (5,), (3, 4), (0, 2)] for a in (False, True)],
    "LeakyRelu": [_case(f"{_sid(s)}-alpha={a}", {"features": s}, {"alpha": a})
                  for s in [(), (5,), (3, 4), (0, 2)] for a in (0.2, 0.01, 1.5)],
    "ReluGrad": _same_shape_cases("gradients", "features"),
    "Relu6Grad": _same_shape_cases("gradients", "features"),
    "EluGrad": _same_shape_cases("gradients", "outputs"),
    "SeluGrad": _same_shape_cases("gradients", "outputs"),
    "SoftplusGrad": _same_shape_cases("gradients", "features"),
    "SoftsignGrad": _same_shape_cases("gradients", "features"),
    "LeakyReluGrad": _same_shape_cases("gradients", "features", ({"alpha": 0.2}, {"alpha": 0.05})),
    "GeluGrad": _same_shape_cases("gradients", "features", ({"approximate": False}, {"approximate": True})),
}

# Cases above the kernels' parallel grain (the multi-threaded paths).
LARGE_CASES = {
    "Conv2D": _conv_cases(CONV_LARGE, _conv_out, "forward"),
    "Conv2DBackpropInput": _conv_cases(CONV_LARGE, _conv_out, "input"),
    "Conv2DBackpropFilter": _conv_cases(CONV_LARGE, _conv_out, "filter"),
    "DepthwiseConv2dNative": _conv_cases(DEPTHWISE_LARGE, _dw_out, "forward"),
    "DepthwiseConv2dNativeBackpropInput": _conv_cases(DEPTHWISE_LARGE, _dw_out, "input"),
    "DepthwiseConv2dNativeBackpropFilter": _conv_cases(DEPTHWISE_LARGE, _dw_out, "filter"),
    "MaxPool": _pool_cases(POOL_LARGE, "forward"),
    "MaxPoolGrad": _pool_cases(POOL_LARGE, "max_grad"),
    "AvgPool": _pool_cases(POOL_LARGE, "avg"),
    "AvgPoolGrad": _pool_cases(POOL_LARGE, "avg_grad"),
    "Softmax": [_case("300x517", {"logits": (300, 517)})],
    "SoftmaxCrossEntropyWithLogits": [_case("300x517", {"features": (300, 517), "labels": (300, 517)})],
    "BiasAdd": [_case("300x517-NHWC", {"value": (300, 517), "bias": (517,)}, {"data_format": "NHWC"}),
                _case("4x80x20x30-NCHW", {"value": (4, 80, 20, 30), "bias": (80,)}, {"data_format": "NCHW"})],
    "BiasAddGrad": [_case("300x517-NHWC", {"out_backprop": (300, 517)}, {"data_format": "NHWC"}),
                    _case("4x80x20x30-NCHW", {"out_backprop": (4, 80, 20, 30)}, {"data_format": "NCHW"})],
    "FusedBatchNormV3": [_case("8x30x30x16", {"x": (8, 30, 30, 16)},
                               {"epsilon": 0.001, "is_training": True, "data_format": "NHWC"}),
                         _case("8x16x30x30", {"x": (8, 16, 30, 30)},
                               {"epsilon": 0.001, "is_training": True, "data_format": "NCHW"})],
}


# ------------------------------------------------------------------------------ index inputs


def _bn_channels(shape, data_format):
    return shape[1] if data_format.startswith("NC") else shape[-1]


def build_index_inputs(rng, op_name, extra, attrs, data, allowed):
    """Values of the op's index-like inputs for one case. `data` holds the data inputs built so
    far; `allowed(attr)` lists the dtype specs a type attr allows (as NumPy dtypes)."""
    if "input_sizes" in extra:
        return {"input_sizes": np.array(extra["input_sizes"], np.int32)}
    if "filter_sizes" in extra:
        return {"filter_sizes": np.array(extra["filter_sizes"], np.int32)}
    if "orig_input_shape" in extra:
        return {"orig_input_shape": np.array(extra["orig_input_shape"], np.int32)}
    if op_name == "SparseSoftmaxCrossEntropyWithLogits":
        rows, classes = data["features"].shape
        dt = rng.choice(allowed("Tlabels"))
        return {"labels": rng.integers(0, max(classes, 1), rows).astype(dt)}
    if op_name == "FusedBatchNormV3":
        c = _bn_channels(data["x"].shape, attrs.get("data_format", "NHWC"))
        # float32 statistics with float32 data (the gradient checks perturb them), else either
        u = np.float32 if data["x"].dtype == np.float32 else rng.choice(allowed("U"))
        out = {"scale": rng.uniform(0.5, 2.0, c), "offset": rng.uniform(-1, 1, c),
               "mean": rng.uniform(-1, 1, c), "variance": rng.uniform(0.5, 2.0, c)}
        if attrs.get("is_training", True) and attrs.get("exponential_avg_factor", 1.0) == 1.0 \
                and rng.random() < 0.5:
            out["mean"] = out["variance"] = np.zeros(0)  # not read: TensorFlow allows empty
        return {k: v.astype(u) for k, v in out.items()}
    if op_name == "FusedBatchNormGradV3":
        c = _bn_channels(data["x"].shape, attrs.get("data_format", "NHWC"))
        return {"scale": rng.uniform(0.5, 2.0, c).astype(np.float32),
                "reserve_space_1": rng.uniform(-1, 1, c).astype(np.float32),
                "reserve_space_2": rng.uniform(0.5, 2.0, c).astype(np.float32),
                "reserve_space_3": np.zeros(0, np.float32)}
    raise AssertionError(f"{op_name}: no index inputs in nn_cases")


# ------------------------------------------------------------------------------ gradient checks

# Ops with a gradient function whose gradients are defined for these inputs only.
GRADIENT_WRTS = {"FusedBatchNormV3": ("x", "scale", "offset"),
                 # fake quantization's gradient is TF's straight-through estimator, by definition not
                 # the (zero almost everywhere) numeric derivative: test_quantization_ops.py checks it
                 "FakeQuantWithMinMaxArgs": (), "FakeQuantWithMinMaxVars": (),
                 "FakeQuantWithMinMaxVarsPerChannel": ()}

# Inputs that must hold distinct values for a gradient check (a max's argmax must not flip
# under a finite-difference step).
DISTINCT_INPUTS = {"MaxPool": ("input",), "MaxPoolGrad": ("orig_input",),
                   "MaxPoolGradGrad": ("orig_input",)}


def make_distinct(rng, op_name, inputs):
    for name in DISTINCT_INPUTS.get(op_name, ()):
        v = inputs[name]
        inputs[name] = (rng.permutation(v.size).reshape(v.shape) * 0.37
                        + rng.uniform(-0.1, 0.1, v.shape) - 1.0).astype(v.dtype)
    return inputs


# ------------------------------------------------------------------------------ error inputs


def bad_calls(of):
    """(id, op name, callable) of invalid nn calls; each must raise InvalidArgumentError."""
    x = np.ones((1, 4, 4, 2), np.float32)
    f = np.ones((2, 2, 2, 3), np.float32)
    ok = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    c2 = of.ops.conv2d
    out = [
        ("Conv2D-rank3-input", "Conv2D", lambda: c2(np.ones((4, 4, 2), np.float32), f, **ok)),
        ("Conv2D-rank2-filter", "Conv2D", lambda: c2(x, np.ones((2, 2), np.float32), **ok)),
        ("Conv2D-depth-mismatch", "Conv2D", lambda: c2(x, np.ones((2, 2, 3, 3), np.float32), **ok)),
        ("Conv2D-strides-3", "Conv2D", lambda: c2(x, f, strides=[1, 1, 1], padding="SAME")),
        ("Conv2D-strides-0", "Conv2D", lambda: c2(x, f, strides=[1, 0, 1, 1], padding="SAME")),
        ("Conv2D-batch-stride", "Conv2D", lambda: c2(x, f, strides=[2, 1, 1, 1], padding="SAME")),
        ("Conv2D-dilations-0", "Conv2D", lambda: c2(x, f, dilations=[1, 0, 1, 1], **ok)),
        ("Conv2D-bad-padding", "Conv2D", lambda: c2(x, f, strides=[1, 1, 1, 1], padding="FULL")),
        ("Conv2D-bad-format", "Conv2D", lambda: c2(x, f, data_format="HWCN", **ok)),
        ("Conv2D-valid-too-small", "Conv2D",
         lambda: c2(x, np.ones((6, 6, 2, 1), np.float32), strides=[1, 1, 1, 1], padding="VALID")),
        ("Conv2D-group-depth", "Conv2D", lambda: c2(np.ones((1, 4, 4, 6), np.float32), np.ones((2, 2, 4, 3), np.float32), **ok)),
        ("Conv2D-group-out-depth", "Conv2D", lambda: c2(np.ones((1, 4, 4, 6), np.float32), np.ones((2, 2, 2, 4), np.float32), **ok)),
        ("Conv2D-explicit-missing", "Conv2D", lambda: c2(x, f, strides=[1, 1, 1, 1], padding="EXPLICIT")),
        ("Conv2D-explicit-negative", "Conv2D",
         lambda: c2(x, f, strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, -1, 0, 0, 0, 0, 0])),
        ("Conv2D-explicit-batch", "Conv2D",
         lambda: c2(x, f, strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[1, 0, 0, 0, 0, 0, 0, 0])),
        ("Conv2D-explicit-with-same", "Conv2D",
         lambda: c2(x, f, strides=[1, 1, 1, 1], padding="SAME", explicit_paddings=[0] * 8)),
        ("Conv2DBackpropInput-sizes-3", "Conv2DBackpropInput",
         lambda: of.ops.conv2d_backprop_input(np.array([1, 4, 4], np.int32), f, np.ones((1, 4, 4, 3), np.float32), **ok)),
        ("Conv2DBackpropInput-negative-size", "Conv2DBackpropInput",
         lambda: of.ops.conv2d_backprop_input(np.array([1, -4, 4, 2], np.int32), f, np.ones((1, 4, 4, 3), np.float32), **ok)),
        ("Conv2DBackpropInput-out-shape", "Conv2DBackpropInput",
         lambda: of.ops.conv2d_backprop_input(np.array([1, 4, 4, 2], np.int32), f, np.ones((1, 3, 4, 3), np.float32), **ok)),
        ("Conv2DBackpropFilter-out-shape", "Conv2DBackpropFilter",
         lambda: of.ops.conv2d_backprop_filter(x, np.array([2, 2, 2, 3], np.int32), np.ones((1, 4, 4, 2), np.float32), **ok)),
        ("Conv2DBackpropFilter-depth", "Conv2DBackpropFilter",
         lambda: of.ops.conv2d_backprop_filter(x, np.array([2, 2, 5, 3], np.int32), np.ones((1, 4, 4, 3), np.float32), **ok)),
        ("DepthwiseConv2dNative-depth", "DepthwiseConv2dNative",
         lambda: of.ops.depthwise_conv2d_native(x, np.ones((2, 2, 3, 1), np.float32), **ok)),
        ("DepthwiseConv2dNative-rank", "DepthwiseConv2dNative",
         lambda: of.ops.depthwise_conv2d_native(np.ones((4, 4, 2), np.float32), f, **ok)),
        ("DepthwiseConv2dNativeBackpropInput-out-shape", "DepthwiseConv2dNativeBackpropInput",
         lambda: of.ops.depthwise_conv2d_native_backprop_input(
             np.array([1, 4, 4, 2], np.int32), np.ones((2, 2, 2, 1), np.float32), np.ones((1, 4, 4, 3), np.float32), **ok)),
        ("DepthwiseConv2dNativeBackpropFilter-sizes", "DepthwiseConv2dNativeBackpropFilter",
         lambda: of.ops.depthwise_conv2d_native_backprop_filter(
             x, np.array([2, 2, 2], np.int32), np.ones((1, 4, 4, 2), np.float32), **ok)),
        ("MaxPool-ksize-3", "MaxPool", lambda: of.ops.max_pool(x, ksize=[1, 2, 2], strides=[1, 1, 1, 1], padding="SAME")),
        ("MaxPool-depth-window", "MaxPool", lambda: of.ops.max_pool(x, ksize=[1, 2, 2, 2], strides=[1, 1, 1, 1], padding="SAME")),
        ("MaxPool-ksize-0", "MaxPool", lambda: of.ops.max_pool(x, ksize=[1, 0, 2, 1], strides=[1, 1, 1, 1], padding="SAME")),
        ("MaxPool-rank3", "MaxPool", lambda: of.ops.max_pool(x[0], ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")),
        ("MaxPool-valid-too-small", "MaxPool", lambda: of.ops.max_pool(x, ksize=[1, 6, 1, 1], strides=[1, 1, 1, 1], padding="VALID")),
        ("AvgPool-valid-too-small", "AvgPool", lambda: of.ops.avg_pool(x, ksize=[1, 8, 1, 1], strides=[1, 2, 1, 1], padding="VALID")),
        ("MaxPool-explicit-too-large", "MaxPool",
         lambda: of.ops.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
                                 explicit_paddings=[0, 0, 2, 0, 0, 0, 0, 0])),
        ("MaxPoolGrad-grad-shape", "MaxPoolGrad",
         lambda: of.ops.max_pool_grad(x, np.ones((1, 2, 2, 2), np.float32), np.ones((1, 3, 2, 2), np.float32),
                                      ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")),
        ("MaxPoolGradGrad-grad-shape", "MaxPoolGradGrad",
         lambda: of.ops.max_pool_grad_grad(x, np.ones((1, 2, 2, 2), np.float32), np.ones((1, 2, 2, 2), np.float32),
                                           ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")),
        ("AvgPool-stride-0", "AvgPool", lambda: of.ops.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 0, 1, 1], padding="SAME")),
        ("AvgPool-explicit", "AvgPool", lambda: of.ops.avg_pool(x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="EXPLICIT")),
        ("AvgPoolGrad-shape-3", "AvgPoolGrad",
         lambda: of.ops.avg_pool_grad(np.array([1, 4, 4], np.int32), np.ones((1, 2, 2, 2), np.float32),
                                      ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")),
        ("AvgPoolGrad-grad-shape", "AvgPoolGrad",
         lambda: of.ops.avg_pool_grad(np.array([1, 4, 4, 2], np.int32), np.ones((1, 3, 2, 2), np.float32),
                                      ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")),
        ("Softmax-scalar", "Softmax", lambda: of.ops.softmax(np.float32(1))),
        ("LogSoftmax-scalar", "LogSoftmax", lambda: of.ops.log_softmax(np.float32(1))),
        ("SoftmaxCrossEntropyWithLogits-rank1", "SoftmaxCrossEntropyWithLogits",
         lambda: of.ops.softmax_cross_entropy_with_logits(np.ones(3), np.ones(3))),
        ("SoftmaxCrossEntropyWithLogits-shapes", "SoftmaxCrossEntropyWithLogits",
         lambda: of.ops.softmax_cross_entropy_with_logits(np.ones((2, 3)), np.ones((2, 4)))),
        ("SparseSoftmaxCrossEntropyWithLogits-label-high", "SparseSoftmaxCrossEntropyWithLogits",
         lambda: of.ops.sparse_softmax_cross_entropy_with_logits(np.ones((2, 3)), np.array([0, 3]))),
        ("SparseSoftmaxCrossEntropyWithLogits-label-negative", "SparseSoftmaxCrossEntropyWithLogits",
         lambda: of.ops.sparse_softmax_cross_entropy_with_logits(np.ones((2, 3)), np.array([-1, 0], np.int32))),
        ("SparseSoftmaxCrossEntropyWithLogits-label-batch", "SparseSoftmaxCrossEntropyWithLogits",
         lambda: of.ops.sparse_softmax_cross_entropy_with_logits(np.ones((2, 3)), np.array([0, 1, 2]))),
        ("SparseSoftmaxCrossEntropyWithLogits-label-rank", "SparseSoftmaxCrossEntropyWithLogits",
         lambda: of.ops.sparse_softmax_cross_entropy_with_logits(np.ones((2, 3)), np.zeros((2, 1), np.int64))),
        ("BiasAdd-size", "BiasAdd", lambda: of.ops.bias_add(np.ones((2, 3)), np.ones(4))),
        ("BiasAdd-nchw-size", "BiasAdd", lambda: of.ops.bias_add(np.ones((2, 3, 4)), np.ones(4), data_format="NCHW")),
        ("BiasAdd-rank1", "BiasAdd", lambda: of.ops.bias_add(np.ones(3), np.ones(3))),
        ("BiasAdd-bias-matrix", "BiasAdd", lambda: of.ops.bias_add(np.ones((2, 3)), np.ones((1, 3)))),
        ("BiasAddGrad-rank1", "BiasAddGrad", lambda: of.ops.bias_add_grad(np.ones(3))),
        ("ReluGrad-shapes", "ReluGrad", lambda: of.ops.relu_grad(np.ones(3), np.ones(4))),
        ("EluGrad-rank", "EluGrad", lambda: of.ops.elu_grad(np.ones((3, 1)), np.ones(3))),
        ("FusedBatchNormV3-rank", "FusedBatchNormV3",
         lambda: of.ops.fused_batch_norm_v3(np.ones((2, 3), np.float32), *[np.ones(3, np.float32)] * 4)),
        ("FusedBatchNormV3-scale-size", "FusedBatchNormV3",
         lambda: of.ops.fused_batch_norm_v3(x, np.ones(3, np.float32), *[np.ones(2, np.float32)] * 3)),
        ("FusedBatchNormV3-inference-empty-mean", "FusedBatchNormV3",
         lambda: of.ops.fused_batch_norm_v3(x, np.ones(2, np.float32), np.ones(2, np.float32),
                                            np.zeros(0, np.float32), np.zeros(0, np.float32), is_training=False)),
        ("FusedBatchNormV3-5d-with-NHWC", "FusedBatchNormV3",
         lambda: of.ops.fused_batch_norm_v3(np.ones((1, 2, 2, 2, 2), np.float32), *[np.ones(2, np.float32)] * 4)),
        ("FusedBatchNormGradV3-shapes", "FusedBatchNormGradV3",
         lambda: of.ops.fused_batch_norm_grad_v3(np.ones((1, 4, 4, 3), np.float32), x, *[np.ones(2, np.float32)] * 3,
                                                 np.zeros(0, np.float32))),
        ("FusedBatchNormGradV3-scale-size", "FusedBatchNormGradV3",
         lambda: of.ops.fused_batch_norm_grad_v3(x, x, np.ones(3, np.float32), *[np.ones(2, np.float32)] * 2,
                                                 np.zeros(0, np.float32))),
    ]
    return out

# Outputs that carry gradients, for ops whose other outputs TensorFlow's gradient ignores
# (the numeric check weights only these).
GRADIENT_OUTPUTS = {"FusedBatchNormV3": (0,)}
