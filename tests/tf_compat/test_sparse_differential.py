"""The SparseTensor ops against tf.raw_ops on random SparseTensors (unsorted and repeated indices
where the op allows them, canonical ones where it requires them): the same outputs."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of

tf = pytest.importorskip("tensorflow")
AXES = [[0], [1], [2], [0, 2], [-1]]


def _arrays(out):
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _arrays(o)]
    return [np.asarray(out.numpy())]


def _same(op, **kw):
    theirs, ours = _arrays(getattr(tf.raw_ops, op)(**kw)), _arrays(getattr(of.raw_ops, op)(**kw))
    assert len(theirs) == len(ours), op
    for t, o in zip(theirs, ours):
        assert t.shape == o.shape, (op, t.shape, o.shape)
        np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-12, err_msg=op)


def _random(rng, shape, n, canonical):
    ix = np.stack([rng.integers(0, d, n) for d in shape], 1).astype(np.int64).reshape(-1, len(shape))
    if canonical and n:
        ix = np.unique(ix, axis=0)
    return ix, rng.normal(size=len(ix))


@pytest.mark.parametrize("seed", range(8))
def test_sparse_ops_match_tensorflow(seed):
    rng = np.random.default_rng(seed)
    shape = rng.integers(1, 5, 3)
    sh = shape.astype(np.int64)
    ix, vals = _random(rng, shape, rng.integers(0, 10), canonical=False)
    axes = np.int32(AXES[seed % len(AXES)])
    for op in ("SparseReduceSum", "SparseReduceMax", "SparseReduceSumSparse", "SparseReduceMaxSparse"):
        for keep in (False, True):
            _same(op, input_indices=ix, input_values=vals, input_shape=sh, reduction_axes=axes, keep_dims=keep)
    u, v = _random(rng, shape, rng.integers(0, 10), canonical=True)
    w, v2 = _random(rng, shape, rng.integers(0, 10), canonical=True)
    start, size = np.array([rng.integers(0, d) for d in shape], np.int64), rng.integers(0, 4, 3).astype(np.int64)
    _same("SparseSlice", indices=u, values=v, shape=sh, start=start, size=size)
    _same("SparseReshape", input_indices=u, input_shape=sh, new_shape=np.array([-1, shape[-1]], np.int64))
    _same("SparseSoftmax", sp_indices=u, sp_values=v, sp_shape=sh)
    dense = rng.uniform(1, 2, size=tuple(int(x) if rng.random() < 0.7 else 1 for x in shape[1:]))
    for op in ("SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseDenseCwiseAdd"):
        _same(op, sp_indices=u, sp_values=v, sp_shape=sh, dense=dense)
    for op in ("SparseSparseMaximum", "SparseSparseMinimum"):
        _same(op, a_indices=u, a_values=v, a_shape=sh, b_indices=w, b_values=v2, b_shape=sh)
    _same("SparseAdd", a_indices=u, a_values=v, a_shape=sh, b_indices=w, b_values=v2, b_shape=sh, thresh=np.float64(0.5))
    _same("SparseConcat", indices=[u, w], values=[v, v2], shapes=[sh, sh], concat_dim=int(seed % 3))
    _same("SparseFillEmptyRows", indices=u, values=v, dense_shape=sh, default_value=np.float64(3))
    if shape[1] >= 2:
        _same("SparseSplit", split_dim=np.int64(1), indices=u, values=v, shape=sh, num_split=2)
    b = rng.normal(size=(int(shape[1]), 3))
    m_ix = u[:, :2] if len(u) else np.zeros((0, 2), np.int64)
    m_ix = np.unique(m_ix, axis=0) if len(m_ix) else m_ix
    _same("SparseTensorDenseMatMul", a_indices=m_ix, a_values=rng.normal(size=len(m_ix)), a_shape=sh[:2], b=b)
    data = rng.normal(size=(6, 2))
    idx = rng.integers(0, 6, 7).astype(np.int32)
    segs = np.sort(rng.integers(0, 4, 7)).astype(np.int32)
    for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"):
        _same(op, data=data, indices=idx, segment_ids=segs)
        _same(op + "WithNumSegments", data=data, indices=idx, segment_ids=segs, num_segments=np.int32(5))
