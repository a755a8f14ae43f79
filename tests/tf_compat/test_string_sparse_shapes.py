"""Static-shape parity of the string and SparseTensor ops: each op built in a TensorFlow graph and an
opforge graph from the same partially known inputs (unknown dims, constant shape tensors), and
opforge's static output shapes must be at least as known as TensorFlow's (issue 32)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of

tf = pytest.importorskip("tensorflow")


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _shapes(module, build):
    """The static output shapes of build(...) in a fresh graph of `module` (tf or opforge)."""
    is_tf = module is tf
    graph = tf.Graph() if is_tf else of.Graph()
    with graph.as_default():
        if is_tf:
            p = lambda dt, s: tf.compat.v1.placeholder(getattr(tf, dt), s)  # noqa: E731
            c = lambda v, dt=None: tf.constant(v, None if dt is None else getattr(tf, dt))  # noqa: E731
        else:
            p = lambda dt, s: of.placeholder(getattr(of, dt), s)  # noqa: E731
            c = lambda v, dt=None: of.constant(v, dtype=None if dt is None else getattr(of, dt))  # noqa: E731
        outs = _flat(build(module.raw_ops, p, c))
        shapes = []
        for o in outs:
            s = tf.TensorShape(o.shape) if is_tf else of.TensorShape(o.shape)
            shapes.append(None if s.rank is None else s.as_list())
        return shapes


def _less_known(ours, theirs):
    if theirs is None:
        return False
    if ours is None or len(ours) != len(theirs):
        return True
    return any(a is None and b is not None for a, b in zip(ours, theirs))


CASES = {
    "StringJoin": lambda r, p, c: r.StringJoin(inputs=[p("string", [None, 3]), p("string", [2, None]), c(b"x")]),
    "ReduceJoin": lambda r, p, c: r.ReduceJoin(inputs=p("string", [None, 3, 4]), reduction_indices=c([1], "int32")),
    "ReduceJoin-keep": lambda r, p, c: r.ReduceJoin(inputs=p("string", [None, 3, 4]),
                                                    reduction_indices=p("int32", [1]), keep_dims=True),
    "StringSplit": lambda r, p, c: r.StringSplit(input=p("string", [None]), delimiter=c(b" ")),
    "StringSplitV2": lambda r, p, c: r.StringSplitV2(input=p("string", [None]), sep=c(b",")),
    "SparseCross": lambda r, p, c: r.SparseCross(
        indices=[p("int64", [None, 2])], values=[p("string", [None])], shapes=[p("int64", [2])],
        dense_inputs=[p("int64", [None, 3])], hashed_output=True, num_buckets=10, hash_key=1,
        out_type="int64", internal_type="int64"),
    "Substr": lambda r, p, c: r.Substr(input=p("string", [None, 1]), pos=p("int32", [4]), len=p("int32", [4])),
    "UnsortedSegmentJoin": lambda r, p, c: r.UnsortedSegmentJoin(
        inputs=p("string", [None, 5]), segment_ids=p("int32", [None]), num_segments=c(7, "int32")),
    "StringNGrams": lambda r, p, c: r.StringNGrams(
        data=p("string", [None]), data_splits=p("int64", [4]), separator=" ", ngram_widths=[2], left_pad="",
        right_pad="", pad_width=0, preserve_short_sequences=False),
    "Fingerprint": lambda r, p, c: r.Fingerprint(data=p("float32", [None, 3]), method=c(b"farmhash64")),
    "StringToNumber": lambda r, p, c: r.StringToNumber(string_tensor=p("string", [None, 2])),
    "AsString": lambda r, p, c: r.AsString(input=p("float32", [3, None])),
    "SparseAdd": lambda r, p, c: r.SparseAdd(
        a_indices=p("int64", [None, 3]), a_values=p("float32", [None]), a_shape=p("int64", [3]),
        b_indices=p("int64", [None, 3]), b_values=p("float32", [None]), b_shape=p("int64", [3]),
        thresh=c(0.0, "float32")),
    "SparseTensorDenseMatMul": lambda r, p, c: r.SparseTensorDenseMatMul(
        a_indices=p("int64", [None, 2]), a_values=p("float32", [None]), a_shape=c(np.array([5, 4], np.int64)),
        b=p("float32", [4, 6])),
    "SparseTensorDenseMatMul-adjoint": lambda r, p, c: r.SparseTensorDenseMatMul(
        a_indices=p("int64", [None, 2]), a_values=p("float32", [None]), a_shape=p("int64", [2]),
        b=p("float32", [6, 4]), adjoint_b=True),
    "SparseReduceSum": lambda r, p, c: r.SparseReduceSum(
        input_indices=p("int64", [None, 3]), input_values=p("float32", [None]),
        input_shape=c(np.array([2, 3, 4], np.int64)), reduction_axes=c([1], "int32")),
    "SparseReduceMax-keep": lambda r, p, c: r.SparseReduceMax(
        input_indices=p("int64", [None, 3]), input_values=p("float32", [None]), input_shape=p("int64", [3]),
        reduction_axes=c([1], "int32"), keep_dims=True),
    "SparseReduceSumSparse": lambda r, p, c: r.SparseReduceSumSparse(
        input_indices=p("int64", [None, 3]), input_values=p("float32", [None]), input_shape=p("int64", [3]),
        reduction_axes=c([1], "int32")),
    "SparseFillEmptyRows": lambda r, p, c: r.SparseFillEmptyRows(
        indices=p("int64", [None, 2]), values=p("float32", [None]), dense_shape=c(np.array([5, 4], np.int64)),
        default_value=c(0.0, "float32")),
    "SparseSlice": lambda r, p, c: r.SparseSlice(
        indices=p("int64", [None, 2]), values=p("float32", [None]), shape=p("int64", [2]), start=p("int64", [2]),
        size=p("int64", [2])),
    "SparseReshape": lambda r, p, c: r.SparseReshape(
        input_indices=p("int64", [7, 2]), input_shape=p("int64", [2]), new_shape=p("int64", [3])),
    "SparseSplit": lambda r, p, c: r.SparseSplit(
        split_dim=c(1, "int64"), indices=p("int64", [None, 2]), values=p("float32", [None]), shape=p("int64", [2]),
        num_split=2),
    "SparseSoftmax": lambda r, p, c: r.SparseSoftmax(
        sp_indices=p("int64", [None, 2]), sp_values=p("float32", [9]), sp_shape=p("int64", [2])),
    "SparseDenseCwiseMul": lambda r, p, c: r.SparseDenseCwiseMul(
        sp_indices=p("int64", [None, 2]), sp_values=p("float32", [9]), sp_shape=p("int64", [2]),
        dense=p("float32", [None])),
    "SparseSparseMaximum": lambda r, p, c: r.SparseSparseMaximum(
        a_indices=p("int64", [None, 3]), a_values=p("float32", [None]), a_shape=p("int64", [3]),
        b_indices=p("int64", [None, 3]), b_values=p("float32", [None]), b_shape=p("int64", [3])),
    "SparseConcat": lambda r, p, c: r.SparseConcat(
        indices=[p("int64", [None, 3])] * 2, values=[p("float32", [None])] * 2, shapes=[p("int64", [3])] * 2,
        concat_dim=1),
    "SparseTensorDenseAdd": lambda r, p, c: r.SparseTensorDenseAdd(
        a_indices=p("int64", [None, 2]), a_values=p("float32", [None]), a_shape=p("int64", [2]),
        b=p("float32", [3, None])),
    "SparseSegmentSum": lambda r, p, c: r.SparseSegmentSum(
        data=p("float32", [None, 3, 4]), indices=p("int32", [None]), segment_ids=p("int32", [None])),
    "SparseSegmentMeanWithNumSegments": lambda r, p, c: r.SparseSegmentMeanWithNumSegments(
        data=p("float32", [None, 3]), indices=p("int32", [None]), segment_ids=p("int32", [None]),
        num_segments=c(5, "int32")),
    "SparseSegmentSqrtNGrad": lambda r, p, c: r.SparseSegmentSqrtNGrad(
        grad=p("float32", [None, 3]), indices=p("int32", [None]), segment_ids=p("int32", [None]),
        output_dim0=c(8, "int32")),
    "SparseAddGrad": lambda r, p, c: r.SparseAddGrad(
        backprop_val_grad=p("float32", [None]), a_indices=p("int64", [4, 2]), b_indices=p("int64", [5, 2]),
        sum_indices=p("int64", [None, 2])),
    "SparseSliceGrad": lambda r, p, c: r.SparseSliceGrad(
        backprop_val_grad=p("float32", [None]), input_indices=p("int64", [6, 2]), input_start=p("int64", [2]),
        output_indices=p("int64", [None, 2])),
    "SerializeSparse": lambda r, p, c: r.SerializeSparse(
        sparse_indices=p("int64", [None, 2]), sparse_values=p("float32", [None]), sparse_shape=p("int64", [2])),
    "SerializeManySparse": lambda r, p, c: r.SerializeManySparse(
        sparse_indices=p("int64", [None, 2]), sparse_values=p("float32", [None]),
        sparse_shape=c(np.array([4, 3], np.int64))),
    "DeserializeManySparse": lambda r, p, c: r.DeserializeManySparse(
        serialized_sparse=p("string", [None, 3]), dtype="float32"),
    "SparseFillEmptyRowsGrad": lambda r, p, c: r.SparseFillEmptyRowsGrad(
        reverse_index_map=p("int64", [6]), grad_values=p("float32", [None])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_shapes_at_least_as_known_as_tensorflows(case):
    theirs, ours = _shapes(tf, CASES[case]), _shapes(of, CASES[case])
    assert len(ours) == len(theirs)
    worse = [(o, t) for o, t in zip(ours, theirs) if _less_known(o, t)]
    assert not worse, f"{case}: opforge {ours} vs TensorFlow {theirs}"
