"""The op matrix's inputs for one case: random data of the test dtype (or IEEE special values),
and the index-like inputs (axes, perm, shape, dims) built per op by INPUT_BUILDERS."""

from __future__ import annotations

import numpy as np

import array_cases
import linalg_cases
import nn_cases
from opmatrix_signature import data_inputs, index_inputs
from opmatrix_values import cast_domain, domain, np_dtype, random_values, special_values


def _axes(rng, shape, mode):
    r = len(shape)
    if mode == "empty" or r == 0:
        return np.zeros(0, np.int64)
    if mode == "all":
        return np.arange(r)
    if mode == "scalar":
        return np.array(rng.integers(-r, r))  # a 0-d axis
    if mode == "negative":
        ax = rng.choice(r, size=rng.integers(1, r + 1), replace=False)
        return np.sort(ax) - r
    if mode == "first":
        return np.array(0)
    if mode == "last":
        return np.array([-1])
    if mode == "nonzero":
        return np.array([i for i, d in enumerate(shape) if d != 0])
    ax = rng.choice(r, size=rng.integers(1, r + 1), replace=False)  # "random": a subset, any order
    return np.where(rng.random(len(ax)) < 0.3, ax - r, ax)


def _index_dtype(rng, op, arg) -> np.dtype:
    return np_dtype(rng.choice(op.attr(arg.type_attr).allowed))


def build_reduction(rng, op, case, data):
    arg = index_inputs(op)[0]
    shape = case.shapes[data_inputs(op)[0].name]
    return {arg.name: _axes(rng, shape, case.mode).astype(_index_dtype(rng, op, arg))}


def build_transpose(rng, op, case, data):
    arg = index_inputs(op)[0]
    r = len(case.shapes[data_inputs(op)[0].name])
    return {arg.name: rng.permutation(r).astype(_index_dtype(rng, op, arg))}


def _factor(rng, n, rank):
    """A random shape of `rank` dims with product n (n > 0)."""
    dims = [1] * rank
    for p in _prime_factors(n):
        dims[rng.integers(rank)] *= p
    return dims


def _prime_factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def build_reshape(rng, op, case, data):
    arg = index_inputs(op)[0]
    shape = case.shapes[data_inputs(op)[0].name]
    n = int(np.prod(shape))
    mode = case.mode
    if mode == "vector1":
        target = [1]
    elif mode == "scalar":
        target = []
    elif mode == "flat":
        target = [-1]
    elif n == 0:
        target = [0] + [int(rng.integers(1, 4)) for _ in range(rng.integers(0, 3))]
        rng.shuffle(target)
        if mode == "minus1":  # -1 is inferred as 0 when the other dims are non-zero
            target = [-1] + [int(rng.integers(1, 4)) for _ in range(rng.integers(1, 3))]
            rng.shuffle(target)
    else:
        target = _factor(rng, n, int(rng.integers(1, 5)))
        if mode == "minus1":
            target[rng.integers(len(target))] = -1
    return {arg.name: np.asarray(target).astype(_index_dtype(rng, op, arg))}


def build_fill(rng, op, case, data):
    arg = op.input("dims")
    return {arg.name: np.asarray(case.extra["dims"]).astype(_index_dtype(rng, op, arg)).reshape(-1)}


def build_range(rng, op, case, data):
    """start, limit, delta consistent with the mode (TensorFlow rejects a delta of the wrong
    sign, NumPy returns an empty range). Values are exact in every dtype, including int8/half."""
    start, limit, delta = (a.name for a in data_inputs(op))
    dt = data[start].dtype
    a = int(rng.integers(-20, 20))
    n = int(rng.integers(1, 12))
    step = int(rng.integers(1, 4))
    if case.mode == "up-by-fraction" and np.dtype(dt).kind not in "iub":
        d, lim = 0.5 * step, a + 0.5 * step * n - 0.25
    elif case.mode == "down":
        d, lim = -step, a - step * n + (1 if step > 1 else 0)
    elif case.mode == "empty":
        d, lim = step, a
    elif case.mode == "single":
        d, lim = step, a + 1
    else:
        d, lim = step, a + step * n - (1 if step > 1 else 0)
    if np.dtype(dt).kind == "u":
        a, lim, d = abs(a), abs(a) + abs(lim - a), abs(d)
    return {start: np.asarray(a).astype(dt), limit: np.asarray(lim).astype(dt),
            delta: np.asarray(d).astype(dt)}



def build_math_axis(rng, op, case, data):
    """The scalar axis of ArgMax/ArgMin (dimension) and Cumsum (axis), from the case."""
    (arg,) = index_inputs(op)
    return {arg.name: np.asarray(case.extra["axis"]).astype(_index_dtype(rng, op, arg))}


def build_condition(rng, op, case, data):
    """Select's and SelectV2's bool condition, of the case's condition shape."""
    return {"condition": rng.random(case.extra["cond"]) < 0.5}


# Index-like inputs per op (axes, perm, shape, dims), or data inputs that must be consistent
# with each other (Range's start, limit and delta).
INPUT_BUILDERS = {
    "Range": build_range,
    "Sum": build_reduction,
    "Mean": build_reduction,
    "Max": build_reduction,
    # ---- math ops (issue 4)
    "Min": build_reduction,
    "Prod": build_reduction,
    "All": build_reduction,
    "Any": build_reduction,
    "ArgMax": build_math_axis,
    "ArgMin": build_math_axis,
    "Cumsum": build_math_axis,
    "CumulativeLogsumexp": build_math_axis,
    "Select": build_condition,
    "SelectV2": build_condition,
    # ---- end math ops
    "Transpose": build_transpose,
    "Reshape": build_reshape,
    "Fill": build_fill,
    # ---- array ops (issue 4): built from their case tables
    **{name: array_cases.build for name in array_cases.TABLE_OPS},
    # ---- linear algebra (issue 32): well-conditioned, symmetric, triangular matrices
    **{name: linalg_cases.build for name in linalg_cases.CASES},
}


def build_inputs(rng, op, spec, case, *, domain_of=domain):
    """Random NumPy inputs for one case: data of dtype `spec`, index inputs from the builder."""
    inputs = {}
    for arg in data_inputs(op):
        dom = domain_of(op.name, arg.name)
        if op.name == "Cast":
            dom = cast_domain(spec, case.extra["DstT"])
        if arg.is_list:  # N * T: a list of 1 to 4 tensors of the case's shape
            n = case.extra.get("N", max(1, op.attr(arg.number_attr).minimum or 1) + int(rng.integers(0, 4)))
            inputs[arg.name] = [random_values(rng, case.shapes[arg.name], spec, dom) for _ in range(n)]
        else:
            inputs[arg.name] = random_values(rng, case.shapes[arg.name], spec, dom)
    if case.extra.get("special"):
        for k, arg in enumerate(data_inputs(op)):
            v = special_values(case.shapes[arg.name], spec, k)
            inputs[arg.name] = [v, v[..., ::-1].copy()] if arg.is_list else v
    if op.name in INPUT_BUILDERS:
        inputs.update(INPUT_BUILDERS[op.name](rng, op, case, inputs))
    elif index_inputs(op) and op.name in nn_cases.CASES:
        inputs.update(nn_cases.build_index_inputs(
            rng, op.name, case.extra, case.attrs, inputs,
            lambda attr: [np_dtype(s) for s in op.attr(attr).allowed]))
    elif index_inputs(op):
        raise AssertionError(f"{op.name}: no INPUT_BUILDERS entry for {[a.name for a in index_inputs(op)]}")
    return inputs
