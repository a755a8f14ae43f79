"""tf.math's special functions (opforge/ops/special_math_ops.py over the Lgamma, Digamma,
Polygamma, Zeta, Igamma, Igammac, Betainc, Erfinv, Ndtri, BesselI0e, BesselI1e and NextAfter
kernels): exact identities and known constants (no scipy needed), TensorFlow's own answers when
it is installed, the Python compositions (lbeta, erfcinv, bessel_i0, bessel_i1), gradients of the
compositions, and typed errors. The op matrix (test_reference.py, test_gradients.py, fuzz,
hostile) checks the ops against scipy on random data."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

EULER = 0.57721566490153286061
RNG = np.random.default_rng(32)


def test_known_values_and_identities():
    x = RNG.uniform(0.2, 6.0, 50)
    # digamma(x + 1) = digamma(x) + 1/x; digamma(1) = -Euler's gamma; digamma(1/2) = -gamma - 2 ln 2
    np.testing.assert_allclose(of.math.digamma(x + 1).numpy(), of.math.digamma(x).numpy() + 1 / x, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(of.math.digamma(np.array([1.0, 0.5])).numpy(), [-EULER, -EULER - 2 * math.log(2)], rtol=1e-15)
    np.testing.assert_allclose(of.math.lgamma(x).numpy(), [math.lgamma(v) for v in x], rtol=1e-14, atol=1e-15)
    # zeta(2, 1) = pi^2/6 = polygamma(1, 1); zeta(s, q) = zeta(s, q + 1) + q^-s
    np.testing.assert_allclose(of.math.zeta(np.array([2.0, 4.0]), 1.0).numpy(), [math.pi**2 / 6, math.pi**4 / 90], rtol=1e-15)
    np.testing.assert_allclose(of.math.polygamma(np.array([1.0, 2.0]), 1.0).numpy(), [math.pi**2 / 6, -2 * 1.2020569031595942],
                               rtol=1e-14)
    s = RNG.uniform(1.5, 6.0, 50)
    np.testing.assert_allclose(of.math.zeta(s, x).numpy(), of.math.zeta(s, x + 1).numpy() + x**-s, rtol=1e-13)
    # igamma(1, x) = 1 - exp(-x); igamma(a, x) + igammac(a, x) = 1; igamma(a + 1, x) = igamma(a, x) - x^a e^-x / Gamma(a + 1)
    a, t = RNG.uniform(0.1, 30.0, 50), RNG.uniform(0.01, 40.0, 50)
    np.testing.assert_allclose(of.math.igamma(1.0, t).numpy(), -np.expm1(-t), rtol=1e-14)
    np.testing.assert_allclose(of.math.igamma(a, t).numpy() + of.math.igammac(a, t).numpy(), 1.0, rtol=1e-14)
    lhs = of.math.igamma(a + 1, t).numpy()
    rhs = of.math.igamma(a, t).numpy() - np.exp(a * np.log(t) - t - np.array([math.lgamma(v + 1) for v in a]))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-11, atol=1e-14)
    # betainc(a, 1, x) = x^a; betainc(a, b, x) = 1 - betainc(b, a, 1 - x)
    u, b = RNG.uniform(0.01, 0.99, 50), RNG.uniform(0.2, 20.0, 50)
    np.testing.assert_allclose(of.math.betainc(a, 1.0, u).numpy(), u**a, rtol=1e-13)
    np.testing.assert_allclose(of.math.betainc(a, b, u).numpy(), 1 - of.math.betainc(b, a, 1 - u).numpy(),
                               rtol=1e-12, atol=1e-14)


def test_inverses():
    y = np.concatenate([RNG.uniform(-1, 1, 200), [1e-300, -1e-20, 0.5, 1 - 1e-15, -1 + 1e-12]])
    np.testing.assert_allclose(np.vectorize(math.erf)(of.math.erfinv(y).numpy()), y, rtol=1e-14, atol=1e-300)
    p = np.concatenate([RNG.uniform(0, 1, 200), 10.0 ** -np.arange(1, 300, 7)])
    inv = statistics.NormalDist().inv_cdf
    np.testing.assert_allclose(of.math.ndtri(p).numpy(), [inv(v) for v in p], rtol=1e-13)
    np.testing.assert_allclose(of.math.erfcinv(1 - y[:200]).numpy(), of.math.erfinv(y[:200]).numpy(), rtol=1e-9,
                               atol=1e-12)
    out = of.math.ndtri(np.array([0.0, 1.0, -0.1, 1.1, np.nan])).numpy()
    np.testing.assert_array_equal(out[:2], [-np.inf, np.inf])
    assert np.isnan(out[2:]).all()
    np.testing.assert_array_equal(of.math.erfinv(np.array([-1.0, 1.0])).numpy(), [-np.inf, np.inf])


def test_bessel_and_nextafter():
    x = np.concatenate([RNG.uniform(-40, 40, 100), [0.0, 600.0, -900.0]])
    np.testing.assert_array_equal(of.math.bessel_i0e(x).numpy(), of.math.bessel_i0e(-x).numpy())  # even
    small = x[np.abs(x) < 300]
    np.testing.assert_allclose(of.math.bessel_i0(small).numpy(), np.i0(small), rtol=1e-13)
    np.testing.assert_array_equal(of.math.bessel_i1e(x).numpy(), -of.math.bessel_i1e(-x).numpy())  # odd
    # Wronskian-type recurrence: I0'(x) = I1(x), checked by central differences on i0e
    h, z = 1e-5, RNG.uniform(0.5, 20.0, 20)
    d = (of.math.bessel_i0(z + h).numpy() - of.math.bessel_i0(z - h).numpy()) / (2 * h)
    np.testing.assert_allclose(d, of.math.bessel_i1(z).numpy(), rtol=1e-7)
    # large |x|: e^-x I0(x) -> 1 / sqrt(2 pi x)
    np.testing.assert_allclose(of.math.bessel_i0e(np.float64(1e6)).numpy(), 1 / math.sqrt(2e6 * math.pi) * (1 + 1 / 8e6), rtol=1e-12)
    a, b = RNG.standard_normal(20).astype(np.float32), RNG.standard_normal(20).astype(np.float32)
    np.testing.assert_array_equal(of.math.nextafter(a, b).numpy(), np.nextafter(a, b))
    assert of.math.nextafter(a, b).dtype == of.float32


def test_cumulative_logsumexp():
    x = RNG.uniform(-3, 3, (3, 5)) * np.array([[1.0], [100.0], [400.0]])  # large values: no overflow
    for axis, exclusive, reverse in [(1, False, False), (1, True, False), (0, False, True), (-1, True, True)]:
        v = np.flip(x, axis) if reverse else x
        want = np.logaddexp.accumulate(v, axis=axis)
        if exclusive:
            want = np.concatenate([np.full_like(np.take(want, [0], axis), -np.inf),
                                   np.delete(want, -1, axis % 2)], axis % 2)
        want = np.flip(want, axis) if reverse else want
        got = of.math.cumulative_logsumexp(x, axis, exclusive=exclusive, reverse=reverse).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-14)
    big = np.float32([1e30, 1e30])
    np.testing.assert_array_equal(of.math.cumulative_logsumexp(big).numpy(), big)
    with pytest.raises(InvalidArgumentError, match="CumulativeLogsumexp"):
        of.math.cumulative_logsumexp(x, 2)


def test_lbeta():
    x = RNG.uniform(0.2, 5.0, (3, 4))
    want = [sum(math.lgamma(v) for v in row) - math.lgamma(row.sum()) for row in x]
    np.testing.assert_allclose(of.math.lbeta(x).numpy(), want, rtol=1e-13)
    assert of.math.lbeta(np.zeros((2, 0))).numpy().tolist() == [-np.inf, -np.inf]  # as TensorFlow


def test_tf1_names_and_python_numbers():
    x = np.array([[0.3, 0.6]])
    with tf1.Graph().as_default(), tf1.Session() as sess:
        got = sess.run([tf1.lgamma(x), tf1.digamma(x), tf1.lbeta(x), tf1.polygamma(2.0, x), tf1.zeta(2.0, x),
                        tf1.igamma(2.0, x), tf1.igammac(2.0, x), tf1.betainc(2.0, x, 0.5), tf1.math.erfinv(x)])
    want = [of.math.lgamma(x), of.math.digamma(x), of.math.lbeta(x), of.math.polygamma(2.0, x),
            of.math.zeta(2.0, x), of.math.igamma(2.0, x), of.math.igammac(2.0, x), of.math.betainc(2.0, x, 0.5),
            of.math.erfinv(x)]
    for g, w in zip(got, want):
        assert g.dtype == np.float64  # a Python number takes the array's dtype
        np.testing.assert_array_equal(g, w.numpy())
    np.testing.assert_allclose(want[5].numpy(), 1 - np.exp(-x) * (1 + x), rtol=1e-14)


@pytest.mark.parametrize("f,args", [
    (of.math.lbeta, (np.array([[0.7, 1.5, 2.0]]),)),
    (of.math.erfcinv, (np.array([0.3, 1.2]),)),
    (of.math.bessel_i1, (np.array([0.4, -1.3]),)),
])
def test_composition_gradients(f, args):
    x = of.constant(args[0])
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.reduce_sum(f(x))
    g = tape.gradient(y, x).numpy()
    eps = 1e-6
    num = np.zeros_like(args[0])
    for i in np.ndindex(args[0].shape):
        d = np.zeros_like(args[0])
        d[i] = eps
        num[i] = (f(args[0] + d).numpy().sum() - f(args[0] - d).numpy().sum()) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6)


def test_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="Betainc"):
        of.math.betainc(np.ones(3), np.ones(2), np.full(3, 0.5))
    with pytest.raises(InvalidArgumentError, match="Betainc"):  # TF: shapes equal or scalars
        of.math.betainc(np.ones((2, 3)), np.ones((1, 3)), np.full((2, 3), 0.5))
    with pytest.raises(InvalidArgumentError, match="Lgamma"):
        of.math.lgamma(np.int32([1, 2]))
    with pytest.raises(InvalidArgumentError, match="Zeta"):
        of.math.zeta(np.float16([2.0]), np.float16([1.0]))
    with pytest.raises(InvalidArgumentError, match="Igamma"):
        of.math.igamma(np.ones(3), np.ones(2))
    with pytest.raises(InvalidArgumentError, match="NextAfter"):
        of.math.nextafter(np.ones(3), np.ones(4))


def test_betainc_shape_function_in_graphs():
    with of.Graph().as_default():
        a = tf1.placeholder(of.float64, [None, 3])
        assert of.math.betainc(a, 2.0, 0.5).shape.as_list() == [None, 3]
        with pytest.raises(InvalidArgumentError, match="Betainc"):
            of.math.betainc(a, np.ones((2, 4)), 0.5)


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.uniform(0.1, 8.0, 30)
    a = RNG.uniform(0.1, 8.0, 30)
    u = RNG.uniform(0.01, 0.99, 30)
    n = RNG.integers(0, 4, 30).astype(np.float64)
    for ours, theirs, args in [
        (of.math.lgamma, tf.math.lgamma, (x - 4,)), (of.math.digamma, tf.math.digamma, (x - 4,)),
        (of.math.igamma, tf.math.igamma, (a, x)), (of.math.igammac, tf.math.igammac, (a, x)),
        (of.math.zeta, tf.math.zeta, (a + 1.1, x)), (of.math.polygamma, tf.math.polygamma, (n, x)),
        (of.math.betainc, tf.math.betainc, (a, x, u)), (of.math.erfinv, tf.math.erfinv, (2 * u - 1,)),
        (of.math.ndtri, tf.math.ndtri, (u,)), (of.math.bessel_i0e, tf.math.bessel_i0e, (x - 4,)),
        (of.math.bessel_i1e, tf.math.bessel_i1e, (x - 4,)), (of.math.lbeta, tf.math.lbeta, (x.reshape(5, 6),)),
        (lambda v: of.math.cumulative_logsumexp(v, 1, exclusive=True, reverse=True),
         lambda v: tf.math.cumulative_logsumexp(v, 1, exclusive=True, reverse=True), (x.reshape(5, 6),)),
    ]:
        np.testing.assert_allclose(ours(*args).numpy(), theirs(*args).numpy(), rtol=1e-10, atol=1e-13,
                                   err_msg=str(theirs))
