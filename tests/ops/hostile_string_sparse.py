"""Valid base calls of the string and SparseTensor ops (opdefs/strings, opdefs/sparse) for the
hostile-input matrix (hostile.py): each hostile case changes one thing about one of these."""

from __future__ import annotations

import numpy as np


def base_calls() -> dict:
    """{op: builder(rng) -> (inputs, attrs)}: small valid calls, canonical SparseTensors."""
    import opforge as of  # noqa: PLC0415

    def s(*v):
        return of.constant(np.array(v, dtype=object), dtype=of.string)

    def s0(v):  # a scalar string
        return of.constant(v.encode(), dtype=of.string)

    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    ix = np.array([[0, 0], [0, 2], [1, 1], [2, 3]], np.int64)
    ix2 = np.array([[0, 1], [1, 1], [2, 0]], np.int64)
    shape = i64(3, 4)

    def vals(r, n=4):
        return r.standard_normal(n).astype(np.float32)

    def sp(prefix="", x=ix, n=4):
        return lambda r: {f"{prefix}indices": x, f"{prefix}values": vals(r, n), f"{prefix}shape": shape}

    def reduce(r):
        return {"input_indices": ix, "input_values": vals(r), "input_shape": shape, "reduction_axes": i32(1)}, {}

    def two(r):
        return {"a_indices": ix, "a_values": vals(r), "a_shape": shape, "b_indices": ix2, "b_values": vals(r, 3),
                "b_shape": shape}

    def cwise(r):
        return {"sp_indices": ix, "sp_values": vals(r), "sp_shape": shape, "dense": vals(r, 4) + 2}, {}

    def segment(r, extra=None):
        return {"data": r.standard_normal((5, 3)).astype(np.float32), "indices": i32(0, 4, 2, 2),
                "segment_ids": i32(0, 0, 1, 3), **(extra or {})}, {}

    def segment_grad(r):
        return {"grad": r.standard_normal((4, 3)).astype(np.float32), "indices": i32(0, 4, 2, 2),
                "segment_ids": i32(0, 0, 1, 3), "output_dim0": np.int32(5)}, {}

    def cross(r):
        return {"indices": [ix], "values": [s("a", "b", "c", "d")], "shapes": [shape],
                "dense_inputs": [i64(1, 2, 3).reshape(3, 1)]}

    return {
        "StringJoin": lambda r: ({"inputs": [s("a", "b"), s("x")]}, {"separator": "-"}),
        "ReduceJoin": lambda r: ({"inputs": s("a", "b", "c", "d"), "reduction_indices": i32(0)}, {}),
        "StringSplit": lambda r: ({"input": s("a b", "c"), "delimiter": s0(" ")}, {}),
        "StringSplitV2": lambda r: ({"input": s("a,b", "c"), "sep": s0(",")}, {"maxsplit": 1}),
        "Substr": lambda r: ({"input": s("hello", "ab"), "pos": i32(1, 0), "len": i32(2, 5)}, {}),
        "StringLength": lambda r: ({"input": s("héllo", "")}, {"unit": "UTF8_CHAR"}),
        "StringToNumber": lambda r: ({"string_tensor": s("1.5", " -2")}, {}),
        "AsString": lambda r: ({"input": vals(r)}, {"precision": 3, "width": 8}),
        "StringStrip": lambda r: ({"input": s(" a ", "b")}, {}),
        "StringLower": lambda r: ({"input": s("AbC")}, {}),
        "StringUpper": lambda r: ({"input": s("AbC")}, {}),
        "RegexReplace": lambda r: ({"input": s("aaa b"), "pattern": s0("a+"), "rewrite": s0("x")}, {}),
        "StaticRegexReplace": lambda r: ({"input": s("aaa b")}, {"pattern": "a+", "rewrite": "x"}),
        "RegexFullMatch": lambda r: ({"input": s("aaa", "b"), "pattern": s0("a+")}, {}),
        "StaticRegexFullMatch": lambda r: ({"input": s("aaa", "b")}, {"pattern": "a+"}),
        "StringToHashBucketFast": lambda r: ({"input": s("a", "b")}, {"num_buckets": 10}),
        "StringToHashBucketStrong": lambda r: ({"input": s("a", "b")}, {"num_buckets": 10, "key": [1, 2]}),
        "StringToHashBucket": lambda r: ({"string_tensor": s("a", "b")}, {"num_buckets": 10}),
        "EncodeBase64": lambda r: ({"input": s("hello")}, {"pad": True}),
        "DecodeBase64": lambda r: ({"input": s("aGVsbG8")}, {}),
        "UnsortedSegmentJoin": lambda r: ({"inputs": s("a", "b", "c"), "segment_ids": i32(1, 0, 1),
                                           "num_segments": np.int32(3)}, {}),
        "StringNGrams": lambda r: ({"data": s("a", "b", "c"), "data_splits": i64(0, 1, 3)},
                                   {"separator": " ", "ngram_widths": [2], "left_pad": "<", "right_pad": ">",
                                    "pad_width": 1, "preserve_short_sequences": True}),
        "Fingerprint": lambda r: ({"data": vals(r).reshape(2, 2), "method": s0("farmhash64")}, {}),
        "SparseAdd": lambda r: ({**two(r), "thresh": np.float32(0)}, {}),
        "SparseAddGrad": lambda r: ({"backprop_val_grad": vals(r, 6), "a_indices": ix, "b_indices": ix2,
                                     "sum_indices": np.array([[0, 0], [0, 1], [0, 2], [1, 1], [2, 0], [2, 3]],
                                                             np.int64)}, {}),
        "SparseSparseMaximum": lambda r: (two(r), {}),
        "SparseSparseMinimum": lambda r: (two(r), {}),
        "SparseTensorDenseAdd": lambda r: ({"a_indices": ix, "a_values": vals(r), "a_shape": shape,
                                            "b": r.standard_normal((3, 4)).astype(np.float32)}, {}),
        "SparseDenseCwiseMul": cwise,
        "SparseDenseCwiseDiv": cwise,
        "SparseDenseCwiseAdd": cwise,
        "SparseConcat": lambda r: ({"indices": [ix, ix2], "values": [vals(r), vals(r, 3)], "shapes": [shape, shape]},
                                   {"concat_dim": 1}),
        "SparseReduceSum": reduce,
        "SparseReduceMax": reduce,
        "SparseReduceSumSparse": reduce,
        "SparseReduceMaxSparse": reduce,
        "SparseTensorDenseMatMul": lambda r: ({"a_indices": ix, "a_values": vals(r), "a_shape": shape,
                                               "b": r.standard_normal((4, 2)).astype(np.float32)}, {}),
        "SparseFillEmptyRows": lambda r: ({"indices": ix, "values": vals(r), "dense_shape": i64(5, 4),
                                           "default_value": np.float32(1)}, {}),
        "SparseFillEmptyRowsGrad": lambda r: ({"reverse_index_map": i64(0, 2, 3), "grad_values": vals(r, 5)}, {}),
        "SparseSlice": lambda r: ({**sp()(r), "start": i64(0, 1), "size": i64(2, 2)}, {}),
        "SparseSliceGrad": lambda r: ({"backprop_val_grad": vals(r, 1), "input_indices": ix, "input_start": i64(0, 1),
                                       "output_indices": np.array([[0, 1]], np.int64)}, {}),
        "SparseReshape": lambda r: ({"input_indices": ix, "input_shape": shape, "new_shape": i64(2, -1)}, {}),
        "SparseSplit": lambda r: ({"split_dim": np.int64(1), **sp()(r)}, {"num_split": 2}),
        "SparseSoftmax": lambda r: ({"sp_indices": ix, "sp_values": vals(r), "sp_shape": shape}, {}),
        "SparseSegmentSum": segment,
        "SparseSegmentMean": segment,
        "SparseSegmentSqrtN": segment,
        "SparseSegmentSumWithNumSegments": lambda r: segment(r, {"num_segments": np.int32(6)}),
        "SparseSegmentMeanWithNumSegments": lambda r: segment(r, {"num_segments": np.int32(6)}),
        "SparseSegmentSqrtNWithNumSegments": lambda r: segment(r, {"num_segments": np.int32(6)}),
        "SparseSegmentSumGrad": segment_grad,
        "SparseSegmentMeanGrad": segment_grad,
        "SparseSegmentSqrtNGrad": segment_grad,
        "SparseCross": lambda r: (cross(r), {"hashed_output": True, "num_buckets": 100, "hash_key": 7,
                                             "out_type": "int64", "internal_type": "int64"}),
        "SparseCrossV2": lambda r: ({**cross(r), "sep": s0("_")}, {}),
        "SerializeSparse": lambda r: ({"sparse_indices": ix, "sparse_values": vals(r), "sparse_shape": shape}, {}),
        "SerializeManySparse": lambda r: ({"sparse_indices": ix, "sparse_values": vals(r), "sparse_shape": shape}, {}),
        "DeserializeManySparse": lambda r: ({"serialized_sparse": of.raw_ops.SerializeManySparse(
            sparse_indices=ix, sparse_values=vals(r), sparse_shape=shape)}, {"dtype": "float"}),
    }
