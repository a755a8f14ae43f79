"""TensorFlow's semantics to the letter (issue 14): bool canonicalization, signed zeros in the
vector paths, BroadcastGradientArgs, the float64 truncated-normal stream, ReluGrad/Relu6Grad
with non-finite gradients, empty reductions, zero-element tensors with huge dims, and shapes
beyond int32. Values are pinned without TensorFlow; where it is installed, it is compared too."""

import itertools

import numpy as np
import pytest

import opforge as of

R = of.raw_ops


def _weird_bool(values):
    """A bool array whose bytes are the given uint8 values (2, 255 ... are all true)."""
    return np.array(values, np.uint8).view(np.bool_)


# ---------------------------------------------------------------- 1. bool canonicalization

WEIRD = _weird_bool([2, 0, 1, 255, 128, 0, 3, 1] * 3)
TRUTH = WEIRD.view(np.uint8) != 0
OTHER = np.array([True, True, False, True, False, False, True, True] * 3)


@pytest.mark.parametrize("name, fn, expected", [
    ("LogicalAnd", lambda b: R.LogicalAnd(x=b, y=OTHER), TRUTH & OTHER),
    ("LogicalOr", lambda b: R.LogicalOr(x=b, y=~OTHER), TRUTH | ~OTHER),
    ("LogicalNot", lambda b: R.LogicalNot(x=b), ~TRUTH),
    ("Equal", lambda b: R.Equal(x=b, y=np.ones(24, np.bool_)), TRUTH),
    ("NotEqual", lambda b: R.NotEqual(x=b, y=np.ones(24, np.bool_)), ~TRUTH),
    ("SelectV2", lambda b: R.SelectV2(condition=b, t=np.ones(24, np.float32), e=np.zeros(24, np.float32)),
     TRUTH.astype(np.float32)),
    ("Select", lambda b: R.Select(condition=b, x=np.ones(24, np.int32), y=np.zeros(24, np.int32)),
     TRUTH.astype(np.int32)),
    ("Cast", lambda b: R.Cast(x=b, DstT=of.int32), TRUTH.astype(np.int32)),
    ("All", lambda b: R.All(input=b.reshape(3, 8), axis=np.array([0], np.int32)), TRUTH.reshape(3, 8).all(0)),
    ("Any", lambda b: R.Any(input=b.reshape(3, 8)[:, [1, 5]].copy(), axis=np.array([1], np.int32)),
     TRUTH.reshape(3, 8)[:, [1, 5]].any(1)),
    ("Where", lambda b: R.Where(condition=b), np.argwhere(TRUTH)),
])
def test_nonzero_bool_bytes_are_true(name, fn, expected):
    out = fn(WEIRD).numpy()
    np.testing.assert_array_equal(out, expected, err_msg=name)
    if out.dtype == np.bool_:
        assert set(np.unique(out.view(np.uint8))) <= {0, 1}


def test_bool_canonical_in_tensor_and_numpy_view():
    t = of.constant(WEIRD)
    assert set(np.unique(t.numpy().view(np.uint8))) <= {0, 1}
    np.testing.assert_array_equal(t.numpy(), TRUTH)
    assert list(WEIRD.view(np.uint8)[:4]) == [2, 0, 1, 255]  # the caller's array is untouched


def test_bool_canonical_in_session_feeds_and_dlpack():
    g = of.Graph()
    with g.as_default():
        p = of.compat.v1.placeholder(of.bool, [24]) if hasattr(of, "compat") else of.placeholder(of.bool, [24])
        out = R.LogicalAnd(x=p, y=OTHER)
    with of.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(out, {p: WEIRD}), TRUTH & OTHER)
    src = WEIRD.copy()
    t = of.from_dlpack(src)
    np.testing.assert_array_equal(R.LogicalAnd(x=t, y=OTHER).numpy(), TRUTH & OTHER)
    assert src.view(np.uint8)[0] == 2  # the producer's memory is not written


def test_bool_canonicalization_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for op in ("LogicalAnd", "LogicalOr"):
        want = getattr(tf.raw_ops, op)(x=WEIRD, y=OTHER).numpy()
        np.testing.assert_array_equal(getattr(R, op)(x=WEIRD, y=OTHER).numpy(), want)


# ---------------------------------------------------------------- 2. signed zeros, 8-lane paths

ODD_FUNCS = ["Sin", "Tan", "Expm1", "Log1p", "Atan", "Asinh", "Tanh", "Asin", "Atanh", "Sinh", "Erf",
             "Sqrt", "Floor", "Ceil", "Round"]


def _signed_zero_input(dtype):
    base = np.array([-0.0, 0.0, -1e-30, -0.3, -0.5, -1.5, 0.3, -3e-3, 1.0, -0.0, -0.0, 0.0], dtype)
    return np.tile(base, 4)  # 48 elements: full 8-lane blocks and a scalar tail


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ODD_FUNCS)
def test_signed_zero_preserved(name, dtype):
    x = _signed_zero_input(dtype)
    out = getattr(R, name)(x=x).numpy()
    np_fn = {"Round": np.round, "Erf": None}.get(name, getattr(np, name.lower(), None))
    if name == "Asin":
        np_fn = np.arcsin
    elif name == "Atan":
        np_fn = np.arctan
    elif name == "Asinh":
        np_fn = np.arcsinh
    elif name == "Atanh":
        np_fn = np.arctanh
    zeros = x == 0
    # f(+-0) = +-0 for every odd / rounding function (libm, NumPy, IEEE)
    np.testing.assert_array_equal(np.signbit(out[zeros]), np.signbit(x[zeros]))
    if np_fn is not None:
        with np.errstate(all="ignore"):  # NaN/inf outside the domain are expected
            want = np_fn(x)
        small = (want == 0)
        np.testing.assert_array_equal(np.signbit(out[small]), np.signbit(want[small]), err_msg=name)


def test_sign_relu_of_negative_zero_is_positive_zero():
    x = -np.zeros(20, np.float32)
    for out in (R.Sign(x=x), R.Relu(features=x), R.Relu6(features=x)):
        assert not np.signbit(out.numpy()).any()  # TensorFlow (and np.sign) give +0


def test_signed_zeros_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = _signed_zero_input(np.float32)
    for name in ODD_FUNCS + ["Sign"]:
        r, e = getattr(R, name)(x=x).numpy(), getattr(tf.raw_ops, name)(x=x).numpy()
        z = e == 0
        np.testing.assert_array_equal(np.signbit(r[z]), np.signbit(e[z]), err_msg=name)


# ---------------------------------------------------------------- 3. BroadcastGradientArgs

BGA_CASES = [
    ([], [], [], []),
    ([1], [1], [], []),
    ([1, 1], [1, 1], [], []),  # equal shapes reduce nothing, not even their 1s
    ([2, 1], [2, 1], [], []),
    ([0], [0], [], []),
    ([], [1], [0], [0]),  # a dim where both are 1 (or missing) is listed for both
    ([1], [], [0], [0]),
    ([], [1, 1], [0, 1], [0, 1]),
    ([], [2, 1], [0, 1], [1]),
    ([1], [1, 1], [0, 1], [0, 1]),
    ([1], [2, 1], [0, 1], [1]),
    ([2, 1, 3], [1, 1, 3], [1], [0, 1]),
    ([1, 0], [0], [0], [0]),
    ([2, 3], [3], [], [0]),
    ([3, 1, 2], [1], [1], [0, 1, 2]),
]


@pytest.mark.parametrize("s0, s1, r0, r1", BGA_CASES)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_broadcast_gradient_args(s0, s1, r0, r1, dtype):
    o0, o1 = R.BroadcastGradientArgs(s0=np.array(s0, dtype), s1=np.array(s1, dtype))
    assert o0.numpy().tolist() == r0 and o1.numpy().tolist() == r1
    assert o0.numpy().dtype == dtype


def test_broadcast_gradient_args_incompatible_is_typed():
    with pytest.raises(of.InvalidArgumentError, match="BroadcastGradientArgs"):
        R.BroadcastGradientArgs(s0=np.array([2], np.int32), s1=np.array([3], np.int32))


def test_broadcast_gradient_args_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    shapes = [[], [1], [2], [1, 1], [2, 1], [1, 2], [2, 2], [0], [1, 0], [0, 1], [3, 1, 2], [1, 1, 1], [1, 3]]
    for a, b in itertools.product(shapes, shapes):
        try:
            want = [v.numpy().tolist() for v in tf.raw_ops.BroadcastGradientArgs(s0=a, s1=b)]
        except tf.errors.InvalidArgumentError:
            with pytest.raises(of.InvalidArgumentError):
                R.BroadcastGradientArgs(s0=np.array(a, np.int32), s1=np.array(b, np.int32))
            continue
        got = [v.numpy().tolist() for v in R.BroadcastGradientArgs(s0=np.array(a, np.int32),
                                                                   s1=np.array(b, np.int32))]
        assert got == want, (a, b)


# ---------------------------------------------------------------- 4. stateless normal streams

def _stateless(op, dtype, seed, shape=(3, 7)):
    return getattr(R, op)(shape=np.array(shape, np.int32), seed=np.array(seed, np.int64), dtype=dtype).numpy()


def test_truncated_normal_float64_pinned():
    # TensorFlow 2.21's values (tf.raw_ops.StatelessTruncatedNormal(shape=[6], seed=[1, 2],
    # dtype=tf.float64)): each group of 2 doubles has its own 128-output Philox sub-stream.
    got = _stateless("StatelessTruncatedNormal", of.float64, [1, 2], (6,))
    assert got[0] == pytest.approx(-0.14231181, abs=1e-7)
    assert got[1] == pytest.approx(0.74060725, abs=1e-7)
    assert np.all(np.abs(got) < 2)
    big = _stateless("StatelessTruncatedNormal", of.float64, [7, 9], (50000,))
    assert np.all(np.abs(big) < 2) and abs(big.mean()) < 0.02 and abs(big.std() - 0.8796) < 0.01


@pytest.mark.parametrize("op", ["StatelessRandomNormal", "StatelessTruncatedNormal", "StatelessRandomUniform"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_stateless_streams_match_tensorflow_bit_for_bit(op, dtype):
    tf = pytest.importorskip("tensorflow")
    for seed in ([1, 2], [0, 0], [-5, 123456789012]):
        want = getattr(tf.raw_ops, op)(shape=[3, 1001], seed=seed, dtype=dtype).numpy()
        got = _stateless(op, of.as_dtype(dtype), seed, (3, 1001))
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"{op} {dtype} {seed}")


# ---------------------------------------------------------------- 5. Relu gradients and inf

def test_relu_grads_multiply_by_the_mask():
    g = np.array([np.inf, -np.inf, np.nan, 1, np.inf, -np.inf, 2, np.inf] * 3, np.float32)
    f = np.array([-1, 0, -1, 7, 3, 6, 0.5, 8] * 3, np.float32)
    with np.errstate(invalid="ignore"):
        want_relu = g * (f > 0)
        want_relu6 = g * ((f > 0) & (f < 6))
    for dt in (np.float32, np.float64):
        np.testing.assert_array_equal(R.ReluGrad(gradients=g.astype(dt), features=f.astype(dt)).numpy(),
                                      want_relu.astype(dt))
        np.testing.assert_array_equal(R.Relu6Grad(gradients=g.astype(dt), features=f.astype(dt)).numpy(),
                                      want_relu6.astype(dt))
    gi = np.array([5, -3, 7, 1], np.int32)
    fi = np.array([-1, 0, 3, 7], np.int32)
    np.testing.assert_array_equal(R.Relu6Grad(gradients=gi, features=fi).numpy(), [0, 0, 7, 0])


def test_activation_grads_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    g = np.array([np.inf, -np.inf, np.nan, 1, np.inf, -np.inf] * 3, np.float32)
    f = np.array([-1, -1, -1, 7, 3, 0] * 3, np.float32)
    for op in ["Relu6Grad", "ReluGrad", "EluGrad", "SeluGrad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad"]:
        kw = dict(gradients=g, outputs=f) if op in ("EluGrad", "SeluGrad") else dict(gradients=g, features=f)
        np.testing.assert_array_equal(getattr(R, op)(**kw).numpy(), getattr(tf.raw_ops, op)(**kw).numpy(),
                                      err_msg=op)


# ---------------------------------------------------------------- 6. empty reductions

NUMERIC = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "int16", "uint8"]
EMPTY_CASES = [((2, 0, 3), [1]), ((0,), [0]), ((0, 3), [0]), ((2, 0), [0, 1])]


def _identity(op, dtype):
    np_dt = of.as_dtype(dtype).as_numpy_dtype
    is_float = dtype.startswith(("float", "bfloat"))
    if op == "Max":
        return -np.inf if is_float else np.iinfo(np_dt).min
    if op == "Min":
        return np.inf if is_float else np.iinfo(np_dt).max
    if op == "Mean":
        return np.nan if is_float else 0
    return {"Sum": 0, "Prod": 1}[op]


@pytest.mark.parametrize("op", ["Sum", "Prod", "Mean", "Max", "Min"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_empty_reduction_gives_identity(op, dtype):
    np_dt = of.as_dtype(dtype).as_numpy_dtype
    for shape, axis in EMPTY_CASES:
        x = np.zeros(shape, np_dt)
        out = getattr(R, op)(input=x, axis=np.array(axis, np.int32)).numpy()
        want_shape = tuple(d for i, d in enumerate(shape) if i not in axis)
        assert out.shape == want_shape and out.dtype == np_dt
        np.testing.assert_array_equal(out.astype(np.float64),
                                      np.full(want_shape, _identity(op, dtype), np.float64))


def test_empty_all_any():
    x = np.zeros((2, 0), np.bool_)
    np.testing.assert_array_equal(R.All(input=x, axis=np.array([1], np.int32)).numpy(), [True, True])
    np.testing.assert_array_equal(R.Any(input=x, axis=np.array([1], np.int32)).numpy(), [False, False])


def test_empty_reductions_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for op, dtype in itertools.product(["Sum", "Prod", "Mean", "Max", "Min"], NUMERIC):
        for shape, axis in EMPTY_CASES:
            x = np.zeros(shape, of.as_dtype(dtype).as_numpy_dtype)
            want = getattr(tf.raw_ops, op)(input=x, axis=np.array(axis, np.int32)).numpy()
            got = getattr(R, op)(input=x, axis=np.array(axis, np.int32)).numpy()
            np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64), err_msg=f"{op} {dtype}")


# ---------------------------------------------------------------- 7. zero elements, huge dims

def test_zero_element_tensors_with_huge_dims():
    for shape in ([2, 0, 2**62], [0, 2**63 - 1], [2**40, 0, 2**40]):
        t = of.zeros(shape)
        assert tuple(t.shape) == tuple(shape)
        assert tuple(of.ones(shape, dtype=of.int32).shape) == tuple(shape)
    t = R.Fill(dims=np.array([2, 0, 2**62], np.int64), value=np.float32(1))
    assert tuple(t.shape) == (2, 0, 2**62)
    assert tuple(of.reshape(of.zeros([0, 3]), [2, 0, 2**62]).shape) == (2, 0, 2**62)
    assert tuple(R.AddV2(x=t, y=np.float32(1)).shape) == (2, 0, 2**62)
    assert tuple(R.Sum(input=t, axis=np.array([2], np.int32)).shape) == (2, 0)


def test_nonzero_huge_shapes_are_typed_errors():
    with pytest.raises(of.ResourceExhaustedError, match="Fill"):
        of.zeros([2**31, 2**31])
    with pytest.raises(of.InvalidArgumentError, match="2\\*\\*63"):
        of.zeros([2**62, 4])
    # TensorFlow's rule is the running product: it overflows before the 0 is reached.
    with pytest.raises(of.InvalidArgumentError, match="2\\*\\*63"):
        of.zeros([2**62, 4, 0])
    with pytest.raises(of.InvalidArgumentError, match="Reshape"):
        of.reshape(of.zeros([0, 3]), [2**62, 2, 0])
    with pytest.raises(of.InvalidArgumentError, match="Sum"):
        R.Sum(input=of.zeros([2, 0, 2**62]), axis=np.array([1], np.int32))  # a [2, 2**62] result


# ---------------------------------------------------------------- 8. Python-side shapes

def test_empty_int_constant():
    for dt in (of.int32, of.int64, of.uint8):
        t = of.constant([], dtype=dt)
        assert t.dtype == dt and tuple(t.shape) == (0,)
    assert tuple(of.constant([[]], dtype=of.int32).shape) == (1, 0)
    with pytest.raises(TypeError):  # as TensorFlow: a float list is not an int constant
        of.constant([1.5], dtype=of.int32)


def test_shapes_beyond_int32_are_typed():
    with pytest.raises(of.InvalidArgumentError, match="Fill"):
        of.zeros([2**63])
    with pytest.raises(of.InvalidArgumentError, match="Reshape"):
        of.reshape(of.zeros([4]), [2**31, 2])
    with pytest.raises(of.InvalidArgumentError, match="Reshape"):
        of.reshape(of.zeros([4]), [2**63 - 1, 2])
    with pytest.raises(of.InvalidArgumentError, match="Reshape"):
        of.reshape(of.zeros([4]), [2**64, 2])


# ---------------------------------------------------------------- GatherNd / ScatterNd bad_indices_policy

def test_bad_indices_policy_ignore():
    """TensorFlow 2.21's attr: IGNORE gives zeros for a bad GatherNd row and drops a bad ScatterNd
    update; "", DEFAULT and ERROR refuse the index; anything else is an error."""
    rng = np.random.default_rng(7)
    p = rng.standard_normal((3, 2)).astype(np.float32)
    idx = np.array([[0], [5], [2], [-1]], np.int64)
    got = R.GatherNd(params=p, indices=idx, bad_indices_policy="IGNORE").numpy()
    np.testing.assert_array_equal(got, np.stack([p[0], np.zeros(2, np.float32), p[2], np.zeros(2, np.float32)]))
    up = rng.standard_normal(4).astype(np.float32)
    got = R.ScatterNd(indices=idx, updates=up, shape=np.array([4], np.int64), bad_indices_policy="IGNORE").numpy()
    np.testing.assert_array_equal(got, [up[0], 0, up[2], 0])
    for policy in ("", "DEFAULT", "ERROR"):
        with pytest.raises(of.InvalidArgumentError, match="GatherNd.*out of range"):
            R.GatherNd(params=p, indices=idx, bad_indices_policy=policy)
        with pytest.raises(of.InvalidArgumentError, match="ScatterNd.*out of range"):
            R.ScatterNd(indices=idx, updates=up, shape=np.array([4], np.int64), bad_indices_policy=policy)
    with pytest.raises(of.InvalidArgumentError, match="unknown bad_indices_policy 'bogus'"):
        R.GatherNd(params=p, indices=idx[:1], bad_indices_policy="bogus")


def test_bad_indices_policy_ignore_gradient():
    p = of.constant(np.arange(6, dtype=np.float64).reshape(3, 2))
    idx = np.array([[2], [7], [2]], np.int32)
    with of.GradientTape() as tape:
        tape.watch(p)
        y = of.reduce_sum(R.GatherNd(params=p, indices=idx, bad_indices_policy="IGNORE") * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, p).numpy(), [[0, 0], [0, 0], [6, 6]])
