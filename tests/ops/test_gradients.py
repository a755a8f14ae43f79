"""float64 numeric gradient checks of every op with gradient formulas in its opdef.

For each input with a formula, d/dx sum(op(inputs) * w) (random weights w) from GradientTape
is compared with central differences of the op itself. Inputs stay away from kinks and ties
(Abs/Relu at 0, Maximum/Minimum ties, equal maxima).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opforge as of
from opmatrix import (
    OPS, OPS_BY_NAME, Case, Domain, build_inputs, cases, covers, data_inputs, describe,
    dispatch_attr, dispatch_dtypes, domain, index_inputs, of_dtype, seed_for, to_tensor, wrapper,
)

COVERAGE_CATEGORIES = ("gradient", "not_differentiable")

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-7

# Gradient-check domains: away from the kinks and singularities of each op.
GRAD_DOMAINS = {
    "Abs": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "Relu": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "Sqrt": {"*": Domain(float=(0.2, 4.0))},
    "Log": {"*": Domain(float=(0.2, 4.0))},
    "Pow": {"x": Domain(float=(0.5, 2.0)), "y": Domain(float=(-2.0, 2.0))},
    "RealDiv": {"y": Domain(float=(-3.0, 3.0), away_from_zero=0.5)},
}


def grad_domain(op_name, input_name):
    d = GRAD_DOMAINS.get(op_name, {})
    return d.get(input_name, d.get("*", domain(op_name, input_name)))


def _away_from_ties(rng, op, case, inputs):
    """Resample Maximum/Minimum inputs until no pair (after broadcasting) is within 0.05;
    make Max's input values distinct (gaps >= 0.17)."""
    if op.name in ("Maximum", "Minimum"):
        x, y = (a.name for a in data_inputs(op))
        for _ in range(200):
            if np.min(np.abs(np.subtract(inputs[x], inputs[y])), initial=1.0) > 0.05:
                return inputs
            inputs = build_inputs(rng, op, "double", case, domain_of=grad_domain)
        raise AssertionError("could not draw tie-free inputs")
    if op.name == "Max":
        name = data_inputs(op)[0].name
        v = inputs[name]
        inputs[name] = (rng.permutation(v.size).reshape(v.shape) * 0.37
                        + rng.uniform(-0.1, 0.1, v.shape) - 1.0)
    return inputs


def _grad_cases(op):
    for case in cases(op, "double", small=True):
        if case.extra.get("DstT", "double") != "double":
            continue
        yield case


_EMPTY_LIST_BUG = ("BUG: an empty Python list passed to an int-only index input (Tidx, Tshape, "
                   "Tperm, index_type) converts to float32 and is rejected, e.g. of.sum(x, []) -> "
                   "'Sum: dtype float32 is not supported for attr 'Tidx''; the generated gradient "
                   "{formula} passes one when the tensor is rank 0")
_RANK0_BUG = ("BUG: the gradient of a rank-0 input comes back with shape (1,): the formula {formula} "
              "mixes in a Python/NumPy scalar, which converts to shape (1,) (_from_numpy uses "
              "np.ascontiguousarray)")

# Known failures: (op, case id, wrt) -> reason. Strict: they fail the run once fixed.
KNOWN_BUGS = {
    ("Fill", "dims_s", "value"): _EMPTY_LIST_BUG.format(formula="sum(grad, list(range(grad.ndim)))"),
    ("Reshape", "s-vector1", "tensor"): _EMPTY_LIST_BUG.format(
        formula="reshape(grad, shape_of(tensor))"),
    ("Sqrt", "s", "x"): _RANK0_BUG.format(formula="real_div(mul(grad, 0.5), y)"),
    ("Mean", "s-empty-keep_dims=0", "input"): _RANK0_BUG.format(
        formula="reduce_grad(..., mean=True) (real_div by np.array(n))"),
    ("Mean", "s-empty-keep_dims=1", "input"): _RANK0_BUG.format(
        formula="reduce_grad(..., mean=True) (real_div by np.array(n))"),
}


def _params():
    for op in OPS:
        for g in op.gradients:
            if "double" not in dispatch_dtypes(op):
                continue
            for case in _grad_cases(op):
                reason = KNOWN_BUGS.get((op.name, case.id, g.wrt))
                marks = pytest.mark.xfail(strict=True, reason=reason) if reason else ()
                yield pytest.param(op.name, case, g.wrt, id=f"{op.name}-{case.id}-d{g.wrt}",
                                   marks=marks)


def _loss_and_grads(op, inputs, attrs, w, wrt_names):
    tensors = {a.name: to_tensor(inputs[a.name]) for a in op.inputs}
    with of.GradientTape() as tape:
        for n in wrt_names:
            tape.watch(tensors[n])
        out = wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs)
        loss = of.sum(of.mul(out, to_tensor(w)), np.arange(out.ndim, dtype=np.int32))
    return out, tape.gradient(loss, [tensors[n] for n in wrt_names])


def _objective(op, inputs, attrs, w):
    args = [to_tensor(inputs[a.name]) for a in op.inputs]
    return float(np.sum(wrapper(op)(*args, **attrs).numpy() * w))


def numeric_gradient(op, inputs, attrs, w, wrt):
    x = np.asarray(inputs[wrt], dtype=np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        vals = []
        for sign in (1, -1):
            xp = x.copy()
            xp[idx] += sign * EPS
            vals.append(_objective(op, {**inputs, wrt: xp}, attrs, w))
        g[idx] = (vals[0] - vals[1]) / (2 * EPS)
    return g


@pytest.mark.parametrize("op_name,case,wrt", list(_params()))
def test_numeric_gradient(op_name: str, case: Case, wrt: str):
    op = OPS_BY_NAME[op_name]
    seed = seed_for("gradient", op_name, case.id, wrt)
    rng = np.random.default_rng(seed)
    with covers("gradient", op_name):
        inputs = build_inputs(rng, op, "double", case, domain_of=grad_domain)
        inputs = _away_from_ties(rng, op, case, inputs)
        attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
        out = wrapper(op)(*[to_tensor(inputs[a.name]) for a in op.inputs], **attrs)
        w = rng.uniform(-1.5, 1.5, out.shape)
        msg = f"{op_name} d/d{wrt} case {case.id} seed={seed}: {describe(inputs, case.attrs)}"
        _, (g,) = _loss_and_grads(op, inputs, attrs, w, [wrt])
        assert g is not None, f"no gradient; {msg}"
        assert g.dtype == of.float64, f"gradient dtype {g.dtype}; {msg}"
        assert g.shape == np.shape(inputs[wrt]), f"gradient shape {g.shape}; {msg}"
        want = numeric_gradient(op, inputs, attrs, w, wrt)
        np.testing.assert_allclose(g.numpy(), want, rtol=RTOL, atol=ATOL, err_msg=msg)


def test_every_gradient_formula_is_checked():
    checked = {(p.values[0], p.values[2]) for p in _params()}
    want = {(op.name, g.wrt) for op in OPS for g in op.gradients}
    assert checked == want


# ------------------------------------------------------------------------------ no gradient


def _no_grad_params():
    for op in OPS:
        if op.not_differentiable:
            yield pytest.param(op.name, None, id=f"{op.name}-not_differentiable")
        elif op.gradients:
            for arg in index_inputs(op):
                if arg.name not in {g.wrt for g in op.gradients}:
                    yield pytest.param(op.name, arg.name, id=f"{op.name}-{arg.name}")


@pytest.mark.parametrize("op_name,source", list(_no_grad_params()))
def test_gradient_is_none(op_name, source):
    """tape.gradient through a not_differentiable op (or w.r.t. an index input) gives None."""
    op = OPS_BY_NAME[op_name]
    spec = "double" if "double" in dispatch_dtypes(op) else dispatch_dtypes(op)[0]
    case = next(c for c in cases(op, spec, small=True)
                if len(next(iter(c.shapes.values()))) >= 1 or len(c.extra.get("dims", ())) >= 1)
    rng = np.random.default_rng(seed_for("nograd", op_name))
    inputs = build_inputs(rng, op, spec, case)
    attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
    sources = [source] if source else [a.name for a in data_inputs(op)]
    tensors = {a.name: to_tensor(inputs[a.name]) for a in op.inputs}
    with covers("not_differentiable" if op.not_differentiable else "gradient_index", op_name):
        with of.GradientTape(persistent=True) as tape:
            for n in sources:
                tape.watch(tensors[n])
            out = wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs)
            # through the op: the sources reach the target only via `out`
            target = of.mul(of.cast(out, of.float64), np.ones(out.shape) * 2.0)
        grads = tape.gradient(target, [tensors[n] for n in sources])
        assert grads == [None] * len(sources), f"{op_name}: {grads}"
        assert tape.gradient(out, [tensors[n] for n in sources]) == [None] * len(sources)


# ------------------------------------------------------------------------------ Cast's gradient dtype

_FLOATS = ("bfloat16", "half", "float", "double")


@pytest.mark.parametrize("src,dst", list(itertools.product(_FLOATS, _FLOATS)),
                         ids=lambda s: s if isinstance(s, str) else None)
def test_cast_gradient_has_source_dtype(src, dst):
    op = OPS_BY_NAME["Cast"]
    assert dispatch_attr(op) == "SrcT"
    x = to_tensor(np.array([[0.5, -1.25], [2.0, 3.0]]).astype(of_dtype(src).as_numpy_dtype))
    w = np.array([[1.0, -2.0], [0.25, 4.0]])
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.ops.cast(x, of_dtype(dst))
        loss = of.sum(of.mul(y, w.astype(of_dtype(dst).as_numpy_dtype)), np.array([0, 1], np.int32))
    (g,) = tape.gradient(loss, [x])
    assert g.dtype == of_dtype(src)
    np.testing.assert_allclose(g.numpy().astype(np.float64), w)
