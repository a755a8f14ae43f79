"""Every op with a GPU kernel, on the GPU, against the CPU result on the same random data
(float32: rtol 1e-5; reductions: 1e-4). Parameterized over the devices of this machine; the
GPU cases skip cleanly without a GPU. test_table_covers_every_gpu_kernel runs wherever a
backend library is built and fails when an op gains a GPU kernel without a row here."""

import numpy as np
import pytest

import opforge as of
from opforge import _C

HAS_GPU = of.config.num_gpus() > 0
DEVICES = ["/cpu:0", pytest.param("/gpu:0", marks=pytest.mark.skipif(not HAS_GPU, reason="no GPU"))]
rng = np.random.default_rng(5)

F32, F64, F16, BF16, I32, I64 = "float32", "float64", "float16", "bfloat16", "int32", "int64"


def rand(shape, dtype=F32, low=-2.0, high=2.0):
    if dtype in (I32, I64):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    arr = rng.uniform(low, high, size=shape)
    return of.constant(arr.astype(np.float32), dtype=of.as_dtype(dtype)).numpy() if dtype in (F16, BF16) \
        else arr.astype(dtype)


def positive(shape, dtype=F32):
    return rand(shape, dtype, 0.1, 3.0)


# (case id, op, kwargs builder, rtol). Arrays become CPU tensors; on the GPU the op copies
# them over (shape-like args stay on the host as the kernel declares).
UNARY = ["Abs", "Neg", "Square", "Exp", "Tanh", "Sigmoid", "Relu"]
BINARY = ["AddV2", "Sub", "Mul", "Maximum", "Minimum", "Equal", "Less", "Greater"]


def unary_case(case_id, op, make, rtol):
    arg = "features" if op in ("Relu", "Relu6") else "x"
    return (case_id, op, lambda: {arg: make()}, rtol)


CASES = []
for op in UNARY:
    CASES.append(unary_case(f"{op}-f32", op, lambda: rand((1027,)), 1e-5))
    CASES.append(unary_case(f"{op}-f64", op, lambda: rand((4, 33), F64), 1e-5))
CASES += [
    unary_case("Log-f32", "Log", lambda: positive((1001,)), 1e-5),
    unary_case("Sqrt-f32", "Sqrt", lambda: positive((3, 7, 5)), 1e-5),
    unary_case("Abs-i32", "Abs", lambda: rand((65,), I32), 0),
    unary_case("Neg-f16", "Neg", lambda: rand((70,), F16), 1e-3),
    unary_case("Relu-bf16", "Relu", lambda: rand((70,), BF16), 1e-2),
]
for op in BINARY:
    CASES.append((f"{op}-same", op, lambda: {"x": rand((1031,)), "y": rand((1031,))}, 1e-5))
    CASES.append((f"{op}-bcast", op, lambda: {"x": rand((3, 4, 5)), "y": rand((4, 1))}, 1e-5))
    CASES.append((f"{op}-scalar-i64", op, lambda: {"x": rand((2, 9), I64), "y": rand((), I64)}, 0))
CASES += [
    ("RealDiv-bcast", "RealDiv", lambda: {"x": rand((5, 6)), "y": positive((6,))}, 1e-5),
    ("RealDiv-f16", "RealDiv", lambda: {"x": rand((40,), F16), "y": positive((40,), F16)}, 1e-3),
    ("Pow", "Pow", lambda: {"x": positive((8, 8)), "y": rand((8,))}, 1e-5),
    ("AddV2-bf16", "AddV2", lambda: {"x": rand((3, 50), BF16), "y": rand((50,), BF16)}, 1e-2),
    ("AddV2-middle-bcast", "AddV2", lambda: {"x": rand((2, 1, 6, 3)), "y": rand((5, 1, 3))}, 1e-5),
    ("Equal-bool", "Equal", lambda: {"x": rand((33,), "bool"), "y": rand((33,), "bool")}, 0),
    ("AddN", "AddN", lambda: {"inputs": [rand((4, 9)) for _ in range(3)]}, 1e-5),
    ("AddN-one", "AddN", lambda: {"inputs": [rand((4, 9))]}, 0),
    ("Cast-f32-i32", "Cast", lambda: {"x": rand((100,)) * 10, "DstT": of.int32}, 0),
    ("Cast-f32-f16", "Cast", lambda: {"x": rand((100,)), "DstT": of.float16}, 0),
    ("Cast-f32-bf16", "Cast", lambda: {"x": rand((100,)), "DstT": of.bfloat16}, 0),
    ("Cast-i64-f64", "Cast", lambda: {"x": rand((100,), I64), "DstT": of.float64}, 0),
    ("Cast-f32-bool", "Cast", lambda: {"x": np.array([0.0, 1.5, -0.0, 3.0], np.float32), "DstT": of.bool}, 0),
    ("Cast-bool-f32", "Cast", lambda: {"x": rand((17,), "bool"), "DstT": of.float32}, 0),
    ("Fill", "Fill", lambda: {"dims": np.array([3, 4], np.int32), "value": np.float32(2.5)}, 0),
    ("Fill-i64", "Fill", lambda: {"dims": np.array([5], np.int64), "value": np.int64(-7)}, 0),
    ("OnesLike", "OnesLike", lambda: {"x": rand((3, 5))}, 0),
    ("OnesLike-bf16", "OnesLike", lambda: {"x": rand((3, 5), BF16)}, 0),
    ("ZerosLike", "ZerosLike", lambda: {"x": rand((3, 5), F64)}, 0),
    ("Identity", "Identity", lambda: {"input": rand((4, 4))}, 0),
    ("Reshape", "Reshape", lambda: {"tensor": rand((4, 6)), "shape": np.array([3, -1], np.int32)}, 0),
    ("Shape", "Shape", lambda: {"input": rand((4, 6, 2))}, 0),
    ("Size", "Size", lambda: {"input": rand((4, 6))}, 0),
    ("Rank", "Rank", lambda: {"input": rand((4, 6))}, 0),
    ("Transpose-2d", "Transpose", lambda: {"x": rand((33, 17)), "perm": np.array([1, 0], np.int32)}, 0),
    ("Transpose-3d", "Transpose", lambda: {"x": rand((3, 4, 5)), "perm": np.array([2, 0, 1], np.int32)}, 0),
    ("Transpose-merge", "Transpose", lambda: {"x": rand((2, 3, 4, 5), F16), "perm": np.array([2, 3, 0, 1])}, 0),
    ("Transpose-noop", "Transpose", lambda: {"x": rand((2, 1, 3)), "perm": np.array([1, 0, 2])}, 0),
    ("MatMul", "MatMul", lambda: {"a": rand((33, 20)), "b": rand((20, 17))}, 1e-5),
    ("MatMul-ta", "MatMul", lambda: {"a": rand((20, 33)), "b": rand((20, 17)), "transpose_a": True}, 1e-5),
    ("MatMul-tb", "MatMul", lambda: {"a": rand((33, 20)), "b": rand((17, 20)), "transpose_b": True}, 1e-5),
    ("MatMul-tab-f64", "MatMul", lambda: {"a": rand((20, 9), F64), "b": rand((5, 20), F64),
                                          "transpose_a": True, "transpose_b": True}, 1e-5),
    ("MatMul-bf16", "MatMul", lambda: {"a": rand((16, 32), BF16), "b": rand((32, 8), BF16)}, 2e-2),
    ("MatMul-empty-k", "MatMul", lambda: {"a": rand((3, 0)), "b": rand((0, 4))}, 0),
]
# The convolutional model ops (conv.cu, nn.cu): every geometry path (pointwise GEMM, im2col,
# strides, dilations, SAME/VALID/EXPLICIT padding, groups, NCHW) and every epilogue form.
def conv_case(case_id, op, x_shape, f_shape, rtol=1e-4, dtype=F32, **attrs):
    def build():
        kw = {"input": rand(x_shape, dtype), "filter": rand(f_shape, dtype), **attrs}
        kw.setdefault("strides", [1, 1, 1, 1])
        kw.setdefault("padding", "SAME")
        return kw
    return (case_id, op, build, rtol)


def fused_args(kind, channels, dtype=F32):
    if kind == "BiasAdd":
        return [rand((channels,), dtype)]
    return [rand((channels,), dtype), rand((channels,), dtype), rand((channels,), dtype),
            positive((channels,), dtype)]  # scale, offset, mean, variance


def fused_conv_case(case_id, x_shape, f_shape, fused_ops, **attrs):
    def build():
        kw = {"input": rand(x_shape), "filter": rand(f_shape), "args": fused_args(fused_ops[0], f_shape[3]),
              "host_args": [], "fused_ops": fused_ops, "num_args": 1 if fused_ops[0] == "BiasAdd" else 4,
              "strides": [1, 1, 1, 1], "padding": "SAME", "epsilon": 1e-3, **attrs}
        return kw
    return (case_id, "_FusedConv2D", build, 1e-4)


def fused_depthwise_case(case_id, x_shape, f_shape, fused_ops, **attrs):
    def build():
        kw = {"input": rand(x_shape), "filter": rand(f_shape),
              "args": fused_args(fused_ops[0], f_shape[2] * f_shape[3]), "fused_ops": fused_ops,
              "strides": [1, 1, 1, 1], "padding": "SAME", "epsilon": 1e-3, **attrs}
        return kw
    return (case_id, "_FusedDepthwiseConv2dNative", build, 1e-4)


CASES += [
    conv_case("Conv2D-1x1", "Conv2D", (2, 7, 9, 16), (1, 1, 16, 24)),
    conv_case("Conv2D-3x3-same", "Conv2D", (2, 11, 10, 5), (3, 3, 5, 7)),
    conv_case("Conv2D-7x7-s2", "Conv2D", (1, 23, 23, 3), (7, 7, 3, 8), strides=[1, 2, 2, 1]),
    conv_case("Conv2D-1x1-s2-valid", "Conv2D", (2, 9, 9, 6), (1, 1, 6, 4), strides=[1, 2, 2, 1], padding="VALID"),
    conv_case("Conv2D-dilated", "Conv2D", (1, 12, 12, 4), (3, 3, 4, 5), dilations=[1, 2, 2, 1]),
    conv_case("Conv2D-explicit", "Conv2D", (1, 8, 8, 3), (3, 3, 3, 4), padding="EXPLICIT",
              explicit_paddings=[0, 0, 2, 1, 0, 3, 0, 0]),
    conv_case("Conv2D-groups", "Conv2D", (2, 6, 6, 8), (3, 3, 2, 12)),
    conv_case("Conv2D-nchw", "Conv2D", (2, 5, 8, 7), (3, 3, 5, 6), data_format="NCHW", strides=[1, 1, 2, 1]),
    conv_case("Conv2D-f64", "Conv2D", (1, 6, 6, 3), (3, 3, 3, 4), dtype=F64, rtol=1e-10),
    conv_case("Conv2D-bf16", "Conv2D", (1, 6, 6, 8), (3, 3, 8, 8), dtype=BF16, rtol=3e-2),
    fused_conv_case("_FusedConv2D-bias-relu", (2, 8, 8, 6), (3, 3, 6, 10), ["BiasAdd", "Relu"]),
    fused_conv_case("_FusedConv2D-bn-relu6", (1, 9, 9, 4), (1, 1, 4, 8), ["FusedBatchNorm", "Relu6"]),
    fused_conv_case("_FusedConv2D-bias", (1, 9, 9, 4), (3, 3, 4, 5), ["BiasAdd"], strides=[1, 2, 2, 1]),
    fused_conv_case("_FusedConv2D-swish", (1, 6, 6, 4), (3, 3, 4, 5), ["BiasAdd", "_MklSwish"]),
    fused_conv_case("_FusedConv2D-hard-swish", (1, 6, 6, 4), (3, 3, 4, 5), ["BiasAdd", "_FusedHardSwish"]),
    ("_FusedMatMul-bias-relu", "_FusedMatMul", lambda: {"a": rand((9, 20)), "b": rand((20, 13)),
                                                        "args": [rand((13,))], "fused_ops": ["BiasAdd", "Relu"]}, 1e-5),
    ("_FusedMatMul-tb-tanh", "_FusedMatMul", lambda: {"a": rand((5, 20)), "b": rand((7, 20)), "transpose_b": True,
                                                      "args": [rand((7,))], "fused_ops": ["BiasAdd", "Tanh"]}, 1e-5),
    conv_case("DepthwiseConv2dNative", "DepthwiseConv2dNative", (2, 9, 9, 6), (3, 3, 6, 1)),
    conv_case("DepthwiseConv2dNative-mult-s2", "DepthwiseConv2dNative", (1, 10, 11, 4), (3, 3, 4, 2),
              strides=[1, 2, 2, 1], padding="VALID"),
    conv_case("DepthwiseConv2dNative-nchw", "DepthwiseConv2dNative", (1, 5, 7, 7), (5, 5, 5, 1),
              data_format="NCHW"),
    conv_case("DepthwiseConv2dNative-dilated-f64", "DepthwiseConv2dNative", (1, 9, 9, 3), (3, 3, 3, 1), dtype=F64,
              dilations=[1, 2, 2, 1], rtol=1e-10),
    fused_depthwise_case("_FusedDepthwiseConv2dNative-bn-relu6", (2, 8, 8, 5), (3, 3, 5, 1),
                         ["FusedBatchNorm", "Relu6"]),
    fused_depthwise_case("_FusedDepthwiseConv2dNative-bias", (1, 8, 8, 3), (3, 3, 3, 2), ["BiasAdd"],
                         strides=[1, 2, 2, 1]),
    ("BiasAdd", "BiasAdd", lambda: {"value": rand((4, 5, 6)), "bias": rand((6,))}, 1e-6),
    ("BiasAdd-nchw", "BiasAdd", lambda: {"value": rand((2, 3, 4, 5)), "bias": rand((3,)), "data_format": "NCHW"}, 1e-6),
    unary_case("Relu6-f32", "Relu6", lambda: rand((1001,)) * 5, 0),
    ("MaxPool", "MaxPool", lambda: {"input": rand((2, 9, 9, 5)), "ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1],
                                    "padding": "SAME"}, 0),
    ("MaxPool-valid-nchw", "MaxPool", lambda: {"input": rand((1, 3, 8, 8)), "ksize": [1, 1, 2, 2],
                                               "strides": [1, 1, 2, 2], "padding": "VALID",
                                               "data_format": "NCHW"}, 0),
    ("AvgPool-same", "AvgPool", lambda: {"value": rand((2, 7, 7, 4)), "ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1],
                                         "padding": "SAME"}, 1e-6),
    ("AvgPool-valid", "AvgPool", lambda: {"value": rand((1, 8, 8, 3), F64), "ksize": [1, 2, 2, 1],
                                          "strides": [1, 2, 2, 1], "padding": "VALID"}, 1e-12),
    ("Pad", "Pad", lambda: {"input": rand((2, 3, 4)), "paddings": np.array([[0, 1], [2, 0], [1, 1]], np.int32)}, 0),
    ("Pad-i64", "Pad", lambda: {"input": rand((3, 5), I64), "paddings": np.array([[1, 1], [0, 2]], np.int64)}, 0),
    ("PadV2", "PadV2", lambda: {"input": rand((2, 3)), "paddings": np.array([[1, 0], [0, 2]], np.int32),
                                "constant_values": np.float32(-1.5)}, 0),
    ("ConcatV2-last", "ConcatV2", lambda: {"values": [rand((2, 3, 4)), rand((2, 3, 1)), rand((2, 3, 5))],
                                           "axis": np.int32(-1)}, 0),
    ("ConcatV2-first-i32", "ConcatV2", lambda: {"values": [rand((2, 3), I32), rand((4, 3), I32)],
                                                "axis": np.int32(0)}, 0),
    ("Squeeze", "Squeeze", lambda: {"input": rand((2, 1, 3, 1)), "axis": [1]}, 0),
    ("ExpandDims", "ExpandDims", lambda: {"input": rand((2, 3)), "axis": np.int32(1)}, 0),
]

# Ops whose opdefs may land after the GPU kernels (the kernels are keyed by op name).
OPS = set(_C.op_names())
for name in ("Softmax", "LogSoftmax"):
    if name in OPS:
        CASES += [
            (f"{name}-rows", name, lambda: {"logits": rand((7, 300)) * 5}, 1e-5),
            (f"{name}-3d-f64", name, lambda: {"logits": rand((2, 3, 9), F64)}, 1e-5),
            (f"{name}-f16", name, lambda: {"logits": rand((4, 33), F16)}, 1e-2),
        ]
for name in ("BatchMatMul", "BatchMatMulV2"):
    if name in OPS:
        CASES += [
            (f"{name}", name, lambda: {"x": rand((3, 5, 7)), "y": rand((3, 7, 4))}, 1e-5),
            (f"{name}-adj", name, lambda: {"x": rand((2, 7, 5)), "y": rand((2, 4, 7)), "adj_x": True,
                                           "adj_y": True}, 1e-5),
        ]
        if name == "BatchMatMulV2":
            CASES += [
                (f"{name}-bcast", name, lambda: {"x": rand((2, 1, 5, 7)), "y": rand((3, 7, 4))}, 1e-5),
                (f"{name}-bcast-one", name, lambda: {"x": rand((5, 7)), "y": rand((2, 3, 7, 4))}, 1e-5),
            ]
REDUCE_INPUTS = [
    ("all", (4, 5, 6), None, False),
    ("row", (7, 300), [1], False),
    ("col", (300, 7), [0], True),
    ("middle", (3, 50, 4), [1], False),
    ("scattered", (3, 4, 5, 6), [0, 2], True),
    ("neg-axis", (6, 5), [-1], False),
    ("size1", (4, 1, 3), [1], False),
    ("long-two-pass", (2, 70000), [1], False),
    ("full-two-pass", (140000,), [0], False),
]
for op in ("Sum", "Mean", "Max"):
    for name, shape, axes, keep in REDUCE_INPUTS:
        CASES.append((f"{op}-{name}", op, (lambda shape=shape, axes=axes, keep=keep: {
            "input": rand(shape),
            "axis": np.arange(len(shape), dtype=np.int32) if axes is None else np.array(axes, np.int32),
            "keep_dims": keep}), 1e-4))
    CASES.append((f"{op}-i64", op, lambda: {"input": rand((6, 7), I64), "axis": np.array([0], np.int32)}, 0))
    CASES.append((f"{op}-f16", op, lambda: {"input": rand((6, 7), F16), "axis": np.array([1], np.int32)}, 1e-2))


def _tensors(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, np.ndarray) or isinstance(v, np.generic):
            out[k] = of.constant(np.asarray(v))
        elif isinstance(v, list) and v and all(isinstance(a, np.ndarray) for a in v):
            out[k] = [of.constant(a) for a in v]  # a list input (attr lists stay as they are)
        else:
            out[k] = v
    return out


def _run(op, kwargs, device):
    kwargs = dict(kwargs)  # raw_ops take TensorFlow's names (Sum's `axis`)
    with of.device(device):
        out = getattr(of.raw_ops, op)(**_tensors(kwargs))
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case_id,op,build,rtol", CASES, ids=[c[0] for c in CASES])
def test_op_matches_cpu(case_id, op, build, rtol, device):
    kwargs = build()
    want = _run(op, kwargs, "/cpu:0")
    got = _run(op, kwargs, device)
    if device != "/cpu:0" and op not in ("Shape", "Size", "Rank"):
        assert got.device == "/device:GPU:0", (op, got.device)
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    if rtol == 0 or g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=rtol)


def test_table_covers_every_gpu_kernel():
    covered = {c[1] for c in CASES}
    with_gpu = [op for op in _C.op_names() if "GPU" in _C.kernel_devices(op)]
    if not with_gpu:
        pytest.skip("no GPU backend library in this build")
    assert sorted(set(with_gpu) - covered) == []


# ---- device behaviour that needs a GPU

needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="no GPU")


@needs_gpu
def test_round_trip_and_placement():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = of.constant(x).gpu()
    assert g.device == "/device:GPU:0"
    np.testing.assert_array_equal(g.numpy(), x)       # .numpy() copies back
    np.testing.assert_array_equal(g.cpu().numpy(), x)
    assert g.to("/gpu:0")._shares_buffer_with(g)
    y = g + 1.0                                           # no scope: runs where its input is
    assert y.device == "/device:GPU:0"
    np.testing.assert_array_equal(np.asarray(y), x + 1)
    with of.device("/gpu:0"):
        c = of.constant([1.0, 2.0])
        assert c.device == "/device:GPU:0"
    with of.device("/cpu:0"):
        z = of.add(g, g)                                  # copied back to the CPU
    assert z.device == "/device:CPU:0"


@needs_gpu
def test_reshape_shares_device_buffer_and_shape_stays_on_host():
    g = of.constant(np.arange(6, dtype=np.float32)).gpu()
    r = of.reshape(g, [2, 3])
    assert r.device == "/device:GPU:0" and r._shares_buffer_with(g)
    s = of.raw_ops.Shape(input=g)
    assert s.device == "/device:CPU:0"


@needs_gpu
def test_caching_allocator_reuses_blocks():
    of.config.synchronize()
    x = of.constant(np.ones((1024, 1024), np.float32)).gpu()
    for _ in range(3):
        x = x * 1.0                                       # old buffers go back to the cache
    before = of.config.memory_stats("/gpu:0")["raw_allocs"]
    for _ in range(20):
        x = x * 1.0
    assert of.config.memory_stats("/gpu:0")["raw_allocs"] == before
    np.testing.assert_array_equal(x.numpy()[:2, :2], 1.0)


@needs_gpu
def test_gradient_tape_on_gpu():
    x = of.constant(rng.random((4, 3)).astype(np.float32)).gpu()
    w = of.constant(rng.random((3, 2)).astype(np.float32)).gpu()
    with of.GradientTape() as tape:
        tape.watch(w)
        loss = of.reduce_sum(of.square(of.mat_mul(x, w)))
    dw = tape.gradient(loss, w)
    xn, wn = x.numpy(), w.numpy()
    np.testing.assert_allclose(dw.numpy(), 2 * xn.T @ (xn @ wn), rtol=1e-4)


@needs_gpu
def test_out_of_memory_is_resource_exhausted_naming_the_call():
    with pytest.raises(of.ResourceExhaustedError, match=r"(cuda|hip)Malloc"):
        with of.device("/gpu:0"):
            of.raw_ops.Fill(dims=of.constant(np.array([1 << 40], np.int64)), value=of.constant(np.float32(0)))


def _small_cnn(device):
    """A small convolutional classifier as a graph, all of it under `device`, with seeded
    random weights: the ops of a frozen Keras CNN before and after the optimizer's fusions."""
    r = np.random.default_rng(11)
    w = lambda *shape: of.constant(r.standard_normal(shape).astype(np.float32) * 0.3)  # noqa: E731
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 16, 16, 3], name="x")
        with of.device(device):
            h = of.nn.conv2d(x, w(3, 3, 3, 8), strides=[1, 1, 1, 1], padding="SAME")
            h = of.nn.relu6(of.nn.bias_add(h, w(8)))
            h = of.nn.depthwise_conv2d(h, w(3, 3, 8, 1), strides=[1, 2, 2, 1], padding="SAME")
            h = of.nn.relu(h * w(8) + w(8))                                   # a batch norm, folded
            h = of.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
            h = of.nn.conv2d(h, w(1, 1, 8, 16), strides=[1, 1, 1, 1], padding="VALID")
            h = of.reduce_mean(h, axis=[1, 2])
            y = of.nn.softmax(of.matmul(h, w(16, 10)) + w(10), name="y")
    return g, x, y


@needs_gpu
def test_small_cnn_graph_runs_wholly_on_the_gpu():
    feed = rng.uniform(-1, 1, (4, 16, 16, 3)).astype(np.float32)
    outs = {}
    for device in ("/cpu:0", "/gpu:0"):
        g, x, y = _small_cnn(device)
        with of.Session(graph=g) as sess:
            sess.run(y, {x: feed})                                    # plan made, weights placed
            before = of.config.memory_stats("/gpu:0")
            outs[device] = sess.run(y, {x: feed})
            after = of.config.memory_stats("/gpu:0")
        copies = (after["copies_to_device"] - before["copies_to_device"],
                  after["copies_to_host"] - before["copies_to_host"])
        assert copies == ((1, 1) if device == "/gpu:0" else (0, 0)), (device, copies)
    np.testing.assert_allclose(outs["/gpu:0"], outs["/cpu:0"], rtol=1e-4, atol=1e-6)
