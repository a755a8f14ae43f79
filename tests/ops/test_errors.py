"""Bad calls raise typed errors that name the op, never crash.

The first part is generated from each op's signature (missing inputs, disallowed dtypes, dtype
mixes on a shared type attr, attrs of the wrong type); the second lists op-specific bad values
(shapes, axes, permutations, divisors ...).
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

import nn_cases
import opforge as of
from opmatrix import (
    ALL_DTYPES, OPS, OPS_BY_NAME, build_inputs, call, covers, data_inputs, dispatch_attr,
    dispatch_dtypes, family, fixed_data_type, index_inputs, is_float, of_dtype, random_values, seed_for, to_tensor,
    valid_case, wrapper,
)

COVERAGE_CATEGORIES = ("errors",)


def expect_error(op_name, fn, exc=of.InvalidArgumentError, match=None):
    """fn() raises `exc` whose message names the op (and carries it as .op)."""
    with covers("errors", op_name):
        with pytest.raises(exc) as ei:
            fn()
        msg = str(ei.value)
        assert op_name in msg, f"message does not name {op_name}: {msg!r}"
        assert isinstance(ei.value, of.OpError)
        assert ei.value.op == op_name, (ei.value.op, msg)
        if match:
            assert match in msg, msg
    return ei.value


def _valid_call(op, spec=None):
    """Inputs and attrs of a valid call (opmatrix.valid_case; list inputs get 2 tensors)."""
    spec = spec or ("float" if "float" in dispatch_dtypes(op) else dispatch_dtypes(op)[0])
    case = dataclasses.replace(valid_case(op, spec), extra={**valid_case(op, spec).extra, "N": 2})
    rng = np.random.default_rng(seed_for("errors", op.name))
    inputs = build_inputs(rng, op, spec, case)
    attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
    return spec, case, inputs, attrs




def _op_params(pred=lambda op: True):
    return [pytest.param(op.name, id=op.name) for op in OPS if pred(op)]


# ------------------------------------------------------------------------------ from the signature


def test_valid_call_works():
    """The calls the error tests below corrupt are valid as they stand."""
    for op in OPS:
        _, _, inputs, attrs = _valid_call(op)
        call(op, inputs, attrs)


@pytest.mark.parametrize("op_name,input_name", [
    pytest.param(op.name, a.name, id=f"{op.name}-{a.name}")
    for op in OPS for a in op.inputs])
def test_missing_input(op_name, input_name):
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    inputs[input_name] = None
    err = expect_error(op_name, lambda: call(op, inputs, attrs, convert=lambda a: a))
    assert input_name in str(err)


def _slots(op, inputs):
    """(input name, list index or None) of every data tensor (list inputs: each element)."""
    for arg in data_inputs(op):
        if isinstance(inputs[arg.name], list):
            yield from ((arg.name, i) for i in range(len(inputs[arg.name])))
        else:
            yield arg.name, None


def _get(inputs, slot):
    name, i = slot
    return inputs[name] if i is None else inputs[name][i]


def _set(inputs, slot, value):
    name, i = slot
    if i is None:
        inputs[name] = value
    else:
        inputs[name] = [value if j == i else v for j, v in enumerate(inputs[name])]


def _disallowed(op):
    return [s for s in ALL_DTYPES if s not in dispatch_dtypes(op)]


@pytest.mark.parametrize("op_name,bad", [
    pytest.param(op.name, bad, id=f"{op.name}-{bad}") for op in OPS for bad in _disallowed(op)])
def test_dtype_not_allowed(op_name, bad):
    """e.g. Exp on int32, MatMul on bool: InvalidArgumentError naming the attr."""
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    rng = np.random.default_rng(seed_for("bad dtype", op_name, bad))
    for slot in list(_slots(op, inputs)):
        _set(inputs, slot, random_values(rng, np.shape(_get(inputs, slot)), bad))
    err = expect_error(op_name, lambda: call(op, inputs, attrs, convert=to_tensor))
    # ops whose data has a fixed dtype (LogicalAnd's bool) name the input instead of an attr
    assert (data_inputs(op)[0].name if fixed_data_type(op) else dispatch_attr(op)) in str(err)


@pytest.mark.parametrize("op_name,input_name", [
    pytest.param(op.name, a.name, id=f"{op.name}-{a.name}") for op in OPS for a in index_inputs(op)])
def test_index_dtype_not_allowed(op_name, input_name):
    """Axes, perms, shapes and dims must be int32/int64 tensors."""
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    arg = op.input(input_name)
    allowed = [arg.type] if arg.type else list(op.attr(arg.type_attr).allowed)
    bad = np.float32 if "float" not in allowed else np.int8  # FusedBatchNormV3's U allows float
    inputs[input_name] = inputs[input_name].astype(bad)
    err = expect_error(op_name, lambda: call(op, inputs, attrs, convert=to_tensor))
    assert (arg.type_attr or arg.name) in str(err)  # a fixed dtype (int32 sizes): the input's name


def _multi(op):
    return len(data_inputs(op)) >= 2 or any(a.is_list for a in data_inputs(op))


@pytest.mark.parametrize("op_name", _op_params(
    lambda op: _multi(op) and {"float", "double"} <= set(dispatch_dtypes(op))))
@pytest.mark.parametrize("first", ["float", "double"])
def test_dtype_mix(op_name, first):
    """float32 with float64 on a shared type attr (Tensors: no conversion may hide it)."""
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    x, y = list(_slots(op, inputs))[:2]
    other = "double" if first == "float" else "float"
    _set(inputs, x, _get(inputs, x).astype(of_dtype(first).as_numpy_dtype))
    _set(inputs, y, _get(inputs, y).astype(of_dtype(other).as_numpy_dtype))
    err = expect_error(op_name, lambda: call(op, inputs, attrs, convert=to_tensor))
    assert dispatch_attr(op) in str(err)


@pytest.mark.parametrize("op_name", _op_params(_multi))
def test_dtype_mix_numpy_arrays(op_name):
    """NumPy arrays of different kinds are not silently converted to one another (arrays of the
    same kind are: float64 data meeting a float32 one is cast, by design of convert_to_tensor)."""
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op, "int32" if "int32" in dispatch_dtypes(op) else None)
    x, y = list(_slots(op, inputs))[:2]
    _set(inputs, x, _get(inputs, x).astype(np.int32))
    _set(inputs, y, _get(inputs, y).astype(np.float32) + 0.5)
    expect_error(op_name, lambda: call(op, inputs, attrs, convert=np.asarray))


@pytest.mark.parametrize("op_name,input_name,what", [
    pytest.param(op.name, a.name, what, id=f"{op.name}-{a.name}-{what}")
    for op in OPS for a in data_inputs(op) if a.is_list for what in ("Tensor", "ndarray")])
def test_list_input_given_one_tensor(op_name, input_name, what):
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    one = inputs[input_name][0]
    inputs[input_name] = to_tensor(one) if what == "Tensor" else one
    expect_error(op_name, lambda: call(op, inputs, attrs))


_BAD_ATTR_VALUES = {"bool": ["yes", 1, None, 2.0], "type": ["foo", "float8", ml_dtypes.float8_e5m2, object()]}


@pytest.mark.parametrize("op_name,attr,value", [
    pytest.param(op.name, a.name, v, id=f"{op.name}-{a.name}={v!r}")
    for op in OPS for a in op.explicit_attrs for v in _BAD_ATTR_VALUES.get(a.type, [])])
def test_wrong_attr_type(op_name, attr, value):
    """e.g. transpose_a="yes", keep_dims=None, DstT="foo": InvalidArgumentError naming the attr."""
    op = OPS_BY_NAME[op_name]
    _, _, inputs, attrs = _valid_call(op)
    attrs = {**attrs, **({"DstT": of.float32} if op.attr("DstT") else {}), attr: value}
    err = expect_error(op_name, lambda: call(op, inputs, attrs))
    assert attr in str(err)


def test_cast_to_none():
    expect_error("Cast", lambda: of.ops.cast(np.ones(2, np.float32), None))


# ------------------------------------------------------------------------------ op-specific bad values

_F = np.float64


def _x(*shape, dtype=_F):
    return np.ones(shape, dtype)


def _bad_calls():
    """(id, op name, callable, exception class, known-bug reason or None)."""
    out = []

    def add(id_, op_name, fn, exc=of.InvalidArgumentError, bug=None):
        out.append((id_, op_name, fn, exc, bug))

    for op in OPS:
        if family(op) == "broadcast":
            f = wrapper(op)
            for a, b in [((2, 3), (4,)), ((2, 3), (3, 2)), ((0,), (2,)), ((2, 1, 3), (4, 3, 3))]:
                add(f"{op.name}-broadcast-{a}-{b}", op.name, lambda f=f, a=a, b=b: f(_x(*a), _x(*b)))

    mm = of.ops.mat_mul
    add("MatMul-inner", "MatMul", lambda: mm(_x(2, 3), _x(4, 2)))
    add("MatMul-inner-ta", "MatMul", lambda: mm(_x(2, 3), _x(3, 2), transpose_a=True))
    add("MatMul-inner-tb", "MatMul", lambda: mm(_x(2, 3), _x(3, 2), transpose_b=True))
    add("MatMul-inner-tab", "MatMul", lambda: mm(_x(2, 3), _x(2, 3), transpose_a=True, transpose_b=True))
    add("MatMul-inner-vs-outer", "MatMul", lambda: mm(_x(2, 3), _x(2, 3)))
    add("MatMul-rank1", "MatMul", lambda: mm(_x(3), _x(3, 2)))
    add("MatMul-rank3", "MatMul", lambda: mm(_x(2, 2, 3), _x(3, 2)))
    add("MatMul-rank0", "MatMul", lambda: mm(np.float64(2), _x(1, 1)))

    for name in ("Sum", "Mean", "Max"):
        f = getattr(of.ops, OPS_BY_NAME[name].snake_name)
        for axes in (2, -3, 100, [0, 2], [-3], [0, 1, 2], np.array(2**40)):
            add(f"{name}-axis-{axes}", name, lambda f=f, axes=axes: f(_x(2, 3), axes))
        add(f"{name}-axis-scalar-input", name, lambda f=f: f(np.float64(1), np.array([0], np.int32)))
        add(f"{name}-axis-matrix", name, lambda f=f: f(_x(2, 3), np.array([[0]], np.int32)))
    # (Max/Min over an empty axis give ∓inf and an integer Mean 0, as TensorFlow: not errors.)

    tr = of.ops.transpose
    for perm in ([0], [0, 1, 2], [0, 0], [1, 1], [0, 2], [2, 0], [-3, 0], [-1, 1], [0, -2]):
        add(f"Transpose-perm-{perm}", "Transpose", lambda perm=perm: tr(_x(2, 3), np.array(perm, np.int32)))
    add("Transpose-perm-matrix", "Transpose", lambda: tr(_x(2, 3), np.array([[1, 0]], np.int32)))

    rs = of.ops.reshape
    for shape in ([4], [5, -1], [-1, -1], [2, -1, -1], [-2, -3], [7], [0], [0, -1], [-1, 0]):
        src = (2, 3)  # from (0, 3), [0, -1] and [-1, 0] are valid (TensorFlow: [0, 3] and [3, 0])
        add(f"Reshape-{src}-to-{shape}", "Reshape",
            lambda shape=shape, src=src: rs(_x(*src), np.array(shape, np.int32)))
    add("Reshape-shape-matrix", "Reshape", lambda: rs(_x(2, 3), np.array([[2, 3]], np.int32)))
    add("Reshape-overflow", "Reshape", lambda: rs(_x(2, 3), np.array([2**62, 4, -1], np.int64)))
    add("Reshape-empty-overflow", "Reshape", lambda: rs(_x(0), np.array([2**32, 2**32, 0], np.int64)))

    fill, v = of.ops.fill, np.float64(1.5)
    add("Fill-negative-dims", "Fill", lambda: fill(np.array([-1, 2], np.int32), v))
    add("Fill-negative-dims64", "Fill", lambda: fill(np.array([3, -5], np.int64), v))
    add("Fill-vector-value", "Fill", lambda: fill(np.array([2], np.int32), _x(2)))
    add("Fill-two-element-value", "Fill", lambda: fill(np.array([2], np.int32), _x(2)))
    add("Fill-matrix-value", "Fill", lambda: fill(np.array([2], np.int32), _x(1, 1)))
    add("Fill-matrix-dims", "Fill", lambda: fill(np.ones((2, 2), np.int32), v))
    add("Fill-scalar-dims", "Fill", lambda: fill(np.int32(3), v))

    for spec in dispatch_dtypes(OPS_BY_NAME["RealDiv"]):
        if not is_float(spec):
            dt = of_dtype(spec).as_numpy_dtype
            add(f"RealDiv-zero-{spec}", "RealDiv",
                lambda dt=dt: of.ops.real_div(np.array([4, 6], dt), np.array([2, 0], dt)))
            add(f"RealDiv-zero-bcast-{spec}", "RealDiv",
                lambda dt=dt: of.ops.real_div(np.ones((2, 3), dt), np.zeros((), dt)))
    for spec in dispatch_dtypes(OPS_BY_NAME["Pow"]):
        if not is_float(spec):
            dt = of_dtype(spec).as_numpy_dtype
            add(f"Pow-negative-{spec}", "Pow",
                lambda dt=dt: of.ops.pow(np.array([2, 3], dt), np.array([1, -1], dt)))

    if "Range" in OPS_BY_NAME:
        r = OPS_BY_NAME["Range"]
        i32 = np.int32
        add("Range-delta-0", "Range", lambda: wrapper(r)(i32(0), i32(10), i32(0)))
        add("Range-up-with-negative-delta", "Range", lambda: wrapper(r)(i32(0), i32(10), i32(-1)))
        add("Range-down-with-positive-delta", "Range", lambda: wrapper(r)(i32(10), i32(0), i32(2)))
        add("Range-vector-start", "Range", lambda: wrapper(r)(np.array([0], i32), i32(10), i32(1)))
        add("Range-too-large", "Range", lambda: wrapper(r)(np.int64(0), np.int64(2**62), np.int64(1)))
        add("Range-float-inf", "Range", lambda: wrapper(r)(0.0, np.inf, 1.0))
        add("Range-float-nan", "Range", lambda: wrapper(r)(0.0, np.nan, 1.0))
    if "AddN" in OPS_BY_NAME:
        n = OPS_BY_NAME["AddN"]
        add("AddN-shapes", "AddN", lambda: wrapper(n)([_x(2), _x(3)]))
        add("AddN-no-broadcast", "AddN", lambda: wrapper(n)([_x(2, 3), _x(3)]))
        add("AddN-empty-list", "AddN", lambda: wrapper(n)([]))

    add("Cast-unknown-str", "Cast", lambda: of.cast(_x(2), "foo"))
    add("Cast-unknown-np", "Cast", lambda: of.cast(_x(2), ml_dtypes.float8_e5m2))
    add("Cast-unknown-enum", "Cast", lambda: of.cast(_x(2), 1234))
    add("Cast-string-dtype", "Cast", lambda: of.cast(_x(2), "string"))
    add("MatMul-transpose_a-str", "MatMul", lambda: of.mat_mul(_x(2, 2), _x(2, 2), transpose_a="yes"))
    add("Sum-keep_dims-str", "Sum", lambda: of.sum(_x(2, 2), 0, keep_dims="no"))
    add("AddV2-python-value-overflow", "AddV2", lambda: of.add_v2(np.ones(2, np.uint8), 300))
    add("AddV2-python-float-to-int", "AddV2", lambda: of.add_v2(np.ones(2, np.int32), 2.5))
    add("AddV2-object", "AddV2", lambda: of.add_v2(object(), _x(2)))
    add("Exp-string", "Exp", lambda: of.exp("abc"))
    # ---- nn (issue 4): shapes, windows, paddings, labels (tests/ops/nn_cases.py)
    for id_, op_name, fn in nn_cases.bad_calls(of):
        add(id_, op_name, fn)
    return out


def _bad_call_params():
    for id_, op_name, fn, exc, bug in _bad_calls():
        marks = pytest.mark.xfail(strict=True, reason=bug) if bug else ()
        yield pytest.param(op_name, fn, exc, id=id_, marks=marks)


@pytest.mark.parametrize("op_name,fn,exc", list(_bad_call_params()))
def test_bad_call(op_name, fn, exc):
    expect_error(op_name, fn, exc)


def test_every_op_has_error_inputs():
    names = {p.values[0] for p in _op_params()}
    assert names == set(OPS_BY_NAME)


# ------------------------------------------------------------------------------ resources, conversions


def test_huge_output_is_resource_exhausted_naming_the_op():
    expect_error("Fill", lambda: of.ops.fill(np.array([2**30, 2**30], np.int64), np.float64(1)),
                 of.ResourceExhaustedError)


def test_huge_output_is_resource_exhausted():
    with pytest.raises(of.ResourceExhaustedError) as ei:
        of.ops.fill(np.array([2**30, 2**30], np.int64), np.float64(1))
    assert ei.value.op == "Fill"
    # An element count past int64 is TensorFlow's InvalidArgumentError, not an allocation failure.
    with pytest.raises(of.InvalidArgumentError, match="more than 2\\*\\*63 - 1 elements"):
        of.ops.fill(np.array([2**40, 2**40], np.int64), np.float64(1))


@pytest.mark.parametrize("value", [np.ones(2, ml_dtypes.float8_e5m2), np.array(["a", "b"])], ids=["float8", "str"])
def test_unsupported_numpy_dtype_is_op_error(value):
    expect_error("AddV2", lambda: of.add_v2(value, value))


@pytest.mark.parametrize("empty", [[], ()], ids=["list", "tuple"])
def test_empty_python_list_index_inputs(empty):
    """An empty list for an int-only index input is int32 (it was float32, and rejected)."""
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(of.ops.sum(x, empty).numpy(), x)
    assert of.ops.transpose(np.float64(2.0), empty).shape == ()
    assert of.ops.reshape(np.array([2.0]), empty).shape == ()
    assert of.ops.fill(empty, 1.5).shape == ()


@pytest.mark.parametrize("spec", ["int8", "int16", "int32", "int64"])
def test_integer_division_overflow_does_not_crash(spec):
    """MIN / -1 (a SIGFPE in plain C++ division) wraps to MIN or raises an OpError."""
    dt = of_dtype(spec).as_numpy_dtype
    lo = np.iinfo(dt).min
    x, y = np.full(70000, lo, dt), np.full(70000, -1, dt)  # the parallel path too
    for a, b in ((x[:1], y[:1]), (x, y), (x, np.array(-1, dt))):
        try:
            out = of.ops.real_div(a, b).numpy()
        except of.OpError as e:
            assert "RealDiv" in str(e)
        else:
            assert (out == lo).all()
