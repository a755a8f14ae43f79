"""Hypothesis fuzzing of the math ops with their own shape rules (issue 4): Select, SelectV2,
ClipByValue, ArgMax/ArgMin, Cumsum, BatchMatMulV2. The elementwise, broadcasting and reduction
math ops are fuzzed by test_fuzz.py through their shape families.

As there: a valid call must match the NumPy reference, an invalid one must raise an of.OpError
naming the op. Validity is decided here from TensorFlow's rules, independently of the runtime.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opforge as of
from opmatrix import (
    LOW_PRECISION, OPS_BY_NAME, covers, data_inputs, dispatch_attr, family, np_dtype, random_values,
    domain,
)
from test_fuzz import FUZZ, N, _dtype, _related_shape, _rng, _run, shapes

COVERAGE_CATEGORIES = ("fuzz",)


def _params(fam):
    return [pytest.param(name, id=name) for name, op in sorted(OPS_BY_NAME.items()) if family(op) == fam]


def _values(rng, op, name, shape, spec):
    return random_values(rng, shape, spec, domain(op.name, name))


@pytest.mark.parametrize("op_name", _params("select"))
@FUZZ
@given(data=st.data())
def test_fuzz_select(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    t = data.draw(shapes, label="t")
    e = t if data.draw(st.integers(0, 4), label="same t, e?") else data.draw(shapes, label="e")
    how = data.draw(st.sampled_from(["scalar", "same", "vector", "random"]), label="condition")
    c = {"scalar": (), "same": t, "vector": t[:1], "random": None}[how]
    if c is None:
        c = data.draw(shapes, label="condition shape")
    valid = ok and t == e and (c == () or c == t or (len(c) == 1 and len(t) >= 1 and c[0] == t[0]))
    rng = _rng(data)
    inputs = {"condition": rng.random(c) < 0.5, "t": _values(rng, op, "t", t, spec),
              "e": _values(rng, op, "e", e, spec)}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


@pytest.mark.parametrize("op_name", _params("select_v2"))
@FUZZ
@given(data=st.data())
def test_fuzz_select_v2(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    t = data.draw(shapes, label="t")
    e = _related_shape(data, t)
    c = _related_shape(data, t if data.draw(st.booleans()) else e)
    try:
        np.broadcast_shapes(c, t, e)
        valid = ok
    except ValueError:
        valid = False
    rng = _rng(data)
    inputs = {"condition": rng.random(c) < 0.5, "t": _values(rng, op, "t", t, spec),
              "e": _values(rng, op, "e", e, spec)}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


@pytest.mark.parametrize("op_name", _params("clip"))
@FUZZ
@given(data=st.data())
def test_fuzz_clip(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    t = data.draw(shapes, label="t")
    lo, hi = (data.draw(st.sampled_from([(), (), t, "random"]), label=n) for n in ("min", "max"))
    lo = data.draw(shapes, label="min shape") if lo == "random" else lo
    hi = data.draw(shapes, label="max shape") if hi == "random" else hi
    valid = ok and all(s == () or s == t for s in (lo, hi))
    if op_name == "Betainc":  # any of a, b, x may be the scalar; the others share one shape
        valid = ok and len({s for s in (t, lo, hi) if s != ()}) <= 1
    rng = _rng(data)
    names = [a.name for a in data_inputs(op)]
    inputs = {n: _values(rng, op, n, s, spec) for n, s in zip(names, (t, lo, hi))}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


@pytest.mark.parametrize("op_name", _params("arg"))
@FUZZ
@given(data=st.data())
def test_fuzz_arg(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    dim = data.draw(st.integers(-r - 1, r), label="dimension")
    as_vector = data.draw(st.integers(0, 9), label="vector dimension?") == 0
    out_type = data.draw(st.sampled_from(op.attr("output_type").allowed), label="output_type")
    tidx = data.draw(st.sampled_from(op.attr("Tidx").allowed), label="Tidx")
    valid = ok and not as_vector and -r <= dim < r
    if valid:
        rest = [d for i, d in enumerate(shape) if i != dim % r]
        valid = shape[dim % r] > 0 or int(np.prod(rest)) == 0
    rng = _rng(data)
    dim_value = np.array([dim] if as_vector else dim).astype(np_dtype(tidx))
    inputs = {"input": _values(rng, op, "input", shape, spec), "dimension": dim_value}
    ref_inputs = None
    if valid and shape[dim % r] == 0:  # an empty result: NumPy refuses the empty reduction
        ref_inputs = {"input": np.ones([1 if i == dim % r else d for i, d in enumerate(shape)],
                                       inputs["input"].dtype), "dimension": dim_value}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {"output_type": of.as_dtype(np_dtype(out_type))}, valid,
             ref_inputs=ref_inputs,
             bindings={dispatch_attr(op): spec, "Tidx": tidx, "output_type": out_type})


@pytest.mark.parametrize("op_name", _params("cumsum"))
@FUZZ
@given(data=st.data())
def test_fuzz_cumsum(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    axis = data.draw(st.integers(-r - 1, r), label="axis")
    as_vector = data.draw(st.integers(0, 9), label="vector axis?") == 0
    attrs = {"exclusive": data.draw(st.booleans(), label="exclusive"),
             "reverse": data.draw(st.booleans(), label="reverse")}
    valid = ok and not as_vector and -r <= axis < r
    rng = _rng(data)
    axis_value = np.array([axis] if as_vector else axis).astype(
        data.draw(st.sampled_from([np.int32, np.int64]), label="Tidx"))
    inputs = {"x": _values(rng, op, "x", shape, spec), "axis": axis_value}
    n = shape[axis % r] if valid else 1
    scale = 1.0 if spec in LOW_PRECISION else float(np.sqrt(max(1, n)))
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, attrs, valid, tol_scale=scale)


@pytest.mark.parametrize("op_name", _params("batch_matmul"))
@settings(FUZZ, max_examples=max(1, N * 3 // 2))
@given(data=st.data())
def test_fuzz_batch_matmul(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    ax, ay = data.draw(st.booleans(), label="adj_x"), data.draw(st.booleans(), label="adj_y")
    if data.draw(st.integers(0, 3), label="matrices?"):
        m, k, n = (data.draw(st.integers(0, 5)) for _ in range(3))
        k2 = k if data.draw(st.integers(0, 3)) else data.draw(st.integers(0, 5))
        bx = data.draw(st.lists(st.integers(0, 3), max_size=3).map(tuple), label="batch x")
        by = _related_shape(data, bx)
        x = bx + ((k, m) if ax else (m, k))
        y = by + ((n, k2) if ay else (k2, n))
    else:
        x, y = data.draw(shapes, label="x"), data.draw(shapes, label="y")
    valid = ok and len(x) >= 2 and len(y) >= 2 and x[-2 if ax else -1] == y[-1 if ay else -2]
    if valid:
        try:
            np.broadcast_shapes(x[:-2], y[:-2])
        except ValueError:
            valid = False
    rng = _rng(data)
    inputs = {"x": _values(rng, op, "x", x, spec), "y": _values(rng, op, "y", y, spec)}
    kk = x[-2 if ax else -1] if len(x) >= 2 else 1
    scale = 1.0 if spec in LOW_PRECISION else float(np.sqrt(max(1, kk)))
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {"adj_x": ax, "adj_y": ay}, valid, tol_scale=scale)
