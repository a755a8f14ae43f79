"""How the op matrix reads an op's signature (its dispatch dtype, data inputs and index
inputs) and calls the op's generated wrapper."""

from __future__ import annotations

import functools
import inspect

import numpy as np

import opforge as of


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
# tests/graph/test_strings.py): no random data, no reference. The quantized types hold numbers
# only with a range beside them: tests/ops/test_quantization_ops.py tests them.
NON_NUMERIC = ("string", "variant", "qint8", "quint8", "qint32", "qint16", "quint16")


def dispatch_dtypes(op) -> tuple[str, ...]:
    fixed = fixed_data_type(op)
    if fixed:
        return (fixed,)
    # complex64/complex128: tested in tests/ops/test_complex_ops.py and test_fft_ops.py
    return tuple(d for d in op.attr(dispatch_attr(op)).allowed if d not in NON_NUMERIC and not d.startswith("complex"))


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
