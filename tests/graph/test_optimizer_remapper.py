"""The graph optimizer's remapper and batch-norm folding (runtime/src/optimizer): a batch norm
folded into the weights before it, bias and activation fused into a convolution or MatMul, a Pad
folded into a convolution's padding, concat -> batch norm -> Relu as _FusedBatchNormEx; values
against the unoptimized graph, fetched intermediates kept, variables that still train."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework import optimizer

from optimizer_helpers import (  # tests/graph/optimizer_helpers.py
    OFF,
    assert_close,
    optimized_graph,
    optimized_graphs,
    optimized_ops,
    rewriter_config,
    run_both,
)


# ---------------------------------------------------------------------------- batch-norm folding


def _keras_frozen_bn(x, rng, channels, eps=1e-3):
    """The Mul/AddV2/Sub arithmetic Keras 3 freezes BatchNormalization into."""
    gamma, beta = rng.random(channels, dtype=np.float32) + 0.5, rng.standard_normal(channels).astype(np.float32)
    mean, var = rng.standard_normal(channels).astype(np.float32), rng.random(channels, dtype=np.float32) + 0.5
    inv = of.rsqrt(of.constant(var) + eps) * of.constant(gamma)
    return x * inv + (of.constant(beta) - of.constant(mean) * inv)


@pytest.mark.parametrize("use_bias", [False, True], ids=["no-bias", "bias"])
@pytest.mark.parametrize("base", ["Conv2D", "DepthwiseConv2dNative", "MatMul"])
def test_keras_batch_norm_folds_into_weights_and_fuses(graph, rng, base, use_bias):
    # use_bias: the contraction's own BiasAdd comes first (a Keras layer with use_bias, as in
    # ResNet50): the batch norm's Mul scales weights and bias, its Add joins the bias.
    if base == "MatMul":
        x = of.placeholder(of.float32, [None, 6], name="x")
        c = of.matmul(x, rng.standard_normal((6, 5)).astype(np.float32))
        feed = rng.standard_normal((3, 6)).astype(np.float32)
        channels = 5
    else:
        x = of.placeholder(of.float32, [None, 7, 7, 4], name="x")
        if base == "Conv2D":
            c = of.nn.conv2d(x, rng.standard_normal((3, 3, 4, 6)).astype(np.float32), [1, 1, 1, 1], "SAME")
            channels = 6
        else:
            c = of.raw_ops.DepthwiseConv2dNative(input=x, filter=rng.standard_normal((3, 3, 4, 2)).astype(np.float32),
                                                 strides=[1, 1, 1, 1], padding="VALID")
            channels = 8
        feed = rng.standard_normal((2, 7, 7, 4)).astype(np.float32)
    if use_bias:
        c = of.nn.bias_add(c, rng.standard_normal(channels).astype(np.float32))
    y = of.nn.relu(_keras_frozen_bn(c, rng, channels), name="y")
    got, want, sess = run_both(graph, y, {x: feed})
    assert_close(got, want)
    ops = optimized_ops(sess)
    assert ops["y"] == "_Fused" + {"Conv2D": "Conv2D", "DepthwiseConv2dNative": "DepthwiseConv2dNative",
                                    "MatMul": "MatMul"}[base]
    assert sorted(ops.values()) == sorted(["Placeholder", "Const", "Const", ops["y"]])


def test_biased_conv_batch_norm_merges_without_recorded_shapes(rng):
    """Keras's frozen GraphDefs carry no output shapes and shape the batch norm's constants
    [1, 1, 1, C] (ResNet50): the Add after the bias still merges into it, and the activation
    fuses, because a convolution's output rank is known without them."""
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 7, 7, 4], name="x")
        c = of.nn.conv2d(x, rng.standard_normal((3, 3, 4, 6)).astype(np.float32), [1, 1, 1, 1], "SAME")
        c = of.nn.bias_add(c, rng.standard_normal(6).astype(np.float32))
        scale = rng.random((1, 1, 1, 6), dtype=np.float32) + 0.5
        shift = rng.standard_normal((1, 1, 1, 6)).astype(np.float32)
        of.nn.relu(c * scale + shift, name="y")
    gd, _ = optimizer.optimize(g.as_graph_def(), preserve=["y"], fail_on_errors=True)
    ops = {nd.name: nd.op for nd in gd.node}
    assert ops["y"] == "_FusedConv2D" and sorted(ops.values()) == ["Const", "Const", "Placeholder", "_FusedConv2D"]
    assert [s.decode() for s in {nd.name: nd for nd in gd.node}["y"].attr["fused_ops"].list.s] == ["BiasAdd", "Relu"]
    feed = rng.standard_normal((2, 7, 7, 4)).astype(np.float32)
    want = of.Session(graph=g, config=OFF).run("y:0", {"x:0": feed})
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(gd, name="")
    assert_close(of.Session(graph=g2, config=OFF).run("y:0", {"x:0": feed}), want)


def test_fused_batch_norm_v3_folds_or_fuses(graph, rng):
    x = of.placeholder(of.float32, [None, 6, 6, 3], name="x")
    c = of.nn.conv2d(x, rng.standard_normal((3, 3, 3, 4)).astype(np.float32), [1, 1, 1, 1], "SAME")
    stats = [rng.random(4, dtype=np.float32) + 0.5 for _ in range(4)]
    bn = of.raw_ops.FusedBatchNormV3(x=c, scale=stats[0], offset=stats[1], mean=stats[2], variance=stats[3],
                                     epsilon=0.001, is_training=False)[0]
    y = of.nn.relu6(bn, name="y")
    feed = {x: rng.standard_normal((2, 6, 6, 3)).astype(np.float32)}
    got, want, sess = run_both(graph, y, feed)
    assert_close(got, want)
    assert optimized_ops(sess)["y"] == "_FusedConv2D"
    # Without constant folding the remapper fuses the batch norm itself.
    got, _, sess = run_both(graph, y, feed, rewriter_config(constant_folding=tf.RewriterConfig.OFF))
    assert_close(got, want)
    nd = next(op for op in optimized_graph(sess).get_operations() if op.name == "y")
    assert nd.get_attr("fused_ops") == ["FusedBatchNorm", "Relu6"]
    assert nd.get_attr("num_args") == 4 and abs(nd.get_attr("epsilon") - 0.001) < 1e-7


# ---------------------------------------------------------------------------- remapping

ACTIVATIONS = {
    None: lambda v: v,
    "Relu": lambda v: np.maximum(v, 0),
    "Relu6": lambda v: np.clip(v, 0, 6),
    "Elu": lambda v: np.where(v < 0, np.expm1(v), v),
    "LeakyRelu": lambda v: np.where(v > 0, v, 0.3 * v),
    "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "Tanh": np.tanh,
    "_MklSwish": lambda v: v / (1 + np.exp(-v)),
    "_FusedHardSwish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
}


def _apply(name, t):
    if name is None:
        return t
    if name == "_MklSwish":
        return t * of.sigmoid(t)
    if name == "_FusedHardSwish":
        return t * (of.nn.relu6(t + 3.0) / 6.0)  # Keras's hard_swish
    if name == "LeakyRelu":
        return of.nn.leaky_relu(t, alpha=0.3)
    return {"Relu": of.nn.relu, "Relu6": of.nn.relu6, "Elu": of.nn.elu, "Sigmoid": of.sigmoid,
            "Tanh": of.tanh}[name](t)


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("base", ["Conv2D", "DepthwiseConv2dNative", "MatMul"])
def test_remapping_fuses_bias_and_activation(graph, rng, base, activation):
    if base == "MatMul":
        x = of.placeholder(of.float32, [None, 5], name="x")
        w = of.Variable(rng.standard_normal((5, 4)).astype(np.float32), name="w")
        c, channels = of.matmul(x, w), 4
        feed = rng.standard_normal((3, 5)).astype(np.float32)
    else:
        x = of.placeholder(of.float32, [None, 6, 6, 3], name="x")
        if base == "Conv2D":
            w = of.Variable(rng.standard_normal((2, 2, 3, 4)).astype(np.float32), name="w")
            c, channels = of.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), 4
        else:
            w = of.Variable(rng.standard_normal((3, 3, 3, 2)).astype(np.float32), name="w")
            c, channels = of.raw_ops.DepthwiseConv2dNative(input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME"), 6
        feed = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    b = of.constant(rng.standard_normal(channels).astype(np.float32))
    head = of.nn.bias_add(c, b) if activation in (None, "Relu") else c + b  # AddV2 of a vector too
    y = of.identity(_apply(activation, head), name="y")
    sess = of.Session(graph=graph)
    sess.run(of.global_variables_initializer())
    got = sess.run(y, {x: feed})
    plain = of.Session(graph=graph, config=OFF)
    plain.run(of.global_variables_initializer())
    assert_close(got, plain.run(y, {x: feed}))
    fused = [op for op in optimized_graph(sess).get_operations() if op.type.startswith("_Fused")]
    assert len(fused) == 1
    assert fused[0].get_attr("fused_ops") == ["BiasAdd"] + ([activation] if activation else [])
    if activation == "LeakyRelu":
        assert abs(fused[0].get_attr("leakyrelu_alpha") - 0.3) < 1e-7


def _conv_or_depthwise(base, x, rng, k, out):
    """A k x k Conv2D with `out` filters, or DepthwiseConv2dNative with multiplier `out`, over x (SAME)."""
    w = rng.standard_normal((k, k, x.shape[-1], out)).astype(np.float32)
    if base == "Conv2D":
        return of.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    return of.raw_ops.DepthwiseConv2dNative(input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME")


@pytest.mark.parametrize("base", ["Conv2D", "DepthwiseConv2dNative"])
def test_keras_swish_behind_identity_n_fuses(graph, rng, base):
    """Keras writes swish as tf.custom_gradient: IdentityN(x * sigmoid(x), x). The IdentityN's
    second read of x goes (dependency optimization), so the swish fuses into the convolution."""
    x = of.placeholder(of.float32, [2, 7, 7, 3], name="x")
    c = _conv_or_depthwise(base, x, rng, 3, 20 if base == "Conv2D" else 7)
    head = of.nn.bias_add(c, rng.standard_normal(c.shape[-1]).astype(np.float32))
    swish, _ = of.raw_ops.IdentityN(input=[head * of.sigmoid(head), head])
    y = of.identity(swish * 0.5, name="y")
    got, want, sess = run_both(graph, y, {x: 3 * rng.standard_normal((2, 7, 7, 3)).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    assert not [op for op in ops if op.type in ("Sigmoid", "IdentityN")]
    fused = [op for op in ops if op.type.startswith("_Fused")]
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == ["BiasAdd", "_MklSwish"]


HARD_SWISH_SPELLINGS = {
    "keras_truediv": lambda t: t * (of.nn.relu6(t + 3.0) / 6.0),
    "keras_scale": lambda t: (of.nn.relu6(3.0 + t) * (1.0 / 6.0)) * t,
    "tensorflow": lambda t: ((1.0 / 6.0) * t) * of.nn.relu6(t + 3.0),  # TF's remapper test
}


@pytest.mark.parametrize("spelling", list(HARD_SWISH_SPELLINGS))
@pytest.mark.parametrize("base", ["Conv2D", "DepthwiseConv2dNative"])
def test_hard_swish_spellings_fuse(graph, rng, base, spelling):
    """MobileNetV3's hard-swish after a convolution and its bias (a frozen batch norm) becomes
    the fused op's "_FusedHardSwish" in each way it is written; values span the kinks at -3, 3."""
    x = of.placeholder(of.float32, [2, 9, 9, 5], name="x")
    c = _conv_or_depthwise(base, x, rng, 1, 20) if base == "Conv2D" else _conv_or_depthwise(base, x, rng, 3, 4)
    head = c + rng.standard_normal(c.shape[-1]).astype(np.float32)
    y = of.identity(HARD_SWISH_SPELLINGS[spelling](head), name="y")
    got, want, sess = run_both(graph, y, {x: 2 * rng.standard_normal((2, 9, 9, 5)).astype(np.float32)})
    assert (got < -0.3).any() and (got > 4).any() and ((got > -0.1) & (got < 0)).any()  # all three pieces
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    assert not [op for op in ops if op.type in ("Relu6", "Mul", "RealDiv", "AddV2")]
    fused = [op for op in ops if op.type.startswith("_Fused")]
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == ["BiasAdd", "_FusedHardSwish"]


@pytest.mark.parametrize("case", ["not_three", "not_six", "gate_fetched", "relu_instead"])
def test_hard_swish_lookalikes_stay(graph, rng, case):
    """Near misses keep their ops: another offset or divisor, a fetched intermediate (it must
    keep its value), Relu for Relu6. The contraction and its bias still fuse."""
    x = of.placeholder(of.float32, [2, 6, 6, 3], name="x")
    head = of.nn.conv2d(x, rng.standard_normal((1, 1, 3, 4)).astype(np.float32), [1, 1, 1, 1], "SAME")
    head = of.nn.bias_add(head, rng.standard_normal(4).astype(np.float32))
    relu = of.nn.relu if case == "relu_instead" else of.nn.relu6
    gate = relu(head + (2.0 if case == "not_three" else 3.0)) / (5.0 if case == "not_six" else 6.0)
    gate = of.identity(gate, name="gate") if case == "gate_fetched" else gate
    y = of.identity(head * gate, name="y")
    fetches = [y, gate] if case == "gate_fetched" else y
    got, want, sess = run_both(graph, fetches, {x: 2 * rng.standard_normal((2, 6, 6, 3)).astype(np.float32)})
    assert_close(got, want)
    fused = [op for op in optimized_graph(sess).get_operations() if op.type.startswith("_Fused")]
    assert len(fused) == 1 and fused[0].get_attr("fused_ops") == ["BiasAdd"]


def _pad_then(base, x, rng, pads, padding="VALID", fmt="NHWC", explicit=None, pad_op="Pad"):
    """base (Conv2D / DepthwiseConv2dNative) over Pad(x, pads)."""
    paddings = of.constant(np.array(pads, np.int32))
    p = (of.raw_ops.Pad(input=x, paddings=paddings) if pad_op == "Pad"
         else of.raw_ops.PadV2(input=x, paddings=paddings, constant_values=of.constant(np.float32(0))))
    ch = x.shape[3] if fmt == "NHWC" else x.shape[1]
    kw = dict(strides=[1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2], padding=padding, data_format=fmt)
    if explicit is not None:
        kw["explicit_paddings"] = explicit
    if base == "Conv2D":
        return of.raw_ops.Conv2D(input=p, filter=rng.standard_normal((3, 3, ch, 5)).astype(np.float32), **kw)
    return of.raw_ops.DepthwiseConv2dNative(input=p, filter=rng.standard_normal((3, 3, ch, 1)).astype(np.float32), **kw)


@pytest.mark.parametrize("base", ["Conv2D", "DepthwiseConv2dNative"])
@pytest.mark.parametrize("case", ["valid", "explicit", "fused", "nchw", "wide", "pad_v2"])
def test_zero_pad_folds_into_convolution(graph, rng, base, case):
    """Keras's ZeroPadding2D + VALID strided convolution: the Pad becomes the convolution's
    explicit padding (added to any it had), and the convolution still fuses its epilogue."""
    fmt = "NCHW" if case == "nchw" else "NHWC"
    shape = [2, 4, 9, 8] if fmt == "NCHW" else [2, 9, 8, 4]
    x = of.placeholder(of.float32, shape, name="x")
    hw = [[0, 1], [2, 1]] if case != "wide" else [[3, 4], [5, 3]]  # wide: more than the 3x3 window
    pads = [[0, 0]] + hw + [[0, 0]] if fmt == "NHWC" else [[0, 0], [0, 0]] + hw
    explicit = [0, 0, 1, 0, 0, 2, 0, 0] if case == "explicit" else None
    c = _pad_then(base, x, rng, pads, "EXPLICIT" if explicit else "VALID", fmt, explicit,
                  "PadV2" if case == "pad_v2" else "Pad")
    y = of.identity(of.nn.relu6(c + rng.standard_normal(c.shape[-1]).astype(np.float32)) if case == "fused" else c,
                    name="y")
    got, want, sess = run_both(graph, y, {x: rng.standard_normal(shape).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    assert "Pad" not in [op.type for op in ops] and "PadV2" not in [op.type for op in ops]
    conv = next(op for op in ops if op.type.endswith(base))
    assert conv.get_attr("padding") == "EXPLICIT"
    want_pads = [0, 0] + [v for pair in hw for v in pair] + [0, 0]
    if fmt == "NCHW":
        want_pads = [0, 0, 0, 0] + [v for pair in hw for v in pair]
    if explicit:
        want_pads = [a + b for a, b in zip(want_pads, explicit)]
    assert conv.get_attr("explicit_paddings") == want_pads
    if case == "fused":
        assert conv.type == "_Fused" + base and conv.get_attr("fused_ops") == ["BiasAdd", "Relu6"]


def test_pad_shared_by_two_convolutions_folds_into_both(graph, rng):
    """NASNet pads once for two depthwise convolutions (5x5 and 7x7, stride 2): both take the
    padding, the Pad goes."""
    x = of.placeholder(of.float32, [2, 11, 11, 4], name="x")
    p = of.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]])
    convs = [of.raw_ops.DepthwiseConv2dNative(input=p, filter=rng.standard_normal((k, k, 4, 1)).astype(np.float32),
                                              strides=[1, 2, 2, 1], padding="VALID") for k in (3, 5)]
    y = of.add(convs[0][:, :5, :5, :], convs[1][:, :5, :5, :], name="y")
    got, want, sess = run_both(graph, y, {x: rng.standard_normal((2, 11, 11, 4)).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_graph(sess).get_operations()
    assert "Pad" not in [op.type for op in ops]
    dws = [op for op in ops if op.type.endswith("DepthwiseConv2dNative")]
    assert len(dws) == 2 and all(op.get_attr("explicit_paddings") == [0, 0, 1, 2, 2, 1, 0, 0] for op in dws)


@pytest.mark.parametrize("case", ["same", "channels", "nonzero", "two_users", "fetched"])
def test_pad_that_is_not_a_convolution_padding_stays(graph, rng, case):
    x = of.placeholder(of.float32, [2, 7, 7, 3], name="x")
    pads = [[0, 0], [1, 1], [1, 1], [1 if case == "channels" else 0, 0]]
    paddings = of.constant(np.array(pads, np.int32))
    value = of.constant(np.float32(0.5 if case == "nonzero" else 0.0))
    p = of.raw_ops.PadV2(input=x, paddings=paddings, constant_values=value, name="p")
    ch = 4 if case == "channels" else 3
    c = of.raw_ops.Conv2D(input=p, filter=rng.standard_normal((3, 3, ch, 2)).astype(np.float32), strides=[1, 1, 1, 1],
                          padding="SAME" if case == "same" else "VALID")
    y = of.identity(c + of.reduce_sum(p) if case == "two_users" else c, name="y")
    fetches = [y, p] if case == "fetched" else y
    got, want, sess = run_both(graph, fetches, {x: rng.standard_normal((2, 7, 7, 3)).astype(np.float32)})
    assert_close(got, want)
    runs = optimized_graphs(sess)  # none: nothing was changed
    assert not runs or "PadV2" in [op.type for op in runs[0].get_operations()]


@pytest.mark.parametrize("form", ["keras", "fused_batch_norm"])
def test_batch_norm_relu_after_a_concat_becomes_fused_batch_norm_ex(graph, rng, form):
    """DenseNet's pre-activation: concat -> frozen BatchNormalization -> Relu is one
    _FusedBatchNormEx (one pass instead of three); values unchanged."""
    x = of.placeholder(of.float32, [None, 5, 6, 3], name="x")
    cat = of.concat([x, of.nn.relu(x)], axis=3)
    if form == "keras":
        bn = _keras_frozen_bn(cat, rng, 6)
    else:
        stats = [rng.random(6, dtype=np.float32) + 0.5 for _ in range(4)]
        bn = of.raw_ops.FusedBatchNormV3(x=cat, scale=stats[0], offset=stats[1], mean=stats[2], variance=stats[3],
                                         epsilon=0.001, is_training=False)[0]
    y = of.nn.relu(bn, name="y")
    got, want, sess = run_both(graph, y, {x: rng.standard_normal((2, 5, 6, 3)).astype(np.float32)})
    assert_close(got, want, tol=1e-5)
    ops = optimized_ops(sess)
    assert ops["y"] == "_FusedBatchNormEx"
    values = list(ops.values())
    assert values.count("Relu") == 1  # the one inside the concat
    assert not {"Mul", "Add", "AddV2", "Sub", "FusedBatchNormV3"} & set(values)
    nd = optimized_graph(sess).get_operation_by_name("y")
    assert nd.get_attr("activation_mode") == "Relu" and nd.get_attr("is_training") is False


@pytest.mark.parametrize("case", ["broadcasting", "fetched_add", "no_relu"])
def test_scale_shift_that_is_not_a_batch_norm_relu_stays(graph, rng, case):
    x = of.placeholder(of.float32, [None, 4, 4, 1 if case == "broadcasting" else 3], name="x")
    c1 = rng.random(3, dtype=np.float32) + 0.5
    add = of.add(of.identity(x) * c1, rng.standard_normal(3).astype(np.float32), name="add")
    y = of.identity(add, name="y") if case == "no_relu" else of.nn.relu(add, name="y")
    fetches = [y, add] if case == "fetched_add" else y
    feed = {x: rng.standard_normal((2, 4, 4, 1 if case == "broadcasting" else 3)).astype(np.float32)}
    got, want, sess = run_both(graph, fetches, feed)
    assert_close(got, want)
    runs = optimized_graphs(sess)
    assert not runs or "_FusedBatchNormEx" not in [op.type for op in runs[0].get_operations()]


def test_fetched_intermediate_is_not_fused(graph, rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    pre = of.nn.bias_add(of.matmul(x, rng.standard_normal((3, 2)).astype(np.float32)),
                         np.ones(2, np.float32), name="pre")
    y = of.nn.relu(pre, name="y")
    got, want, sess = run_both(graph, [pre, y], {x: rng.standard_normal((4, 3)).astype(np.float32)})
    assert_close(got, want)
    ops = optimized_ops(sess)
    assert ops["y"] == "Relu"  # pre is fetched: Relu is not fused into it
    assert ops["pre"] == "_FusedMatMul"  # (MatMul + BiasAdd still fuse, keeping the name pre)
    assert optimized_graph(sess).get_operation_by_name("pre").get_attr("fused_ops") == ["BiasAdd"]


def test_variables_still_train(graph, rng):
    x = of.placeholder(of.float32, [None, 4, 4, 2], name="x")
    w = of.Variable(rng.standard_normal((3, 3, 2, 3)).astype(np.float32) * 0.3, name="w")
    b = of.Variable(np.zeros(3, np.float32), name="b")
    h = of.nn.relu(of.nn.bias_add(of.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    loss = of.reduce_mean(of.square(h - 1.0), name="loss")
    step = of.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = of.global_variables_initializer()
    data = {x: rng.standard_normal((2, 4, 4, 2)).astype(np.float32)}
    losses = {}
    for name, cfg in (("opt", None), ("plain", OFF)):
        sess = of.Session(graph=graph, config=cfg)
        sess.run(init)
        losses[name] = []
        for _ in range(3):
            losses[name].append(sess.run(loss, data))  # the optimized inference graph reads the
            sess.run(step, data)                       # variables the training step updates
    np.testing.assert_allclose(losses["opt"], losses["plain"], rtol=1e-5)
    assert losses["opt"][2] < losses["opt"][0]


@pytest.mark.parametrize("base", ["Conv2D", "MatMul"])
def test_training_step_fuses_variable_bias_and_relu(graph, rng, base):
    """`relu(conv(x, w) + b)` with b a variable (a TF1 training program's layer): the Add is a
    BiasAdd by its static shape, so the training step's forward pass runs _FusedConv2D /
    _FusedMatMul (ReluGrad reads the Relu's output, which the fused op gives), and the steps'
    losses and weights equal the unoptimized graph's."""
    if base == "Conv2D":
        x = of.placeholder(of.float32, [None, 5, 5, 2], name="x")
        w = of.Variable(rng.standard_normal((3, 3, 2, 4)).astype(np.float32) * 0.3, name="w")
        c = of.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        feed = rng.standard_normal((3, 5, 5, 2)).astype(np.float32)
    else:
        x = of.placeholder(of.float32, [None, 6], name="x")
        w = of.Variable(rng.standard_normal((6, 4)).astype(np.float32) * 0.3, name="w")
        c = of.matmul(x, w)
        feed = rng.standard_normal((3, 6)).astype(np.float32)
    b = of.Variable(rng.standard_normal(4).astype(np.float32) * 0.1, name="b")
    h = of.nn.relu(c + b, name="h")
    loss = of.reduce_mean(of.square(h - 0.5), name="loss")
    step = of.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    init = of.global_variables_initializer()
    results = {}
    for name, cfg in (("opt", None), ("plain", OFF)):
        sess = of.Session(graph=graph, config=cfg)
        sess.run(init)
        results[name] = [sess.run([loss, step], {x: feed})[0] for _ in range(4)] + list(sess.run([w, b]))
        if name == "opt":
            ops = [op for g in optimized_graphs(sess) for op in g.get_operations() if op.type.startswith("_Fused")]
    for got, want in zip(results["opt"], results["plain"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert results["opt"][3] < results["opt"][0]
    assert [(op.name, op.get_attr("fused_ops")) for op in ops] == [("h", ["BiasAdd", "Relu"])]


@pytest.mark.parametrize("case", ["broadcast_over_channels", "unknown_channels", "nchw"])
def test_variable_add_that_is_not_a_bias_stays(graph, rng, case):
    """A computed addend fuses only when its static shape says one value per output channel."""
    if case == "unknown_channels":  # the filter's output channels are not known statically
        x = of.placeholder(of.float32, [None, 4, 4, 2], name="x")
        wf = of.placeholder(of.float32, [3, 3, 2, None], name="wf")
        c = of.nn.conv2d(x, wf, [1, 1, 1, 1], "SAME")
        b = of.placeholder(of.float32, [3], name="b")
        feeds = {x: rng.standard_normal((1, 4, 4, 2)).astype(np.float32),
                 wf: rng.standard_normal((3, 3, 2, 3)).astype(np.float32), b: rng.standard_normal(3).astype(np.float32)}
    elif case == "nchw":  # a [C] vector adds along W in NCHW, not per channel
        x = of.placeholder(of.float32, [None, 2, 4, 4], name="x")
        c = of.raw_ops.Conv2D(input=x, filter=rng.standard_normal((3, 3, 2, 4)).astype(np.float32),
                              strides=[1, 1, 1, 1], padding="SAME", data_format="NCHW")
        b = of.placeholder(of.float32, [4], name="b")
        feeds = {x: rng.standard_normal((1, 2, 4, 4)).astype(np.float32), b: rng.standard_normal(4).astype(np.float32)}
    else:  # one value for every channel of a pixel: [H, W, 1]
        x = of.placeholder(of.float32, [None, 4, 4, 2], name="x")
        c = of.nn.conv2d(x, rng.standard_normal((3, 3, 2, 4)).astype(np.float32), [1, 1, 1, 1], "SAME")
        b = of.placeholder(of.float32, [4, 4, 1], name="b")
        feeds = {x: rng.standard_normal((1, 4, 4, 2)).astype(np.float32),
                 b: rng.standard_normal((4, 4, 1)).astype(np.float32)}
    y = of.nn.relu(c + b, name="y")
    got, want, sess = run_both(graph, [y], feeds)
    assert_close(got, want)
    assert not [op for g in optimized_graphs(sess) for op in g.get_operations() if op.type.startswith("_Fused")]


def test_runtime_error_names_the_users_node(graph):
    x = of.placeholder(of.float32, [None, None], name="x")
    y = of.nn.relu(of.nn.bias_add(of.matmul(x, np.ones((3, 2), np.float32)), np.ones(2, np.float32)), name="y")
    with pytest.raises(of.errors.OpError, match="y|MatMul"):
        of.Session(graph=graph).run(y, {x: np.ones((2, 5), np.float32)})
