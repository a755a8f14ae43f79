"""Every op x every dtype its dispatch attr allows, against the opdef's NumPy reference.

Set OPFORGE_OPS_SEED to run the matrix on other random data; every failure message names
its seed and inputs.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest


import linalg_cases
import opforge as of
from opmatrix import (
    ALL_OPS_BY_NAME, OPS, OPS_BY_NAME, Case, assert_all_match, build_inputs, call,
    cases, covers, data_inputs, describe, dispatch_attr, dispatch_dtypes, family, np_dtype, of_dtype, as_outputs, reference, seed_for, type_bindings, wrapper,
)
from opmatrix_values import TOLERANCE

COVERAGE_CATEGORIES = ("reference",)


def _params():
    for op in OPS:
        for spec in dispatch_dtypes(op):
            for case in cases(op, spec):
                yield pytest.param(op.name, spec, case, id=f"{op.name}-{spec}-{case.id}")


def _tol_scale(op, inputs, attrs, ref) -> float:
    """Ops that accumulate (sums, dot products) get the tolerance times sqrt(terms per output):
    rounding grows with sum|x_i| while the values are compared relative to max|ref|."""
    if family(op) not in ("matmul", "reduce"):
        return 1.0
    first = np.asarray(inputs[data_inputs(op)[0].name])
    if family(op) == "matmul":
        terms = first.shape[0 if attrs.get("transpose_a") else 1]
    elif family(op) == "reduce":
        terms = first.size // max(1, ref.size)
    elif family(op) == "batch_matmul":  # math ops (issue 4)
        terms = first.shape[-2 if attrs.get("adj_x") else -1]
    elif family(op) == "cumsum":
        terms = first.shape[int(inputs["axis"])] if first.ndim else 1
    else:
        return 1.0
    return float(max(1.0, np.sqrt(terms)))


@pytest.mark.parametrize("op_name,spec,case", list(_params()))
def test_reference(op_name: str, spec: str, case: Case):
    op = OPS_BY_NAME[op_name]
    seed = seed_for("reference", op_name, spec, case.id)
    rng = np.random.default_rng(seed)
    with covers("reference", op_name):
        inputs = build_inputs(rng, op, spec, case)
        attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
        bindings = type_bindings(op, spec, inputs, case)
        msg = f"{op_name}[{spec}] case {case.id} seed={seed}: {describe(inputs, case.attrs)}"
        ref = reference(op, spec, inputs, case.attrs, bindings)
        out = call(op, inputs, attrs)
        if op_name in linalg_cases.SIGN_FREE:  # vectors are defined up to sign: take the op's
            ref = linalg_cases.align_signs(op_name, [o.numpy() for o in as_outputs(out)], ref, case.attrs,
                                           atol=10 * TOLERANCE[spec])
        assert_all_match(op, out, ref, bindings, msg=msg,
                         tol_scale=_tol_scale(op, inputs, case.attrs, ref))


@pytest.mark.parametrize("op_name", sorted(ALL_OPS_BY_NAME))
def test_wrapper_is_exported(op_name):
    """Every opdef has its generated wrapper in the installed build (else: rebuild)."""
    op = ALL_OPS_BY_NAME[op_name]
    assert hasattr(of.ops, op.snake_name), f"no of.ops.{op.snake_name}: the build predates {op.loc.file}"
    assert callable(getattr(of.raw_ops, op.name)), op.name
    if op_name in OPS_BY_NAME:
        assert callable(getattr(of, op.snake_name)), op.snake_name
    params = set(inspect.signature(getattr(of.ops, op.snake_name)).parameters)
    want = {op.py_name(a.name) for a in op.explicit_attrs}
    want |= {op.py_name(a.name) for a in op.inputs}
    assert want <= params, \
        f"of.ops.{op.snake_name} lacks {sorted(want - params)}: the build predates {op.loc.file}"
    if op.summary:
        assert wrapper(op).__doc__ and op.summary.split()[0] in wrapper(op).__doc__


def test_every_dispatch_dtype_is_a_runtime_dtype():
    for op in OPS:
        for spec in dispatch_dtypes(op):
            assert of_dtype(spec).as_numpy_dtype == np_dtype(spec).type, (op.name, spec)


# ------------------------------------------------------------------------------ rank-0 values


def _scalar_params():
    for op in OPS:
        spec = "float" if "float" in dispatch_dtypes(op) else dispatch_dtypes(op)[0]
        for c in cases(op, spec):
            if (all(len(s) == 0 for s in c.shapes.values()) and c.mode in ("", "empty")
                    and c.extra.get("DstT", "double") == "double"):
                yield pytest.param(op.name, spec, c, id=op.name)
                break


def _rank0_tensor(a):
    """A rank-0 Tensor built without converting a 0-d value (Reshape of a 1-element vector)."""
    return of.ops.reshape(of.constant(np.asarray(a).reshape(1)), np.zeros(0, np.int32))


@pytest.mark.parametrize("op_name,spec,case", list(_scalar_params()))
def test_scalar_inputs_keep_rank_0(op_name, spec, case):
    """0-d NumPy arrays give the same rank-0 result as rank-0 Tensors made without converting
    a 0-d value (a regression test: they used to arrive as shape (1,))."""
    op = OPS_BY_NAME[op_name]
    rng = np.random.default_rng(seed_for("scalar", op_name))
    inputs = build_inputs(rng, op, spec, case)
    attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
    want = call(op, inputs, attrs, convert=lambda a: _rank0_tensor(a) if np.ndim(a) == 0 else a)
    got = call(op, inputs, attrs, convert=np.asarray)
    for g, w in zip(as_outputs(got), as_outputs(want)):
        assert g.shape == w.shape, f"{op_name}: {describe(inputs, case.attrs)}"
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("value", [3.0, np.float64(3.0), np.array(3.0)], ids=["py", "npscalar", "0d"])
def test_constant_scalar_is_rank_0(value):
    assert of.constant(value).shape == ()


def test_fill_with_python_scalar():
    np.testing.assert_array_equal(of.fill([2, 3], 1.5).numpy(), np.full((2, 3), 1.5, np.float32))
    np.testing.assert_array_equal(of.zeros([2]).numpy(), np.zeros(2, np.float32))
    np.testing.assert_array_equal(of.ones([]).numpy(), np.ones((), np.float32))


# ------------------------------------------------------------------------------ attrs the references skip


def test_equal_incompatible_shape_error_false():
    """As in TensorFlow: a scalar False for shapes that do not broadcast, else elementwise."""
    out = of.equal(np.ones(2), np.ones(3), incompatible_shape_error=False)
    assert out.shape == () and out.dtype == of.bool and not bool(out.numpy())
    out = of.equal(np.array([1.0, 2.0]), np.array([[1.0], [2.0]]), incompatible_shape_error=False)
    np.testing.assert_array_equal(out.numpy(), [[True, False], [False, True]])
    with pytest.raises(of.InvalidArgumentError, match="Equal"):
        of.equal(np.ones(2), np.ones(3))


def test_cast_truncate():
    """Truncate=True zeroes the dropped mantissa bits on a narrowing float cast (TensorFlow)."""
    x = np.array([1 + 2.0**-24 + 2.0**-40])  # rounds up to 1 + 2**-23 in float32
    op = OPS_BY_NAME["Cast"]
    assert dispatch_attr(op) == "SrcT"
    got = of.ops.cast(x, of.float32, Truncate=True).numpy()
    assert got[0] == np.float32(1.0), got
    assert of.ops.cast(x, of.float32).numpy()[0] == np.float32(1 + 2.0**-23)
