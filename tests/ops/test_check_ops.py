"""tf.assert_* and friends (opforge/ops/check_ops.py): failures known while building raise at
once, others fail the run; random data against NumPy's comparisons, and the errors TF gives."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.ops import check_ops as c

RNG = np.random.default_rng(322)

BINARY = [
    (c.assert_equal, np.equal), (c.assert_none_equal, np.not_equal), (c.assert_less, np.less),
    (c.assert_less_equal, np.less_equal), (c.assert_greater, np.greater), (c.assert_greater_equal, np.greater_equal),
]


@pytest.fixture
def g():
    graph = of.Graph()
    with graph.as_default():
        yield graph


def _runs(graph, op, feed):
    with of.Session(graph=graph) as sess:
        try:
            sess.run(op, feed)
            return True
        except of.errors.InvalidArgumentError:
            return False


@pytest.mark.parametrize("check,ref", BINARY)
def test_binary_asserts_at_run_time(g, check, ref):
    x, y = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    op = check(x, y, message="custom")
    for _ in range(20):
        a, b = RNG.integers(0, 3, 4), RNG.integers(0, 3, 4)
        assert _runs(g, op, {x: a, y: b}) == bool(np.all(ref(a, b))), (a, b)


@pytest.mark.parametrize("check,ref", BINARY)
def test_binary_asserts_with_known_values_fail_while_building(check, ref):
    for _ in range(10):
        a, b = RNG.integers(0, 3, 3), RNG.integers(0, 3, 3)
        if np.all(ref(a, b)):
            check(a, b)  # an Assert op that passes
        else:
            with pytest.raises(of.errors.InvalidArgumentError, match="did not hold element-wise"):
                check(a, b, message="custom")


@pytest.mark.parametrize("check,ref", [(c.assert_positive, lambda v: v > 0), (c.assert_negative, lambda v: v < 0),
                                       (c.assert_non_negative, lambda v: v >= 0),
                                       (c.assert_non_positive, lambda v: v <= 0)])
def test_sign_asserts(g, check, ref):
    x = tf.placeholder(tf.float32, [3])
    op = check(x)
    for _ in range(20):
        a = RNG.integers(-1, 2, 3).astype(np.float32)
        assert _runs(g, op, {x: a}) == bool(np.all(ref(a)))


def test_assert_near(g):
    x, y = tf.placeholder(tf.float64, [4]), tf.placeholder(tf.float64, [4])
    op = c.assert_near(x, y, rtol=1e-3, atol=1e-6)
    base = RNG.standard_normal(4)
    assert _runs(g, op, {x: base * (1 + 5e-4), y: base})
    assert not _runs(g, op, {x: base * (1 + 5e-3), y: base})
    with pytest.raises(of.errors.InvalidArgumentError, match="tolerance"):
        c.assert_near(np.float32(1.0), np.float32(1.1))
    c.assert_near(np.float32(1.0), np.float32(1.0 + 1e-7))  # within 10 float32 epsilons


def test_rank_asserts(g):
    known = tf.placeholder(tf.float32, [None, 3])
    c.assert_rank(known, 2) and c.assert_rank_at_least(known, 1) and c.assert_rank_in(known, [1, 2])
    for bad in (lambda: c.assert_rank(known, 3), lambda: c.assert_rank_at_least(known, 3),
                lambda: c.assert_rank_in(known, [0, 1])):
        with pytest.raises(ValueError, match="must have"):
            bad()
    unknown = tf.placeholder(tf.float32)
    ops = [c.assert_rank(unknown, 2), c.assert_rank_at_least(unknown, 2), c.assert_rank_in(unknown, [2, 3])]
    for value, ok in ((np.zeros((2, 2)), (True, True, True)), (np.zeros(2), (False, False, False)),
                      (np.zeros((1, 1, 1)), (False, True, True))):
        assert tuple(_runs(g, op, {unknown: value}) for op in ops) == ok


def test_static_dtype_and_shape_checks(g):
    i, f = tf.placeholder(tf.int32, [2]), tf.placeholder(tf.float32, [])
    c.assert_integer(i)
    with pytest.raises(TypeError, match="integer"):
        c.assert_integer(f)
    c.assert_type(i, tf.int32)
    with pytest.raises(TypeError, match="must be of type"):
        c.assert_type(i, tf.int64)
    assert c.assert_scalar(f) is f
    with pytest.raises(ValueError, match="scalar"):
        c.assert_scalar(i)
    assert c.assert_same_float_dtype([f, f]) == tf.float32 and c.assert_same_float_dtype(None, tf.float64) == tf.float64
    with pytest.raises(ValueError):
        c.assert_same_float_dtype([f], tf.float64)
    with pytest.raises(ValueError, match="floating"):
        c.assert_same_float_dtype([i])
    c.assert_proper_iterable([1, 2])
    for bad in ("ab", np.zeros(2), i):
        with pytest.raises(TypeError, match="proper"):
            c.assert_proper_iterable(bad)


def test_check_numerics(g):
    x = tf.placeholder(tf.float32, [3])
    y = c.check_numerics(x, "my tensor")
    z = tf.verify_tensor_all_finite(x, "other")
    with of.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2, 3]}), [1, 2, 3])
        for bad in (np.nan, np.inf):
            with pytest.raises(of.errors.InvalidArgumentError, match="my tensor"):
                sess.run(y, {x: [1, bad, 3]})
        with pytest.raises(of.errors.InvalidArgumentError, match="other"):
            sess.run(z, {x: [np.nan, 0, 0]})


@pytest.mark.parametrize("fn,ref", [(c.is_non_decreasing, lambda v: np.all(np.diff(v.ravel()) >= 0)),
                                    (c.is_strictly_increasing, lambda v: np.all(np.diff(v.ravel()) > 0))])
def test_monotonicity(g, fn, ref):
    x = tf.placeholder(tf.int32, None)
    out = fn(x)
    with of.Session(graph=g) as sess:
        for shape in [(0,), (1,), (5,), (2, 3)]:
            for _ in range(5):
                v = np.sort(RNG.integers(0, 4, shape).ravel()).reshape(shape) if RNG.random() < 0.5 else \
                    RNG.integers(0, 4, shape)
                assert sess.run(out, {x: v}) == ref(v), v
