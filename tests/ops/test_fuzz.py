"""Hypothesis fuzzing of shapes, dtypes and attrs (valid and invalid) per op family.

Each call must match the NumPy reference when the call is valid and raise an of.OpError naming
the op when it is not: never another exception, never a wrong answer. Validity is decided here,
independently of the runtime (broadcast rules, axis ranges, permutations, reshape sizes ...).
"""

from __future__ import annotations

import os

import numpy as np
import opmatrix
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import opforge as of
from opmatrix import (
    ALL_DTYPES, LOW_PRECISION, OPS, OPS_BY_NAME, Domain, assert_matches, covers, data_inputs,
    describe, dispatch_attr, dispatch_dtypes, domain, empty_reduction_is_error, expected_out_spec,
    family, index_inputs, np_dtype, random_values, reference, spec_of_np, to_tensor, wrapper,
)

COVERAGE_CATEGORIES = ("fuzz",)

# OPFORGE_FUZZ_EXAMPLES=2000 for a long run
N = int(os.environ.get("OPFORGE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=N, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

shapes = st.lists(st.integers(0, 5), max_size=4).map(tuple)




def _dtype(data, op):
    """Mostly an allowed dtype; sometimes one the op does not allow (must be an OpError)."""
    allowed = dispatch_dtypes(op)
    others = [s for s in ALL_DTYPES if s not in allowed]
    if opmatrix.fixed_data_type(op):  # FakeQuant's float inputs: NumPy data converts to them
        others = []
    if others and data.draw(st.integers(0, 9), label="disallowed?") == 0:
        return data.draw(st.sampled_from(others), label="dtype"), False
    return data.draw(st.sampled_from(allowed), label="dtype"), True


def _fuzz_domain(op_name, input_name):
    # no zero divisors / negative integer powers: those are pinned in test_errors.py
    return domain(op_name, input_name)


def _run(data, op, spec, inputs, attrs, valid, ref_inputs=None, tol_scale=1.0, bindings=None):
    """Calls the op (NumPy inputs, or Tensors made from them); checks the result against the
    reference or the error."""
    conv = to_tensor if data.draw(st.booleans(), label="as Tensors") else (lambda a: a)
    args = [[conv(v) for v in inputs[a.name]] if isinstance(inputs[a.name], list)
            else conv(inputs[a.name]) for a in op.inputs]
    msg = f"{op.name}[{spec}]: {describe(inputs, attrs)}"
    event("valid call" if valid else "invalid call")
    if not valid:
        with pytest.raises(of.OpError) as ei:
            wrapper(op)(*args, **attrs)
        assert op.name in str(ei.value), f"{ei.value!r} does not name the op; {msg}"
        return
    try:
        out = wrapper(op)(*args, **attrs)
    except of.OpError as e:
        raise AssertionError(f"valid call raised {e!r}; {msg}") from None
    bindings = bindings or {dispatch_attr(op): spec}
    for arg in index_inputs(op):
        bindings.setdefault(arg.type_attr, spec_of_np(inputs[arg.name].dtype))
    ref_attrs = {k: v for k, v in attrs.items() if op.attr(k).type != "type"}  # types: bindings
    ref = reference(op, spec, ref_inputs or inputs, ref_attrs, bindings)
    assert_matches(out, ref, expected_out_spec(op, bindings), msg=msg, tol_scale=tol_scale)


def _rng(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def _params(shape_fn):
    return [pytest.param(op.name, id=op.name) for op in OPS if family(op) == shape_fn]


# ------------------------------------------------------------------------------ broadcasting ops


def _related_shape(data, a):
    """Often broadcast-compatible with a (dims set to 1, leading dims dropped), else random."""
    how = data.draw(st.sampled_from(["same", "ones", "drop", "random"]), label="how")
    if how == "random":
        return data.draw(shapes, label="shape_b")
    b = list(a)
    if how == "ones":
        b = [1 if data.draw(st.booleans()) else d for d in b]
    if how == "drop":
        b = b[data.draw(st.integers(0, len(b)), label="drop"):]
    return tuple(b)


@pytest.mark.parametrize("op_name", _params("broadcast"))
@FUZZ
@given(data=st.data())
def test_fuzz_broadcast(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    a = data.draw(shapes, label="shape_a")
    b = _related_shape(data, a)
    if data.draw(st.booleans(), label="swap"):
        a, b = b, a
    try:
        np.broadcast_shapes(a, b)
        valid = ok
    except ValueError:
        valid = False
    rng = _rng(data)
    x, y = (arg.name for arg in data_inputs(op))
    inputs = {x: random_values(rng, a, spec, _fuzz_domain(op_name, x)),
              y: random_values(rng, b, spec, _fuzz_domain(op_name, y))}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


# ------------------------------------------------------------------------------ reductions


@pytest.mark.parametrize("op_name", _params("reduce"))
@FUZZ
@given(data=st.data())
def test_fuzz_reduce(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    axis_ints = st.integers(-r - 2, r + 1)
    if data.draw(st.booleans(), label="scalar axis"):
        axes = np.array(data.draw(axis_ints, label="axis"))
    else:
        axes = np.array(data.draw(st.lists(axis_ints, max_size=r + 1), label="axes"), dtype=np.int64)
    (idx,) = index_inputs(op)
    axes = axes.astype(data.draw(st.sampled_from([np.int32, np.int64]), label="Tidx"))
    keep = data.draw(st.booleans(), label="keep_dims")
    flat = [int(v) for v in np.atleast_1d(axes)]
    valid = ok and all(-r <= v < r for v in flat)
    norm = sorted({v % r for v in flat}) if valid and r else []
    reduced = int(np.prod([shape[i] for i in norm])) if norm else 1
    out_size = int(np.prod([d for i, d in enumerate(shape) if i not in norm]))
    if valid and reduced == 0 and out_size > 0 and empty_reduction_is_error(op_name, spec):
        valid = False  # Max of nothing, integer mean of nothing
    rng = _rng(data)
    (x,) = (arg.name for arg in data_inputs(op))
    inputs = {x: random_values(rng, shape, spec, _fuzz_domain(op_name, x)), idx.name: axes}
    ref_inputs = {x: inputs[x], idx.name: np.array(norm, np.int64)}
    if valid and out_size == 0:  # NumPy refuses some empty reductions that have empty results
        ref_inputs[x] = np.ones([1 if i in norm else d for i, d in enumerate(shape)], inputs[x].dtype)
    attrs = {"keep_dims": keep}
    scale = 1.0 if spec in LOW_PRECISION else float(np.sqrt(max(1, reduced)))
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, attrs, valid, ref_inputs=ref_inputs, tol_scale=scale,
             bindings={dispatch_attr(op): spec, idx.type_attr: spec_of_np(axes.dtype)})


# ------------------------------------------------------------------------------ Transpose


@pytest.mark.parametrize("op_name", _params("transpose"))
@FUZZ
@given(data=st.data())
def test_fuzz_transpose(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    if data.draw(st.booleans(), label="valid perm"):
        perm = data.draw(st.permutations(list(range(r))), label="perm")
    else:
        perm = data.draw(st.lists(st.integers(-1, r), min_size=max(0, r - 1), max_size=r + 1),
                         label="perm")
    # A negative entry counts from the end (TensorFlow).
    valid = ok and all(-r <= p < r for p in perm) and sorted(p % r for p in perm) == list(range(r))
    (idx,) = index_inputs(op)
    perm = np.array(perm, dtype=data.draw(st.sampled_from([np.int32, np.int64]), label="Tperm"))
    rng = _rng(data)
    (x,) = (arg.name for arg in data_inputs(op))
    inputs = {x: random_values(rng, shape, spec), idx.name: perm}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


# ------------------------------------------------------------------------------ Reshape


def _reshape_minus_one(shape, target):
    nonzero = int(np.prod([d for d in target if d not in (-1, 0)]))
    return int(np.prod([d for d in shape if d > 0 or 0 not in target])) // nonzero


def _reshape_valid(shape, target):
    """TensorFlow's rule: with a 0 in the target, the input's 0-sized dims are left out of the
    count the -1 is solved from (a [0, 3] tensor reshapes to [-1, 0] as [3, 0])."""
    if any(d < -1 for d in target) or target.count(-1) > 1:
        return False
    n = int(np.prod(shape))
    if -1 not in target:
        return int(np.prod(target)) == n
    has_zero = 0 in target
    nonzero = int(np.prod([d for d in target if d not in (-1, 0)]))
    counted = int(np.prod([d for d in shape if d > 0 or not has_zero]))
    dropped = has_zero and any(d == 0 for d in shape)
    missing = counted // nonzero
    if not dropped and nonzero * missing != counted:
        return False
    return int(np.prod([missing if d == -1 else d for d in target])) == n


@pytest.mark.parametrize("op_name", _params("reshape"))
@FUZZ
@given(data=st.data())
def test_fuzz_reshape(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    how = data.draw(st.sampled_from(["permuted", "minus1", "random"]), label="how")
    if how == "random":
        target = data.draw(st.lists(st.integers(-2, 6), max_size=4), label="target")
    else:
        target = list(data.draw(st.permutations(list(shape)), label="target"))
        if how == "minus1" and target:
            target[data.draw(st.integers(0, len(target) - 1), label="where")] = -1
    valid = ok and _reshape_valid(shape, target)
    if valid and -1 in target and 0 in shape and 0 in target:
        # NumPy's reshape (the reference) cannot solve a -1 beside a 0: pass the size
        # TensorFlow's rule gives (test_tf_semantics_nn.py tests the -1 form itself).
        target = [_reshape_minus_one(shape, target) if d == -1 else d for d in target]
    (idx,) = index_inputs(op)
    target = np.array(target, dtype=data.draw(st.sampled_from([np.int32, np.int64]), label="Tshape"))
    rng = _rng(data)
    (x,) = (arg.name for arg in data_inputs(op))
    inputs = {x: random_values(rng, shape, spec), idx.name: target}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


# ------------------------------------------------------------------------------ MatMul, Fill


@pytest.mark.parametrize("op_name", _params("matmul"))
@FUZZ
@given(data=st.data())
def test_fuzz_matmul(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    ta, tb = data.draw(st.booleans(), label="transpose_a"), data.draw(st.booleans(), label="transpose_b")
    if data.draw(st.booleans(), label="matrices"):
        m, k, n = (data.draw(st.integers(0, 5)) for _ in range(3))
        k2 = k if data.draw(st.integers(0, 3)) else data.draw(st.integers(0, 5))
        a = (k, m) if ta else (m, k)
        b = (n, k2) if tb else (k2, n)
    else:
        a, b = data.draw(shapes, label="a"), data.draw(shapes, label="b")
    valid = ok and len(a) == 2 and len(b) == 2 and a[0 if ta else 1] == b[1 if tb else 0]
    rng = _rng(data)
    x, y = (arg.name for arg in data_inputs(op))
    inputs = {x: random_values(rng, a, spec), y: random_values(rng, b, spec)}
    kk = a[0 if ta else 1] if len(a) == 2 else 1
    scale = 1.0 if spec in LOW_PRECISION else float(np.sqrt(max(1, kk)))
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {"transpose_a": ta, "transpose_b": tb}, valid, tol_scale=scale)


@pytest.mark.parametrize("op_name", _params("fill"))
@FUZZ
@given(data=st.data())
def test_fuzz_fill(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    dims = data.draw(st.lists(st.integers(-1, 5), max_size=4), label="dims")
    vshape = data.draw(st.sampled_from([(), (), (1,), (2,)]), label="value shape")
    valid = ok and all(d >= 0 for d in dims) and vshape in ((), (1,))  # TF: a [1] value is a scalar
    (idx,) = index_inputs(op)
    rng = _rng(data)
    (v,) = (arg.name for arg in data_inputs(op))
    inputs = {idx.name: np.array(dims, dtype=data.draw(st.sampled_from([np.int32, np.int64]))),
              v: random_values(rng, vshape, spec)}
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


# ------------------------------------------------------------------------------ elementwise


@pytest.mark.parametrize("op_name", [p for p in _params("unchanged") if p.values[0] not in ("Cast", "Bitcast")])
@settings(FUZZ, max_examples=max(1, N * 3 // 8))
@given(data=st.data())
def test_fuzz_unary(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    rng = _rng(data)
    (arg,) = data_inputs(op)
    dom = _fuzz_domain(op_name, arg.name)
    if arg.is_list:  # N * T: N tensors that must all have the same shape
        n = data.draw(st.integers(1, 4), label="N")
        shapes_ = [shape] * n
        if n > 1 and data.draw(st.integers(0, 3), label="odd shape?") == 0:
            shapes_[data.draw(st.integers(0, n - 1))] = data.draw(globals()["shapes"], label="odd")
        inputs = {arg.name: [random_values(rng, sh, spec, dom) for sh in shapes_]}
        ok = ok and all(sh == shape for sh in shapes_)
    else:
        inputs = {arg.name: random_values(rng, shape, spec, dom)}
        ok = ok and not (op_name == "Where" and len(shape) == 0)  # TensorFlow refuses a scalar
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, ok)


@settings(FUZZ, max_examples=N * 3 // 2)
@given(data=st.data())
def test_fuzz_cast(data):
    op = OPS_BY_NAME["Cast"]
    src = data.draw(st.sampled_from(dispatch_dtypes(op)), label="SrcT")
    dst = data.draw(st.sampled_from(op.attr("DstT").allowed), label="DstT")
    shape = data.draw(shapes, label="shape")
    rng = _rng(data)
    lo = 0 if "u" in (np_dtype(src).kind, np_dtype(dst).kind) else -100
    x = random_values(rng, shape, src, Domain(float=(lo, 100.0), int=(lo, 100), uint=(0, 100)))
    with covers("fuzz", "Cast"):
        _run(data, op, src, {"x": x}, {"DstT": of.as_dtype(np_dtype(dst))}, True,
             bindings={"SrcT": src, "DstT": dst})


# ------------------------------------------------------------------------------ Range


@pytest.mark.parametrize("op_name", _params("range"))
@FUZZ
@given(data=st.data())
def test_fuzz_range(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    dt = np_dtype(spec)
    if np.dtype(dt).kind == "f" or spec in LOW_PRECISION:  # halves: exact in every float type
        vals = [data.draw(st.integers(-40, 40), label=n) / 2 for n in ("start", "limit", "delta")]
    else:
        vals = [data.draw(st.integers(-60, 60), label=n) for n in ("start", "limit", "delta")]
    start, limit, delta = vals
    valid = ok and delta != 0 and (start == limit or (limit - start > 0) == (delta > 0))
    names = [a.name for a in data_inputs(op)]
    with np.errstate(all="ignore"):
        inputs = {n: np.asarray(v).astype(dt) for n, v in zip(names, vals)}
    if ok and any(float(inputs[n]) != v for n, v in zip(names, vals)):
        return  # not representable (e.g. -40 in uint8): a conversion question, not Range's
    with covers("fuzz", op_name):
        _run(data, op, spec, inputs, {}, valid)


# ------------------------------------------------------------------------------ nn (issue 4)

_NN_LIST_ATTRS = ("strides", "ksize", "dilations", "explicit_paddings")


def _nn_mutate(data, rng, op, inputs, attrs):
    """One random corruption of a valid nn call: an input of a random shape (rank <= 5, dims
    0..8) or values (sizes, labels), or a random list/string attr."""
    how = data.draw(st.sampled_from(["none", "shape", "attr"]), label="mutation")
    if how == "shape":
        arg = data.draw(st.sampled_from(list(op.inputs)), label="input")
        shape = data.draw(st.lists(st.integers(0, 8), max_size=5).map(tuple), label="new shape")
        old = np.asarray(inputs[arg.name])
        if old.dtype.kind in "iu" and arg.name not in [a.name for a in data_inputs(op)]:
            inputs[arg.name] = rng.integers(-2, 9, shape).astype(old.dtype)  # sizes, labels
        else:
            inputs[arg.name] = rng.uniform(-2, 2, shape).astype(old.dtype)
    elif how == "attr":
        names = [a.name for a in op.explicit_attrs if a.name in _NN_LIST_ATTRS or a.type == "string"]
        if names:
            name = data.draw(st.sampled_from(names), label="attr")
            if op.attr(name).type == "string":
                attrs[name] = data.draw(st.sampled_from(list(op.attr(name).allowed) + ["NOPE"]), label=name)
            else:
                attrs[name] = data.draw(st.lists(st.integers(-1, 4), max_size=8), label=name)
    return inputs, attrs


@pytest.mark.parametrize("op_name", _params("nn"))
@FUZZ
@given(data=st.data())
def test_fuzz_nn(op_name, data):
    """Valid cases corrupted at random: a typed error naming the op, or the reference's
    answer (an input the reference rejects must be rejected by the op too)."""
    from opmatrix import as_outputs, assert_all_match, build_inputs, cases, type_bindings  # noqa: PLC0415
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    case = data.draw(st.sampled_from(cases(op, "float" if "float" in dispatch_dtypes(op)
                                           else dispatch_dtypes(op)[0], large=False)), label="case")
    rng = _rng(data)
    inputs = build_inputs(rng, op, spec if ok else dispatch_dtypes(op)[0], case)
    if not ok:  # a disallowed dtype for the data inputs
        for arg in data_inputs(op):
            inputs[arg.name] = random_values(rng, np.shape(inputs[arg.name]), spec)
    attrs = dict(case.attrs)
    inputs, attrs = _nn_mutate(data, rng, op, inputs, attrs)
    conv = to_tensor if data.draw(st.booleans(), label="as Tensors") else (lambda a: a)
    msg = f"{op.name}[{spec}]: {describe(inputs, attrs)}"
    with covers("fuzz", op_name):
        try:
            out = wrapper(op)(*[conv(inputs[a.name]) for a in op.inputs], **attrs)
        except of.OpError as e:
            assert op.name in str(e), f"{e!r} does not name the op; {msg}"
            event("typed error")
            return
        assert ok, f"a disallowed dtype was accepted; {msg}"
        event("valid call")
        bindings = type_bindings(op, spec, inputs, case)
        try:
            ref = reference(op, spec, inputs, attrs, bindings)
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"the op accepted a call its reference rejects ({e!r}): "
                                 f"{[o.shape for o in as_outputs(out)]}; {msg}") from None
        assert_all_match(op, out, ref, bindings, msg=msg)
