"""Bad calls of the array and random ops: typed errors naming the op, never a crash or an
out-of-bounds read (index values are checked before any element moves)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opmatrix import covers

COVERAGE_CATEGORIES = ("errors",)

o = of.ops
i32, i64 = np.int32, np.int64


def _x(*shape, dtype=np.float64):
    return np.ones(shape, dtype)


def _v(*vals, dtype=i32):
    return np.array(vals, dtype)


def _bad_calls():
    """(id, op name, callable, exception class)."""
    out = []

    def add(id_, op_name, fn, exc=of.InvalidArgumentError):
        out.append(pytest.param(op_name, fn, exc, id=id_))

    # join / split
    add("ConcatV2-rank", "ConcatV2", lambda: o.concat_v2([_x(2, 3), _x(2)], i32(0)))
    add("ConcatV2-dims", "ConcatV2", lambda: o.concat_v2([_x(2, 3), _x(3, 3)], i32(1)))
    add("ConcatV2-axis-2", "ConcatV2", lambda: o.concat_v2([_x(2, 3), _x(2, 3)], i32(2)))
    add("ConcatV2-axis-neg3", "ConcatV2", lambda: o.concat_v2([_x(2, 3), _x(2, 3)], i64(-3)))
    add("ConcatV2-axis-vector", "ConcatV2", lambda: o.concat_v2([_x(2, 3), _x(2, 3)], _v(0)))
    add("ConcatV2-scalars", "ConcatV2", lambda: o.concat_v2([np.float64(1), np.float64(2)], i32(0)))
    add("ConcatV2-one-input", "ConcatV2", lambda: o.concat_v2([_x(2)], i32(0)))
    add("Split-indivisible", "Split", lambda: o.split(i32(0), _x(5, 2), num_split=2))
    add("Split-axis", "Split", lambda: o.split(i32(2), _x(4, 2), num_split=2))
    add("Split-scalar", "Split", lambda: o.split(i32(0), np.float64(1), num_split=1))
    add("Split-num0", "Split", lambda: o.split(i32(0), _x(4), num_split=0))
    add("SplitV-sum", "SplitV", lambda: o.split_v(_x(5), _v(2, 2, dtype=i64), i32(0), num_split=2))
    add("SplitV-two-minus1", "SplitV", lambda: o.split_v(_x(5), _v(-1, -1, dtype=i64), i32(0), num_split=2))
    add("SplitV-negative", "SplitV", lambda: o.split_v(_x(5), _v(-2, 7, dtype=i64), i32(0), num_split=2))
    add("SplitV-count", "SplitV", lambda: o.split_v(_x(5), _v(2, 3, dtype=i64), i32(0), num_split=3))
    add("Where-scalar", "Where", lambda: o.where(np.bool_(True)))
    add("SplitV-one-output-minus1", "SplitV", lambda: o.split_v(_x(5), _v(-1, dtype=i64), i32(0), num_split=1))
    add("SplitV-too-big", "SplitV", lambda: o.split_v(_x(5), _v(7, -1, dtype=i64), i32(0), num_split=2))
    add("Pack-shapes", "Pack", lambda: o.pack([_x(2, 3), _x(3, 2)]))
    add("Pack-axis", "Pack", lambda: o.pack([_x(2), _x(2)], axis=2))
    add("Unpack-num", "Unpack", lambda: o.unpack(_x(3, 2), num=2))
    add("Unpack-axis", "Unpack", lambda: o.unpack(_x(3, 2), num=3, axis=-3))
    add("Unpack-scalar", "Unpack", lambda: o.unpack(np.float64(1), num=1))

    # slicing
    add("Slice-negative-begin", "Slice", lambda: o.slice(_x(4), _v(-1), _v(2)))
    add("Slice-size-below-minus1", "Slice", lambda: o.slice(_x(4), _v(0), _v(-2)))
    add("Slice-past-end", "Slice", lambda: o.slice(_x(4), _v(3), _v(2)))
    add("Slice-begin-past-end", "Slice", lambda: o.slice(_x(4), _v(5), _v(-1)))
    add("Slice-length", "Slice", lambda: o.slice(_x(4, 2), _v(0), _v(1)))
    add("Slice-huge", "Slice", lambda: o.slice(_x(4), _v(2**62, dtype=i64), _v(2**62, dtype=i64)))
    ss = o.strided_slice
    add("StridedSlice-stride0", "StridedSlice", lambda: ss(_x(4), _v(0), _v(2), _v(0)))
    add("StridedSlice-shrink-range", "StridedSlice", lambda: ss(_x(4), _v(4), _v(5), _v(1), shrink_axis_mask=1))
    add("StridedSlice-shrink-neg-range", "StridedSlice", lambda: ss(_x(4), _v(-5), _v(-4), _v(1), shrink_axis_mask=1))
    add("StridedSlice-shrink-neg-stride", "StridedSlice", lambda: ss(_x(4), _v(1), _v(2), _v(-1), shrink_axis_mask=1))
    add("StridedSlice-too-many", "StridedSlice", lambda: ss(_x(4), _v(0, 0), _v(1, 1), _v(1, 1)))
    add("StridedSlice-two-ellipses", "StridedSlice", lambda: ss(_x(4), _v(0, 0), _v(0, 0), _v(1, 1), ellipsis_mask=3))
    add("StridedSlice-lengths", "StridedSlice", lambda: ss(_x(4), _v(0, 0), _v(1), _v(1)))
    add("StridedSlice-matrix-begin", "StridedSlice", lambda: ss(_x(4), np.zeros((1, 1), i32), _v(1), _v(1)))
    add("StridedSliceGrad-dy-shape", "StridedSliceGrad",
        lambda: o.strided_slice_grad(_v(4), _v(0), _v(2), _v(1), _x(3)))
    add("StridedSliceGrad-negative-shape", "StridedSliceGrad",
        lambda: o.strided_slice_grad(_v(-4), _v(0), _v(2), _v(1), _x(2)))
    add("ReverseV2-duplicate", "ReverseV2", lambda: o.reverse_v2(_x(2, 3), _v(0, -2)))
    add("ReverseV2-range", "ReverseV2", lambda: o.reverse_v2(_x(2, 3), _v(2)))
    add("ReverseV2-matrix", "ReverseV2", lambda: o.reverse_v2(_x(2, 3), np.zeros((1, 1), i32)))

    # indexing
    g = o.gather_v2
    add("GatherV2-index-high", "GatherV2", lambda: g(_x(3, 2), _v(0, 3), i32(0)))
    add("GatherV2-index-negative", "GatherV2", lambda: g(_x(3, 2), _v(-1), i32(0)))
    add("GatherV2-index-int16", "GatherV2", lambda: g(_x(3, 2), _v(300, dtype=np.int16), i32(1)))
    add("GatherV2-index-empty-axis", "GatherV2", lambda: g(_x(0, 2), _v(0), i32(0)))
    add("GatherV2-axis", "GatherV2", lambda: g(_x(3, 2), _v(0), i32(2)))
    add("GatherV2-batch-dims-gt-axis", "GatherV2", lambda: g(_x(3, 2), _v(0, 0, 0), i32(0), batch_dims=1))
    add("GatherV2-batch-dims-mismatch", "GatherV2", lambda: g(_x(3, 2), np.zeros((2, 1), i32), i32(1), batch_dims=1))
    add("GatherV2-batch-dims-range", "GatherV2", lambda: g(_x(3, 2), _v(0), i32(1), batch_dims=2))
    add("GatherV2-scalar-params", "GatherV2", lambda: g(np.float64(1), _v(0), i32(0)))
    add("GatherNd-high", "GatherNd", lambda: o.gather_nd(_x(3, 2), np.array([[2, 2]], i32)))
    add("GatherNd-negative", "GatherNd", lambda: o.gather_nd(_x(3, 2), np.array([[-1, 0]], i64)))
    add("GatherNd-K", "GatherNd", lambda: o.gather_nd(_x(3, 2), np.array([[0, 0, 0]], i32)))
    add("GatherNd-scalar-indices", "GatherNd", lambda: o.gather_nd(_x(3, 2), i32(0)))
    add("ScatterNd-high", "ScatterNd", lambda: o.scatter_nd(np.array([[3]], i32), _x(1), _v(3)))
    add("ScatterNd-negative", "ScatterNd", lambda: o.scatter_nd(np.array([[-1]], i32), _x(1), _v(3)))
    add("ScatterNd-updates-shape", "ScatterNd", lambda: o.scatter_nd(np.array([[0]], i32), _x(2), _v(3)))
    add("ScatterNd-negative-shape", "ScatterNd", lambda: o.scatter_nd(np.array([[0]], i32), _x(1), _v(-3)))
    add("ScatterNd-K", "ScatterNd", lambda: o.scatter_nd(np.array([[0, 0]], i32), _x(1), _v(3)))
    us = o.unsorted_segment_sum
    add("UnsortedSegmentSum-id-high", "UnsortedSegmentSum", lambda: us(_x(3), _v(0, 1, 2), i32(2)))
    add("UnsortedSegmentSum-negative-num", "UnsortedSegmentSum", lambda: us(_x(3), _v(0, 1, 0), i32(-1)))
    add("UnsortedSegmentSum-prefix", "UnsortedSegmentSum", lambda: us(_x(3, 2), _v(0, 1), i32(2)))
    add("OneHot-depth", "OneHot", lambda: o.one_hot(_v(0, 1, dtype=i64), i32(-1), 1.0, 0.0))
    add("OneHot-axis", "OneHot", lambda: o.one_hot(_v(0, 1, dtype=i64), i32(3), 1.0, 0.0, axis=-2))
    add("OneHot-axis-high", "OneHot", lambda: o.one_hot(_v(0, 1, dtype=i64), i32(3), 1.0, 0.0, axis=2))
    add("OneHot-on-vector", "OneHot", lambda: o.one_hot(_v(0, 1, dtype=i64), i32(3), _x(2), 0.0))

    # padding, tiling, broadcasting, reshaping
    add("Pad-negative", "Pad", lambda: o.pad(_x(2), np.array([[-1, 0]], i32)))
    add("Pad-shape", "Pad", lambda: o.pad(_x(2, 2), np.array([[1, 0]], i32)))
    add("Pad-columns", "Pad", lambda: o.pad(_x(2), np.array([[1, 0, 0]], i32)))
    add("Pad-huge", "Pad", lambda: o.pad(_x(2), np.array([[2**62, 0]], i64)))
    add("PadV2-constant-vector", "PadV2", lambda: o.pad_v2(_x(2), np.array([[1, 0]], i32), _x(1)))
    add("Tile-negative", "Tile", lambda: o.tile(_x(2), _v(-1)))
    add("Tile-length", "Tile", lambda: o.tile(_x(2), _v(1, 1)))
    add("Tile-overflow", "Tile", lambda: o.tile(_x(2), _v(2**62, dtype=i64)))
    add("Tile-huge", "Tile", lambda: o.tile(_x(2, 2), _v(2**30, 2**30, dtype=i64)), of.ResourceExhaustedError)
    add("BroadcastTo-incompatible", "BroadcastTo", lambda: o.broadcast_to(_x(3), _v(2, 2)))
    add("BroadcastTo-rank", "BroadcastTo", lambda: o.broadcast_to(_x(2, 1), _v(2)))
    add("BroadcastTo-negative", "BroadcastTo", lambda: o.broadcast_to(_x(1), _v(-2)))
    add("ExpandDims-range", "ExpandDims", lambda: o.expand_dims(_x(2), i32(2)))
    add("ExpandDims-range-neg", "ExpandDims", lambda: o.expand_dims(_x(2), i32(-3)))
    add("ExpandDims-two-dims", "ExpandDims", lambda: o.expand_dims(_x(2), _v(0, 1)))
    add("Squeeze-not-one", "Squeeze", lambda: o.squeeze(_x(2, 1), axis=[0]))
    add("Squeeze-range", "Squeeze", lambda: o.squeeze(_x(2, 1), axis=[2]))
    add("Where-string", "Where", lambda: o.where("abc"))
    add("StopGradient-object", "StopGradient", lambda: o.stop_gradient(object()))

    # random ops
    for name, fn in (("RandomUniform", o.random_uniform), ("RandomStandardNormal", o.random_standard_normal),
                     ("TruncatedNormal", o.truncated_normal)):
        add(f"{name}-negative-shape", name, lambda fn=fn: fn(_v(2, -1), of.float32))
        add(f"{name}-matrix-shape", name, lambda fn=fn: fn(np.ones((2, 2), i32), of.float32))
        add(f"{name}-int-dtype", name, lambda fn=fn: fn(_v(2), of.int32))
        add(f"{name}-float-shape", name, lambda fn=fn: fn(np.ones(2, np.float32), of.float32))
    add("RandomUniformInt-empty-range", "RandomUniformInt", lambda: o.random_uniform_int(_v(2), i32(3), i32(3)))
    add("RandomUniformInt-vector-bound", "RandomUniformInt", lambda: o.random_uniform_int(_v(2), _v(0, 1), i32(3)))
    add("RandomUniformInt-float", "RandomUniformInt", lambda: o.random_uniform_int(_v(2), 0.0, 1.0))
    add("RandomShuffle-object", "RandomShuffle", lambda: o.random_shuffle(object()))
    for name, fn in (("StatelessRandomUniform", o.stateless_random_uniform),
                     ("StatelessRandomNormal", o.stateless_random_normal),
                     ("StatelessTruncatedNormal", o.stateless_truncated_normal)):
        add(f"{name}-seed-shape", name, lambda fn=fn: fn(_v(2), _v(1, 2, 3, dtype=i64)))
        add(f"{name}-seed-scalar", name, lambda fn=fn: fn(_v(2), i64(1)))
        add(f"{name}-negative-shape", name, lambda fn=fn: fn(_v(-2), _v(1, 2, dtype=i64)))
        add(f"{name}-int-dtype", name, lambda fn=fn: fn(_v(2), _v(1, 2, dtype=i64), dtype=of.int32))
    sri = o.stateless_random_uniform_int
    add("StatelessRandomUniformInt-range", "StatelessRandomUniformInt", lambda: sri(_v(2), _v(1, 2), i32(5), i32(1)))
    add("StatelessRandomUniformInt-seed", "StatelessRandomUniformInt", lambda: sri(_v(2), _v(1), i32(0), i32(1)))
    return out


@pytest.mark.parametrize("op_name,fn,exc", _bad_calls())
def test_bad_call(op_name, fn, exc):
    with covers("errors", op_name):
        with pytest.raises(exc) as ei:
            fn()
        assert isinstance(ei.value, of.OpError)
        assert op_name in str(ei.value), str(ei.value)
        assert ei.value.op == op_name, (ei.value.op, str(ei.value))


def test_out_of_range_index_reads_nothing():
    """A bad index anywhere in a large gather fails as a whole (no partial output)."""
    params = np.arange(100000.0).reshape(50000, 2)
    idx = np.arange(60000) % 50000
    idx[59999] = 50000
    with pytest.raises(of.InvalidArgumentError, match=r"GatherV2: indices\[59999\] = 50000"):
        o.gather_v2(params, idx, i32(0))
