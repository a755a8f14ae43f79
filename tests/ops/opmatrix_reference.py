"""The op matrix's expected results: an op's NumPy reference (its opdef's ``reference``
expression) evaluated on the case's inputs, the expected output dtypes, and the comparisons."""

from __future__ import annotations

import warnings

import numpy as np

import nn_reference  # opdefs/nn references call it
import special_reference  # and opdefs/math's special functions
import quantization_reference  # opdefs/quantization
import matrix_reference  # opdefs/linalg/matrix_*
from opmatrix_signature import dispatch_attr
from opmatrix_values import LOW_PRECISION, TOLERANCE, kind, np_dtype, of_dtype, spec_of_np


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
    env = {"np": np, "nn_reference": nn_reference, "special_reference": special_reference,
           "quantization_reference": quantization_reference, "matrix_reference": matrix_reference}
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
    several outputs or a list output (Split, Unpack), flattened where several outputs are lists
    (SparseSplit)."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in as_outputs(o)]
    return [out]


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
