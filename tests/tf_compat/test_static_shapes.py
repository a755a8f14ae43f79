"""Static-shape parity, op by op (issue 32): every op TensorFlow also has, built in a TensorFlow
graph and in an opforge graph from the same partially known inputs, must give static output
shapes at least as known as TensorFlow's, and never contradicting them.

The inputs are the op matrix's cases (tests/ops/opmatrix*.py: shapes and attrs chosen by each
op's shape function). The data inputs become placeholders whose shapes are the case's with
dims forgotten (the first, the last, all of them, the rank); the other inputs (axes, shape
tensors, sizes) stay constants, so both frameworks can use their values, or become
placeholders of known shape and unknown value. Where TensorFlow's graph construction refuses a
variant, the variant is skipped; where opforge's alone refuses, the test fails.
"""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opmatrix import OPS, build_inputs, cases, data_inputs, dispatch_dtypes, np_dtype, seed_for

tf = pytest.importorskip("tensorflow")

# (op, variant) pairs not built in TensorFlow, and why.
TF_ABORTS: dict[str, str] = {
    "SplitV": "TensorFlow 2.21 aborts the process (a CHECK in its shape function) when size_splits is not a "
              "constant, or is one of another integer type than Tlen",
}

# Where TensorFlow's static shape contradicts what its own kernel returns, or guesses what the
# inputs do not say: opforge's shape is the kernel's / says only what is certain.
# (op, output index) -> (why, the variants it applies to; None: all).
TF_STATIC_WRONG: dict[tuple[str, int], tuple[str, tuple | None]] = {
    ("FusedBatchNormGradV3", 3): ("reserve_space_4: TensorFlow's shape function says [0], its CPU kernel returns "
                                  "a scalar", None),
    ("FusedBatchNormGradV3", 4): ("reserve_space_5: as reserve_space_4", None),
    ("GatherV2", 0): ("with the axis unknown and a negative batch_dims, TensorFlow's rank is params' + indices' "
                      "- 1 - batch_dims without normalizing batch_dims (rank 4 where the kernel returns rank 2)",
                      ("values",)),
    ("SoftmaxCrossEntropyWithLogits", 0): ("with one input's rank unknown TensorFlow takes the other's batch dim, "
                                           "though that one may be a 1 broadcast against the unknown input",
                                           ("rank0", "rank1")),
    ("SoftmaxCrossEntropyWithLogits", 1): ("backprop: as the loss, both dims", ("rank0", "rank1")),
    ("MatrixDiagV2", 0): ("with the diagonals' length unknown TensorFlow computes the matrix size from -1 (a "
                          "[3]-long diagonal k=1 unknown: [0, 0], where the kernel gives [4, 4])", ("first", "last", "dims")),
    ("MatrixDiagV3", 0): ("as MatrixDiagV2", ("first", "last", "dims")),
}

# Known differences: op -> why opforge's static shape is less known than TensorFlow's.
LESS_KNOWN: dict[str, str] = {}

# known: every shape known; first / last / dims / rank: the data inputs' first dim, last dim,
# every dim or the rank unknown; rank<i>: only data input i's rank unknown; values: the other
# inputs placeholders of known shape; partial: each other integer vector a Pack of an unknown
# scalar and its constant elements (a partially known value, as tf.stack([n, 3]) is).
VARIANTS = ("known", "first", "last", "dims", "rank", "rank0", "rank1", "rank2", "values", "partial")


def _spec(op):
    specs = [s for s in dispatch_dtypes(op) if s != "bfloat16"]
    for preferred in ("float", "int32", "double", "int64"):
        if preferred in specs:
            return preferred
    return specs[0] if specs else None


def _mask(shape, variant, index):
    shape = list(shape)
    if variant == "rank" or variant == f"rank{index}":
        return None
    if variant.startswith("rank"):
        return shape
    if variant == "dims":
        return [None] * len(shape)
    if variant == "first" and shape:
        shape[0] = None
    if variant == "last" and shape:
        shape[-1] = None
    return shape


def _shapes(framework, op, inputs, attrs, variant):
    """The static output shapes (None for an unknown rank) of op built in a fresh graph."""
    is_tf = framework is tf
    graph = tf.Graph() if is_tf else of.Graph()
    data = [a.name for a in data_inputs(op)]
    with graph.as_default():
        def placeholder(value, shape):
            if is_tf:
                return tf.compat.v1.placeholder(tf.as_dtype(value.dtype), shape)
            return of.placeholder(of.as_dtype(value.dtype), shape)

        def constant(value):
            return tf.constant(value) if is_tf else of.constant(value)

        def partial(value):
            head = placeholder(value[:1].reshape(()), ())
            rest = [constant(v) for v in value[1:]]
            return (tf.stack if is_tf else of.stack)([head, *rest])

        def convert(name, value):
            if isinstance(value, list):
                return [convert(name, v) for v in value]
            if not isinstance(value, np.ndarray):
                return value
            if name in data and variant not in ("known", "values", "partial"):
                return placeholder(value, _mask(value.shape, variant, data.index(name)))
            if name not in data and variant == "values":
                return placeholder(value, value.shape)
            if name not in data and variant == "partial" and value.ndim == 1 and value.size and value.dtype.kind in "iu":
                return partial(value)
            return constant(value)

        kw = {op.py_name(a.name): convert(a.name, inputs[a.name]) for a in op.inputs}
        for name, value in attrs.items():
            a = op.attr(name)
            if a.type == "type":
                value = tf.as_dtype(np_dtype(value)) if is_tf else of.as_dtype(np_dtype(value))
            kw[op.py_name(name)] = value
        out = getattr(framework.raw_ops, op.name)(**kw)
        outs = out if isinstance(out, (list, tuple)) else [out]
        flat = [t for o in outs for t in (o if isinstance(o, (list, tuple)) else [o])]
        result = []
        for t in flat:
            s = tf.TensorShape(t.shape) if is_tf else of.TensorShape(t.shape)
            result.append(None if s.rank is None else list(s.as_list()))
        return result


def _tf_wrong(op_name, i, variant):
    why, variants = TF_STATIC_WRONG.get((op_name, i), (None, ()))
    return why is not None and (variants is None or variant in variants)


def _less_known(op_name, variant, ours, theirs):
    """Where ours is less known than, or contradicts, theirs (a message), else None."""
    if len(ours) != len(theirs):
        return f"{len(ours)} outputs vs TensorFlow's {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if b is None or _tf_wrong(op_name, i, variant):
            continue
        if a is None:
            return f"output {i}: unknown rank where TensorFlow knows {b}"
        if len(a) != len(b):
            return f"output {i}: rank {len(a)} ({a}) vs TensorFlow's {b}"
        for d, (x, y) in enumerate(zip(a, b)):
            if y is not None and x != y:
                return f"output {i}: {a} vs TensorFlow's {b} (dim {d})"
    return None


def _params():
    for op in OPS:
        if not hasattr(tf.raw_ops, op.name) or op.name in TF_ABORTS:
            continue
        spec = _spec(op)
        if spec is None:
            continue
        for case in cases(op, spec, large=False):
            yield pytest.param(op, spec, case, id=f"{op.name}-{spec}-{case.id}")


@pytest.mark.parametrize("op,spec,case", list(_params()))
def test_static_shape_at_least_as_known_as_tensorflow(op, spec, case):
    rng = np.random.default_rng(seed_for("static_shapes", op.name, spec, case.id))
    inputs = build_inputs(rng, op, spec, case)
    problems = []
    n_data = len(data_inputs(op))
    for variant in VARIANTS:
        if variant[4:].isdigit() and int(variant[4:]) >= n_data:
            continue
        try:
            theirs = _shapes(tf, op, inputs, case.attrs, variant)
        except Exception:  # noqa: BLE001 -- TensorFlow refuses this variant: nothing to compare
            continue
        try:
            ours = _shapes(of, op, inputs, case.attrs, variant)
        except Exception as e:  # noqa: BLE001
            problems.append(f"{variant}: opforge raised {type(e).__name__}: {str(e).splitlines()[0][:160]}")
            continue
        why = _less_known(op.name, variant, ours, theirs)
        if why:
            problems.append(f"{variant}: {why}")
    if problems and op.name in LESS_KNOWN:
        pytest.xfail(LESS_KNOWN[op.name])
    assert not problems, f"{op.name}[{spec}] case {case.id}:\n  " + "\n  ".join(problems)
