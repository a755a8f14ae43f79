"""embedding_lookup_sparse and safe_embedding_lookup_sparse (opforge/ops/embedding_ops.py) against a
NumPy reference of TensorFlow's documented formulas, including sharded params, weights, invalid
ids, empty rows, ids of rank 3, and the gradient with respect to params (float64)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.ops import embedding_ops as em

RNG = np.random.default_rng(8)


def reference(params, rows, combiner, n_rows=None):
    """rows: per output row, a list of (id, weight); TF's formula for each combiner."""
    n_rows = len(rows) if n_rows is None else n_rows
    out = np.zeros((n_rows, params.shape[1]))
    for r, entries in enumerate(rows):
        if not entries:
            continue
        ids = np.array([i for i, _ in entries])
        w = np.array([w for _, w in entries])
        total = (params[ids] * w[:, None]).sum(0)
        denom = {"sum": 1.0, "mean": w.sum(), "sqrtn": np.sqrt((w ** 2).sum())}[combiner]
        out[r] = total / denom if denom != 0 else 0
    return out


def sparse_ids(rows, width=4, weights=True):
    indices, ids, wts = [], [], []
    for r, entries in enumerate(rows):
        for k, (i, w) in enumerate(entries):
            indices.append([r, k])
            ids.append(i)
            wts.append(w)
    shape = np.array([len(rows), width], np.int64)
    ix = np.array(indices, np.int64).reshape(-1, 2)
    sp_ids = of.SparseTensor(ix, np.array(ids, np.int64), shape)
    sp_w = of.SparseTensor(ix, np.array(wts, np.float64), shape) if weights else None
    return sp_ids, sp_w


ROWS = [[(1, 2.0), (3, 0.5)], [(0, 1.0)], [], [(1, 3.0), (1, 1.0), (4, 0.25)]]


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_embedding_lookup_sparse_matches_the_formula(combiner):
    params = RNG.normal(size=(5, 3))
    sp_ids, sp_w = sparse_ids(ROWS)
    np.testing.assert_allclose(em.embedding_lookup_sparse(params, sp_ids, sp_w, combiner=combiner).numpy(),
                               reference(params, ROWS, combiner), rtol=1e-12)
    ones = [[(i, 1.0) for i, _ in r] for r in ROWS]
    sp_ids, _ = sparse_ids(ROWS, weights=False)
    np.testing.assert_allclose(em.embedding_lookup_sparse(params, sp_ids, None, combiner=combiner).numpy(),
                               reference(params, ones, combiner), rtol=1e-12)
    # sharded params ("mod": id i in shard i % 2 at row i // 2) give the same answer
    shards = [params[0::2], params[1::2]]
    np.testing.assert_allclose(em.embedding_lookup_sparse(shards, sp_ids, None, combiner=combiner).numpy(),
                               reference(params, ones, combiner), rtol=1e-12)


def test_embedding_lookup_sparse_gradient_wrt_params():
    params = RNG.normal(size=(5, 3))
    sp_ids, sp_w = sparse_ids(ROWS)
    w = RNG.normal(size=(4, 3))
    for combiner in ("sum", "mean", "sqrtn"):
        for weights in (sp_w, None):
            p = of.constant(params)
            with of.GradientTape() as tape:
                tape.watch(p)
                loss = of.reduce_sum(of.multiply(em.embedding_lookup_sparse(p, sp_ids, weights, combiner=combiner),
                                                 of.constant(w)))
            grad = tape.gradient(loss, p).numpy()
            entries = ROWS if weights is not None else [[(i, 1.0) for i, _ in r] for r in ROWS]
            want = np.zeros_like(params)
            for r, row in enumerate(entries):
                if not row:
                    continue
                ws = np.array([x for _, x in row])
                denom = {"sum": 1.0, "mean": ws.sum(), "sqrtn": np.sqrt((ws ** 2).sum())}[combiner]
                for i, x in row:
                    want[i] += w[r] * x / denom
            np.testing.assert_allclose(grad, want, rtol=1e-10)


def test_safe_embedding_lookup_sparse_prunes_fills_and_reshapes():
    params = RNG.normal(size=(5, 3))
    rows = [[(1, 2.0), (-1, 1.0), (3, -0.5)], [(2, 0.0)], [], [(4, 1.5)]]
    sp_ids, sp_w = sparse_ids(rows)
    valid = [[(i, w) for i, w in r if i >= 0 and w > 0] for r in rows]
    out = em.safe_embedding_lookup_sparse(params, sp_ids, sp_w, combiner="mean").numpy()
    np.testing.assert_allclose(out, reference(params, valid, "mean"), rtol=1e-12)
    out = em.safe_embedding_lookup_sparse(params, sp_ids, sp_w, combiner="mean", default_id=2).numpy()
    want = reference(params, valid, "mean")
    want[1] = want[2] = params[2]  # empty rows (after pruning) take default_id's embedding
    np.testing.assert_allclose(out, want, rtol=1e-12)
    # ids of rank 3: [2, 2, width] -> the output is [2, 2, dim]
    ids3 = of.SparseTensor(np.array([[0, 0, 0], [0, 1, 0], [1, 1, 1]], np.int64), np.array([1, 2, 3], np.int64),
                           np.array([2, 2, 2], np.int64))
    out = em.safe_embedding_lookup_sparse(params, ids3, None, combiner="sum").numpy()
    want = np.zeros((2, 2, 3))
    want[0, 0], want[0, 1], want[1, 1] = params[1], params[2], params[3]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_bad_combiner_and_ids():
    with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum', got max"):
        em.embedding_lookup_sparse(np.ones((2, 2)), sparse_ids(ROWS)[0], None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be a SparseTensor"):
        em.embedding_lookup_sparse(np.ones((2, 2)), np.array([0, 1]), None)
    with pytest.raises(of.errors.InvalidArgumentError, match="SparseSegmentMean: Bad: indices"):
        em.embedding_lookup_sparse(np.ones((2, 2)), sparse_ids(ROWS)[0], None)  # id 4 is not a row of params
