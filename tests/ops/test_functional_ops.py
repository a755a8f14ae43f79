"""tf.map_fn, tf.foldl, tf.foldr, tf.scan (opforge/ops/functional_ops.py): eagerly and in a
graph with an unknown first dimension, nested elems and results, gradients through the loop,
against NumPy loops on random data."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.ops import functional_ops as F

RNG = np.random.default_rng(323)


def _graph_run(fn, *arrays):
    g = of.Graph()
    with g.as_default():
        holders = [of.placeholder(of.as_dtype(a.dtype), [None] + list(a.shape[1:])) for a in arrays]
        out = fn(*holders)
    with of.Session(graph=g) as sess:
        return sess.run(out, dict(zip(holders, arrays)))


def _both(fn, *arrays):
    eager = fn(*[of.constant(a) for a in arrays])
    eager = [e.numpy() for e in eager] if isinstance(eager, (list, tuple)) else eager.numpy()
    return eager, _graph_run(fn, *arrays)


def test_map_fn():
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    for got in _both(lambda t: F.map_fn(lambda r: of.reduce_sum(r * r), t), x):
        np.testing.assert_allclose(got, (x * x).sum(1), rtol=1e-5)
    for got in _both(lambda a, b: F.map_fn(lambda e: (e[0] + e[1], e[0] * 2), (a, b), dtype=(of.float32, of.float32)),
                     x, x):
        np.testing.assert_allclose(got[0], 2 * x) and np.testing.assert_allclose(got[1], 2 * x)
    for got in _both(lambda t: F.map_fn(lambda r: of.cast(of.reduce_max(r) > 0, "int32"), t,
                                        fn_output_signature=of.int32), x):
        np.testing.assert_array_equal(got, (x.max(1) > 0).astype(np.int32))


@pytest.mark.parametrize("with_init", [False, True])
def test_foldl_foldr(with_init):
    x = RNG.standard_normal((4, 2))
    init = np.zeros(2) if with_init else None

    def ref(seq, start):
        acc = seq[0] if start is None else start
        for r in (seq[1:] if start is None else seq):
            acc = acc * 0.5 + r
        return acc

    for got in _both(lambda t: F.foldl(lambda a, r: a * 0.5 + r, t, initializer=init), x):
        np.testing.assert_allclose(got, ref(x, init))
    for got in _both(lambda t: F.foldr(lambda a, r: a * 0.5 + r, t, initializer=init), x):
        np.testing.assert_allclose(got, ref(x[::-1], init))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("with_init", [False, True])
def test_scan(reverse, with_init):
    x = RNG.standard_normal((5, 3))
    init = np.ones(3) if with_init else None
    seq = x[::-1] if reverse else x
    acc, outs = (seq[0], [seq[0]]) if init is None else (init, [])
    for r in (seq[1:] if init is None else seq):
        acc = acc * 0.9 + r
        outs.append(acc)
    want = np.stack(outs)[::-1] if reverse else np.stack(outs)
    for got in _both(lambda t: F.scan(lambda a, r: a * 0.9 + r, t, initializer=init, reverse=reverse), x):
        np.testing.assert_allclose(got, want)


def test_scan_with_a_tuple_accumulator():
    x = RNG.standard_normal(6)
    running = (np.float64(0), np.float64(0))
    sums, squares = [], []
    for v in x:
        running = (running[0] + v, running[1] + v * v)
        sums.append(running[0])
        squares.append(running[1])
    got = F.scan(lambda acc, v: (acc[0] + v, acc[1] + v * v), of.constant(x),
                 initializer=(of.constant(0.0, "float64"), of.constant(0.0, "float64")))
    np.testing.assert_allclose(got[0].numpy(), sums) and np.testing.assert_allclose(got[1].numpy(), squares)


def test_gradient_through_map_fn():
    x = RNG.standard_normal((4, 3))
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float64, [None, 3])
        y = of.reduce_sum(F.map_fn(lambda r: r * r * 3.0, ph))
        (dx,) = of.gradients(y, [ph])
    with of.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(dx, {ph: x}), 6 * x)


def test_scalar_elems_are_an_error():
    with pytest.raises(ValueError, match="first dimension"):
        F.map_fn(lambda r: r, of.constant(1.0))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((5, 2)).astype(np.float32)
    np.testing.assert_allclose(F.scan(lambda a, r: a * 0.5 + r, of.constant(x), reverse=True).numpy(),
                               tf.scan(lambda a, r: a * 0.5 + r, x, reverse=True).numpy(), rtol=1e-6)
    np.testing.assert_allclose(F.foldr(lambda a, r: a * 0.5 + r, of.constant(x)).numpy(),
                               tf.foldr(lambda a, r: a * 0.5 + r, x).numpy(), rtol=1e-6)
