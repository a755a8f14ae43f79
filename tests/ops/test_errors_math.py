"""Op-specific bad values for the math ops of issue 4 (the signature-driven error tests in
test_errors.py cover them too): each must raise a typed error naming the op, never crash."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opmatrix import OPS_BY_NAME, dispatch_dtypes, is_float, of_dtype
from test_errors import expect_error

COVERAGE_CATEGORIES = ("errors",)

_F = np.float64


def _x(*shape, dtype=_F):
    return np.ones(shape, dtype)


def _bad_calls():
    out = []

    def add(id_, op_name, fn, exc=of.InvalidArgumentError):
        out.append(pytest.param(op_name, fn, exc, id=id_))

    o = of.ops
    for name, f in (("Reciprocal", lambda a, b: o.reciprocal(b)), ("FloorDiv", o.floor_div),
                    ("FloorMod", o.floor_mod)):
        for spec in dispatch_dtypes(OPS_BY_NAME[name]):
            if not is_float(spec):
                dt = of_dtype(spec).as_numpy_dtype
                add(f"{name}-zero-{spec}", name,
                    lambda f=f, dt=dt: f(np.array([4, 6], dt), np.array([2, 0], dt)))
                add(f"{name}-zero-bcast-{spec}", name,
                    lambda f=f, dt=dt: f(np.ones((2, 3), dt), np.zeros((), dt)))

    add("Select-t-e-shapes", "Select", lambda: o.select(np.array(True), _x(2, 3), _x(3, 2)))
    add("Select-t-e-rank", "Select", lambda: o.select(np.array(True), _x(2, 3), _x(2, 3, 1)))
    add("Select-condition-shape", "Select", lambda: o.select(np.ones((3, 2), bool), _x(2, 3), _x(2, 3)))
    add("Select-condition-vector-length", "Select", lambda: o.select(np.ones(3, bool), _x(2, 3), _x(2, 3)))
    add("Select-condition-matrix-rows", "Select", lambda: o.select(np.ones((2, 1), bool), _x(2, 3), _x(2, 3)))
    add("Select-condition-float", "Select", lambda: o.select(_x(2), _x(2), _x(2)))
    add("SelectV2-broadcast", "SelectV2", lambda: o.select_v2(np.ones(3, bool), _x(2, 4), _x(2, 4)))
    add("SelectV2-broadcast-e", "SelectV2", lambda: o.select_v2(np.ones(4, bool), _x(2, 4), _x(3, 1)))
    add("ClipByValue-min-shape", "ClipByValue", lambda: o.clip_by_value(_x(2, 3), _x(3), _F(1)))
    add("ClipByValue-max-shape", "ClipByValue", lambda: o.clip_by_value(_x(2, 3), _F(0), _x(2, 1)))
    add("ClipByValue-max-bcast", "ClipByValue", lambda: o.clip_by_value(_x(2, 3), _F(0), _x(1, 3)))

    for name in ("Prod", "Min", "All", "Any"):
        f = getattr(o, OPS_BY_NAME[name].snake_name)
        x = _x(2, 3, dtype=bool) if name in ("All", "Any") else _x(2, 3)
        for axes in (2, -3, [0, 2], np.array(2**40)):
            add(f"{name}-axis-{axes}", name, lambda f=f, x=x, axes=axes: f(x, axes))
        add(f"{name}-axis-matrix", name, lambda f=f, x=x: f(x, np.array([[0]], np.int32)))
    # An empty Min is +inf (highest for integers) as in TensorFlow, not an error: see
    # test_tf_semantics_math.py.
    add("All-float-input", "All", lambda: o.all(_x(2), 0))
    add("LogicalAnd-float", "LogicalAnd", lambda: o.logical_and(_x(2), _x(2)))
    add("LogicalNot-int", "LogicalNot", lambda: o.logical_not(np.ones(2, np.int32)))

    for name in ("ArgMax", "ArgMin"):
        f = getattr(o, OPS_BY_NAME[name].snake_name)
        for dim in (2, -3, 100):
            add(f"{name}-dim-{dim}", name, lambda f=f, dim=dim: f(_x(2, 3), dim))
        add(f"{name}-dim-vector", name, lambda f=f: f(_x(2, 3), np.array([0], np.int32)))
        add(f"{name}-scalar-input", name, lambda f=f: f(_F(1), 0))
        add(f"{name}-empty-dim", name, lambda f=f: f(_x(3, 0), 1))
        add(f"{name}-output_type-float", name, lambda f=f: f(_x(3), 0, output_type=of.float32))
        add(f"{name}-output_type-uint8", name, lambda f=f: f(_x(3), 0, output_type=of.uint8))
    add("ArgMax-int16-overflow", "ArgMax", lambda: o.arg_max(_x(40000), 0, output_type=of.int16))
    cs = o.cumsum
    for axis in (2, -3, 7):
        add(f"Cumsum-axis-{axis}", "Cumsum", lambda axis=axis: cs(_x(2, 3), axis))
    add("Cumsum-axis-vector", "Cumsum", lambda: cs(_x(2, 3), np.array([0], np.int32)))
    add("Cumsum-scalar-input", "Cumsum", lambda: cs(_F(1), 0))
    add("Cumsum-axis-float", "Cumsum", lambda: cs(_x(2, 3), np.float32(0)))

    bmm = o.batch_mat_mul_v2
    add("BatchMatMulV2-rank1", "BatchMatMulV2", lambda: bmm(_x(3), _x(3, 2)))
    add("BatchMatMulV2-rank0", "BatchMatMulV2", lambda: bmm(_F(1), _x(1, 1)))
    add("BatchMatMulV2-inner", "BatchMatMulV2", lambda: bmm(_x(2, 2, 3), _x(2, 2, 3)))
    add("BatchMatMulV2-inner-adj", "BatchMatMulV2", lambda: bmm(_x(2, 3), _x(3, 2), adj_x=True))
    add("BatchMatMulV2-batch", "BatchMatMulV2", lambda: bmm(_x(2, 2, 3), _x(3, 3, 2)))
    add("BatchMatMulV2-batch-rank", "BatchMatMulV2", lambda: bmm(_x(2, 1, 2, 3), _x(3, 3, 2)[None].repeat(4, 0)))
    add("BatchMatMulV2-adj-str", "BatchMatMulV2", lambda: bmm(_x(2, 2), _x(2, 2), adj_x="yes"))
    add("NotEqual-shapes", "NotEqual", lambda: o.not_equal(_x(2), _x(3)))
    return out


@pytest.mark.parametrize("op_name,fn,exc", _bad_calls())
def test_bad_call(op_name, fn, exc):
    expect_error(op_name, fn, exc)


def test_not_equal_incompatible_shape_error_false():
    """As in TensorFlow: a scalar True for shapes that do not broadcast, else elementwise."""
    out = of.ops.not_equal(np.ones(2), np.ones(3), incompatible_shape_error=False)
    assert out.shape == () and out.dtype == of.bool and bool(out.numpy())
    out = of.ops.not_equal(np.array([1.0, 2.0]), np.array([[1.0], [2.0]]), incompatible_shape_error=False)
    np.testing.assert_array_equal(out.numpy(), [[False, True], [True, False]])


def test_batch_mat_mul_grad_attrs_do_not_change_the_result():
    x, y = np.random.default_rng(0).random((2, 2, 3)), np.random.default_rng(1).random((2, 3, 2))
    want = of.ops.batch_mat_mul_v2(x, y).numpy()
    np.testing.assert_array_equal(of.ops.batch_mat_mul_v2(x, y, grad_x=True, grad_y=True).numpy(), want)
