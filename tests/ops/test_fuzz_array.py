"""Hypothesis fuzzing of the array ops: random shapes (rank <= 5), attrs and index values, valid
and invalid. A valid call must match the opdef's NumPy reference; an invalid one must raise an
of.OpError naming the op. Validity is decided here from TensorFlow's rules, independently of
the runtime (index ranges, axis ranges, shape agreement, mask semantics ...).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import opforge as of
from opmatrix import (
    ALL_DTYPES, OPS_BY_NAME, assert_matches, covers, describe, dispatch_dtypes, expected_out_spec,
    random_values, reference, spec_of_np, to_tensor, wrapper,
)

COVERAGE_CATEGORIES = ("fuzz",)

N = int(os.environ.get("OPFORGE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=max(1, N // 2), deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

shapes = st.lists(st.integers(0, 4), max_size=5).map(tuple)
small_shapes = st.lists(st.integers(1, 4), max_size=4).map(tuple)


def _dtype(data, op):
    """Mostly an allowed dtype; sometimes one the op does not allow (must be an OpError)."""
    allowed = dispatch_dtypes(op)
    others = [s for s in ALL_DTYPES if s not in allowed]
    if others and data.draw(st.integers(0, 9), label="disallowed?") == 0:
        return data.draw(st.sampled_from(others), label="dtype"), False
    return data.draw(st.sampled_from(allowed), label="dtype"), True


def _rng(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def _ints(data, values, label, choices=(np.int32, np.int64)):
    return np.asarray(values, dtype=np.int64).astype(data.draw(st.sampled_from(list(choices)), label=label))


def _check(data, op, spec, inputs, attrs, valid):
    """Calls the op (NumPy inputs, or Tensors made from them) and checks the outcome."""
    conv = to_tensor if data.draw(st.booleans(), label="as Tensors") else (lambda a: a)
    args = [[conv(v) for v in inputs[a.name]] if isinstance(inputs[a.name], list) else conv(inputs[a.name])
            for a in op.inputs]
    msg = f"{op.name}[{spec}]: {describe(inputs, attrs)}"
    event("valid call" if valid else "invalid call")
    with covers("fuzz", op.name):
        if not valid:
            with pytest.raises(of.OpError) as ei:
                wrapper(op)(*args, **attrs)
            assert op.name in str(ei.value), f"{ei.value!r} does not name the op; {msg}"
            return
        try:
            out = wrapper(op)(*args, **attrs)
        except of.OpError as e:
            raise AssertionError(f"valid call raised {e!r}; {msg}") from None
        bindings = {}
        for a in op.inputs:
            if a.type_attr and not isinstance(inputs[a.name], list):
                bindings.setdefault(a.type_attr, spec_of_np(np.asarray(inputs[a.name]).dtype))
            elif a.type_attr:
                bindings.setdefault(a.type_attr, spec)
        ref = reference(op, spec, inputs, attrs, bindings)
        if isinstance(ref, list):
            assert len(out) == len(ref), msg
            for o, r in zip(out, ref):
                assert_matches(o, r, expected_out_spec(op, bindings), msg=msg)
        else:
            assert_matches(out, ref, expected_out_spec(op, bindings), msg=msg)


def _params(*names):
    return [pytest.param(n, id=n) for n in names if n in OPS_BY_NAME]


def _norm(axis, rank):
    return axis + rank if axis < 0 else axis


# ------------------------------------------------------------------------------ join / split


@pytest.mark.parametrize("op_name", _params("ConcatV2", "Pack"))
@FUZZ
@given(data=st.data())
def test_fuzz_join(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    base = data.draw(shapes, label="shape")
    r = len(base)
    n = data.draw(st.integers(2 if op_name == "ConcatV2" else 1, 3), label="N")
    out_rank = r if op_name == "ConcatV2" else r + 1
    axis = data.draw(st.integers(-out_rank - 1, out_rank), label="axis")
    pieces = []
    for _ in range(n):
        s = list(base)
        if op_name == "ConcatV2" and r and -r <= axis < r:
            s[_norm(axis, r)] = data.draw(st.integers(0, 3), label="axis dim")
        if data.draw(st.integers(0, 6), label="odd?") == 0:
            s = list(data.draw(shapes, label="odd shape"))
        pieces.append(tuple(s))
    rng = _rng(data)
    values = [random_values(rng, s, spec) for s in pieces]
    r = len(pieces[0])  # the odd draws may have changed it
    if op_name == "ConcatV2":
        valid = r >= 1 and -r <= axis < r and all(len(p) == r for p in pieces) and all(
            p[d] == pieces[0][d] for p in pieces for d in range(r) if d != _norm(axis, r))
        inputs = {"values": values, "axis": _ints(data, axis, "Tidx")}
        attrs = {}
    else:
        valid = -(r + 1) <= axis <= r and all(p == pieces[0] for p in pieces)
        inputs, attrs = {"values": values}, {"axis": axis}
    _check(data, op, spec, inputs, attrs, ok and valid)


@pytest.mark.parametrize("op_name", _params("Split", "SplitV", "Unpack"))
@FUZZ
@given(data=st.data())
def test_fuzz_split(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    axis = data.draw(st.integers(-r - 1, r), label="axis")
    in_range = r >= 1 and -r <= axis < r
    d = shape[_norm(axis, r)] if in_range else 0
    rng = _rng(data)
    value = random_values(rng, shape, spec)
    if op_name == "Split":
        num = data.draw(st.integers(1, 4), label="num_split")
        valid = in_range and d % num == 0
        inputs, attrs = {"split_dim": np.int32(axis), "value": value}, {"num_split": num}
    elif op_name == "SplitV":
        num = data.draw(st.integers(1, 3), label="num_split")
        sizes = data.draw(st.lists(st.integers(-2, 4), min_size=num, max_size=num), label="sizes")
        if data.draw(st.booleans(), label="consistent"):  # sizes adding up to d, maybe one -1
            cut = sorted(data.draw(st.lists(st.integers(0, d), min_size=num - 1, max_size=num - 1), label="cuts"))
            sizes = list(np.diff([0] + cut + [d]))
            if data.draw(st.booleans(), label="minus1"):
                sizes[data.draw(st.integers(0, num - 1), label="where")] = -1
        known = [s for s in sizes if s != -1]
        valid = (in_range and sizes.count(-1) <= 1 and all(s >= 0 for s in known)
                 and (sum(known) <= d if -1 in sizes else sum(known) == d)
                 and (num > 1 or sizes == [d]))  # one output: TensorFlow wants the exact size
        inputs = {"value": value, "size_splits": _ints(data, sizes, "Tlen", (np.int32, np.int64)),
                  "split_dim": np.int32(axis)}
        attrs = {"num_split": num}
    else:
        num = d if data.draw(st.integers(0, 4), label="right num?") else data.draw(st.integers(0, 5), label="num")
        valid = in_range and num == d
        inputs, attrs = {"value": value}, {"num": num, "axis": axis}
    _check(data, op, spec, inputs, attrs, ok and valid)


# ------------------------------------------------------------------------------ slicing


@pytest.mark.parametrize("op_name", _params("Slice"))
@FUZZ
@given(data=st.data())
def test_fuzz_slice(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    n = len(shape) if data.draw(st.integers(0, 6), label="right length?") else data.draw(st.integers(0, 5))
    begin, size = [], []
    for i in range(n):
        d = shape[i] if i < len(shape) else 2
        begin.append(data.draw(st.integers(-1, d + 1), label="begin"))
        size.append(data.draw(st.integers(-2, d + 1), label="size"))
    valid = n == len(shape) and all(
        b >= 0 and z >= -1 and b <= d and (z == -1 or b + z <= d) for b, z, d in zip(begin, size, shape))
    dt = data.draw(st.sampled_from([np.int32, np.int64]), label="Index")
    inputs = {"input": random_values(_rng(data), shape, spec), "begin": np.asarray(begin, np.int64).astype(dt),
              "size": np.asarray(size, np.int64).astype(dt)}
    _check(data, op, spec, inputs, {}, ok and valid)


def _strided_valid(shape, b, e, s, masks):
    """TensorFlow's rules, decided with NumPy's indexing plus what TensorFlow adds."""
    bm, em, elm, nam, sam = masks
    idx = []
    for i in range(len(b)):
        if elm >> i & 1:
            idx.append(Ellipsis)
        elif nam >> i & 1:
            idx.append(None)
        else:
            if s[i] == 0:
                return False  # stride 0, shrinking or not
            if sam >> i & 1:
                if s[i] < 0:
                    return False  # TensorFlow: only stride 1 allowed on non-range indexing
                idx.append(b[i])
            else:
                idx.append(slice(None if bm >> i & 1 else b[i], None if em >> i & 1 else e[i], s[i]))
    try:
        np.empty(shape)[tuple(idx)]
    except (IndexError, ValueError):
        return False
    return True


@pytest.mark.parametrize("op_name", _params("StridedSlice", "StridedSliceGrad"))
@FUZZ
@given(data=st.data())
def test_fuzz_strided_slice(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    n = data.draw(st.integers(0, len(shape) + 2), label="specs")
    bound = max(shape, default=1) + 2
    b = data.draw(st.lists(st.integers(-bound, bound), min_size=n, max_size=n), label="begin")
    e = data.draw(st.lists(st.integers(-bound, bound), min_size=n, max_size=n), label="end")
    s = data.draw(st.lists(st.sampled_from([-3, -2, -1, 1, 1, 2, 3, 0]), min_size=n, max_size=n), label="strides")
    masks = tuple(data.draw(st.integers(0, 2**n - 1), label=m) if m != "ellipsis" or
                  data.draw(st.booleans()) else 0 for m in ("begin", "end", "ellipsis", "new_axis", "shrink"))
    valid = _strided_valid(shape, b, e, s, masks)
    attrs = dict(zip(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), masks))
    dt = data.draw(st.sampled_from([np.int32, np.int64]), label="Index")
    bes = {k: np.asarray(v, np.int64).astype(dt) for k, v in (("begin", b), ("end", e), ("strides", s))}
    rng = _rng(data)
    if op_name == "StridedSlice":
        inputs = {"input": random_values(rng, shape, spec), **bes}
    else:
        if valid:
            dy = np.empty(shape)[tuple(Ellipsis if masks[2] >> i & 1 else None if masks[3] >> i & 1 else
                                       b[i] if masks[4] >> i & 1 else
                                       slice(None if masks[0] >> i & 1 else b[i], None if masks[1] >> i & 1 else e[i], s[i])
                                       for i in range(n))].shape
        else:
            dy = data.draw(shapes, label="dy")
        if valid and data.draw(st.integers(0, 5), label="wrong dy?") == 0:
            other = data.draw(shapes, label="other dy")
            valid = other == dy
            dy = other
        inputs = {"shape": np.asarray(shape, np.int64).astype(dt), **bes, "dy": random_values(rng, dy, spec)}
    _check(data, op, spec, inputs, attrs, ok and valid)


@pytest.mark.parametrize("op_name", _params("ReverseV2"))
@FUZZ
@given(data=st.data())
def test_fuzz_reverse(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="shape")
    r = len(shape)
    axes = data.draw(st.lists(st.integers(-r - 1, r), max_size=r + 1), label="axes")
    valid = all(-r <= a < r for a in axes) and len({a % r for a in axes}) == len(axes) if r else not axes
    inputs = {"tensor": random_values(_rng(data), shape, spec), "axis": _ints(data, axes, "Tidx")}
    _check(data, op, spec, inputs, {}, ok and valid)


# ------------------------------------------------------------------------------ indexing


@pytest.mark.parametrize("op_name", _params("GatherV2"))
@FUZZ
@given(data=st.data())
def test_fuzz_gather(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    p = data.draw(shapes, label="params")
    r = len(p)
    bd = data.draw(st.sampled_from([0, 0, 0, 1, -1]), label="batch_dims")
    if r and p[0] == 0:
        bd = 0  # no batches: the reference cannot stack zero results
    ishape = list(data.draw(st.lists(st.integers(0, 3), max_size=3), label="indices shape"))
    if bd and data.draw(st.booleans(), label="matching batch") and r:
        ishape = [p[0]] + ishape
    axis = data.draw(st.integers(-r - 1, r), label="axis")
    A = p[_norm(axis, r)] if r and -r <= axis < r else 1
    rng = _rng(data)
    idx = rng.integers(-1 if data.draw(st.integers(0, 4), label="bad idx?") == 0 else 0, max(A, 1) + 1, size=ishape)
    if data.draw(st.booleans(), label="in range"):
        idx = np.clip(idx, 0, max(A - 1, 0))
    bdn = bd + len(ishape) if bd < 0 else bd
    valid = (r >= 1 and -r <= axis < r and 0 <= bdn <= len(ishape) and bdn < r and bdn <= _norm(axis, r)
             and all(p[i] == ishape[i] for i in range(bdn)) and bool(np.all((idx >= 0) & (idx < A))))
    inputs = {"params": random_values(rng, p, spec), "indices": _ints(data, idx, "Tindices", (np.int32, np.int64)),
              "axis": _ints(data, axis, "Taxis")}
    _check(data, op, spec, inputs, {"batch_dims": bd}, ok and valid)


@pytest.mark.parametrize("op_name", _params("GatherNd", "ScatterNd"))
@FUZZ
@given(data=st.data())
def test_fuzz_nd(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    p = data.draw(shapes, label="shape")
    k = data.draw(st.integers(0, len(p) + 1), label="K")
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2), label="index rows")
    rng = _rng(data)
    cols = [rng.integers(-1, (p[j] if j < len(p) else 2) + 1, size=lead) for j in range(k)]
    idx = np.stack(cols, -1) if k else np.zeros(list(lead) + [0], np.int64)
    if data.draw(st.booleans(), label="in range") and k <= len(p):
        idx = np.clip(idx, 0, np.maximum(np.asarray(p[:k]) - 1, 0)) if k else idx
    in_range = k <= len(p) and all(np.all((idx[..., j] >= 0) & (idx[..., j] < p[j])) for j in range(k))
    indices = _ints(data, idx, "Tindices")
    if op_name == "GatherNd":
        inputs = {"params": random_values(rng, p, spec), "indices": indices}
        valid = in_range
    else:
        up = tuple(lead) + tuple(p[k:])
        if data.draw(st.integers(0, 5), label="wrong updates?") == 0:
            up = data.draw(shapes, label="updates")
        valid = in_range and up == tuple(lead) + tuple(p[k:])
        inputs = {"indices": indices, "updates": random_values(rng, up, spec),
                  "shape": np.asarray(p, np.int64).astype(indices.dtype)}
    _check(data, op, spec, inputs, {}, ok and valid)


@pytest.mark.parametrize("op_name", _params("UnsortedSegmentSum"))
@FUZZ
@given(data=st.data())
def test_fuzz_segment_sum(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(shapes, label="data")
    k = data.draw(st.integers(0, len(shape)), label="ids rank")
    num = data.draw(st.integers(-1, 4), label="num_segments")
    rng = _rng(data)
    ids = rng.integers(-1, max(num, 0) + 1, size=shape[:k])
    if data.draw(st.booleans(), label="in range"):
        ids = np.minimum(ids, num - 1)
    valid = num >= 0 and bool(np.all(ids < num))
    inputs = {"data": random_values(rng, shape, spec), "segment_ids": _ints(data, ids, "Tindices"),
              "num_segments": _ints(data, num, "Tnumsegments")}
    _check(data, op, spec, inputs, {}, ok and valid)


@pytest.mark.parametrize("op_name", _params("OneHot"))
@FUZZ
@given(data=st.data())
def test_fuzz_one_hot(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(st.lists(st.integers(0, 4), max_size=3).map(tuple), label="indices")
    depth = data.draw(st.integers(-1, 4), label="depth")
    axis = data.draw(st.integers(-2, len(shape) + 1), label="axis")
    rng = _rng(data)
    idx = _ints(data, rng.integers(-2, 6, size=shape), "TI", (np.int32, np.int64))
    valid = depth >= 0 and -1 <= axis <= len(shape)
    inputs = {"indices": idx, "depth": np.int32(depth), "on_value": random_values(rng, (), spec),
              "off_value": random_values(rng, (), spec)}
    _check(data, op, spec, inputs, {"axis": axis}, ok and valid)


# ------------------------------------------------------------------------------ padding, tiling, reshaping


@pytest.mark.parametrize("op_name", _params("Pad", "PadV2", "Tile"))
@FUZZ
@given(data=st.data())
def test_fuzz_pad_tile(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(st.lists(st.integers(0, 4), max_size=4).map(tuple), label="shape")
    r = len(shape)
    n = r if data.draw(st.integers(0, 5), label="right length?") else data.draw(st.integers(0, 4), label="length")
    rng = _rng(data)
    x = random_values(rng, shape, spec)
    if op_name == "Tile":
        m = data.draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n), label="multiples")
        valid = n == r and all(v >= 0 for v in m)
        inputs = {"input": x, "multiples": _ints(data, m, "Tmultiples")}
    else:
        pads = data.draw(st.lists(st.integers(-1, 3), min_size=2 * n, max_size=2 * n), label="paddings")
        valid = n == r and all(v >= 0 for v in pads)
        inputs = {"input": x, "paddings": _ints(data, np.reshape(pads, (n, 2)), "Tpaddings")}
        if op_name == "PadV2":
            inputs["constant_values"] = random_values(rng, (), spec)
    _check(data, op, spec, inputs, {}, ok and valid)


@pytest.mark.parametrize("op_name", _params("ExpandDims", "Squeeze", "BroadcastTo"))
@FUZZ
@given(data=st.data())
def test_fuzz_reshape_like(op_name, data):
    op = OPS_BY_NAME[op_name]
    spec, ok = _dtype(data, op)
    shape = data.draw(st.lists(st.integers(0, 3), max_size=5).map(tuple), label="shape")
    r = len(shape)
    rng = _rng(data)
    x = random_values(rng, shape, spec)
    attrs = {}
    if op_name == "ExpandDims":
        dim = data.draw(st.integers(-r - 2, r + 1), label="dim")
        valid = -r - 1 <= dim <= r
        inputs = {"input": x, "dim": _ints(data, dim, "Tdim")}
    elif op_name == "Squeeze":
        dims = data.draw(st.lists(st.integers(-r - 1, r), max_size=3), label="squeeze_dims")
        valid = all(-r <= a < r and shape[a] == 1 for a in dims)
        inputs, attrs = {"input": x}, {"squeeze_dims": dims}
    else:
        target = [d if d != 1 or data.draw(st.booleans()) else data.draw(st.integers(0, 3)) for d in shape]
        target = data.draw(st.lists(st.integers(0, 3), max_size=2), label="lead") + target
        if data.draw(st.integers(0, 4), label="random target?") == 0:
            target = data.draw(st.lists(st.integers(0, 3), max_size=5), label="target")
        valid = len(target) >= r and all(d == 1 or d == t for d, t in zip(shape, target[len(target) - r:]))
        inputs = {"input": x, "shape": _ints(data, target, "Tidx")}
    _check(data, op, spec, inputs, attrs, ok and valid)
