"""Which calls exercise an op: its shape family (from its shape function, or its signature),
and per family the cases (data shapes, attrs, a mode for the input builders): the small and
large tables here, IEEE special-value cases, the math ops' families, and the tables of
array_cases.py, nn_cases.py and linalg_cases.py."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import array_cases  # issue 4, array area: case tables of the array ops (family "table")
import linalg_cases  # the linear-algebra ops' cases (issue 32)
import nn_cases  # the nn ops' cases (issue 4, nn)
from opmatrix_signature import data_inputs, dispatch_attr, dispatch_dtypes, fixed_data_type, index_inputs
from opmatrix_values import ALL_DTYPES, SPECIAL_VALUES, is_float


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
    if op.name in linalg_cases.CASES:  # inverse, solves, decompositions (linalg_cases.py)
        return "linalg"
    sf = op.shape_fn.name if op.shape_fn else "custom"
    if sf in _FAMILIES:
        return sf
    if dispatch_attr(op) and not index_inputs(op) and len(data_inputs(op)) in (1, 2):
        return "unchanged" if len(data_inputs(op)) == 1 else "broadcast"
    return None


# The complex dtypes have tests of their own (values against NumPy, numeric gradients, errors):
# tests/ops/test_complex_ops.py and tests/ops/test_fft_ops.py. The matrix drives the real dtypes.
COMPLEX = {"complex64", "complex128"}
# Ops whose real input's dtype pairs with a complex output's (Tout, Tcomplex).
COMPLEX_PAIRED = {"Complex", "RFFT", "RFFT2D", "RFFT3D", "RFFTND"}


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
    if any(set(a.allowed) & COMPLEX for a in op.attrs if a.type == "type" and a.allowed) and (
            not dispatch_dtypes(op)):
        return "complex only (tests/ops/test_complex_ops.py, test_fft_ops.py)"
    if op.name in COMPLEX_PAIRED:
        return "a real input paired with a complex output (tests/ops/test_complex_ops.py, test_fft_ops.py)"
    if family(op) is None:
        return f"no shape cases for shape function {op.shape_fn.name!r} (add to opmatrix)"
    return None


# ------------------------------------------------------------------------------ math ops (issue 4)
# Shape families of math ops whose shape function alone does not say how to call them; their
# cases, large cases and special-value cases.

MATH_FAMILIES = {"Select": "select", "SelectV2": "select_v2", "ClipByValue": "clip", "Betainc": "clip",
                 "ArgMax": "arg", "ArgMin": "arg", "Cumsum": "cumsum", "CumulativeLogsumexp": "cumsum",
                 "BatchMatMulV2": "batch_matmul"}

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


# ------------------------------------------------------------------------------ the cases of an op


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


def _special_cases(op, spec) -> list[Case]:
    if not is_float(spec) or op.name in ("Cast", "Bitcast"):
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
    if sf == "unchanged" and op.name == "Bitcast":
        return [Case(shape_id(s), {data[0]: s}, {"type": _SAME_SIZE[spec]}) for s in LARGE_UNARY]
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
    if sf == "linalg":
        return [Case(id_, shapes, attrs, extra=extra) for id_, shapes, attrs, extra
                in linalg_cases.LARGE_CASES[op.name]]
    return []


# Bitcast's matrix cases: a dtype of the same size (the bytes reinterpreted, the shape unchanged).
_SAME_SIZE = {"uint8": "int8", "int8": "uint8", "int16": "half", "half": "bfloat16", "bfloat16": "int16",
              "int32": "float", "float": "int32", "int64": "double", "double": "int64"}


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
    elif sf == "unchanged" and op.name == "Bitcast":  # to the other dtype of its size: the shape stays
        same = _SAME_SIZE[spec]
        out = [Case(f"to_{same}-{shape_id(s)}", {data[0]: s}, {"type": same}) for s in UNARY_SHAPES]
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
    elif sf == "linalg":
        out = [Case(id_, shapes, attrs, extra=extra) for id_, shapes, attrs, extra in linalg_cases.CASES[op.name]]
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
