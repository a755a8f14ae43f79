"""SparseFeature and RaggedFeature in tf.io.parse_example / parse_single_example: SparseTensors
against a NumPy reference on random Examples, RaggedTensors for every partition kind (the
expected lists are TensorFlow's answers, checked against TF itself where installed), and the
spec errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework.tensor import Tensor as EagerTensor
from opforge.io.example import Example, Feature, Features, FloatList, Int64List
from opforge.ops.parsing_ops import (FixedLenFeature, RaggedFeature, SparseFeature, VarLenFeature, parse_example,
                                     parse_single_example)

R = RaggedFeature


def example(**features):
    f = {k: Feature(float_list=FloatList(value=v)) if k.startswith("f") else Feature(int64_list=Int64List(value=v))
         for k, v in features.items()}
    return Example(features=Features(feature=f)).SerializeToString()


def random_sparse_examples(rng, n=5, size=(8, 6)):
    """Examples with ``n_idx`` / ``m_idx`` index features and ``f_val`` values (distinct index pairs)."""
    sers, rows = [], []
    for _ in range(n):
        k = int(rng.integers(0, 5))
        flat = rng.choice(size[0] * size[1], k, replace=False)
        ix, jx = (flat // size[1]).tolist(), (flat % size[1]).tolist()
        vals = rng.normal(size=k).astype(np.float32).tolist()
        sers.append(example(n_idx=ix, m_idx=jx, f_val=vals, label=[int(rng.integers(0, 3))]))
        rows.append((ix, jx, vals))
    return sers, rows


def test_sparse_feature_against_reference():
    rng = np.random.default_rng(32)
    sers, rows = random_sparse_examples(rng)
    out = parse_example(sers, {"one": SparseFeature("n_idx", "f_val", of.float32, 8),
                               "two": SparseFeature(["n_idx", "m_idx"], "f_val", of.float32, [8, 6]),
                               "label": FixedLenFeature([], of.int64)})
    assert sorted(out) == ["label", "one", "two"]  # the helper features are not returned
    want_one = sorted((b, i, v) for b, (ix, _, vals) in enumerate(rows) for i, v in zip(ix, vals))
    got = out["one"]
    assert got.indices.numpy().tolist() == [[b, i] for b, i, _ in want_one]
    np.testing.assert_array_equal(got.values.numpy(), np.array([v for *_, v in want_one], np.float32))
    assert got.dense_shape.numpy().tolist() == [5, 8]
    want_two = sorted((b, i, j, v) for b, (ix, jx, vals) in enumerate(rows) for i, j, v in zip(ix, jx, vals))
    assert out["two"].indices.numpy().tolist() == [[b, i, j] for b, i, j, _ in want_two]
    assert out["two"].dense_shape.numpy().tolist() == [5, 8, 6]
    np.testing.assert_array_equal(out["two"].values.numpy(), np.array([v for *_, v in want_two], np.float32))


def test_sparse_feature_already_sorted_keeps_the_order_and_single_example():
    ser = example(idx=[5, 1, 3], f_v=[1.0, 2.0, 3.0])
    kept = parse_example([ser], {"s": SparseFeature("idx", "f_v", of.float32, 6, already_sorted=True)})["s"]
    assert kept.indices.numpy().tolist() == [[0, 5], [0, 1], [0, 3]]
    one = parse_single_example(ser, {"s": SparseFeature("idx", "f_v", of.float32, 6),
                                     "idx": VarLenFeature(of.int64)})
    assert one["s"].indices.numpy().tolist() == [[1], [3], [5]]
    assert one["s"].values.numpy().tolist() == [2.0, 3.0, 1.0] and one["s"].dense_shape.numpy().tolist() == [6]
    assert one["idx"].values.numpy().tolist() == [5, 1, 3]  # asked for too: returned as well


def ragged_examples():
    return [example(f_r=[1.0, 2.0, 3.0, 4.0], splits=[0, 1, 4], lens=[1, 3], starts=[0, 1], limits=[1, 4],
                    ids=[0, 1, 1, 1]),
            example(f_r=[5.0, 6.0, 7.0], splits=[0, 2, 2, 3], lens=[2, 0, 1], starts=[0, 2, 2], limits=[2, 2, 3],
                    ids=[0, 0, 2]),
            example(f_r=[], splits=[0], lens=[], starts=[], limits=[], ids=[])]


def ragged_features(RF, f32):
    return {"plain": RF(f32, "f_r"), "splits": RF(f32, "f_r", [RF.RowSplits("splits")]),
            "lens": RF(f32, "f_r", [RF.RowLengths("lens")]), "starts": RF(f32, "f_r", [RF.RowStarts("starts")]),
            "limits": RF(f32, "f_r", [RF.RowLimits("limits")]), "ids": RF(f32, "f_r", [RF.ValueRowIds("ids")]),
            "uniform": RF(f32, "f_r", [RF.UniformRowLength(1)]),
            "two": RF(f32, "f_r", [RF.RowLengths("lens"), RF.UniformRowLength(1)])}


NESTED = [[[1.0], [2.0, 3.0, 4.0]], [[5.0, 6.0], [], [7.0]], []]
EXPECTED = {  # TensorFlow 2.21's answers
    "plain": [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0], []],
    "splits": NESTED, "lens": NESTED, "starts": NESTED, "limits": NESTED, "ids": NESTED,
    "uniform": [[[1.0], [2.0], [3.0], [4.0]], [[5.0], [6.0], [7.0]], []],
    "two": [[[[1.0]], [[2.0], [3.0], [4.0]]], [[[5.0], [6.0]], [], [[7.0]]], []],
}


def as_list(v):
    return v.to_list() if hasattr(v, "to_list") else v.numpy().tolist()


def test_ragged_feature_every_partition():
    out = parse_example(ragged_examples(), ragged_features(R, of.float32))
    assert {k: as_list(v) for k, v in out.items()} == EXPECTED
    one = parse_single_example(ragged_examples()[1], ragged_features(R, of.float32))
    assert {k: as_list(v) for k, v in one.items()} == {k: v[1] for k, v in EXPECTED.items()}
    assert isinstance(one["plain"], EagerTensor)  # no partitions: one Example's values are a plain tensor


def test_ragged_feature_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    theirs = tf.io.parse_example(ragged_examples(), ragged_features(tf.io.RaggedFeature, tf.float32))
    assert {k: v.to_list() for k, v in theirs.items()} == EXPECTED


def test_ragged_feature_in_a_graph():
    with of.Graph().as_default():
        ser = of.placeholder(of.string, [None])
        out = parse_example(ser, {"lens": R(of.float32, "f_r", [R.RowLengths("lens")])})["lens"]
        with of.Session() as sess:
            values, inner, outer = sess.run([out.values.values, out.values.row_splits, out.row_splits],
                                            {ser: np.array(ragged_examples(), object)})
    assert values.tolist() == [1, 2, 3, 4, 5, 6, 7] and inner.tolist() == [0, 1, 4, 6, 6, 7]
    assert outer.tolist() == [0, 2, 5, 5]


def test_spec_errors():
    with pytest.raises(ValueError, match="Conflicting specs for feature idx"):
        parse_example([example(idx=[1], f_v=[1.0])], {"s": SparseFeature("idx", "f_v", of.float32, 4),
                                                      "idx": FixedLenFeature([], of.int64)})
    with pytest.raises(ValueError, match="SparseFeature s: 2 index keys but 1 sizes"):
        parse_example([example(idx=[1], f_v=[1.0])], {"s": SparseFeature(["idx", "idx"], "f_v", of.float32, 4)})
    with pytest.raises(of.errors.InvalidArgumentError, match="ParseExampleV2"):  # a partition of the wrong type
        parse_example([example(f_r=[1.0], f_l=[1.0])], {"x": R(of.float32, "f_r", [R.RowLengths("f_l")])})
