"""The graph optimizer (runtime/src/optimizer, reached through opforge.framework.optimizer and
the Session): each pass on small hand-built graphs, values against the unoptimized graph,
preserved nodes, switches, failing passes, shared constants, random graphs, the CLI."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework import optimizer

OFF = tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=tf.RewriterConfig(disable_meta_optimizer=True)))


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=tf.RewriterConfig(**toggles)))


def optimized_graphs(sess):
    """The optimized graphs the session's plans run (as Graphs, for structural asserts)."""
    graphs = []
    for gd in sess._optimized_graph_defs():
        g = of.Graph()
        with g.as_default():
            of.import_graph_def(gd, name="")
        graphs.append(g)
    return graphs


def optimized_graph(sess):
    """The optimized graph the session built (for its one optimized run signature)."""
    runs = optimized_graphs(sess)
    assert len(runs) == 1, "the optimizer changed nothing"
    return runs[0]


def optimized_ops(sess):
    return {op.name: op.type for op in optimized_graph(sess).get_operations()}


def run_both(g, fetches, feeds, config=None):
    """(optimized values, unoptimized values, optimized session)."""
    sess = of.Session(graph=g, config=config)
    got = sess.run(fetches, feeds)
    want = of.Session(graph=g, config=OFF).run(fetches, feeds)
    return got, want, sess


def assert_close(got, want, tol=1e-4):
    for a, b in zip(got if isinstance(got, list) else [got], want if isinstance(want, list) else [want]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def optimize_graph(g, outputs, **kw):
    gd, report = optimizer.optimize(g.as_graph_def(add_shapes=True), preserve=outputs, fail_on_errors=True, **kw)
    return {nd.name: nd for nd in gd.node}, report


# ---------------------------------------------------------------------------- constant folding


def test_constant_folding_folds_const_subgraphs(graph, rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    c = of.exp(of.constant(rng.random(3, dtype=np.float32))) * 2.0 + 1.0
    y = of.multiply(x, c, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert sorted(nd.op for nd in nodes.values()) == ["Const", "Mul", "Placeholder"]
    feed = {x: rng.random((4, 3), dtype=np.float32)}
    got, want, _ = run_both(graph, y, feed)
    assert_close(got, want)


def test_constant_folding_never_folds_state_random_placeholders(graph, rng):
    v = of.Variable(np.ones(3, np.float32), name="v")
    r = of.random.normal([3], seed=1, name="r")
    p = of.placeholder(of.float32, [3], name="p")
    y = of.add(v * 2.0 + r, p * of.exp(of.constant(np.zeros(3, np.float32))), name="y")
    nodes, _ = optimize_graph(graph, ["y", "p"])
    ops = [nd.op for nd in nodes.values()]
    assert {"VariableV2", "RandomStandardNormal", "Placeholder"} <= set(ops) and "Exp" not in ops
    sess = of.Session(graph=graph)
    sess.run(of.global_variables_initializer())
    a, b = sess.run(y, {p: np.zeros(3, np.float32)}), sess.run(y, {p: np.zeros(3, np.float32)})
    assert not np.array_equal(a, b)  # the random op still draws anew each run
    np.testing.assert_allclose(sess.run(y, {p: np.ones(3, np.float32), r: np.zeros(3, np.float32)}), 3.0)


def test_fed_constant_is_not_folded(graph):
    c = of.constant(np.float32(2.0), name="c")
    y = of.multiply(c, 3.0, name="y")
    sess = of.Session(graph=graph)
    assert sess.run(y) == 6.0
    assert sess.run(y, {c: np.float32(5.0)}) == 15.0


# ---------------------------------------------------------------------------- arithmetic, CSE, dependency


def test_arithmetic_removes_neutral_operations(graph, rng):
    x = of.placeholder(of.float32, [2, 3], name="x")
    y = of.identity(((x * 1.0) + 0.0 - 0.0) / 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert sorted(nd.op for nd in nodes.values()) == ["Identity", "Placeholder"]
    got, want, _ = run_both(graph, y, {x: rng.random((2, 3), dtype=np.float32)})
    assert_close(got, want)


def test_arithmetic_keeps_broadcasting_constants(graph):
    x = of.placeholder(of.float32, [3], name="x")
    y = of.multiply(x, np.ones((2, 3), np.float32), name="y")  # broadcasts x to [2, 3]
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert nodes["y"].op == "Mul"


def test_common_subgraph_elimination(graph, rng):
    x = of.placeholder(of.float32, [4], name="x")
    a, b = of.exp(x * 2.0), of.exp(x * 2.0)
    y = of.add(a, b, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert [nd.op for nd in nodes.values()].count("Exp") == 1
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_dependency_optimization_prunes_identity_keeps_fetched_and_control(graph, rng):
    x = of.placeholder(of.float32, [4], name="x")
    inner = of.identity(of.identity(x * 2.0), name="inner")
    with graph.control_dependencies([inner]):
        gate = of.no_op(name="gate")
    y = of.identity(of.snapshot(inner) if hasattr(of, "snapshot") else inner, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x", "gate"])
    assert "y" in nodes and nodes["y"].op == "Identity"
    assert "inner" in nodes  # the source of a control edge stays
    assert "gate" in nodes and "^inner" in nodes["gate"].input
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_control_edges_from_constants_are_dropped(graph, rng):
    """A frozen TF2 graph's output Identity waits on one Identity(Const) per variable read:
    those edges go, and the nodes only they read; an edge from a computed value stays."""
    x = of.placeholder(of.float32, [4], name="x")
    read = of.identity(of.identity(of.constant(np.float32(3.0), name="w")), name="read")
    computed = of.identity(x * 2.0, name="computed")
    with graph.control_dependencies([read, computed]):
        y = of.identity(x + 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert "^read" not in nodes["y"].input and "^computed" in nodes["y"].input
    assert "read" not in nodes and "w" not in nodes
    got, want, _ = run_both(graph, y, {x: rng.random(4, dtype=np.float32)})
    assert_close(got, want)


def test_identity_reading_a_variable_is_kept(graph):
    v = of.Variable(np.float32(1.0), name="v")
    read = of.identity(v, name="read")
    y = of.multiply(read, 2.0, name="y")
    nodes, _ = optimize_graph(graph, ["y"])
    assert nodes["read"].op == "Identity"


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
    got, _, sess = run_both(graph, y, feed, _config(constant_folding=tf.RewriterConfig.OFF))
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
}


def _apply(name, t):
    if name is None:
        return t
    if name == "_MklSwish":
        return t * of.sigmoid(t)
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


def test_runtime_error_names_the_users_node(graph):
    x = of.placeholder(of.float32, [None, None], name="x")
    y = of.nn.relu(of.nn.bias_add(of.matmul(x, np.ones((3, 2), np.float32)), np.ones(2, np.float32)), name="y")
    with pytest.raises(of.errors.OpError, match="y|MatMul"):
        of.Session(graph=graph).run(y, {x: np.ones((2, 5), np.float32)})


# ---------------------------------------------------------------------------- switches


PASS_PROBES = {
    "constant_folding": lambda nodes: "Exp" in {nd.op for nd in nodes.values()},
    "arithmetic_optimization": lambda nodes: any(nd.op == "Mul" for nd in nodes.values()),
    "dependency_optimization": lambda nodes: sum(nd.op == "Identity" for nd in nodes.values()) > 1,
    "remapping": lambda nodes: not any(nd.op.startswith("_Fused") for nd in nodes.values()),
    "common_subgraph_elimination": lambda nodes: sum(nd.op == "Tanh" for nd in nodes.values()) == 2,
}


def _probe_graph(rng):
    x = of.placeholder(of.float32, [2, 3], name="x")
    k = of.exp(of.constant(rng.random(3, dtype=np.float32)))                # constant folding
    h = of.identity(of.identity(x * 1.0))                                   # arithmetic, dependency
    m = of.nn.relu(of.nn.bias_add(of.matmul(h, rng.random((3, 3), dtype=np.float32)), k))  # remapping
    return of.identity(of.tanh(m) + of.tanh(m), name="y")                  # CSE


@pytest.mark.parametrize("name", list(PASS_PROBES))
def test_each_pass_switches_off(graph, rng, name):
    y = _probe_graph(rng)
    on, _ = optimize_graph(graph, ["y", "x"])
    assert not PASS_PROBES[name](on)
    off, report = optimize_graph(graph, ["y", "x"], config=_config(**{name: tf.RewriterConfig.OFF}))
    assert PASS_PROBES[name](off)
    assert name not in [r.name for r in report]
    feed = {"x:0": rng.random((2, 3), dtype=np.float32)}
    assert_close(of.Session(graph=graph, config=_config(**{name: tf.RewriterConfig.OFF})).run(y, feed),
                 of.Session(graph=graph, config=OFF).run(y, feed))


def test_experimental_options_and_disable(graph, rng):
    y = _probe_graph(rng)
    try:
        of.config.optimizer.set_experimental_options({"remapping": False})
        nodes, _ = optimize_graph(graph, ["y", "x"])
        assert PASS_PROBES["remapping"](nodes)
        with pytest.raises(ValueError, match="unknown graph optimizer option"):
            of.config.optimizer.set_experimental_options({"remaping": False})
    finally:
        of.config.optimizer._experimental.clear()
    sess = of.Session(graph=graph, config=OFF)
    sess.run(y, {"x:0": np.ones((2, 3), np.float32)})
    assert sess._optimized_graph_defs() == [] and sess._c.cached_plans == 1


# ---------------------------------------------------------------------------- random graphs


def _random_graph(rng):
    """A random DAG of elementwise ops, matmuls and convs over a placeholder and constants."""
    x = of.placeholder(of.float32, [2, 4, 4, 3], name="x")
    pool = [x]
    for _ in range(int(rng.integers(6, 14))):
        t = pool[int(rng.integers(len(pool)))]
        kind = rng.integers(9)
        c = lambda *s: of.constant(rng.standard_normal(s).astype(np.float32) * 0.5)  # noqa: E731
        ch = 3
        if kind == 0:
            t = of.nn.conv2d(t, c(3, 3, ch, ch), [1, 1, 1, 1], "SAME")
        elif kind == 1:
            t = of.raw_ops.DepthwiseConv2dNative(input=t, filter=c(3, 3, ch, 1), strides=[1, 1, 1, 1], padding="SAME")
        elif kind == 2:
            t = of.reshape(of.matmul(of.reshape(t, [-1, ch]), c(ch, ch)), [2, 4, 4, ch])
        elif kind == 3:
            t = of.nn.bias_add(t, c(ch))
        elif kind == 4:
            t = t * (c(ch) * 2.0 + 1.0)
        elif kind == 5:
            t = t + pool[int(rng.integers(len(pool)))]
        elif kind == 6:
            t = [of.nn.relu, of.tanh, of.sigmoid, of.nn.relu6, of.nn.elu][int(rng.integers(5))](t)
        elif kind == 7:
            t = of.identity(t) * 1.0
        else:
            t = t * of.sigmoid(t)
        pool.append(t)
    return x, of.identity(pool[-1] + pool[int(rng.integers(1, len(pool)))], name="y")


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_optimized_equal_unoptimized(graph, seed):
    rng = np.random.default_rng(seed)
    x, y = _random_graph(rng)
    feed = {x: rng.standard_normal((2, 4, 4, 3)).astype(np.float32)}
    got, want, _ = run_both(graph, y, feed)
    assert_close(got, want, tol=1e-3)


# ---------------------------------------------------------------------------- TF-written GraphDefs and the CLI


def test_tensorflow_fused_conv_graph_def_imports_and_runs(rng):
    """A _FusedConv2D node spelled as TensorFlow's Grappler writes it (TArgs, num_host_args,
    filter_format) imports and runs."""
    from opforge.framework.graph_def import GraphDef, tensor_to_proto
    w = rng.standard_normal((1, 1, 2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    gd = GraphDef()
    for name, value in (("w", w), ("b", b)):
        nd = gd.node.add(name=name, op="Const")
        tensor_to_proto(of.constant(value), nd.attr["value"].tensor)
        nd.attr["dtype"].type = 1
    nd = gd.node.add(name="x", op="Placeholder")
    nd.attr["dtype"].type = 1
    nd = gd.node.add(name="y", op="_FusedConv2D", input=["x", "w", "b"])
    nd.attr["T"].type = 1
    nd.attr["TArgs"].list.type.append(1)
    nd.attr["num_args"].i = 1
    nd.attr["num_host_args"].i = 0
    nd.attr["strides"].list.i.extend([1, 1, 1, 1])
    nd.attr["padding"].s = b"VALID"
    nd.attr["data_format"].s = b"NHWC"
    nd.attr["filter_format"].s = b"HWIO"
    nd.attr["fused_ops"].list.s.extend([b"BiasAdd", b"Relu"])
    nd.attr["epsilon"].f = 0.0
    nd.attr["leakyrelu_alpha"].f = 0.2
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(gd, name="")
    xv = rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
    got = of.Session(graph=g).run("y:0", {"x:0": xv})
    np.testing.assert_allclose(got, np.maximum(xv @ w[0, 0] + b, 0), rtol=1e-5, atol=1e-5)


def test_cli_optimize(tmp_path, rng, capsys):
    from opforge.codegen import cli
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        y = of.nn.relu(of.matmul(x, rng.random((3, 2), dtype=np.float32)) + of.constant(np.ones(2, np.float32)),
                       name="y")
    src = tmp_path / "in.pb"
    src.write_bytes(g.as_graph_def().SerializeToString())
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "out.pb")]) == 0
    out = capsys.readouterr().out
    assert "remapping" in out and "nodes before" in out
    gd = of.GraphDef()
    gd.ParseFromString((tmp_path / "out.pb").read_bytes())
    assert {nd.name: nd.op for nd in gd.node}["y"] == "_FusedMatMul"
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "o2.pbtxt"), "--disable", "remapping",
                     "--outputs", "y"]) == 0
    assert "_Fused" not in (tmp_path / "o2.pbtxt").read_text()
    assert cli.main(["optimize", str(src), "-o", str(tmp_path / "o3.pb"), "--disable", "remaping"]) == 2
    assert "unknown pass" in capsys.readouterr().err


# ---------------------------------------------------------------------------- failures, constants, imports


@pytest.fixture
def failing_pass():
    """Makes the named C++ pass fail as it starts (the runtime's testing hook)."""
    def fail(name):
        of._C._testing.set_failing_optimizer_pass(name)
    yield fail
    of._C._testing.set_failing_optimizer_pass("")


def _bias_relu_graph(rng):
    x = of.placeholder(of.float32, [None, 3], name="x")
    w = of.constant(rng.standard_normal((3, 2)).astype(np.float32), name="w")
    k = of.exp(of.constant(rng.random(2, dtype=np.float32)))  # folded by constant folding
    return x, of.nn.relu(of.nn.bias_add(of.matmul(x, w), k), name="y")


def test_failing_pass_is_reported_by_a_warning_naming_it(graph, rng, failing_pass):
    x, y = _bias_relu_graph(rng)
    failing_pass("remapping")
    feed = {x: rng.standard_normal((4, 3)).astype(np.float32)}
    sess = of.Session(graph=graph)
    with pytest.warns(RuntimeWarning, match="pass 'remapping' failed.*injected failure") as caught:
        got = sess.run(y, feed)
    assert caught[0].filename == __file__  # the warning points at the run
    assert_close(got, of.Session(graph=graph, config=OFF).run(y, feed))
    # The graph stays as the passes before made it: folded, not fused.
    ops = optimized_ops(sess)
    assert ops["y"] == "Relu" and "Exp" not in ops.values()
    # optimize() over a GraphDef reports it the same way, and in its report.
    with pytest.warns(RuntimeWarning, match="'remapping'"):
        gd, report = optimizer.optimize(graph.as_graph_def(), preserve=["y", "x"])
    assert [r.name for r in report if r.error] == ["remapping"]
    assert "_FusedMatMul" not in {nd.op for nd in gd.node}


@pytest.mark.parametrize("how", ["rewriter_config", "dict", "environment", "optimize"])
def test_failing_pass_raises_under_fail_on_optimizer_errors(graph, rng, failing_pass, monkeypatch, how):
    x, y = _bias_relu_graph(rng)
    failing_pass("constant_folding")
    feed = {x: np.ones((2, 3), np.float32)}
    with pytest.raises(of.errors.OpError, match="pass 'constant_folding' failed"):
        if how == "optimize":
            optimizer.optimize(graph.as_graph_def(), preserve=["y", "x"], fail_on_errors=True)
        elif how == "environment":
            monkeypatch.setenv("OPFORGE_OPTIMIZER_ERRORS", "raise")
            of.Session(graph=graph).run(y, feed)
        else:
            config = (_config(fail_on_optimizer_errors=True) if how == "rewriter_config"
                      else {"fail_on_optimizer_errors": True})
            of.Session(graph=graph, config=config).run(y, feed)


def test_optimized_graph_shares_the_users_constants(graph, rng):
    """One copy of every constant: a weight the optimizer leaves alone is the user graph's own
    buffer in the optimized graph; a folded result is a new tensor."""
    x, y = _bias_relu_graph(rng)
    sess = of.Session(graph=graph)
    sess.run(y, {x: np.ones((2, 3), np.float32)})
    (c_graph,) = sess._c.optimized_graphs()
    infos = {info["name"]: info for info in (c_graph.node_info(i) for i in range(c_graph.num_nodes))}
    user_w = graph.get_operation_by_name("w").get_attr("value")
    assert infos["w"]["attrs"]["value"]._shares_buffer_with(user_w)
    folded = [info for info in infos.values() if info["op"] == "Const" and info["name"] != "w"]
    assert len(folded) == 1 and not folded[0]["attrs"]["value"]._shares_buffer_with(user_w)
    assert infos["y"]["op"] == "_FusedMatMul"


def test_the_optimizer_does_not_import_session():
    """No import cycle through the optimizer: its Python face never imports the Session (the
    passes run kernels directly, in C++)."""
    import ast
    import pathlib
    for path in (pathlib.Path(optimizer.__file__),):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n.split(".")[-1] == "session" for n in names), (path.name, names)


def test_neutral_operation_that_is_a_control_source_stays(graph, rng):
    """x * 1 whose node others wait on (a control edge) is kept: waiting on it means something.
    (The pass must also finish: it reports no rewrite for it.)"""
    x = of.placeholder(of.float32, [3], name="x")
    m = of.multiply(x, 1.0, name="m")
    with graph.control_dependencies([m]):
        y = of.identity(x + 2.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert nodes["m"].op == "Mul" and "^m" in nodes["y"].input
    got, want, _ = run_both(graph, y, {x: rng.random(3, dtype=np.float32)})
    assert_close(got, want)


def test_folded_batch_norm_mul_that_is_a_control_source_becomes_identity(graph, rng):
    x = of.placeholder(of.float32, [None, 4], name="x")
    mm = of.matmul(x, rng.standard_normal((4, 3)).astype(np.float32))
    scaled = of.multiply(mm, rng.random(3, dtype=np.float32) + 0.5, name="scaled")
    with graph.control_dependencies([scaled]):
        y = of.identity(of.nn.relu(scaled) + 1.0, name="y")
    nodes, _ = optimize_graph(graph, ["y", "x"])
    assert nodes["scaled"].op in ("Identity", "_FusedMatMul") and "^scaled" in nodes["y"].input
    got, want, _ = run_both(graph, y, {x: rng.standard_normal((2, 4)).astype(np.float32)})
    assert_close(got, want)


def test_unknown_pass_name_is_refused_by_the_runtime(graph):
    with pytest.raises(ValueError, match="unknown graph optimizer pass 'constfold'"):
        of.Session(graph=graph)._c.set_optimizer(["constfold"])


def test_loop_graph_runs_optimized(graph):
    """A while loop (Merge <- NextIteration back edge) goes through the optimizer's rebuild."""
    i0 = of.placeholder(of.int32, [], name="i0")
    k = of.exp(of.constant(np.float32(0.0)))  # folded: the loop body reads a constant 1.0
    _, acc = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a + k), [i0, of.constant(np.float32(0.0))])
    y = of.identity(acc, name="y")
    sess = of.Session(graph=graph)
    assert sess.run(y, {i0: np.int32(1)}) == 4.0
    assert sess.run(y, {i0: np.int32(1)}) == of.Session(graph=graph, config=OFF).run(y, {i0: np.int32(1)})
    ops = optimized_ops(sess)
    assert "Merge" in ops.values() and "Exp" not in ops.values()
