"""Checks for the composite functions of opforge/ops (built from other ops): the value eagerly
and in a graph run by a Session against a NumPy reference, and float64 gradients (GradientTape
and of.gradients) against central differences of the NumPy reference."""

from __future__ import annotations

import numpy as np

import opforge as of
from numeric_check import numeric_grad  # tests/numeric_check.py


def _flat(out):
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else [np.asarray(out)]


def check_values(fn, ref, *inputs, rtol=1e-6, atol=0.0, exact=False):
    """fn(*tensors) eagerly, and fn(*placeholders) in a graph fed the inputs, equal ref(*inputs)
    (values, dtypes and shapes). Returns the eager result."""
    want = _flat(ref(*inputs))
    eager = fn(*[of.constant(x) for x in inputs])
    g = of.Graph()
    with g.as_default():
        holders = [of.placeholder(of.as_dtype(np.asarray(x).dtype), np.shape(x)) for x in inputs]
        built = fn(*holders)
    with of.Session(graph=g) as sess:
        graph = sess.run(list(built) if isinstance(built, (list, tuple)) else built, dict(zip(holders, inputs)))
    for got in (_flat([t.numpy() for t in eager] if isinstance(eager, (list, tuple)) else eager.numpy()),
                _flat(graph)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert a.shape == b.shape, (a.shape, b.shape)
            assert a.dtype == b.dtype, (a.dtype, b.dtype)
            if exact:
                np.testing.assert_array_equal(a, b)
            else:
                np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    return eager


def check_gradient(fn, ref, x, rng, rtol=1e-5, atol=1e-8):
    """d/dx sum(w * fn(x)) for random w, by GradientTape and by of.gradients in a graph, against
    central differences of the NumPy reference (float64)."""
    x = np.asarray(x, np.float64)
    w = rng.standard_normal(np.shape(ref(x)))
    want = numeric_grad(lambda v: float(np.sum(ref(v) * w)), x)
    xt = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(xt)
        y = of.reduce_sum(fn(xt) * of.constant(w))
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), want, rtol=rtol, atol=atol)
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float64, x.shape)
        y = of.reduce_sum(fn(ph) * w)
        (dx,) = of.gradients(y, [ph])
    with of.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(dx, {ph: x}), want, rtol=rtol, atol=atol)
