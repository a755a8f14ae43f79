"""Remapping (RewriterConfig ``remapping``): contraction + bias + activation into one fused op.

Patterns, as TensorFlow's Grappler remapper writes them (same op names and attrs, so the
result also runs in TensorFlow):

* Conv2D / DepthwiseConv2dNative / MatMul -> BiasAdd (or Add/AddV2 of a constant 1-D vector,
  one value per output channel) [-> activation]  =>  _FusedConv2D /
  _FusedDepthwiseConv2dNative / _FusedMatMul with fused_ops ["BiasAdd"(, activation)];
* Conv2D / DepthwiseConv2dNative -> FusedBatchNormV3 (is_training=false, only the first output
  used) [-> activation]  =>  fused_ops ["FusedBatchNorm"(, activation)] with the four
  statistics as args (reached when constant folding did not fold the batch norm into the
  weights);

with the activation one of Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, or x * Sigmoid(x)
(swish, spelled "_MklSwish" as TensorFlow's oneDNN remapper does). An intermediate is fused
only when it has a single consumer and is not preserved (fetched, fed, a target); the fused
node takes the name of the last node of the pattern.

After that, a batch norm that is not folded into a convolution — a frozen Keras
BatchNormalization after a concatenation or an addition, x * c1 + c2 with per-channel
constants (DenseNet's and ResNetV2's pre-activations), or an inference FusedBatchNormV3 —
followed by Relu becomes TensorFlow's ``_FusedBatchNormEx`` (activation_mode "Relu"): one pass
over the tensor instead of three (x * c1 + c2 as a batch norm with mean 0, variance 1 and
epsilon 0, which is exact).

Before that, a zero Pad of the spatial dimensions feeding a convolution becomes the
convolution's own padding (EXPLICIT, explicit_paddings): Keras writes ZeroPadding2D + a VALID
convolution before every strided convolution of MobileNet, ResNet, NASNet..., and the Pad
is a full pass over the (often largest) activation that the convolution can do for free, as
TensorFlow's oneDNN remapper does with _MklPadWithConv2D. One extension of TensorFlow's
attrs follows from it: opforge's _FusedDepthwiseConv2dNative accepts EXPLICIT padding, which
TensorFlow's does not (a graph with one runs in opforge, not in TensorFlow).
"""

from __future__ import annotations

import numpy as np

from .fold_batch_norm import _data_format, per_channel
from .graph_view import GraphView, parse_input, tensor_name

_FUSED_OP = {"Conv2D": "_FusedConv2D", "DepthwiseConv2dNative": "_FusedDepthwiseConv2dNative",
             "MatMul": "_FusedMatMul"}
_ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh")
# T of each fused op (DataType enums: float, double, bfloat16, half).
_FUSED_TYPES = {1, 2, 14, 19}


def _single_use(view: GraphView, nd) -> bool:
    return view.has_single_data_consumer(nd.name)


def _only_consumer(view: GraphView, nd):
    cons = view.consumers(nd.name)
    return cons[0] if len(cons) == 1 and _single_use(view, nd) else None


def _contraction(view: GraphView, tensor: str):
    src, idx = parse_input(tensor)
    c = view.node(src)
    if c is None or idx != 0 or c.op not in _FUSED_OP or not _single_use(view, c):
        return None
    if c.attr["T"].type not in _FUSED_TYPES:
        return None
    return c


def _channels_of_bias(view: GraphView, c, bias_tensor: str):
    """For Add/AddV2: the bias, when it is a constant vector matching c's output channels."""
    value = view.constant_value(bias_tensor)
    if value is None or value.ndim != 1:
        return None
    if c.op != "MatMul" and _data_format(c) != "NHWC":
        return None
    w = view.constant_value(view.data_inputs(c)[1])
    if w is not None:
        from .fold_batch_norm import _channels  # noqa: PLC0415
        if per_channel(value, c, _channels(view, c)) is None:
            return None
    return value


def _match_head(view: GraphView, nd):
    """(contraction, kind, args) when nd is a BiasAdd / Add / FusedBatchNormV3 over a
    fusable contraction."""
    ins = view.data_inputs(nd)
    if nd.op == "BiasAdd":
        c = _contraction(view, ins[0])
        if c is not None and (c.op == "MatMul" or _data_format(c) == _data_format(nd)):
            return c, "BiasAdd", [ins[1]]
    elif nd.op in ("Add", "AddV2"):
        for k in (0, 1):
            c = _contraction(view, ins[k])
            if c is not None and _channels_of_bias(view, c, ins[1 - k]) is not None:
                return c, "BiasAdd", [ins[1 - k]]
    elif nd.op == "FusedBatchNormV3" and not nd.attr["is_training"].b and nd.name not in view.preserve:
        c = _contraction(view, ins[0])
        if c is None or c.op == "MatMul" or _data_format(c) != _data_format(nd):
            return None
        for cons in view.consumers(nd.name):
            for i in cons.input:
                src, idx = parse_input(i)
                if src == nd.name and idx != 0:
                    return None
        if nd.attr["U"].type != c.attr["T"].type:
            return None  # the fused op takes its args in T
        return c, "FusedBatchNorm", ins[1:5]
    return None


def _match_activation(view: GraphView, head):
    """(last node, activation name) for the activation applied to head's output, if fusable."""
    if head.name in view.preserve:
        return None
    cons = view.consumers(head.name)
    if len(cons) == 1 and _single_use(view, head) and cons[0].op in _ACTIVATIONS:
        return cons[0], cons[0].op
    # swish: Mul(x, Sigmoid(x)) with x = head; head feeds exactly the Sigmoid and the Mul.
    if len(cons) == 2 and not any(("^" + head.name) in c.input for c in cons):
        sig = next((c for c in cons if c.op == "Sigmoid"), None)
        mul = next((c for c in cons if c.op == "Mul"), None)
        if sig is None or mul is None or sig.name in view.preserve or not _single_use(view, sig):
            return None
        mins = [parse_input(i) for i in view.data_inputs(mul)]
        if sorted(mins) == sorted([(head.name, 0), (sig.name, 0)]):
            return mul, "_MklSwish"
    return None


def _fuse(view: GraphView, c, head, kind: str, args: list[str], last, activation) -> None:
    fused = last if last is not None else head
    ctrl = []
    for nd in (c, head, last):
        if nd is not None:
            ctrl += [i for i in view.control_inputs(nd) if i not in ctrl]
    t = c.attr["T"].type
    base = {k: c.attr[k] for k in c.attr if not k.startswith("_")}
    eps = head.attr["epsilon"].f if kind == "FusedBatchNorm" and "epsilon" in head.attr else None
    alpha = last.attr["alpha"].f if activation == "LeakyRelu" else None
    inputs = view.data_inputs(c)[:2] + args
    op = _FUSED_OP[c.op]
    fused.ClearField("input")
    fused.ClearField("attr")
    fused.op = op
    fused.input.extend(inputs + ctrl)
    keep = {"_FusedConv2D": ("strides", "padding", "explicit_paddings", "data_format", "dilations",
                             "use_cudnn_on_gpu"),
            "_FusedDepthwiseConv2dNative": ("strides", "padding", "explicit_paddings", "data_format", "dilations"),
            "_FusedMatMul": ("transpose_a", "transpose_b")}[op]
    for k in keep:
        if k in base:
            fused.attr[k].CopyFrom(base[k])
    fused.attr["T"].type = t
    if op == "_FusedConv2D":
        fused.attr["TArgs"].list.type.extend([t] * len(args))
        fused.attr["num_host_args"].i = 0
    fused.attr["num_args"].i = len(args)
    fused.attr["fused_ops"].list.s.extend([kind.encode()] + ([activation.encode()] if activation else []))
    fused.attr["epsilon"].f = eps if eps is not None else 0.0
    fused.attr["leakyrelu_alpha"].f = alpha if alpha is not None else 0.2
    view.changed()


# Ops whose output rank is fixed: 4 for images, 2 for matrices.
_OUTPUT_RANK = {"Conv2D": 4, "DepthwiseConv2dNative": 4, "_FusedConv2D": 4, "_FusedDepthwiseConv2dNative": 4,
                "MatMul": 2, "_FusedMatMul": 2}


def _rank(view: GraphView, nd, bias_add) -> int:
    """The rank of nd's output where known (recorded shapes, or a BiasAdd of a convolution or
    matmul, whose rank is fixed); else 1, which lets only a vector or scalar merge."""
    if "_output_shapes" in nd.attr:
        return len(nd.attr["_output_shapes"].list.shape[0].dim)
    src = view.node(parse_input(view.data_inputs(bias_add)[0])[0])
    return _OUTPUT_RANK.get(src.op, 1) if src is not None else 1


def _merge_bias_adds(view: GraphView) -> None:
    """BiasAdd(x, b) -> Add/AddV2 of a constant per-channel vector c becomes BiasAdd(x, b + c).

    A frozen Keras BatchNormalization after a biased convolution leaves exactly this once its
    scale is folded into the weights; merged, the contraction, its bias and the following
    activation fuse into one op instead of leaving an Add and the activation as two more passes
    over the output."""
    merged = []
    for nd in list(view.nodes):
        if nd.op not in ("Add", "AddV2") or nd.name in view.preserve or view.control_inputs(nd):
            continue
        ins = view.data_inputs(nd)
        for k in (0, 1):
            src, idx = parse_input(ins[k])
            bias_add = view.node(src)
            if (bias_add is None or idx != 0 or bias_add.op != "BiasAdd" or _data_format(bias_add) != "NHWC"
                    or not view.has_single_data_consumer(bias_add.name)):
                continue
            b = view.constant_value(view.data_inputs(bias_add)[1])
            c = view.constant_value(ins[1 - k])
            if b is None or c is None or b.ndim != 1 or c.dtype != b.dtype:
                continue
            if c.size != 1 and not (c.ndim >= 1 and c.shape[-1] == b.shape[0] and all(d == 1 for d in c.shape[:-1])):
                continue
            if c.ndim > max(_rank(view, nd, bias_add), 1):
                continue  # c could add dimensions to the output
            const = view.make_const(view.unique_name(bias_add.name + "/merged_bias"),
                                    (b + c.reshape(-1)).astype(b.dtype), bias_add.device)
            bias_add.input[1] = const.name
            view.redirect(nd.name, bias_add.name)
            merged.append(nd.name)
            break
    view.remove(merged)


# Convolutions whose padding can absorb a Pad of their input.
_PADDABLE = ("Conv2D", "DepthwiseConv2dNative", "_FusedConv2D", "_FusedDepthwiseConv2dNative")


def _spatial_pads(view: GraphView, pad, data_format: str):
    """The Pad's [before, after] for height and width, when it pads only those with zeros."""
    ins = view.data_inputs(pad)
    paddings = view.constant_value(ins[1])
    if paddings is None or paddings.shape != (4, 2) or (paddings < 0).any():
        return None
    if pad.op == "PadV2":
        value = view.constant_value(ins[2])
        if value is None or value.size != 1 or value.reshape(()) != 0:
            return None
    spatial = (1, 2) if data_format == "NHWC" else (2, 3)
    if any(paddings[d].any() for d in range(4) if d not in spatial):
        return None
    return [int(v) for d in spatial for v in paddings[d]]


def _paddable_by(view: GraphView, pad, c):
    """The new explicit_paddings of convolution c when it reads pad's output as its input (and
    only there) and can absorb pad's zero padding of height and width; else None."""
    if c.op not in _PADDABLE or c.attr["padding"].s not in (b"VALID", b"EXPLICIT") or c.attr["T"].type != pad.attr["T"].type:
        return None
    reads = [i for i in c.input if parse_input(i.lstrip("^"))[0] == pad.name]
    if reads != [view.data_inputs(c)[0]] or parse_input(reads[0])[1] != 0:
        return None
    fmt = _data_format(c)
    extra = _spatial_pads(view, pad, fmt)
    old = list(c.attr["explicit_paddings"].list.i) if c.attr["padding"].s == b"EXPLICIT" else [0] * 8
    if extra is None or len(old) != 8:
        return None
    hw = (2, 4) if fmt == "NHWC" else (4, 6)  # offsets of H's and W's (before, after) pairs
    for k, off in enumerate((hw[0], hw[0] + 1, hw[1], hw[1] + 1)):
        old[off] += extra[k]
    return old


def _fold_pads(view: GraphView) -> None:
    """Pad(x) -> VALID or EXPLICIT convolutions  =>  the convolutions over x with the padding
    added to their explicit_paddings (every reader of the Pad must be one: NASNet pads once for
    two depthwise convolutions)."""
    folded = []
    for pad in list(view.nodes):
        if pad.op not in ("Pad", "PadV2") or pad.name in view.preserve or view.control_inputs(pad):
            continue
        convs = view.consumers(pad.name)
        paddings = [_paddable_by(view, pad, c) for c in convs]
        if not convs or any(p is None for p in paddings):
            continue
        for c, new in zip(convs, paddings):
            c.input[0] = view.data_inputs(pad)[0]
            c.attr["padding"].s = b"EXPLICIT"
            c.attr["explicit_paddings"].list.Clear()
            c.attr["explicit_paddings"].list.i.extend(new)
        view.changed()
        folded.append(pad.name)
    view.remove(folded)


def _channel_vector(view: GraphView, tensor: str, mul, channels: int):
    """The constant at tensor as a float32 [channels] vector, when it is one value per channel
    of mul's channels-last output ((C,) or (1, ..., 1, C): per_channel's rule, no scalar); else
    None."""
    value = view.constant_value(tensor)
    if value is None or value.dtype != np.float32 or value.ndim == 0 or value.shape[-1] != channels:
        return None
    return per_channel(value, mul, channels)


def _fuse_batch_norm_relu(view: GraphView, relu) -> bool:
    """Relu over [Mul(x, c1) -> Add(., c2)] or over an inference FusedBatchNormV3 (its other
    outputs unused) -> _FusedBatchNormEx(activation_mode="Relu") in Relu's place."""
    if relu.op != "Relu" or relu.attr["T"].type != 1 or view.control_inputs(relu):
        return False
    head = view.producer(relu, 0)
    if head is None or not view.has_single_data_consumer(head.name) or view.control_inputs(head):
        return False
    if parse_input(view.data_inputs(relu)[0])[1] != 0:
        return False
    if head.op == "FusedBatchNormV3":
        if head.attr["is_training"].b or head.attr["T"].type != 1 or head.attr["U"].type != 1:
            return False
        x, scale, offset, mean, var = view.data_inputs(head)
        eps = head.attr["epsilon"].f
        fmt = head.attr["data_format"].s.decode() if "data_format" in head.attr else "NHWC"
        removed = [head.name]
    elif head.op in ("Add", "AddV2"):
        adds = view.data_inputs(head)
        for k in (0, 1):
            mul = view.node(parse_input(adds[k])[0])
            if (mul is not None and mul.op == "Mul" and parse_input(adds[k])[1] == 0
                    and view.has_single_data_consumer(mul.name) and not view.control_inputs(mul)):
                break
        else:
            return False
        shift_t = adds[1 - k]
        for j in (0, 1):
            x = view.data_inputs(mul)[j]
            dims = view.recorded_shape(x)
            if dims is None or len(dims) != 4 or dims[3] <= 0 or view.recorded_shape(tensor_name(mul.name, 0)) != dims:
                continue
            c1 = _channel_vector(view, view.data_inputs(mul)[1 - j], mul, dims[3])
            c2 = _channel_vector(view, shift_t, mul, dims[3])
            if c1 is not None and c2 is not None:
                break
        else:
            return False
        channels = dims[3]
        base = relu.name + "/batch_norm"
        scale = view.make_const(view.unique_name(base + "/scale"), c1, relu.device).name
        offset = view.make_const(view.unique_name(base + "/offset"), c2, relu.device).name
        mean = view.make_const(view.unique_name(base + "/mean"), np.zeros(channels, np.float32), relu.device).name
        var = view.make_const(view.unique_name(base + "/variance"), np.ones(channels, np.float32), relu.device).name
        eps, fmt = 0.0, "NHWC"
        removed = [head.name, mul.name]
    else:
        return False
    relu.op = "_FusedBatchNormEx"
    relu.ClearField("input")
    relu.input.extend([x, scale, offset, mean, var])
    relu.ClearField("attr")
    relu.attr["T"].type = 1
    relu.attr["U"].type = 1
    relu.attr["epsilon"].f = eps
    relu.attr["exponential_avg_factor"].f = 1.0
    relu.attr["num_side_inputs"].i = 0
    relu.attr["activation_mode"].s = b"Relu"
    relu.attr["data_format"].s = fmt.encode()
    relu.attr["is_training"].b = False
    view.changed()
    view.remove(removed)
    return True


def run(view: GraphView) -> None:
    _fold_pads(view)
    _merge_bias_adds(view)
    changed = True
    while changed:
        changed = False
        for nd in list(view.nodes):
            if view.node(nd.name) is not nd or nd.op not in ("BiasAdd", "Add", "AddV2", "FusedBatchNormV3"):
                continue
            m = _match_head(view, nd)
            if m is None:
                continue
            c, kind, args = m
            act = _match_activation(view, nd)
            last, activation = act if act is not None else (None, None)
            _fuse(view, c, nd, kind, args, last, activation)
            view.prune_dead()
            changed = True
    view.rewrite_to_fixpoint(lambda nd: _fuse_batch_norm_relu(view, nd))
    view.prune_dead()
