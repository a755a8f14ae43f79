"""opforge against TensorFlow, op by op: the same keyword arguments to `tf.raw_ops.X` and
`of.raw_ops.X`, the same outcome.

Generated from the opdefs: every op TensorFlow also has, every dtype its opdef allows, the op
matrix's shapes and attr combinations for its shape function (broadcasting, size-0 dims,
scalars, negative axes), random values, IEEE special values (NaN, ±inf, -0.0, huge, tiny) and,
here, integer edges (min, max, 0, ±1) and subnormals. Both must raise, or both return tensors of
the same dtype, shape and values (exact for integers and bool, per-dtype tolerance for floats,
NaN where NaN, infinities where infinities). Known differences: known_differences.py.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import linalg_cases
import opforge as of
from known_differences import SCRATCH_OUTPUTS, VALUES, known
from opmatrix import (
    OPS, Case, as_outputs, build_inputs, cases, data_inputs, describe, dispatch_dtypes, family,
    is_float, kind, np_dtype, of_dtype, seed_for,
)

tf = pytest.importorskip("tensorflow")

# Relative tolerance per dtype: the libraries' transcendental functions and summation orders
# differ in the last bits.
TOLERANCE = {"double": 1e-9, "float": 2e-5, "half": 2e-3, "bfloat16": 1.6e-2}


def _edge_cases(op, spec) -> list[Case]:
    """Integer min/max/0/±1, float extremes and float subnormals ("subnormal": TensorFlow
    flushes those to zero) for the elementwise and reduction ops."""
    data = [a.name for a in data_inputs(op)]
    sf = family(op)
    if kind(spec) == "b" or sf not in ("unchanged", "broadcast", "reduce") or op.name in ("Cast", "Bitcast"):
        return []
    out = []
    for name in ("edge", "subnormal") if is_float(spec) else ("edge",):
        n = len(_edge_values(spec, name))
        extra = {"edge": name}
        if sf == "unchanged":
            out.append(Case(name, {data[0]: (n,)}, extra=extra))
        elif sf == "broadcast":
            out.append(Case(name, dict(zip(data, ((n, 1), (1, n)))), extra=extra))
        else:
            out += [Case(f"{name}-{mode}", {data[0]: (2, n)}, {"keep_dims": False}, mode, extra=extra)
                    for mode in ("first", "last")]
    return out


def _edge_values(spec, name: str) -> np.ndarray:
    dt = np_dtype(spec)
    if is_float(spec):
        fi = ml_dtypes.finfo(dt)  # NumPy's finfo does not know bfloat16
        if name == "subnormal":
            vals = [fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny / 2, -fi.tiny / 4, fi.tiny, 1.0]
        else:
            vals = [fi.max, -fi.max, fi.max / 2, 1.0, -1.0, 0.0, fi.eps, -fi.eps]
        return np.array(vals, dtype=dt)
    ii = np.iinfo(dt)
    vals = [ii.min, ii.max, 0, 1, ii.max - 1, 2] + ([-1, ii.min + 1] if ii.min < 0 else [3, 7])
    return np.array(vals, dtype=dt)


def _params():
    for op in OPS:
        if not hasattr(tf.raw_ops, op.name):
            continue
        for spec in dispatch_dtypes(op):
            for case in cases(op, spec, large=False) + _edge_cases(op, spec):
                yield pytest.param(op.name, spec, case, id=f"{op.name}-{spec}-{case.id}")


OPS_BY_NAME = {op.name: op for op in OPS}
STILL_DIFFERENT: set[int] = set()  # known differences some case still shows (ids of VALUES entries)


def _inputs(op, spec, case):
    rng = np.random.default_rng(seed_for("tf_compat", op.name, spec, case.id))
    inputs = build_inputs(rng, op, spec, case)
    if case.extra.get("edge"):
        v = _edge_values(spec, case.extra["edge"])
        for k, arg in enumerate(data_inputs(op)):
            shape = case.shapes[arg.name]
            ax = max(i for i, d in enumerate(shape) if d == len(v))
            row = np.roll(v, k)
            x = np.broadcast_to(np.expand_dims(row, [i for i in range(len(shape)) if i != ax]), shape).copy()
            inputs[arg.name] = [x, x[..., ::-1].copy()] if arg.is_list else x
    return inputs


def _tf_value(v):
    """An input as a TensorFlow tensor of its NumPy dtype: raw_ops would convert a NumPy array
    to the default of its type attr instead (LeakyRelu's float16 data became float32), and 0-d
    bfloat16 values fail to convert, so bfloat16 goes in as float32 and is cast (exact)."""
    if isinstance(v, list):
        return [_tf_value(x) for x in v]
    if isinstance(v, (np.ndarray, np.generic)):
        if v.dtype == ml_dtypes.bfloat16:
            return tf.cast(tf.constant(np.asarray(v, np.float32)), tf.bfloat16)
        return tf.constant(v)
    return v


def _kwargs(op, inputs, attrs, dtype_of, convert=lambda v: v):
    kw = {op.py_name(a.name): convert(inputs[a.name]) for a in op.inputs}
    for name, value in attrs.items():
        a = op.attr(name)
        kw[op.py_name(name)] = dtype_of(value) if a.type == "type" else value
    return kw


def _tf_dtype(spec):
    return tf.as_dtype(np_dtype(spec)) if spec != "bfloat16" else tf.bfloat16


def _run(fn):
    """(outputs as NumPy arrays, None) or (None, the error)."""
    try:
        return [t.numpy() for t in as_outputs(fn())], None
    except Exception as e:  # noqa: BLE001 -- compared: both libraries must refuse the call
        return None, e


# TensorFlow errors that say its CPU kernels lack a dtype or a layout, not that the call is wrong.
_CPU_LACKS = ("only supports NHWC", "not supported on CPU", "CPU implementations do not yet support",
              "Could not find device for node", "NoRegisteredKernel", "No registered")


def _tf_cpu_lacks(err) -> bool:
    if isinstance(err, (tf.errors.NotFoundError, tf.errors.UnimplementedError)):
        return True
    return isinstance(err, tf.errors.OpError) and any(m in err.message for m in _CPU_LACKS)


def _describe_error(err) -> str:
    text = err.message if isinstance(err, tf.errors.OpError) else str(err)
    return f"{type(err).__name__}({text.splitlines()[0][:200] if text else ''})"


def _flush_subnormals(a: np.ndarray) -> np.ndarray:
    """TensorFlow runs with denormals flushed to zero; opforge keeps them (IEEE): compare with
    subnormal results read as zero."""
    if a.dtype.kind != "f" and a.dtype.name != "bfloat16":
        return a
    tiny = np.finfo(np.float32 if a.dtype.name == "bfloat16" else a.dtype).tiny
    wide = a.astype(np.float64)
    return np.where(np.abs(wide) < tiny, 0.0, wide)


def _assert_same(op, spec, ours: list, theirs: list, msg: str):
    assert len(ours) == len(theirs), f"{msg}: {len(ours)} outputs vs TensorFlow's {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        where = f"{msg}, output {i}"
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} vs TensorFlow's {b.dtype}"
        assert a.shape == b.shape, f"{where}: shape {a.shape} vs TensorFlow's {b.shape}"
        if a.dtype.kind in "biu":
            np.testing.assert_array_equal(a, b, err_msg=where)
            continue
        x, y = _flush_subnormals(a), _flush_subnormals(b)
        assert np.array_equal(np.isnan(x), np.isnan(y)), f"{where}: NaN at other places\n{x}\n{y}"
        assert np.array_equal(np.isinf(x) & (x > 0), np.isinf(y) & (y > 0)) and \
            np.array_equal(np.isinf(x) & (x < 0), np.isinf(y) & (y < 0)), f"{where}: infinities differ\n{x}\n{y}"
        finite = np.isfinite(x) & np.isfinite(y)
        if finite.any():
            tol = TOLERANCE.get(spec, TOLERANCE["double"]) if is_float(spec) else TOLERANCE["float"]
            scale = max(1.0, float(np.max(np.abs(y[finite]))))
            if family(op) in ("matmul", "reduce", "batch_matmul", "cumsum"):
                tol *= 10
            np.testing.assert_allclose(x[finite], y[finite], rtol=tol, atol=tol * scale, err_msg=where)


PARAMS = list(_params())


@pytest.mark.parametrize("op_name,spec,case", PARAMS)
def test_same_as_tensorflow(op_name, spec, case):
    op = OPS_BY_NAME[op_name]
    inputs = _inputs(op, spec, case)
    diff = known(op_name, spec, case.id, inputs, case.attrs)
    if diff is None:
        _compare(op, spec, case, inputs)
        return
    if not diff.run:
        STILL_DIFFERENT.add(id(diff))
        pytest.xfail(diff.reason)
    try:
        _compare(op, spec, case, inputs)
    except AssertionError:
        STILL_DIFFERENT.add(id(diff))
        pytest.xfail(diff.reason)


def _compare(op, spec, case, inputs):
    op_name = op.name
    msg = f"{op_name}[{spec}] case {case.id}: {describe(inputs, case.attrs)}"
    ours, our_err = _run(lambda: getattr(of.raw_ops, op_name)(**_kwargs(op, inputs, case.attrs, of_dtype)))
    theirs, tf_err = _run(lambda: getattr(tf.raw_ops, op_name)(**_kwargs(op, inputs, case.attrs, _tf_dtype,
                                                                         _tf_value)))
    if our_err is None and _tf_cpu_lacks(tf_err):
        pytest.skip(f"TensorFlow's CPU kernels do not do this ({tf_err.message.splitlines()[0][:120]}); "
                    f"opforge computes it")
    if tf_err is not None or our_err is not None:
        assert (tf_err is None) == (our_err is None), \
            f"{msg}: {'opforge raised ' + repr(our_err) if our_err else 'opforge returned a result'}, " \
            f"TensorFlow {'raised ' + _describe_error(tf_err) if tf_err else 'returned a result'}"
        assert isinstance(our_err, of.OpError), f"{msg}: opforge raised an untyped {our_err!r}"
        return
    if op_name in linalg_cases.CASES:  # empty outputs TF fills with scratch; vectors' signs (Eigen's)
        tol = TOLERANCE.get(spec, TOLERANCE["double"])
        ours, theirs = linalg_cases.comparable_with_tensorflow(op_name, case.attrs, ours, theirs, atol=100 * tol)
    scratch = SCRATCH_OUTPUTS.get(op_name, ())
    _assert_same(op, spec, [o for i, o in enumerate(ours) if i not in scratch],
                 [o for i, o in enumerate(theirs) if i not in scratch], msg)


def test_every_known_difference_still_differs(request):
    """Runs after the cases (last in this file): an entry of known_differences.py that no case
    differs from any more is stale."""
    ran = sum(1 for item in request.session.items if item.originalname == "test_same_as_tensorflow")
    if ran < len(PARAMS) or not STILL_DIFFERENT:
        pytest.skip("needs the whole differential run")
    stale = [d for d in VALUES if id(d) not in STILL_DIFFERENT and d.deterministic]
    assert not stale, "stale entries in known_differences.py (opforge now matches TensorFlow):\n" + \
        "\n".join(f"  {d.op}: {d.reason}" for d in stale)
