"""Every op's raw_ops signature matches TensorFlow's: the same keyword names (TensorFlow's
api_def renames included: Sum's `axis`, Select's `x`/`y`) and the same defaults."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import opforge as of
from known_differences import SIGNATURES
from opmatrix import ALL_OPS

tf = pytest.importorskip("tensorflow")

SHARED = sorted(op.name for op in ALL_OPS if hasattr(tf.raw_ops, op.name))


def _norm(v):
    """A default in a comparable form: lists and tuples alike, dtypes by name, bytes as str."""
    if v is inspect.Parameter.empty:
        return "<required>"
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, tf.dtypes.DType):
        if v == tf.string:  # (NumPy's name for it is "object")
            return "string"
        return np.dtype(v.as_numpy_dtype).name if v != tf.bfloat16 else "bfloat16"
    if isinstance(v, of.DType):
        return np.dtype(v.as_numpy_dtype).name if v != of.bfloat16 else "bfloat16"
    return v


def _params(fn) -> dict:
    sig = inspect.signature(fn)
    return {n: _norm(p.default) for n, p in sig.parameters.items() if n != "name"}


def test_most_ops_are_shared():
    assert len(SHARED) >= 130, SHARED


@pytest.mark.parametrize("op_name", SHARED)
def test_raw_ops_signature(op_name):
    if op_name in SIGNATURES:
        pytest.xfail(SIGNATURES[op_name])
    ours = _params(getattr(of.ops, next(op.snake_name for op in ALL_OPS if op.name == op_name)))
    theirs = _params(getattr(tf.raw_ops, op_name))
    assert ours == theirs, f"of.raw_ops.{op_name}{ours} vs tf.raw_ops.{op_name}{theirs}"
