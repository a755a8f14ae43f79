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
import linalg_cases
import nn_cases
from opmatrix import (
    OPS, OPS_BY_NAME, Case, Domain, as_outputs, build_inputs, cases, covers, data_inputs, describe,
    dispatch_attr, dispatch_dtypes, domain, index_inputs, of_dtype, seed_for, to_tensor,
    valid_case, wrapper,
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
    # ---- math ops (issue 4)
    "Reciprocal": {"*": Domain(float=(-3.0, 3.0), away_from_zero=0.3)},
    "Rsqrt": {"*": Domain(float=(0.3, 4.0))},
    "Tan": {"*": Domain(float=(-1.2, 1.2))},
    "Asin": {"*": Domain(float=(-0.9, 0.9))},
    "Acos": {"*": Domain(float=(-0.9, 0.9))},
    "Atanh": {"*": Domain(float=(-0.9, 0.9))},
    "Acosh": {"*": Domain(float=(1.2, 4.0))},
    "Log1p": {"*": Domain(float=(-0.8, 3.0))},
    "Sign": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "FloorMod": {"x": Domain(float=(0.1, 0.9)), "y": Domain(float=(1.0, 3.0))},  # away from jumps
    "Atan2": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.3)},
    "ClipByValue": {"t": Domain(float=(-3.0, 3.0)), "clip_value_min": Domain(float=(-2.0, -0.2)),
                    "clip_value_max": Domain(float=(0.2, 2.0))},
    "Prod": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.2)},
    # ---- end math ops
    # ---- nn (issue 4): away from the kinks at 0 (and Relu6's at 6)
    "Relu6": {"*": Domain(float=(-2.0, 8.0), away_from_zero=0.1)},
    "ReluGrad": {"features": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "Relu6Grad": {"features": Domain(float=(-2.0, 8.0), away_from_zero=0.1)},
    "LeakyRelu": {"*": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "LeakyReluGrad": {"features": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
    "EluGrad": {"outputs": Domain(float=(-0.9, 2.0), away_from_zero=0.1)},
    "SeluGrad": {"outputs": Domain(float=(-1.7, 2.0), away_from_zero=0.1)},
    "SoftsignGrad": {"features": Domain(float=(-2.0, 2.0), away_from_zero=0.1)},
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
    if op.name in nn_cases.DISTINCT_INPUTS:
        return nn_cases.make_distinct(rng, op.name, inputs)
    if op.name in ("Max", "Min"):
        name = data_inputs(op)[0].name
        v = inputs[name]
        inputs[name] = (rng.permutation(v.size).reshape(v.shape) * 0.37
                        + rng.uniform(-0.1, 0.1, v.shape) - 1.0)
    return inputs


def grad_spec(op) -> str:
    """float64, or float32 for ops without it (FusedBatchNormV3: T is half/bfloat16/float)."""
    return "double" if "double" in dispatch_dtypes(op) else "float"


# Central-difference step and tolerances per dtype (float32 checks are coarse).
STEPS = {"double": (EPS, RTOL, ATOL), "float": (2e-2, 2e-2, 2e-3)}


def _grad_cases(op):
    for case in cases(op, grad_spec(op), small=True):
        if case.extra.get("no_grad"):  # an op whose gradient does not support the case
            continue
        if case.extra.get("DstT", "double") != "double":
            continue
        yield case


# Known failures: (op, case id, wrt) -> reason. Strict: they fail the run once fixed.
KNOWN_BUGS: dict[tuple[str, str, str], str] = {}


def _wrts(op):
    """Inputs with a gradient: those with a formula, or all data inputs for a named function."""
    if op.name in nn_cases.GRADIENT_WRTS:
        return list(nn_cases.GRADIENT_WRTS[op.name])
    if op.gradients:
        return [g.wrt for g in op.gradients]
    return [a.name for a in data_inputs(op)] if op.gradient_fn else []


def _params():
    for op in OPS:
        if grad_spec(op) not in dispatch_dtypes(op):
            continue
        for wrt in _wrts(op):
            for case in _grad_cases(op):
                reason = KNOWN_BUGS.get((op.name, case.id, wrt))
                marks = pytest.mark.xfail(strict=True, reason=reason) if reason else ()
                yield pytest.param(op.name, case, wrt, id=f"{op.name}-{case.id}-d{wrt}", marks=marks)


def _tensors(op, inputs):
    """Input name -> Tensor (a list of Tensors for a list input)."""
    return {a.name: [to_tensor(v) for v in inputs[a.name]] if isinstance(inputs[a.name], list)
            else to_tensor(inputs[a.name]) for a in op.inputs}


def _slots(inputs, name):
    """The differentiable tensors of one input: (name, None), or (name, i) per list element."""
    v = inputs[name]
    return [(name, i) for i in range(len(v))] if isinstance(v, list) else [(name, None)]


def _get(d, slot):
    name, i = slot
    return d[name] if i is None else d[name][i]


def _with(inputs, slot, value):
    name, i = slot
    if i is None:
        return {**inputs, name: value}
    return {**inputs, name: [value if j == i else v for j, v in enumerate(inputs[name])]}


def _loss_and_grads(op, inputs, attrs, w, slots):
    tensors = _tensors(op, inputs)
    with of.GradientTape() as tape:
        for slot in slots:
            tape.watch(_get(tensors, slot))
        outs = as_outputs(wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs))
        loss = None
        for out, wi in zip(outs, w):  # several outputs: the weighted sum of all of them
            if wi is None:
                continue
            term = of.sum(of.mul(out, to_tensor(wi.astype(out.dtype.as_numpy_dtype))),
                          np.arange(out.ndim, dtype=np.int32))
            loss = term if loss is None else of.add_v2(loss, term)
    return outs, tape.gradient(loss, [_get(tensors, slot) for slot in slots])


def _objective(op, inputs, attrs, w):
    tensors = _tensors(op, inputs)
    outs = as_outputs(wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs))
    # outputs at -inf (an exclusive CumulativeLogsumexp's empty sums) stay there under small
    # steps: constant terms, left out so that they do not make the sum -inf
    return float(sum(np.sum(np.where(np.isneginf(v), 0.0, v * wi))
                     for v, wi in ((o.numpy().astype(np.float64), wi) for o, wi in zip(outs, w)) if wi is not None))


def _weights(rng, op, outs):
    """Random weights per output; None for outputs that carry no gradient (FusedBatchNormV3's
    running statistics and reserve spaces: TensorFlow's gradient ignores them too; integer outputs)."""
    keep = nn_cases.GRADIENT_OUTPUTS.get(op.name)
    return [rng.uniform(-1.5, 1.5, o.shape) if (keep is None or i in keep) and o.dtype.is_floating else None
            for i, o in enumerate(outs)]  # integer outputs (Lu's permutation) carry no gradient


def numeric_gradient(op, inputs, attrs, w, slot, eps=EPS):
    x = np.asarray(_get(inputs, slot), dtype=np.float64)
    dt = np.asarray(_get(inputs, slot)).dtype
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        vals = []
        for sign in (1, -1):
            xp = x.copy()
            xp[idx] += sign * eps
            vals.append(_objective(op, _with(inputs, slot, xp.astype(dt)), attrs, w))
        g[idx] = (vals[0] - vals[1]) / (2 * eps)
    return g


@pytest.mark.parametrize("op_name,case,wrt", list(_params()))
def test_numeric_gradient(op_name: str, case: Case, wrt: str):
    op = OPS_BY_NAME[op_name]
    seed = seed_for("gradient", op_name, case.id, wrt)
    rng = np.random.default_rng(seed)
    spec = grad_spec(op)
    eps, rtol, atol = STEPS[spec]
    with covers("gradient", op_name):
        inputs = build_inputs(rng, op, spec, case, domain_of=grad_domain)
        inputs = _away_from_ties(rng, op, case, inputs)
        attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
        tensors = _tensors(op, inputs)
        outs = as_outputs(wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs))
        w = _weights(rng, op, outs)
        msg = f"{op_name} d/d{wrt} case {case.id} seed={seed}: {describe(inputs, case.attrs)}"
        slots = _slots(inputs, wrt)
        _, grads = _loss_and_grads(op, inputs, attrs, w, slots)
        for slot, g in zip(slots, grads):
            where = f"{slot[0]}[{slot[1]}]" if slot[1] is not None else slot[0]
            assert g is not None, f"no gradient for {where}; {msg}"
            want_dtype = of.as_dtype(np.asarray(_get(inputs, slot)).dtype)
            assert g.dtype == want_dtype, f"gradient dtype {g.dtype} for {where}; {msg}"
            assert g.shape == np.shape(_get(inputs, slot)), f"gradient shape {g.shape} for {where}; {msg}"
            want = numeric_gradient(op, inputs, attrs, w, slot, eps)
            if op_name in linalg_cases.GRADIENT_PROJECTIONS:  # e.g. Cholesky: w.r.t. a symmetric input
                want = linalg_cases.GRADIENT_PROJECTIONS[op_name](want)
            np.testing.assert_allclose(g.numpy(), want, rtol=rtol, atol=atol, err_msg=f"{where}: {msg}")


def test_every_gradient_formula_is_checked():
    checked = {(p.values[0], p.values[2]) for p in _params()}
    want = {(op.name, w) for op in OPS for w in _wrts(op)}
    assert checked == want, "ops with gradients but no float64: " + str(want - checked)


# ------------------------------------------------------------------------------ no gradient


def _no_grad_params():
    for op in OPS:
        if op.not_differentiable:
            yield pytest.param(op.name, None, id=f"{op.name}-not_differentiable")
        elif _wrts(op):
            for arg in index_inputs(op):
                if arg.name not in _wrts(op):
                    yield pytest.param(op.name, arg.name, id=f"{op.name}-{arg.name}")


@pytest.mark.parametrize("op_name,source", list(_no_grad_params()))
def test_gradient_is_none(op_name, source):
    """tape.gradient through a not_differentiable op (or w.r.t. an index input) gives None."""
    op = OPS_BY_NAME[op_name]
    spec = "double" if "double" in dispatch_dtypes(op) else dispatch_dtypes(op)[0]
    case = valid_case(op, spec)
    rng = np.random.default_rng(seed_for("nograd", op_name))
    inputs = build_inputs(rng, op, spec, case)
    attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
    slots = [s for name in ([source] if source else [a.name for a in data_inputs(op)])
             for s in _slots(inputs, name)]
    tensors = _tensors(op, inputs)
    sources = [_get(tensors, s) for s in slots]
    with covers("not_differentiable" if op.not_differentiable else "gradient_index", op_name):
        with of.GradientTape(persistent=True) as tape:
            for t in sources:
                tape.watch(t)
            out = as_outputs(wrapper(op)(*[tensors[a.name] for a in op.inputs], **attrs))[0]
            # through the op: the sources reach the target only via `out`
            target = of.mul(of.cast(out, of.float64), np.ones(out.shape) * 2.0)
        grads = tape.gradient(target, sources)
        assert grads == [None] * len(sources), f"{op_name}: {grads}"
        assert tape.gradient(out, sources) == [None] * len(sources)


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
