"""The composite functions of ops/math_ops.py (of.range, of.linspace, of.tensordot,
of.math.cumprod, reduce_logsumexp, count_nonzero, log_sigmoid, segment_sum, truncatediv,
truncatemod, div): NumPy references on random data, eagerly and in a graph, float64
gradients, and the errors."""

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values


@pytest.fixture
def rng():
    return np.random.default_rng(2033)


# ---- cumprod

def _np_cumprod(x, axis=0, exclusive=False, reverse=False):
    x = np.flip(x, axis) if reverse else x
    out = np.cumprod(x, axis=axis)
    if exclusive and x.shape[axis]:
        ones = np.ones_like(np.take(x, [0], axis=axis))
        out = np.concatenate([ones, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("shape,axis", [((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 9), -1), ((1,), 0), ((4, 0), 1)])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod(rng, shape, axis, exclusive, reverse):
    x = rng.uniform(-2, 2, shape)
    x.flat[::4] = 0.0  # zeros are exact
    check_values(lambda t: of.math.cumprod(t, axis, exclusive=exclusive, reverse=reverse),
                 lambda a: _np_cumprod(a, axis, exclusive, reverse), x, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
def test_cumprod_is_exact_for_integers(rng, dtype):
    x = rng.integers(-3, 4, (4, 6)).astype(dtype)
    check_values(lambda t: of.math.cumprod(t, 1), lambda a: np.cumprod(a, 1).astype(dtype), x, exact=dtype != np.float32)


@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, True)])
def test_cumprod_gradient(rng, exclusive, reverse):
    x = rng.uniform(0.5, 1.5, (3, 5)) * rng.choice([-1, 1], (3, 5))
    check_gradient(lambda t: of.math.cumprod(t, 1, exclusive, reverse), lambda a: _np_cumprod(a, 1, exclusive, reverse),
                   x, rng)


def test_cumprod_errors():
    with pytest.raises(of.errors.InvalidArgumentError, match="cumprod: axis 2 is out of range"):
        of.math.cumprod(np.ones((2, 2)), 2)
    with of.Graph().as_default():
        with pytest.raises(of.errors.InvalidArgumentError, match="cumprod: the length of the axis must be known"):
            of.math.cumprod(of.placeholder(of.float32, [None]), 0)


# ---- reduce_logsumexp

def _np_logsumexp(x, axis=None, keepdims=False):
    axis = tuple(axis) if isinstance(axis, list) else axis
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_logsumexp(rng, axis, keepdims):
    x = rng.standard_normal((3, 4)) * 300  # exp would overflow without the shift
    check_values(lambda t: of.math.reduce_logsumexp(t, axis, keepdims), lambda a: _np_logsumexp(a, axis, keepdims),
                 x, rtol=1e-12)
    assert of.reduce_logsumexp is of.math.reduce_logsumexp


def test_reduce_logsumexp_gradient_is_softmax(rng):
    x = rng.standard_normal((3, 4))
    check_gradient(lambda t: of.math.reduce_logsumexp(t, 1), lambda a: _np_logsumexp(a, 1), x, rng)


def test_reduce_logsumexp_of_minus_infinity():
    out = of.math.reduce_logsumexp(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]), 1).numpy()
    np.testing.assert_array_equal(out, [-np.inf, 0.0])


# ---- count_nonzero, log_sigmoid, segment_sum

@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), ([0, 1], True)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_count_nonzero(rng, axis, keepdims, dtype):
    x = (rng.integers(-1, 2, (4, 5)) * rng.integers(0, 2, (4, 5))).astype(dtype)
    ax = tuple(axis) if isinstance(axis, list) else axis
    check_values(lambda t: of.math.count_nonzero(t, axis, keepdims),
                 lambda a: np.count_nonzero(a, axis=ax, keepdims=keepdims).astype(np.int64), x, exact=True)
    assert of.math.count_nonzero(x, dtype=of.int32).dtype == of.int32


def test_log_sigmoid(rng):
    x = rng.standard_normal((4, 5)) * 50
    ref = lambda a: -np.logaddexp(0, -a)  # noqa: E731
    check_values(of.math.log_sigmoid, ref, x, rtol=1e-12)
    check_gradient(of.math.log_sigmoid, ref, rng.standard_normal((3, 4)), rng)


def test_segment_sum(rng):
    data = rng.standard_normal((6, 3))
    ids = np.array([0, 0, 1, 3, 3, 3], np.int32)

    def ref(d):
        out = np.zeros((4, 3))
        np.add.at(out, ids, d)
        return out
    check_values(lambda d: of.math.segment_sum(d, ids), ref, data, rtol=1e-12)
    check_gradient(lambda d: of.math.segment_sum(d, ids), ref, data, rng)


# ---- truncatediv, truncatemod, div

@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_truncatediv_and_truncatemod(rng, dtype):
    x = rng.integers(-20, 21, (5, 4)).astype(dtype)
    y = rng.choice([-7, -3, -2, 2, 3, 7], (5, 4)).astype(dtype)
    check_values(of.math.truncatediv, lambda a, b: np.trunc(a / b).astype(dtype), x, y, exact=True)
    check_values(of.math.truncatemod, lambda a, b: np.fmod(a, b).astype(dtype), x, y, exact=True)
    assert of.truncatediv is of.math.truncatediv


def test_truncatediv_takes_python_values_beside_tensors():
    np.testing.assert_array_equal(of.math.truncatediv(of.constant([7, -7], of.int64), 2).numpy(), [3, -3])
    np.testing.assert_array_equal(of.math.truncatemod(-7, of.constant([2, 3])).numpy(), [-1, -1])


def test_div_is_python2_division():
    from opforge.ops.math_ops import div  # noqa: PLC0415
    np.testing.assert_array_equal(div(np.array([7, -7]), 2).numpy(), [3, -4])  # floor
    np.testing.assert_allclose(div(np.array([7.0, -7.0]), 2).numpy(), [3.5, -3.5])


# ---- range, linspace, tensordot

def test_range():
    cases = [((5,), {}, np.arange(5, dtype=np.int32)), ((2, 11, 3), {}, np.arange(2, 11, 3, dtype=np.int32)),
             ((0.0, 1.0, 0.25), {}, np.arange(0, 1, 0.25, dtype=np.float32)),
             ((1, 4), {"dtype": of.float64}, np.arange(1, 4, dtype=np.float64)),
             ((np.int64(5),), {}, np.arange(5, dtype=np.int64)), ((3, 0, -1), {}, np.arange(3, 0, -1, dtype=np.int32))]
    for args, kwargs, want in cases:
        got = of.range(*args, **kwargs).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # the widest dtype of the arguments wins
    assert of.range(of.constant(1, of.int64), 5.0).dtype == of.float32
    with of.Graph().as_default():
        assert of.range(of.placeholder(of.int32, []), name="r").op.name == "r"


@pytest.mark.parametrize("num", [1, 2, 5, 17])
def test_linspace(num):
    check_values(lambda a, b: of.linspace(a, b, num), lambda a, b: np.linspace(a, b, num), np.float64(-1.5),
                 np.float64(2.25), rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_linspace_of_tensors(rng, axis):
    start, stop = rng.standard_normal(3), rng.standard_normal(3)
    check_values(lambda a, b: of.linspace(a, b, 4, axis=axis), lambda a, b: np.linspace(a, b, 4, axis=axis),
                 start, stop, rtol=1e-12)


def test_linspace_gradient(rng):
    stop = np.float64(3.0)
    check_gradient(lambda a: of.linspace(a, stop, 5), lambda a: np.linspace(a, stop, 5), rng.standard_normal(2), rng)


def test_linspace_num_tensor_and_errors():
    np.testing.assert_allclose(of.linspace(0.0, 1.0, of.constant(3)).numpy(), [0, 0.5, 1])
    assert of.linspace(0, 1, 3).dtype == of.float32
    with pytest.raises(of.errors.InvalidArgumentError, match="linspace: num must be positive"):
        of.linspace(0.0, 1.0, 0)
    with pytest.raises(of.errors.InvalidArgumentError, match="linspace: start must be a floating-point"):
        of.linspace(np.int32(0), 1, 3)


@pytest.mark.parametrize("sa,sb,axes", [((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((3, 4), (5, 6), 0),
                                        ((2, 3, 4), (4, 3), [[1, 2], [1, 0]]), ((3, 4), (3, 2), [0, 0]),
                                        ((2, 3), (2, 3), [[-1, 0], [1, 0]])])
def test_tensordot(rng, sa, sb, axes):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    check_values(lambda x, y: of.tensordot(x, y, axes), lambda x, y: np.tensordot(x, y, axes), a, b, rtol=1e-12)
    check_gradient(lambda x: of.tensordot(x, b, axes), lambda x: np.tensordot(x, b, axes), a, rng)


def test_tensordot_errors():
    with pytest.raises(ValueError, match="axes=3 must be in"):
        of.tensordot(np.ones((2, 2)), np.ones((2, 2)), 3)
    with pytest.raises(ValueError, match="cannot be contracted"):
        of.tensordot(np.ones((2, 2)), np.ones((2, 2)), [[0, 1], [0]])
