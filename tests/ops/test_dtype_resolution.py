"""Eager calls and graph building give every op's outputs the same dtypes from the same inputs.

Both modes decide the dtypes of Python values, NumPy arrays and tensors given to an op with one
function (opforge/framework/dtype_resolution.py); this drives it through every op the matrix
drives, at every dtype, with the inputs given as NumPy arrays, as Python values, mixed, and
beside an eager Tensor, and compares what each mode makes of them. A call one mode refuses must
be refused by the other with the same error class (a graph refuses when its Session runs).
"""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework import dtype_resolution
from opmatrix import (
    OP_NAMES, OPS_BY_NAME, build_inputs, call, data_inputs, dispatch_dtypes, expected_out_specs,
    of_dtype, seed_for, type_bindings, valid_case,
)


def _python(a):
    """A NumPy input as the Python value a user would write (a scalar, nested lists)."""
    return [_python(e) for e in a] if isinstance(a, list) else np.asarray(a).tolist()


def _variants(op, inputs: dict) -> dict[str, dict]:
    """The same values given in different forms, keyed by a name for failure messages."""
    data = [a.name for a in data_inputs(op)]
    out = {"numpy": dict(inputs), "python": {k: _python(v) for k, v in inputs.items()}}
    if len(inputs) > 1:
        first = data[0] if data else next(iter(inputs))
        out["numpy-first"] = {k: v if k == first else _python(v) for k, v in inputs.items()}
        out["python-first"] = {k: _python(v) if k == first else v for k, v in inputs.items()}
    if data and not isinstance(inputs[data[0]], list):
        tensor_first = {k: _python(v) for k, v in inputs.items()}
        tensor_first[data[0]] = of.constant(inputs[data[0]])
        out["tensor-first"] = tensor_first
    return out


def _flat(out) -> list:
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _eager(op, inputs, attrs):
    try:
        return "dtypes", [t.dtype.name for t in _flat(call(op, inputs, attrs))]
    except Exception as e:  # noqa: BLE001 (the class is compared with the graph's)
        return "error", type(e).__name__


def _graph(op, inputs, attrs):
    g = of.Graph()
    try:
        with g.as_default():
            outs = _flat(call(op, inputs, attrs))
    except Exception as e:  # noqa: BLE001
        return "error", type(e).__name__, None
    return "dtypes", [t.dtype.name for t in outs], (g, outs)


@pytest.mark.parametrize("op_name", OP_NAMES)
def test_eager_and_graph_infer_the_same_dtypes(op_name):
    op = OPS_BY_NAME[op_name]
    for spec in dispatch_dtypes(op):
        seed = seed_for("dtype_resolution", op_name, spec)
        case = valid_case(op, spec)
        inputs = build_inputs(np.random.default_rng(seed), op, spec, case)
        attrs = {k: of_dtype(v) if op.attr(k).type == "type" else v for k, v in case.attrs.items()}
        for variant, given in _variants(op, inputs).items():
            msg = f"{op_name}[{spec}] case {case.id}, inputs as {variant} (seed={seed})"
            eager = _eager(op, given, attrs)
            kind, what, built = _graph(op, given, attrs)
            if eager[0] == "error" and kind == "dtypes":  # the graph refuses when it runs
                with pytest.raises(Exception) as info, of.Session(graph=built[0]) as sess:  # noqa: PT011
                    sess.run(built[1])
                kind, what = "error", info.type.__name__
            assert eager == (kind, what), f"eager {eager} vs graph {(kind, what)}: {msg}"
            if variant == "numpy":  # the matrix's own call: the opdef's output dtypes
                bindings = type_bindings(op, spec, inputs, case)
                want = [of_dtype(s).name for s in expected_out_specs(op, bindings)]
                assert eager[0] == "dtypes", f"{eager}: {msg}"
                assert set(eager[1]) <= set(want), f"{eager[1]} vs the opdef's {want}: {msg}"


# ---- the rule itself, on mixed inputs (both modes)

MIXED = [  # (x, y, dtype of x + y): NumPy beats Python, a tensor beats both, in any order
    (1, 2, "int32"),
    (1.5, 2, "float32"),
    (2, 1.5, "error"),  # as TensorFlow: x's int32 default types y, and 1.5 is no int32
    (np.float64(1.5), 2, "float64"),
    (2, np.float64(1.5), "float64"),
    (np.int64(3), 2.0, "int64"),  # 2.0 converts to int64 exactly
    (np.array([1, 2], np.int16), [3, 4], "int16"),
    ([3, 4], np.array([1, 2], np.int16), "int16"),
    (2**40, 1, "int64"),
    (np.float16(1), np.float64(2), "float16"),  # the first NumPy value wins
    ("tensor:float64", 1, "float64"),
    (np.float32(1), "tensor:float64", "float64"),  # a tensor beats an earlier NumPy value
    (1, "tensor:int8", "int8"),
]


def _value(v, graph_mode):
    if isinstance(v, str) and v.startswith("tensor:"):
        arr = np.array([1, 2], dtype=v.split(":")[1])
        return of.placeholder(arr.dtype, [2]) if graph_mode else of.constant(arr)
    return v


@pytest.mark.parametrize("x,y,want", MIXED, ids=[str(i) for i in range(len(MIXED))])
def test_mixed_inputs(x, y, want):
    outcomes = []
    for graph_mode in (False, True):
        g = of.Graph()
        try:
            if graph_mode:
                with g.as_default():
                    outcomes.append(of.add(_value(x, True), _value(y, True)).dtype.name)
            else:
                outcomes.append(of.add(_value(x, False), _value(y, False)).dtype.name)
        except of.errors.InvalidArgumentError:
            outcomes.append("error")
    assert outcomes == [want, want]


def test_float_only_op_takes_an_int_literal_as_float32():
    for graph_mode in (False, True):
        with (of.Graph().as_default() if graph_mode else _nothing()):
            assert of.math.sqrt(4).dtype == of.float32
            assert of.ops.log(1).dtype == of.float32


def test_empty_list_takes_float32_else_int32_else_the_first_allowed_type():
    """[] has NumPy's float64: TensorFlow's float32 default where allowed (an index input that
    only takes integers gets int32, else its first allowed type)."""
    def resolve(*allowed):
        spec = {"name": "Op", "input_info": [("x", "T", 0, False, False, None, None)],
                "allowed_types": {"T": [d.as_datatype_enum for d in allowed]}}
        return dtype_resolution.resolve_input_dtypes(spec, [[]], lambda v: None)
    assert resolve(of.float64, of.float32, of.int32) == [of.float32]
    assert resolve(of.int64, of.int32) == [of.int32]
    assert resolve(of.int64, of.bool) == [of.int64]
    for graph_mode in (False, True):
        with (of.Graph().as_default() if graph_mode else _nothing()):
            assert of.reshape([], [0]).dtype == of.float32  # tensor: []
            assert of.reshape(np.ones(1, np.int8), []).shape == ()  # shape: [] as int32


def test_list_of_types_gives_each_value_its_own_dtype():
    for graph_mode in (False, True):
        with (of.Graph().as_default() if graph_mode else _nothing()):
            out = of.ops.identity_n([1, 2.5, np.int8(3), True])
            assert [t.dtype.name for t in out] == ["int32", "float32", "int8", "bool"]


def test_missing_input_names_the_op_in_both_modes():
    for graph_mode in (False, True):
        with (of.Graph().as_default() if graph_mode else _nothing()):
            with pytest.raises(of.errors.InvalidArgumentError, match=r"AddV2: input 'x' is missing"):
                of.ops.add_v2(None, 1)


def test_unconvertible_value_names_the_op_and_input_in_both_modes():
    for graph_mode in (False, True):
        with (of.Graph().as_default() if graph_mode else _nothing()):
            with pytest.raises(of.errors.InvalidArgumentError, match=r"AddV2: input 'x': cannot convert"):
                of.ops.add_v2(object(), 1)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
