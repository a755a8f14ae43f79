"""TensorFlow's semantics to the letter (issue 14): empty outputs of windows larger than the
input, grouped Conv2D, exact Range, Cast's Truncate, and Fill/Reshape/Transpose corner cases.

Values are pinned with NumPy or literals; where TensorFlow is installed the same calls are
compared with tf.raw_ops (TF_ENABLE_ONEDNN_OPTS=0 semantics: the reference CPU kernels).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opforge as of

F32 = np.float32


# ------------------------------------------------------------------------------ empty outputs

# (op, kwargs, expected output shape): the window is larger than the input by less than
# 2 * stride - 1, so TensorFlow's output size (padded - eff + stride) / stride truncates to 0.
EMPTY_CASES = [
    ("AvgPool", dict(value=np.ones((1, 2, 2, 1), F32), ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
                     padding="VALID"), (1, 0, 0, 1)),
    ("AvgPool", dict(value=np.ones((1, 2, 2, 1), F32), ksize=[1, 5, 5, 1], strides=[1, 2, 2, 1],
                     padding="VALID"), (1, 0, 0, 1)),
    ("MaxPool", dict(input=np.ones((2, 2, 5, 3), F32), ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
                     padding="VALID"), (2, 0, 3, 3)),
    ("Conv2D", dict(input=np.ones((1, 2, 5, 1), F32), filter=np.ones((3, 3, 1, 2), F32),
                    strides=[1, 1, 1, 1], padding="VALID"), (1, 0, 3, 2)),
    ("Conv2D", dict(input=np.ones((1, 2, 2, 1), F32), filter=np.ones((2, 2, 1, 1), F32),
                    strides=[1, 2, 2, 1], dilations=[1, 1, 1, 1], padding="EXPLICIT",
                    explicit_paddings=[0, 0, 0, 0, 0, 0, 0, 0]), (1, 1, 1, 1)),
    ("Conv2D", dict(input=np.ones((1, 2, 2, 1), F32), filter=np.ones((5, 5, 1, 1), F32),
                    strides=[1, 1, 1, 1], padding="EXPLICIT",
                    explicit_paddings=[0, 0, 1, 0, 1, 0, 0, 0]), None),  # -1: an error
    ("DepthwiseConv2dNative", dict(input=np.ones((1, 2, 2, 2), F32), filter=np.ones((3, 3, 2, 2), F32),
                                   strides=[1, 1, 1, 1], padding="VALID"), (1, 0, 0, 4)),
    ("Conv2D", dict(input=np.ones((1, 2, 2, 1), F32), filter=np.ones((4, 4, 1, 1), F32),
                    strides=[1, 1, 1, 1], padding="VALID"), None),
    ("AvgPool", dict(value=np.ones((1, 4, 4, 1), F32), ksize=[1, 8, 1, 1], strides=[1, 2, 1, 1],
                     padding="VALID"), None),
]


@pytest.mark.parametrize("op,kw,want", EMPTY_CASES)
def test_window_larger_than_input_eager(op, kw, want):
    fn = getattr(of.raw_ops, op)
    if want is None:
        with pytest.raises(of.errors.InvalidArgumentError, match=op):
            fn(**kw)
    else:
        assert fn(**kw).numpy().shape == want


def test_window_larger_than_input_graph_shape():
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [2, 2, 5, 3])
        assert of.raw_ops.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
                                  padding="VALID").shape.as_list() == [2, 0, 3, 3]
        assert of.raw_ops.AvgPool(value=x, ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
                                  padding="VALID").shape.as_list() == [2, 0, 3, 3]
        f = of.placeholder(of.float32, [3, 3, 3, 4])
        assert of.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1],
                                 padding="VALID").shape.as_list() == [2, 0, 3, 4]
        with pytest.raises(of.errors.InvalidArgumentError, match="Conv2D"):
            of.raw_ops.Conv2D(input=x, filter=of.placeholder(of.float32, [4, 3, 3, 4]),
                              strides=[1, 1, 1, 1], padding="VALID")


def test_gradients_of_empty_outputs_are_zero():
    x = np.ones((1, 2, 2, 1), F32)
    dy = np.ones((1, 0, 0, 1), F32)
    conv = dict(strides=[1, 1, 1, 1], padding="VALID")
    pool = dict(ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding="VALID")
    outs = [
        of.raw_ops.Conv2DBackpropInput(input_sizes=[1, 2, 2, 1], filter=np.ones((3, 3, 1, 1), F32),
                                       out_backprop=dy, **conv),
        of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[3, 3, 1, 1], out_backprop=dy, **conv),
        of.raw_ops.DepthwiseConv2dNativeBackpropInput(input_sizes=[1, 2, 2, 1], filter=np.ones((3, 3, 1, 1), F32),
                                                      out_backprop=dy, **conv),
        of.raw_ops.DepthwiseConv2dNativeBackpropFilter(input=x, filter_sizes=[3, 3, 1, 1], out_backprop=dy, **conv),
        of.raw_ops.AvgPoolGrad(orig_input_shape=[1, 2, 2, 1], grad=dy, **pool),
        of.raw_ops.MaxPoolGrad(orig_input=x, orig_output=dy, grad=dy, **pool),
    ]
    for out, shape in zip(outs, [(1, 2, 2, 1), (3, 3, 1, 1), (1, 2, 2, 1), (3, 3, 1, 1), (1, 2, 2, 1), (1, 2, 2, 1)]):
        np.testing.assert_array_equal(out.numpy(), np.zeros(shape, F32))


# ------------------------------------------------------------------------------ grouped Conv2D


def _grouped_reference(x, f, stride, pad_hw):
    """NHWC grouped convolution by direct summation (float64); pad_hw = ((t, b), (l, r))."""
    n, h, w, cin = x.shape
    kh, kw, fin, cout = f.shape
    groups, cog = cin // fin, cout // (cin // fin)
    xp = np.pad(x.astype(np.float64), ((0, 0), pad_hw[0], pad_hw[1], (0, 0)))
    oh = (xp.shape[1] - kh) // stride + 1
    ow = (xp.shape[2] - kw) // stride + 1
    out = np.zeros((n, oh, ow, cout))
    for g in range(groups):
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, g * fin:(g + 1) * fin]
                out[:, i, j, g * cog:(g + 1) * cog] = np.einsum("nhwc,hwco->no", patch, f[..., g * cog:(g + 1) * cog])
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("padding", ["VALID", "EXPLICIT"])
def test_grouped_conv2d_matches_numpy(dtype, data_format, padding):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 7, 6)).astype(dtype)
    f = rng.standard_normal((3, 2, 2, 9)).astype(dtype)  # 3 groups of 2 -> 3 channels
    pads = ((1, 2), (0, 1)) if padding == "EXPLICIT" else ((0, 0), (0, 0))
    want = _grouped_reference(x, f, 2, pads)
    if data_format == "NCHW":
        ep = [0, 0, 0, 0, *pads[0], *pads[1]] if padding == "EXPLICIT" else []
        got = of.raw_ops.Conv2D(input=x.transpose(0, 3, 1, 2), filter=f, strides=[1, 1, 2, 2], padding=padding,
                                explicit_paddings=ep, data_format="NCHW").numpy().transpose(0, 2, 3, 1)
    else:
        ep = [0, 0, *pads[0], *pads[1], 0, 0] if padding == "EXPLICIT" else []
        got = of.raw_ops.Conv2D(input=x, filter=f, strides=[1, 2, 2, 1], padding=padding,
                                explicit_paddings=ep).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_grouped_conv2d_gradients_float64():
    """Central differences on a grouped convolution: d(sum(w * conv))/d input and d filter."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 4, 5, 4))
    f = rng.standard_normal((2, 3, 2, 4))
    kw = dict(strides=[1, 1, 1, 1], padding="SAME")
    y = of.raw_ops.Conv2D(input=x, filter=f, **kw).numpy()
    wgt = rng.standard_normal(y.shape)
    dx = of.raw_ops.Conv2DBackpropInput(input_sizes=list(x.shape), filter=f, out_backprop=wgt, **kw).numpy()
    df = of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=list(f.shape), out_backprop=wgt, **kw).numpy()

    def loss(xv, fv):
        return float(np.sum(wgt * of.raw_ops.Conv2D(input=xv, filter=fv, **kw).numpy()))

    eps = 1e-6
    for arr, grad, which in ((x, dx, 0), (f, df, 1)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args_p = (plus, f) if which == 0 else (x, plus)
            args_m = (minus, f) if which == 0 else (x, minus)
            num[idx] = (loss(*args_p) - loss(*args_m)) / (2 * eps)
        np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("ishape,fshape,match", [
    ((1, 4, 4, 6), (2, 2, 4, 3), "divisible by filter depth"),
    ((1, 4, 4, 6), (2, 2, 2, 4), "divisible by number of groups"),
    ((1, 3, 3, 0), (2, 2, 0, 2), "filter depth must be strictly positive")])
def test_grouped_conv2d_errors(ishape, fshape, match):
    for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"):
        kw = dict(strides=[1, 1, 1, 1], padding="SAME")
        if op == "Conv2D":
            kw.update(input=np.ones(ishape, F32), filter=np.ones(fshape, F32))
        elif op == "Conv2DBackpropInput":
            kw.update(input_sizes=np.array(ishape, np.int32), filter=np.ones(fshape, F32),
                      out_backprop=np.ones(ishape[:3] + fshape[3:], F32))
        else:
            kw.update(input=np.ones(ishape, F32), filter_sizes=np.array(fshape, np.int32),
                      out_backprop=np.ones(ishape[:3] + fshape[3:], F32))
        with pytest.raises(of.errors.InvalidArgumentError, match=match) as e:
            getattr(of.raw_ops, op)(**kw)
        assert op in str(e.value)


# ------------------------------------------------------------------------------ Range


def test_range_int64_exact_beyond_2_53():
    big = 2**53
    got = of.raw_ops.Range(start=np.int64(big), limit=np.int64(big + 5), delta=np.int64(1)).numpy()
    np.testing.assert_array_equal(got, np.array([big + i for i in range(5)], np.int64))
    got = of.raw_ops.Range(start=np.int64(-(2**63) + 1), limit=np.int64(2**63 - 1), delta=np.int64(2**62)).numpy()
    np.testing.assert_array_equal(got, np.array([-(2**63) + 1 + i * 2**62 for i in range(4)], np.int64))
    got = of.raw_ops.Range(start=np.int64(2**63 - 1), limit=np.int64(-(2**63)), delta=np.int64(-(2**62))).numpy()
    np.testing.assert_array_equal(got, np.array([2**63 - 1 - i * 2**62 for i in range(4)], np.int64))


@pytest.mark.parametrize("dtype,n", [(np.float32, 3), (np.float64, 3), (np.float16, 4), (ml_dtypes.bfloat16, 3)])
def test_range_float_size_in_element_type(dtype, n):
    start, limit, delta = (np.array(v, dtype) for v in (0.0, 0.3, 0.1))
    got = of.raw_ops.Range(start=start, limit=limit, delta=delta).numpy()
    assert got.dtype == np.dtype(dtype) and got.shape == (n,)
    np.testing.assert_array_equal(got, np.array([start + dtype(i) * delta for i in range(n)], dtype))


# ------------------------------------------------------------------------------ Cast Truncate


def _bits(a):
    return np.asarray(a).view(np.uint16 if np.asarray(a).dtype.itemsize == 2 else np.uint32)


def test_cast_truncate_zeroes_low_bits_then_rounds():
    # float -> half: normal values round toward zero; subnormal half results still round to
    # nearest (TensorFlow zeroes the 13 extra input bits, then converts).
    x = np.array([1.0009765625 + 2**-12, -(1.0 + 2**-11 + 2**-13), 5.96e-8 * 1.7, np.nan], F32)
    got = of.raw_ops.Cast(x=x, DstT=np.float16, Truncate=True).numpy()
    assert got[0] == np.float16(1.0009765625) and got[1] == np.float16(-1.0)
    assert got[2] == np.float16(2**-24 * 2)  # 1.7 ulp of the smallest subnormal: to nearest, 2
    assert np.isnan(got[3])
    # double -> float toward zero; double -> bfloat16 ignores Truncate (rounds, as TF)
    d = np.array([1 + 2**-23 + 2**-24 + 2**-30], np.float64)
    assert of.raw_ops.Cast(x=d, DstT=np.float32, Truncate=True).numpy()[0] == F32(1 + 2**-23)
    assert of.raw_ops.Cast(x=d, DstT=np.float32, Truncate=False).numpy()[0] == F32(1 + 2**-22)
    b = np.array([1 + 2**-8 + 2**-10], np.float64)
    assert (of.raw_ops.Cast(x=b, DstT=ml_dtypes.bfloat16, Truncate=True).numpy()
            == of.raw_ops.Cast(x=b, DstT=ml_dtypes.bfloat16, Truncate=False).numpy()).all()


# ------------------------------------------------------------------------------ Fill / Reshape / Transpose


def test_fill_accepts_one_element_vector():
    got = of.raw_ops.Fill(dims=np.array([2, 3], np.int32), value=np.array([7.0], F32)).numpy()
    np.testing.assert_array_equal(got, np.full((2, 3), 7.0, F32))
    for bad in (np.array([1.0, 2.0], F32), np.array([[1.0]], F32)):
        with pytest.raises(of.errors.InvalidArgumentError, match="Fill"):
            of.raw_ops.Fill(dims=np.array([2], np.int32), value=bad)


@pytest.mark.parametrize("shape,want", [([-1, 0], (3, 0)), ([0, -1], (0, 3)), ([-1, 0, 2], (1, 0, 2)),
                                        ([2, -1, 5], (2, 0, 5)), ([-1], (0,))])
def test_reshape_empty_with_minus_one(shape, want):
    got = of.raw_ops.Reshape(tensor=np.zeros((0, 3), F32), shape=np.array(shape, np.int32)).numpy()
    assert got.shape == want
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [0, 3])
        assert of.raw_ops.Reshape(tensor=x, shape=np.array(shape, np.int32)).shape.as_list() == list(want)


def test_reshape_nonempty_to_zero_dim_is_an_error():
    with pytest.raises(of.errors.InvalidArgumentError, match="Reshape"):
        of.raw_ops.Reshape(tensor=np.zeros((2, 3), F32), shape=np.array([-1, 0], np.int32))


def test_transpose_negative_perm():
    x = np.arange(24, dtype=F32).reshape(2, 3, 4)
    np.testing.assert_array_equal(of.raw_ops.Transpose(x=x, perm=np.array([-1, -3, 1], np.int32)).numpy(),
                                  x.transpose(2, 0, 1))
    for bad in ([-1, 2, 1], [-4, 0, 1]):
        with pytest.raises(of.errors.InvalidArgumentError, match="Transpose"):
            of.raw_ops.Transpose(x=x, perm=np.array(bad, np.int32))


# ------------------------------------------------------------------------------ against TensorFlow


def _tf():
    tf = pytest.importorskip("tensorflow")
    return tf


def test_against_tensorflow():
    tf = _tf()
    rng = np.random.default_rng(5)
    # grouped Conv2D (NHWC: the layout TF's CPU kernel supports)
    x = rng.standard_normal((2, 5, 6, 4)).astype(F32)
    f = rng.standard_normal((3, 3, 2, 6)).astype(F32)
    for pad in ("SAME", "VALID"):
        want = tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding=pad).numpy()
        got = of.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding=pad).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # Range: sizes and values, bit for bit
    for dt in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        for s, l, d in ((0.0, 0.3, 0.1), (1.0, 2.0, 0.1), (-3.0, 7.0, 0.37), (5.0, -1.0, -0.3)):
            args = [tf.constant(v, dt) for v in (s, l, d)]
            want = tf.raw_ops.Range(start=args[0], limit=args[1], delta=args[2]).numpy()
            got = of.raw_ops.Range(start=args[0].numpy(), limit=args[1].numpy(), delta=args[2].numpy()).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    # Cast Truncate on normal-range values (TF's CPU kernel flushes subnormals to zero)
    src32 = (rng.standard_normal(500) * 10.0 ** rng.integers(-3, 4, 500)).astype(F32)
    src64 = rng.standard_normal(500) * 10.0 ** rng.integers(-3, 4, 500)
    for src, dst in ((src32, tf.float16), (src32, tf.bfloat16), (src64, tf.float32), (src64, tf.float16),
                     (src64, tf.bfloat16)):
        for tr in (False, True):
            want = tf.raw_ops.Cast(x=src, DstT=dst, Truncate=tr).numpy()
            got = of.raw_ops.Cast(x=src, DstT=dst.as_numpy_dtype, Truncate=tr).numpy()
            np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    # Transpose with negative perm, Reshape of an empty tensor, Fill with a [1] value
    x3 = np.arange(24, dtype=F32).reshape(2, 3, 4)
    np.testing.assert_array_equal(of.raw_ops.Transpose(x=x3, perm=np.array([-1, 0, -2], np.int32)).numpy(),
                                  tf.raw_ops.Transpose(x=x3, perm=np.array([-1, 0, -2], np.int32)).numpy())
    for shape in ([-1, 0], [-1, 0, 2]):
        sh = np.array(shape, np.int32)
        assert (of.raw_ops.Reshape(tensor=np.zeros((0, 3), F32), shape=sh).numpy().shape
                == tuple(tf.raw_ops.Reshape(tensor=np.zeros((0, 3), F32), shape=sh).shape))
    # empty outputs
    assert (of.raw_ops.AvgPool(value=np.ones((1, 2, 2, 1), F32), ksize=[1, 5, 5, 1], strides=[1, 2, 2, 1],
                               padding="VALID").numpy().shape
            == tuple(tf.raw_ops.AvgPool(value=np.ones((1, 2, 2, 1), F32), ksize=[1, 5, 5, 1],
                                        strides=[1, 2, 2, 1], padding="VALID").shape))
