"""Every op x every dtype its dispatch attr allows, against the opdef's NumPy reference.

Set OPFORGE_OPS_SEED to run the matrix on other random data; every failure message names
its seed and inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opmatrix import (
    OPS, OPS_BY_NAME, Case, LOW_PRECISION, assert_matches, build_inputs, call, cases, covers,
    data_inputs, describe, dispatch_attr, dispatch_dtypes, expected_out_spec, np_dtype,
    of_dtype, reference, seed_for, to_tensor, type_bindings, wrapper,
)

COVERAGE_CATEGORIES = ("reference",)


def _params():
    for op in OPS:
        if not op.reference:
            continue
        for spec in dispatch_dtypes(op):
            for case in cases(op, spec):
                yield pytest.param(op.name, spec, case, id=f"{op.name}-{spec}-{case.id}")


def _tol_scale(op, spec, inputs, ref) -> float:
    """Ops that accumulate (sums, dot products) get the tolerance times the terms per output."""
    if op.shape_fn.name not in ("reduce", "matmul") or spec in LOW_PRECISION:
        return 1.0
    n_in = max(np.asarray(inputs[a.name]).size for a in data_inputs(op))
    return float(max(1, n_in // max(1, ref.size)))


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
        assert_matches(out, ref, expected_out_spec(op, bindings), msg=msg,
                       tol_scale=_tol_scale(op, spec, inputs, ref))


@pytest.mark.parametrize("op_name", sorted(OPS_BY_NAME))
def test_wrapper_is_exported(op_name):
    op = OPS_BY_NAME[op_name]
    assert callable(getattr(of, op.snake_name)), op.snake_name
    assert callable(getattr(of.raw_ops, op.name)), op.name
    assert wrapper(op).__doc__ and op.summary.split()[0] in wrapper(op).__doc__


def test_every_dispatch_dtype_is_a_runtime_dtype():
    for op in OPS:
        for spec in dispatch_dtypes(op):
            assert of_dtype(spec).as_numpy_dtype == np_dtype(spec).type, (op.name, spec)


# ------------------------------------------------------------------------------ rank-0 values

# Ops whose output rank does not depend on the rank of their data input (a rank-0 input that
# arrives as shape (1,) still gives the right answer).
_RANK_INSENSITIVE = {"Reshape"}


def _scalar_cases():
    for op in OPS:
        spec = "float" if "float" in dispatch_dtypes(op) else dispatch_dtypes(op)[0]
        for c in cases(op, spec):
            if (all(len(s) == 0 for s in c.shapes.values()) and c.mode in ("", "empty")
                    and c.extra.get("DstT", "double") == "double"):
                yield op, spec, c
                break


def _rank0_mismatches(ops):
    bad = []
    for op, spec, case in _scalar_cases():
        if op.name not in ops:
            continue
        rng = np.random.default_rng(seed_for("scalar", op.name))
        inputs = build_inputs(rng, op, spec, case)
        attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
        want = call(op, inputs, attrs, convert=lambda a: to_tensor(a) if np.ndim(a) == 0 else a)
        try:
            got = call(op, inputs, attrs, convert=np.asarray)
        except of.OpError as e:
            bad.append(f"{op.name}: {e}")
            continue
        if got.shape != want.shape or not np.array_equal(got.numpy(), want.numpy()):
            bad.append(f"{op.name}: shape {got.shape}, want {want.shape}")
    return bad


@pytest.mark.xfail(strict=True, reason="BUG: 0-d NumPy arrays and Python scalars are converted to "
                   "shape (1,) tensors (opforge/framework/tensor.py _from_numpy uses "
                   "np.ascontiguousarray, which returns ndim >= 1)")
def test_scalar_inputs_keep_rank_0():
    """Passing 0-d NumPy arrays (not Tensors) gives the same rank-0 result as 0-d Tensors."""
    bad = _rank0_mismatches(set(OPS_BY_NAME) - _RANK_INSENSITIVE)
    assert not bad, "\n".join(bad)


def test_scalar_inputs_rank_insensitive_ops():
    assert not _rank0_mismatches(_RANK_INSENSITIVE)


@pytest.mark.xfail(strict=True, reason="BUG: of.constant(3.0) has shape (1,), not () "
                   "(np.ascontiguousarray in framework/tensor.py _from_numpy)")
@pytest.mark.parametrize("value", [3.0, np.float64(3.0), np.array(3.0)], ids=["py", "npscalar", "0d"])
def test_constant_scalar_is_rank_0(value):
    assert of.constant(value).shape == ()


@pytest.mark.xfail(strict=True, reason="BUG: of.fill(dims, python_scalar) raises 'Fill: value must "
                   "be a scalar, got shape [1]' (0-d conversion gives shape (1,)); of.zeros/of.ones "
                   "fail the same way")
def test_fill_with_python_scalar():
    np.testing.assert_array_equal(of.fill([2, 3], 1.5).numpy(), np.full((2, 3), 1.5, np.float32))


# ------------------------------------------------------------------------------ attrs the references do not model


@pytest.mark.xfail(strict=True, raises=(AssertionError, of.OpError),
                   reason="BUG: Equal ignores incompatible_shape_error=False; TensorFlow returns a "
                          "scalar False for incompatible shapes instead of raising")
def test_equal_incompatible_shape_error_false():
    out = of.equal(np.ones(2), np.ones(3), incompatible_shape_error=False)
    assert out.shape == () and out.dtype == of.bool and not bool(out.numpy())


@pytest.mark.xfail(strict=True, reason="Cast ignores Truncate=True: TensorFlow zeroes the low "
                   "mantissa bits (truncates) on a narrowing float cast instead of rounding")
def test_cast_truncate():
    x = np.array([1 + 2.0**-24 + 2.0**-40])  # rounds up to 1 + 2**-23 in float32
    op = OPS_BY_NAME["Cast"]
    assert dispatch_attr(op) == "SrcT"
    got = of.ops.cast(x, of.float32, Truncate=True).numpy()
    assert got[0] == np.float32(1.0), got
