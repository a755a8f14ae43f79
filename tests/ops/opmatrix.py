"""Shared machinery for the generated op test matrix (tests/ops/).

Everything here is driven by the opdefs: the ops, their inputs, dtypes, attrs, gradients and
NumPy references come from ``codegen.model.load`` on the repository's opdefs/ folder. The only
hand-written knowledge is kept in small tables keyed by op name or shape function:

* ``DOMAINS``: the value domain of an op's data inputs (positive for Log, non-zero divisors ...);
* ``INPUT_BUILDERS``: how to build an op's index-like inputs (axes, perm, shape, dims), or data
  inputs that must agree with each other (Range);
* ``family()`` and the ``*_SHAPES`` / ``*_CASES`` tables: which shapes and attr combinations
  exercise an op, chosen by its shape function (or, for an unknown one, by its signature).

An op the matrix cannot drive (no inputs, stateful, no reference, unknown shape family) is
listed with the reason in the coverage summary; give it a reference, a family or a builder here.
Set OPFORGE_OPS_SEED to run on other random data (failure messages name their seeds).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import codegen.dtypes
import codegen.model
import nn_cases  # the nn ops' cases (issue 4, nn)
import nn_reference  # noqa: F401 (opdefs/nn references call it)
import opforge as of

import array_cases  # issue 4, array area: case tables of the array ops (family "table")

REPO = Path(__file__).resolve().parents[2]
OPDEFS = REPO / "opdefs"

ALL_OPS = codegen.model.load([str(OPDEFS)])
ALL_OPS_BY_NAME = {op.name: op for op in ALL_OPS}

# Coverage, filled by the tests as they pass; printed by conftest.py.
COVERAGE: dict[str, set[str]] = {"reference": set(), "gradient": set(), "errors": set(),
                                 "not_differentiable": set(), "gradient_index": set(), "fuzz": set(),
                                 "statistical": set()}  # random ops (issue 4): test_random.py

SEED_OFFSET = int(os.environ.get("OPFORGE_OPS_SEED", "0"))

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "bfloat16", "half", "float",
              "double")
LOW_PRECISION = ("half", "bfloat16")


# ------------------------------------------------------------------------------ dtypes


def np_dtype(spec: str) -> np.dtype:
    """NumPy dtype of an opdef dtype spec name ("half" -> float16, "bfloat16" -> ml_dtypes)."""
    return np.dtype(of.as_dtype(codegen.dtypes.python_name(spec)).as_numpy_dtype)


def of_dtype(spec: str):
    return of.as_dtype(codegen.dtypes.python_name(spec))


def kind(spec: str) -> str:
    """'b' (bool), 'u', 'i' or 'f' (the 16-bit floats included)."""
    if spec in LOW_PRECISION:
        return "f"
    return np_dtype(spec).kind


def is_float(spec: str) -> bool:
    return kind(spec) == "f"


def spec_of_np(dt) -> str:
    dt = np.dtype(dt)
    for s in ALL_DTYPES:
        if np_dtype(s) == dt:
            return s
    raise KeyError(dt)


TOLERANCE = {"double": 1e-12, "float": 1e-5, "half": 1e-2, "bfloat16": 2e-2}


# ------------------------------------------------------------------------------ signature


def dispatch_attr(op) -> str | None:
    """The op's dispatch type attr: the first `type` attr referenced by an input, preferring
    one that also types an output (Fill's T, not its index_type; Cast's SrcT)."""
    refs = [a.type_attr for a in op.inputs if a.type_attr and op.attr(a.type_attr).type == "type"]
    if not refs:
        return None
    outs = {a.type_attr for a in op.outputs}
    return next((r for r in refs if r in outs), refs[0])


def fixed_data_type(op) -> str | None:
    """The dtype of ops whose data has one fixed dtype (LogicalAnd's and All's bool inputs):
    ops with fixed-type inputs and no input type attr that also types an output."""
    fixed = {a.type for a in op.inputs if a.type}
    if len(fixed) != 1:
        return None
    outs = {a.type_attr for a in op.outputs}
    if any(a.type_attr and a.type_attr in outs for a in op.inputs):
        return None
    return fixed.pop()


# Dtypes that hold no numbers (a variant is a TensorList handle; strings are tested in
# tests/graph/test_strings.py): no random data, no reference.
NON_NUMERIC = ("string", "variant")


def dispatch_dtypes(op) -> tuple[str, ...]:
    fixed = fixed_data_type(op)
    if fixed:
        return (fixed,)
    return tuple(d for d in op.attr(dispatch_attr(op)).allowed if d not in NON_NUMERIC)


def data_inputs(op) -> list:
    """Inputs whose dtype is the dispatch attr (or the fixed data dtype): they get random data
    of the test dtype."""
    fixed = fixed_data_type(op)
    if fixed:
        return [a for a in op.inputs if a.type == fixed]
    d = dispatch_attr(op)
    return [a for a in op.inputs if a.type_attr == d]


def index_inputs(op) -> list:
    """The other inputs (axes, perm, shape, dims): built by INPUT_BUILDERS."""
    data = {a.name for a in data_inputs(op)}
    return [a for a in op.inputs if a.name not in data]


def wrapper(op):
    """The generated wrapper (of.ops.<snake_name>; the same function as of.<snake_name> except
    where of's TensorFlow-style API replaces it, e.g. of.cast(x, dtype)).

    Skips the calling test when the installed build predates the opdef
    (test_reference.py::test_wrapper_is_exported fails for it instead)."""
    f = getattr(of.ops, op.snake_name, None)
    if f is None:
        import pytest  # noqa: PLC0415
        pytest.skip(f"the installed opforge has no of.ops.{op.snake_name} ({op.loc.file}): rebuild")
    if not op.python_names:
        return f
    renames = dict(op.python_names)

    @functools.wraps(f)
    def by_opdef_names(*args, **kwargs):
        """The tables name attrs as the opdef does; the wrapper takes TensorFlow's Python names
        (Squeeze's squeeze_dims is `axis`)."""
        return f(*args, **{renames.get(k, k): v for k, v in kwargs.items()})
    return by_opdef_names


def to_tensor(a) -> of.Tensor:
    """A Tensor of a NumPy array's dtype and exact shape (0-d included)."""
    return of.constant(np.asarray(a))


def as_input(a):
    """How the matrix passes a NumPy input: as is (the wrapper converts it)."""
    return a


def call(op, inputs: dict, attrs: dict, convert=as_input):
    args = [[convert(v) for v in inputs[a.name]] if a.is_list and isinstance(inputs[a.name], list)
            else convert(inputs[a.name]) for a in op.inputs]
    kwargs = {op.py_name(k): v for k, v in attrs.items()}
    missing = set(kwargs) - set(inspect.signature(getattr(of.ops, op.snake_name)).parameters)
    if missing:
        import pytest  # noqa: PLC0415
        pytest.skip(f"the installed of.ops.{op.snake_name} has no {sorted(missing)} "
                    f"({op.loc.file} is newer): rebuild")
    return wrapper(op)(*args, **kwargs)


def seed_for(*parts) -> int:
    return (zlib.crc32("|".join(map(str, parts)).encode()) + SEED_OFFSET) % (2**32)


# ------------------------------------------------------------------------------ values


@dataclass(frozen=True)
class Domain:
    """Value domain of one data input, per dtype kind."""

    float: tuple = (-3.0, 3.0)
    int: tuple = (-10, 10)
    uint: tuple = (0, 20)
    away_from_zero: float = 0.0  # |v| >= this (integers: non-zero when > 0)
    choices: tuple | None = None  # draw from these values only (ties for comparisons)


DEFAULT_DOMAIN = Domain()

# Input value domains, keyed by op name then input name ("*" for every data input).
DOMAINS: dict[str, dict[str, Domain]] = {
    "Log": {"*": Domain(float=(0.1, 4.0))},
    "Sqrt": {"*": Domain(float=(0.0, 4.0))},
    "Exp": {"*": Domain(float=(-3.0, 3.0))},
    "RealDiv": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "Pow": {"x": Domain(float=(0.25, 2.5), int=(-3, 3)),
            "y": Domain(float=(-2.0, 2.0), int=(0, 3))},
    "Equal": {"*": Domain(choices=(-1, 0, 1))},
    "Less": {"*": Domain(choices=(0, 1, 2, 3))},
    "Greater": {"*": Domain(choices=(0, 1, 2, 3))},
    "Square": {"*": Domain(int=(-11, 11), uint=(0, 15))},
    # ---- math ops (issue 4)
    "Reciprocal": {"*": Domain(int=(-3, 3), away_from_zero=0.25)},
    "Rsqrt": {"*": Domain(float=(0.1, 4.0))},
    "Asin": {"*": Domain(float=(-1.0, 1.0))},
    "Acos": {"*": Domain(float=(-1.0, 1.0))},
    "Atanh": {"*": Domain(float=(-0.95, 0.95))},
    "Acosh": {"*": Domain(float=(1.0, 4.0))},
    "Log1p": {"*": Domain(float=(-0.9, 3.0))},
    "Round": {"*": Domain(choices=tuple(np.arange(-4.0, 4.01, 0.25)))},  # ties to even
    "FloorDiv": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "FloorMod": {"y": Domain(float=(-4.0, 4.0), int=(-6, 6), uint=(1, 6), away_from_zero=0.5)},
    "NotEqual": {"*": Domain(choices=(-1, 0, 1))},
    "LessEqual": {"*": Domain(choices=(0, 1, 2, 3))},
    "GreaterEqual": {"*": Domain(choices=(0, 1, 2, 3))},
    "Prod": {"*": Domain(float=(0.6, 1.4), int=(-3, 3))},
    "ArgMax": {"*": Domain(choices=(-1, 0, 1, 2, 3))},  # ties: the first index wins
    "ArgMin": {"*": Domain(choices=(-1, 0, 1, 2, 3))},
    "ClipByValue": {"clip_value_min": Domain(float=(-2.0, -0.2), int=(-5, -1), uint=(0, 5)),
                    "clip_value_max": Domain(float=(0.2, 2.0), int=(1, 5), uint=(6, 12))},
    # ---- end math ops
}


def domain(op_name: str, input_name: str) -> Domain:
    d = DOMAINS.get(op_name, {})
    return d.get(input_name, d.get("*", DEFAULT_DOMAIN))


def random_values(rng, shape, spec: str, dom: Domain = DEFAULT_DOMAIN) -> np.ndarray:
    """Random data of dtype `spec` in domain `dom` (16-bit floats rounded from float64)."""
    shape = tuple(shape)
    dt = np_dtype(spec)
    k = kind(spec)
    if dom.choices is not None:
        vals = np.asarray(dom.choices)
        if k == "u":
            vals = np.abs(vals)
        if k == "b":
            vals = vals != 0
        return rng.choice(vals, size=shape).astype(dt)
    if k == "b":
        return rng.random(shape) < 0.5
    if k == "f":
        lo, hi = dom.float
        v = rng.uniform(lo, hi, shape)
        if dom.away_from_zero:
            small = np.abs(v) < dom.away_from_zero
            v = np.where(small, np.copysign(dom.away_from_zero + np.abs(v), v + (v == 0)), v)
        return v.astype(dt)
    lo, hi = dom.uint if k == "u" else dom.int
    info = np.iinfo(dt)
    lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    v = rng.integers(lo, hi + 1, shape)
    if dom.away_from_zero:
        v = np.where(v == 0, hi if hi != 0 else lo, v)
    return v.astype(dt)


# ------------------------------------------------------------------------------ cases


@dataclass
class Case:
    """One call shape of an op: shapes of its data inputs, attrs, and a mode for its builder."""

    id: str
    shapes: dict  # data input name -> shape
    attrs: dict = field(default_factory=dict)
    mode: str = ""  # what INPUT_BUILDERS should build (e.g. "scalar" axis)
    extra: dict = field(default_factory=dict)  # e.g. the target dtype of Cast


def shape_id(s) -> str:
    return "s" if len(s) == 0 else "x".join(map(str, s))


UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (1, 1, 5), (0,), (2, 0, 3)]
BINARY_SHAPES = [
    ((), ()),
    ((3, 4), (3, 4)),
    ((3, 1, 4), (2, 4)),  # broadcast both ways
    ((), (3, 4)),  # scalar with matrix
    ((3, 4), ()),
    ((2, 1), (1, 5)),
    ((4, 1, 1, 3), (2, 1)),
    ((0, 3), (1, 3)),  # empty
    ((0,), ()),
]
MATMUL_SHAPES = [(2, 3, 4), (1, 1, 1), (4, 5, 3), (3, 0, 2), (0, 3, 2), (2, 3, 0)]  # (m, k, n)
REDUCE_CASES = [  # (shape, axis mode)
    ((), "empty"),
    ((5,), "all"),
    ((5,), "scalar"),
    ((3, 4), "random"),
    ((3, 4), "negative"),
    ((3, 4), "empty"),
    ((2, 3, 4), "random"),
    ((2, 3, 4), "all"),
    ((2, 3, 4), "scalar"),
    ((2, 1, 3, 2), "random"),
    ((0, 3), "nonzero"),  # reduce the non-empty axis of an empty tensor
    ((0, 3), "all"),  # an empty reduction: the reducer's identity (Max -inf, integer Mean 0)
    ((3, 0), "nonzero"),
]
TRANSPOSE_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (0, 3), (2, 0, 3)]
RESHAPE_CASES = [((), "vector1"), ((6,), "factor"), ((3, 4), "factor"), ((3, 4), "minus1"),
                 ((2, 3, 4), "factor"), ((2, 3, 4), "minus1"), ((2, 3, 4), "flat"),
                 ((1,), "scalar"), ((0, 3), "factor"), ((0, 3), "minus1")]
FILL_DIMS = [(), (0,), (4,), (2, 3), (2, 0, 3), (1, 2, 1, 3)]
CAST_SHAPES = [(), (3, 4), (0, 2)]

RANGE_MODES = ("up", "down", "empty", "single", "up-by-fraction")

# Large cases (> 2 x the kernels' 32768-element parallel grain): the multi-threaded paths.
LARGE_UNARY = [(300, 517)]
LARGE_BINARY = [((300, 517), (300, 517)), ((300, 1, 517), (1, 517)), ((155101,), ()),
                ((517, 300), (517, 1))]
LARGE_MATMUL = [(128, 300, 64), (3, 70001, 2)]
LARGE_REDUCE = [((155101,), "all"), ((3, 70001), "last"), ((70001, 3), "first"),
                ((40, 50, 80), "random"), ((2, 70001, 2), "first"), ((300, 517), "last")]
LARGE_TRANSPOSE = [(60, 50, 53), (517, 300)]
LARGE_RESHAPE = [((300, 517), "factor")]
LARGE_FILL = [(300, 517)]
LARGE_CAST_TARGETS = ("int32", "half", "double")
LARGE_DTYPES = ("float", "bfloat16", "int32", "bool")  # the kernels' templates, a few instances

# Attr variations by attr name; explicit attrs not listed keep their default.
ATTR_VARIATIONS = {"transpose_a": (False, True), "transpose_b": (False, True),
                   "keep_dims": (False, True), "out_type": ("int32", "int64")}


def attr_combos(op):
    names = [a.name for a in op.explicit_attrs if a.name in ATTR_VARIATIONS]
    for values in itertools.product(*(ATTR_VARIATIONS[n] for n in names)):
        yield dict(zip(names, values))


def attrs_id(attrs: dict) -> str:
    return ",".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in attrs.items())


_FAMILIES = ("unchanged", "broadcast", "matmul", "reduce", "transpose", "reshape", "fill", "range")


def family(op) -> str | None:
    """The op's shape family (which SHAPE_CASES drive it): its shape function's name when the
    matrix knows it, else what its signature implies (one data input and no index inputs:
    "unchanged", e.g. Shape or a custom unary op; two: "broadcast"); None if neither."""
    if op.name in MATH_FAMILIES:
        return MATH_FAMILIES[op.name]
    if op.name in array_cases.TABLE_OPS:
        return "table"
    if op.name in nn_cases.CASES:  # conv, pool, softmax, batch norm ...: per-op cases (nn_cases.py)
        return "nn"
    sf = op.shape_fn.name if op.shape_fn else "custom"
    if sf in _FAMILIES:
        return sf
    if dispatch_attr(op) and not index_inputs(op) and len(data_inputs(op)) in (1, 2):
        return "unchanged" if len(data_inputs(op)) == 1 else "broadcast"
    return None


def why_not_driven(op) -> str | None:
    """Why the matrix cannot call `op` with generated inputs, or None if it can."""
    if not op.inputs:
        return "no inputs"
    if op.is_stateful or any(a.is_ref for a in op.inputs + op.outputs):
        return "stateful"
    if not op.reference:
        return "no NumPy reference in its opdef"
    if dispatch_attr(op) is None and fixed_data_type(op) is None:
        return "no type attr on its inputs"
    if any(a.type_list_attr for a in op.inputs):
        return "list(type) inputs"
    if family(op) is None:
        return f"no shape cases for shape function {op.shape_fn.name!r} (add to opmatrix)"
    return None


# ------------------------------------------------------------------------------ math ops (issue 4)
# Shape families of math ops whose shape function alone does not say how to call them; their
# cases, large cases and special-value cases.

MATH_FAMILIES = {"Select": "select", "SelectV2": "select_v2", "ClipByValue": "clip",
                 "ArgMax": "arg", "ArgMin": "arg", "Cumsum": "cumsum", "BatchMatMulV2": "batch_matmul"}

SELECT_CASES = [  # (shape of t and e, shape of condition)
    ((), ()), ((5,), (5,)), ((3, 4), (3, 4)), ((3, 4), (3,)), ((3, 4), ()), ((2, 3, 4), (2,)),
    ((2, 3, 4), (2, 3, 4)), ((0, 3), (0,)), ((2, 0), (2, 0))]
SELECT_V2_CASES = [  # (condition, t, e)
    ((), (), ()), ((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), ()), ((4,), (3, 4), (3, 1)),
    ((2, 1, 3), (3,), (2, 1, 1)), ((0, 3), (1, 3), ()), ((3, 4), (), ()), ((), (2, 3), (2, 3))]
CLIP_CASES = [((), (), ()), ((5,), (), ()), ((3, 4), (3, 4), ()), ((3, 4), (), (3, 4)),
              ((2, 3, 4), (2, 3, 4), (2, 3, 4)), ((0, 3), (), ())]  # (t, min, max)
ARG_CASES = [((5,), 0), ((5,), -1), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 0),
             ((2, 3, 4), 1), ((2, 3, 4), 2), ((2, 3, 4), -2), ((1, 1, 5), 2), ((1, 1, 5), 0),
             ((0, 3), 1), ((2, 0, 3), 0)]  # (shape, dimension)
CUMSUM_CASES = [((5,), 0, False, False), ((5,), -1, True, False), ((5,), 0, False, True),
                ((5,), 0, True, True), ((3, 4), 1, False, False), ((3, 4), 0, True, True),
                ((3, 4), -2, False, True), ((2, 3, 4), 1, True, False), ((2, 3, 4), 2, False, True),
                ((1, 1, 5), 0, False, False), ((0, 3), 1, True, False), ((2, 0, 3), 2, False, True)]
BATCH_MATMUL_CASES = [  # (batch of x, batch of y, m, k, n, adj_x, adj_y)
    ((), (), 2, 3, 4, False, False), ((), (), 2, 3, 4, True, False), ((), (), 2, 3, 4, False, True),
    ((), (), 2, 3, 4, True, True), ((2,), (2,), 2, 3, 4, False, False), ((2, 1), (3,), 1, 2, 3, True, False),
    ((1,), (4,), 3, 2, 2, False, True), ((3,), (), 2, 2, 2, True, True), ((0,), (), 2, 3, 4, False, False),
    ((2,), (2,), 0, 3, 2, False, False), ((2,), (2,), 2, 0, 3, False, True), ((2,), (1,), 2, 3, 0, False, False)]
LARGE_SELECT = [((300, 517), (300, 517)), ((300, 517), (300,))]
LARGE_SELECT_V2 = [((300, 517), (300, 517), (300, 517)), ((300, 1), (1, 517), ())]
LARGE_CLIP = [((300, 517), (), ()), ((300, 517), (300, 517), (300, 517))]
LARGE_ARG = [((155101,), 0), ((300, 517), 1), ((300, 517), 0), ((3, 70001), -1)]
LARGE_CUMSUM = [((155101,), 0, False, False), ((155101,), 0, True, True), ((300, 517), 1, False, True),
                ((517, 300), 0, True, False)]
LARGE_BATCH_MATMUL = [((64,), (64,), 16, 32, 16, False, True), ((2,), (), 128, 300, 64, True, False)]


def _arg_output_types(op):
    return op.attr("output_type").allowed


def _bmm_case(prefix, bx, by, m, k, n, ax, ay, data):
    x = tuple(bx) + ((k, m) if ax else (m, k))
    y = tuple(by) + ((n, k) if ay else (k, n))
    attrs = {"adj_x": ax, "adj_y": ay}
    return Case(f"{prefix}{shape_id(x)}-{shape_id(y)}-{attrs_id(attrs)}", dict(zip(data, (x, y))), attrs)


def _math_cases(op, spec, large=False) -> list[Case]:
    data = [a.name for a in data_inputs(op)]
    sf = family(op)
    if sf == "select":
        return [Case(f"{shape_id(t)}-cond_{shape_id(c)}", {data[0]: t, data[1]: t}, extra={"cond": c})
                for t, c in (LARGE_SELECT if large else SELECT_CASES)]
    if sf == "select_v2":
        return [Case(f"{shape_id(c)}-{shape_id(t)}-{shape_id(e)}", {data[0]: t, data[1]: e}, extra={"cond": c})
                for c, t, e in (LARGE_SELECT_V2 if large else SELECT_V2_CASES)]
    if sf == "clip":
        return [Case("-".join(map(shape_id, shapes)), dict(zip(data, shapes)))
                for shapes in (LARGE_CLIP if large else CLIP_CASES)]
    if sf == "arg":
        # int16 indices cannot address the large cases' dimensions (an error, see test_errors_math)
        types = itertools.cycle([t for t in _arg_output_types(op) if not (large and t == "int16")])
        return [Case(f"{shape_id(s)}-dim_{ax}-{ot}", {data[0]: s}, {"output_type": ot}, extra={"axis": ax})
                for (s, ax), ot in zip(LARGE_ARG if large else ARG_CASES, types)]
    if sf == "cumsum":
        out = []
        for s, ax, ex, rev in (LARGE_CUMSUM if large else CUMSUM_CASES):
            attrs = {"exclusive": ex, "reverse": rev}
            out.append(Case(f"{shape_id(s)}-axis_{ax}-{attrs_id(attrs)}", {data[0]: s}, attrs, extra={"axis": ax}))
        return out
    if sf == "batch_matmul":
        return [_bmm_case("", *c, data) for c in (LARGE_BATCH_MATMUL if large else BATCH_MATMUL_CASES)]
    raise AssertionError(f"no math cases for family {sf!r}")


def _math_special_cases(op, spec, n) -> list[Case]:
    data = [a.name for a in data_inputs(op)]
    sf = family(op)
    if sf == "arg":
        ot = _arg_output_types(op)[-1]
        return [Case(f"special-dim_{ax}", {data[0]: (3, n)}, {"output_type": ot},
                     extra={"axis": ax, "special": True}) for ax in (0, 1)]
    if sf == "cumsum":
        return [Case(f"special-{attrs_id(a)}", {data[0]: (n,)}, a, extra={"axis": 0, "special": True})
                for a in ({"exclusive": False, "reverse": False}, {"exclusive": True, "reverse": True})]
    return []


MATH_CASES = {f: _math_cases for f in set(MATH_FAMILIES.values())}
MATH_LARGE_CASES = {f: (lambda op, spec: _math_cases(op, spec, large=True)) for f in set(MATH_FAMILIES.values())}
MATH_SPECIAL_CASES = {"arg": _math_special_cases, "cumsum": _math_special_cases}


def build_math_axis(rng, op, case, data):
    """The scalar axis of ArgMax/ArgMin (dimension) and Cumsum (axis), from the case."""
    (arg,) = index_inputs(op)
    return {arg.name: np.asarray(case.extra["axis"]).astype(_index_dtype(rng, op, arg))}


def build_condition(rng, op, case, data):
    """Select's and SelectV2's bool condition, of the case's condition shape."""
    return {"condition": rng.random(case.extra["cond"]) < 0.5}


# ------------------------------------------------------------------------------ end math ops


# The ops the matrix drives; the others (and why) are listed in the coverage summary.
OPS = [op for op in ALL_OPS if why_not_driven(op) is None]
OPS_BY_NAME = {op.name: op for op in OPS}
OP_NAMES = sorted(OPS_BY_NAME)
NOT_DRIVEN = {op.name: why_not_driven(op) for op in ALL_OPS if why_not_driven(op)}


def cases(op, spec: str, *, small: bool = False, large: bool = True) -> list[Case]:
    """The call shapes for `op` at dtype `spec`, chosen by the op's shape function.

    small: no empty tensors and no large ones (the numeric gradient checks).
    large: add the LARGE_* cases (ids start with "large")."""
    out = _cases(op, spec)
    if not small:
        out += _special_cases(op, spec)
    allowed = dispatch_dtypes(op)
    large_specs = [d for d in LARGE_DTYPES if d in allowed] or list(allowed[:1])
    if large and not small and spec in large_specs:
        out += [Case(f"large-{c.id}", c.shapes, c.attrs, c.mode, c.extra) for c in _large_cases(op, spec)]
    sf = family(op)
    data = [a.name for a in data_inputs(op)]
    if sf == "reduce":
        out = [c for c in out if not (empty_reduction_is_error(op.name, spec)
                                      and c.mode == "all" and 0 in c.shapes[data[0]])]
    if small:
        out = [c for c in out if all(0 not in s for s in c.shapes.values())
               and 0 not in c.extra.get("dims", ())]
    if op.name == "Where":  # a scalar condition is an error, as in TensorFlow (test_errors_array)
        out = [c for c in out if all(len(s) > 0 for s in c.shapes.values())]
    return out


# IEEE special values (and the edges of half precision) for the float elementwise/reduce ops.
SPECIAL_VALUES = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 1e30, -1e-30, 65504.0, 7e4)


def _special_cases(op, spec) -> list[Case]:
    if not is_float(spec) or op.name == "Cast":
        return []
    data = [a.name for a in data_inputs(op)]
    n = len(SPECIAL_VALUES)
    sf = family(op)
    if sf == "unchanged":
        return [Case("special", {data[0]: (n,)}, extra={"special": True})]
    if sf == "broadcast":  # every pair
        return [Case("special", dict(zip(data, ((n, 1), (1, n)))), extra={"special": True})]
    if sf == "reduce":
        return [Case(f"special-{mode}", {data[0]: (3, n)}, {"keep_dims": False}, mode,
                     extra={"special": True}) for mode in ("first", "last")]
    if sf in MATH_SPECIAL_CASES:
        return MATH_SPECIAL_CASES[sf](op, spec, n)
    return []


def _special_values(shape, spec, k: int) -> np.ndarray:
    """SPECIAL_VALUES along the (last) axis of `shape` that has their length, rotated by
    k + 3 * (index along the other axes) so that rows differ."""
    v = np.asarray(SPECIAL_VALUES)
    ax = max(i for i, d in enumerate(shape) if d == len(v))
    out = np.empty(shape)
    others = [d for i, d in enumerate(shape) if i != ax]
    for r, idx in enumerate(np.ndindex(*others)):
        idx = list(idx)
        idx.insert(ax, slice(None))
        out[tuple(idx)] = np.roll(v, k + 3 * r)
    with np.errstate(all="ignore"):
        return out.astype(np_dtype(spec))


def _large_cases(op, spec) -> list[Case]:
    data = [a.name for a in data_inputs(op)]
    sf = family(op)
    if sf in MATH_LARGE_CASES:
        return MATH_LARGE_CASES[sf](op, spec)
    if sf == "nn":
        return [Case(id_, shapes, attrs, extra=extra) for id_, shapes, attrs, extra
                in nn_cases.LARGE_CASES.get(op.name, [])]
    if sf == "unchanged" and op.name == "Cast":
        return [Case(f"to_{d}-{shape_id(s)}", {data[0]: s}, {"DstT": d}, extra={"DstT": d})
                for d in LARGE_CAST_TARGETS for s in LARGE_UNARY]
    if sf == "unchanged":
        return [Case(shape_id(s), {data[0]: s}) for s in LARGE_UNARY]
    if sf == "broadcast":
        return [Case(f"{shape_id(a)}-{shape_id(b)}", dict(zip(data, (a, b)))) for a, b in LARGE_BINARY]
    if sf == "matmul":
        out = []
        for (m, k, n), ta in itertools.product(LARGE_MATMUL, (False, True)):
            attrs = {"transpose_a": ta, "transpose_b": not ta}
            a = (k, m) if ta else (m, k)
            b = (n, k) if not ta else (k, n)
            out.append(Case(f"{m}x{k}x{n}-{attrs_id(attrs)}", dict(zip(data, (a, b))), attrs))
        return out
    if sf == "reduce":
        return [Case(f"{shape_id(s)}-{mode}-keep_dims={int(kd)}", {data[0]: s}, {"keep_dims": kd}, mode)
                for (s, mode), kd in zip(LARGE_REDUCE, itertools.cycle((False, True)))]
    if sf == "transpose":
        return [Case(shape_id(s), {data[0]: s}) for s in LARGE_TRANSPOSE]
    if sf == "reshape":
        return [Case(f"{shape_id(s)}-{mode}", {data[0]: s}, mode=mode) for s, mode in LARGE_RESHAPE]
    if sf == "fill":
        return [Case(f"dims_{shape_id(d)}", {data[0]: ()}, extra={"dims": d}) for d in LARGE_FILL]
    if sf == "table":
        return array_cases.large_cases(op, spec)
    return []


def _cases(op, spec: str) -> list[Case]:
    data = [a.name for a in data_inputs(op)]
    sf = family(op)
    out: list[Case] = []
    if sf in MATH_CASES:
        return MATH_CASES[sf](op, spec)
    if sf == "unchanged" and op.name == "Cast":
        for dst in ALL_DTYPES:
            for s in CAST_SHAPES:
                out.append(Case(f"to_{dst}-{shape_id(s)}", {data[0]: s}, {"DstT": dst},
                                extra={"DstT": dst}))
    elif sf == "unchanged":
        out = [Case(shape_id(s), {data[0]: s}) for s in UNARY_SHAPES]
    elif sf == "broadcast":
        out = [Case(f"{shape_id(a)}-{shape_id(b)}", dict(zip(data, (a, b)))) for a, b in BINARY_SHAPES]
    elif sf == "matmul":
        for (m, k, n), attrs in itertools.product(MATMUL_SHAPES, attr_combos(op)):
            a = (k, m) if attrs["transpose_a"] else (m, k)
            b = (n, k) if attrs["transpose_b"] else (k, n)
            out.append(Case(f"{m}x{k}x{n}-{attrs_id(attrs)}", dict(zip(data, (a, b))), attrs))
    elif sf == "reduce":
        for (s, mode), attrs in itertools.product(REDUCE_CASES, attr_combos(op)):
            out.append(Case(f"{shape_id(s)}-{mode}-{attrs_id(attrs)}", {data[0]: s}, attrs, mode))
    elif sf == "transpose":
        out = [Case(shape_id(s), {data[0]: s}) for s in TRANSPOSE_SHAPES]
    elif sf == "reshape":
        out = [Case(f"{shape_id(s)}-{mode}", {data[0]: s}, mode=mode) for s, mode in RESHAPE_CASES]
    elif sf == "fill":
        out = [Case(f"dims_{shape_id(d)}", {data[0]: ()}, extra={"dims": d}) for d in FILL_DIMS]
    elif sf == "range":
        out = [Case(mode, {d: () for d in data}, mode=mode) for mode in RANGE_MODES]
    elif sf == "table":
        out = array_cases.cases(op, spec)
    elif sf == "nn":
        out = [Case(id_, shapes, attrs, extra=extra) for id_, shapes, attrs, extra in nn_cases.CASES[op.name]]
    else:
        raise AssertionError(f"no shape cases for shape function {sf!r} of {op.name}")
    return out


def valid_case(op, spec: str) -> Case:
    """A small valid case to build on: no empty tensors, preferring data (and Fill dims) of
    rank >= 1."""

    def score(c):
        shapes = list(c.shapes.values()) + [c.extra.get("dims", (1,))]
        if any(0 in s for s in shapes) or c.id.startswith("large"):
            return 2
        return 0 if all(len(s) >= 1 for s in shapes) else 1

    return min(cases(op, spec), key=score)


def empty_reduction_is_error(op_name: str, spec: str) -> bool:
    """No reduction refuses a zero-size axis any more: as TensorFlow, Max/Min give their identity
    (-inf/+inf, lowest/highest for integers), an integer Mean 0, a float Mean NaN, Sum 0."""
    del op_name, spec
    return False


# ------------------------------------------------------------------------------ index inputs


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


# Index-like inputs per op (axes, perm, shape, dims), or data inputs that must be consistent
# with each other (Range's start, limit and delta).
INPUT_BUILDERS = {
    "Range": build_range,
    "Sum": build_reduction,
    "Mean": build_reduction,
    "Max": build_reduction,
    # ---- math ops (issue 4): builders are defined in the math block below
    "Min": build_reduction,
    "Prod": build_reduction,
    "All": build_reduction,
    "Any": build_reduction,
    "ArgMax": lambda *a: build_math_axis(*a),
    "ArgMin": lambda *a: build_math_axis(*a),
    "Cumsum": lambda *a: build_math_axis(*a),
    "Select": lambda *a: build_condition(*a),
    "SelectV2": lambda *a: build_condition(*a),
    # ---- end math ops
    "Transpose": build_transpose,
    "Reshape": build_reshape,
    "Fill": build_fill,
    # ---- array ops (issue 4): built from their case tables
    **{name: array_cases.build for name in array_cases.TABLE_OPS},
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
            v = _special_values(case.shapes[arg.name], spec, k)
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


def cast_domain(src: str, dst: str) -> Domain:
    """Values every (src, dst) pair converts exactly or by truncation toward zero (no overflow)."""
    lo = 0 if "u" in (kind(src), kind(dst)) else -100
    return Domain(float=(lo, 100.0), int=(lo, 100), uint=(0, 100))


# ------------------------------------------------------------------------------ reference


def type_bindings(op, spec, inputs, case) -> dict[str, str]:
    """Type attr -> dtype spec for this call."""
    b = {}
    for arg in op.inputs:
        if arg.type_attr:
            b.setdefault(arg.type_attr, spec if arg.type_attr == dispatch_attr(op)
                         else spec_of_np(inputs[arg.name].dtype))
    for k, v in case.attrs.items():
        if op.attr(k).type == "type":
            b[k] = v
    return b


def expected_out_spec(op, bindings) -> str:
    out = op.outputs[0]
    if out.type:
        return out.type
    return bindings.get(out.type_attr) or op.attr(out.type_attr).default


def reference(op, spec, inputs, attrs, bindings):
    """Evaluates op.reference; 16-bit float data is computed in float32."""
    env = {"np": np, "nn_reference": nn_reference}
    d = dispatch_attr(op)
    for arg in op.inputs:
        v = inputs[arg.name]
        if arg.type_attr == d and spec in LOW_PRECISION:
            v = [e.astype(np.float32) for e in v] if isinstance(v, list) else v.astype(np.float32)
        env[arg.name] = v
    for a in op.attrs:
        if a.name in attrs:
            v = attrs[a.name]
        elif a.name in bindings:
            v = bindings[a.name]
        elif any(arg.number_attr == a.name for arg in op.inputs):
            v = next(len(inputs[arg.name]) for arg in op.inputs if arg.number_attr == a.name)
        else:
            v = a.default
        if a.type == "type":
            v = np_dtype(v)
        env[a.name] = v
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty slice is NaN
        out = eval(op.reference, env)  # noqa: S307 (opdef text, trusted)
    if len(op.outputs) > 1 or op.outputs[0].is_list:  # several outputs, or a list (Split, Unpack)
        return [np.asarray(o) for o in out]
    return np.asarray(out)


def expected_out_specs(op, bindings) -> list[str]:
    """The dtype spec of each output arg (ops with several outputs: FusedBatchNormV3 ...)."""
    return [o.type or bindings.get(o.type_attr) or op.attr(o.type_attr).default for o in op.outputs]


def as_outputs(out) -> list:
    """An op's result as a flat list of Tensors: one for a single-output op, one per tensor for
    several outputs or a list output (Split, Unpack)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def assert_all_match(op, out, ref, bindings, *, msg, tol_scale=1.0):
    """assert_matches for every output tensor of an op (ref: a list for several outputs or a
    list output, as reference() returns it)."""
    outs = as_outputs(out)
    specs = expected_out_specs(op, bindings)
    if len(op.outputs) == 1 and not op.outputs[0].is_list:
        return assert_matches(outs[0], np.asarray(ref), specs[0], msg=msg, tol_scale=tol_scale)
    refs = list(ref)
    assert isinstance(out, (list, tuple)) and len(outs) == len(refs), \
        f"{len(outs)} outputs, reference has {len(refs)}; {msg}"
    if len(op.outputs) == 1:  # a list output: every tensor has the arg's dtype
        names = [f"{op.outputs[0].name}[{i}]" for i in range(len(refs))]
        specs = specs * len(refs)
    else:
        names = [o.name for o in op.outputs]
    for o, r, spec, name in zip(outs, refs, specs, names):
        assert_matches(o, np.asarray(r), spec, msg=f"output {name}: {msg}", tol_scale=tol_scale)


def assert_matches(out, ref, out_spec, *, msg, tol_scale=1.0):
    """Checks dtype, shape and values of an op's output against a NumPy reference."""
    want = np_dtype(out_spec)
    assert out.dtype == of_dtype(out_spec), f"dtype {out.dtype} != {out_spec}; {msg}"
    got = out.numpy()
    assert got.dtype == want, f"numpy dtype {got.dtype} != {want}; {msg}"
    assert got.shape == ref.shape, f"shape {got.shape} != {ref.shape}; {msg}"
    with np.errstate(all="ignore"):
        ref = ref.astype(want)
    if kind(out_spec) == "f":
        tol = TOLERANCE[out_spec] * tol_scale
        g, r = got.astype(np.float64), ref.astype(np.float64)
        scale = max(1.0, float(np.max(np.abs(r[np.isfinite(r)]), initial=0.0)))
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol * scale, equal_nan=True, err_msg=msg)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=msg)


def describe(inputs: dict, attrs: dict) -> str:
    parts = []
    for k, v in inputs.items():
        if isinstance(v, list):
            parts.append(f"{k}=[{describe(dict(enumerate(v)), {})}]")
            continue
        v = np.asarray(v)
        body = np.array2string(v, threshold=30, precision=6) if v.size <= 30 else f"<{v.size} values>"
        parts.append(f"{k}={body} ({v.dtype}, shape {v.shape})")
    if attrs:
        parts.append(f"attrs={attrs}")
    return "; ".join(parts)


# ------------------------------------------------------------------------------ coverage

FAILED: dict[str, set[str]] = {k: set() for k in COVERAGE}


class covers:
    """``with covers("reference", op.name): ...`` records the op as covered if the body passes.

    Unexpected failures are recorded by conftest.py (a known-bug xfail is not one)."""

    def __init__(self, category: str, op_name: str):
        self.category, self.op_name = category, op_name

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            COVERAGE[self.category].add(self.op_name)
        return False


def covered(category: str) -> set[str]:
    """Ops with a passing check in `category` and no unexpected failure there."""
    return COVERAGE[category] - FAILED[category]
