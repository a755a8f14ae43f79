"""The SparseTensor ops (opdefs/sparse/) through of.sparse: every op against a NumPy reference on
the dense equivalent of random SparseTensors, float64 numeric gradient checks of the
differentiable ones, one test per diagnostic, and TensorFlow's answers where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.ops import sparse_ops as sp

RNG = np.random.default_rng(17)


def random_sparse(shape, density=0.4, dtype=np.float64, rng=RNG):
    """A canonical SparseTensor (eager) and its dense NumPy array (zeros where absent)."""
    dense = np.zeros(shape, dtype)
    mask = rng.random(shape) < density
    dense[mask] = (rng.integers(1, 9, mask.sum()) * rng.choice([-1, 1], mask.sum())).astype(dtype)
    indices = np.argwhere(mask).astype(np.int64).reshape(-1, len(shape))
    return of.SparseTensor(indices, dense[mask], np.array(shape, np.int64)), dense


def dense_of(s):
    v = s.numpy()
    out = np.zeros(v.dense_shape, v.values.dtype)
    for i, x in zip(v.indices, v.values):
        out[tuple(i)] += x
    return out


def assert_canonical(s):
    ix = s.numpy().indices
    keys = [tuple(r) for r in ix]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def check_grad(build, *args):
    """build(*tensors) -> a tensor; d sum(out * w) / d each arg (float64) against central differences."""
    tensors = [of.constant(a) for a in args]
    w = RNG.normal(size=np.shape(build(*tensors).numpy()))
    with of.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        loss = of.reduce_sum(of.multiply(build(*tensors), of.constant(w)))
    grads = tape.gradient(loss, tensors)
    for k, (a, g) in enumerate(zip(args, grads)):
        def f(x, k=k):
            xs = [of.constant(x if j == k else b) for j, b in enumerate(args)]
            return float(np.sum(build(*xs).numpy() * w))
        np.testing.assert_allclose(g.numpy(), numeric_grad(f, np.array(a, np.float64)), rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------------------ values


def test_add_sparse_sparse_and_sparse_dense():
    a, da = random_sparse((5, 6))
    b, db = random_sparse((5, 6))
    s = sp.add(a, b)
    assert_canonical(s)
    np.testing.assert_array_equal(dense_of(s), da + db)
    kept = dense_of(sp.add(a, b, threshold=4.5))  # sums of two values below 4.5 in magnitude are dropped
    both = (da != 0) & (db != 0)
    np.testing.assert_array_equal(kept, np.where(both & (np.abs(da + db) < 4.5), 0, da + db))
    np.testing.assert_array_equal(sp.add(a, db).numpy(), da + db)


def test_concat_reorders_and_expands():
    parts = [random_sparse((3, n)) for n in (2, 4, 1)]
    out = sp.concat(1, [p for p, _ in parts])
    assert_canonical(out)
    np.testing.assert_array_equal(dense_of(out), np.concatenate([d for _, d in parts], 1))
    out = sp.concat(-2, [random_sparse((2, 3))[0], random_sparse((4, 3))[0]])
    assert out.numpy().dense_shape.tolist() == [6, 3]
    a, da = random_sparse((2, 3))
    b, db = random_sparse((3, 5))
    out = sp.concat(0, [a, b], expand_nonconcat_dim=True)
    want = np.zeros((5, 5))
    want[:2, :3], want[2:, :] = da, db
    np.testing.assert_array_equal(dense_of(out), want)


def _reduce_ref(dense, present, axes, op):
    """Sum, or max over the present elements only (0 where a group has none), as TF's ops."""
    axes = tuple(a % dense.ndim for a in axes)
    if op == "sum":
        return dense.sum(axis=axes)
    masked = np.where(present, dense, -np.inf).max(axis=axes)
    return np.where(np.isinf(masked), 0, masked)


@pytest.mark.parametrize("axes", [[0], [1], [-1], [0, 2], [2, 0, 1]])
def test_reductions(axes):
    s, d = random_sparse((3, 4, 5))
    present = d != 0
    for op, fn, fn_sparse in (("sum", sp.reduce_sum, sp.reduce_sum_sparse), ("max", sp.reduce_max, sp.reduce_max_sparse)):
        want = _reduce_ref(d, present, axes, op)
        np.testing.assert_array_equal(fn(s, axes).numpy(), want)
        assert fn(s, axes, keepdims=True).shape == np.expand_dims(want, tuple(a % 3 for a in axes)).shape
        out = fn_sparse(s, axes)
        assert_canonical(out)
        np.testing.assert_array_equal(dense_of(out), np.where(
            np.any(present, axis=tuple(a % 3 for a in axes)), want, 0))
    assert sp.reduce_sum(s).numpy() == d.sum()


@pytest.mark.parametrize("adjoint_a, adjoint_b", [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    a, da = random_sparse((4, 6))
    b = RNG.normal(size=(6, 3))
    opa, bb = (da.T, b[:4]) if adjoint_a else (da, b)
    bb = bb.T.copy() if adjoint_b else bb
    want = opa @ (bb.T if adjoint_b else bb)
    np.testing.assert_allclose(sp.sparse_dense_matmul(a, bb, adjoint_a=adjoint_a, adjoint_b=adjoint_b).numpy(), want)
    # int32 indices and a repeated index (its values add)
    v = a.numpy()
    ix = np.concatenate([v.indices, v.indices[:1]]).astype(np.int32)
    vals = np.concatenate([v.values, v.values[:1]])
    out = of.ops.sparse_tensor_dense_mat_mul(ix, vals, v.dense_shape, b)
    extra = np.zeros_like(da)
    extra[tuple(v.indices[0])] = v.values[0]
    np.testing.assert_allclose(out.numpy(), (da + extra) @ b)
    c = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(sp.sparse_dense_matmul(c, a).numpy(), c @ da)  # dense @ sparse


def test_fill_empty_rows():
    s, d = random_sparse((6, 3), density=0.2)
    out, empty = sp.fill_empty_rows(s, -1.0)
    want = d.copy()
    rows_empty = ~np.any(d != 0, axis=1)
    want[rows_empty, 0] = -1.0
    np.testing.assert_array_equal(dense_of(out), want)
    np.testing.assert_array_equal(empty.numpy(), rows_empty)
    strings = of.SparseTensor(np.array([[1, 0]], np.int64), of.constant([b"x"]), np.array([3, 2], np.int64))
    out, _ = sp.fill_empty_rows(strings, b"?")
    assert out.numpy().values.tolist() == [b"?", b"x", b"?"]


def test_slice_reshape_split_transpose_expand_dims():
    s, d = random_sparse((4, 5, 3))
    np.testing.assert_array_equal(dense_of(sp.slice(s, [1, 2, 0], [2, 9, 2])), d[1:3, 2:, 0:2])
    np.testing.assert_array_equal(dense_of(sp.reshape(s, [5, -1])), d.reshape(5, -1))
    parts = sp.split(sp_input=s, num_split=3, axis=1)  # 5 = 2 + 2 + 1
    np.testing.assert_array_equal(np.concatenate([dense_of(p) for p in parts], 1), d)
    assert [p.numpy().dense_shape[1] for p in parts] == [2, 2, 1]
    t = sp.transpose(s, [2, 0, 1])
    assert_canonical(t)
    np.testing.assert_array_equal(dense_of(t), d.transpose(2, 0, 1))
    np.testing.assert_array_equal(dense_of(sp.transpose(s)), d.transpose())
    for axis in (0, 2, -1):
        np.testing.assert_array_equal(dense_of(sp.expand_dims(s, axis)), np.expand_dims(d, axis))


def test_retain_reset_shape_eye_from_dense_merge_to_indicator():
    s, d = random_sparse((4, 5))
    keep = RNG.random(s.numpy().values.shape[0]) < 0.5
    v = s.numpy()
    want = np.zeros_like(d)
    for i, x in zip(v.indices[keep], v.values[keep]):
        want[tuple(i)] = x
    np.testing.assert_array_equal(dense_of(sp.retain(s, keep)), want)
    words = of.SparseTensor(v.indices, of.constant([b"w%d" % k for k in range(len(keep))]), v.dense_shape)
    kept = sp.retain(words, keep).numpy()
    assert kept.values.tolist() == [b"w%d" % k for k in np.flatnonzero(keep)]  # strings too
    np.testing.assert_array_equal(kept.indices, v.indices[keep])
    assert sp.reset_shape(s).numpy().dense_shape.tolist() == (v.indices.max(0) + 1).tolist()
    np.testing.assert_array_equal(sp.to_dense(sp.eye(3, 5)).numpy(), np.eye(3, 5, dtype=np.float32))
    np.testing.assert_array_equal(dense_of(sp.from_dense(d)), d)
    ids = of.SparseTensor(np.array([[0, 0], [0, 1], [2, 0]], np.int64), np.array([3, 1, 0], np.int64),
                          np.array([3, 2], np.int64))
    want = np.zeros((3, 4), bool)
    want[0, [3, 1]] = want[2, 0] = True
    np.testing.assert_array_equal(sp.to_indicator(ids, 4).numpy(), want)
    weights = of.SparseTensor(ids.indices, np.array([0.5, 2.0, 1.5]), ids.dense_shape)
    merged = sp.merge(ids, weights, 4)
    assert_canonical(merged)
    np.testing.assert_array_equal(dense_of(merged), np.where(want, [[0, 2.0, 0, 0.5], [0] * 4, [1.5, 0, 0, 0]], 0))


def test_maximum_minimum_softmax():
    a, da = random_sparse((4, 5))
    b, db = random_sparse((4, 5))
    np.testing.assert_array_equal(dense_of(sp.maximum(a, b)), np.maximum(da, db))
    np.testing.assert_array_equal(dense_of(sp.minimum(a, b)), np.minimum(da, db))
    out = dense_of(sp.softmax(a))
    for r in range(4):
        present = da[r] != 0
        if present.any():
            e = np.exp(da[r, present] - da[r, present].max())
            np.testing.assert_allclose(out[r, present], e / e.sum())


def test_sparse_dense_cwise_broadcasting():
    s, d = random_sparse((3, 4, 2))
    v = s.numpy()
    for dense in (RNG.normal(size=(3, 4, 2)), RNG.normal(size=(4, 1)), RNG.normal(size=(2,)), np.array(2.5)):
        full = np.broadcast_to(dense, d.shape)[tuple(v.indices.T)]
        for op, fn in ((of.ops.sparse_dense_cwise_mul, np.multiply), (of.ops.sparse_dense_cwise_div, np.divide),
                       (of.ops.sparse_dense_cwise_add, np.add)):
            np.testing.assert_allclose(op(v.indices, v.values, v.dense_shape, dense).numpy(), fn(v.values, full))


@pytest.mark.parametrize("kind", ["sum", "mean", "sqrt_n"])
def test_segment_reductions(kind):
    data = RNG.normal(size=(6, 3))
    indices = np.array([0, 4, 4, 2, 5, 1], np.int32)
    segs = np.array([0, 0, 1, 3, 3, 3], np.int32)
    want = np.zeros((4, 3))
    for s in range(4):
        rows = data[indices[segs == s]]
        n = len(rows)
        if n:
            want[s] = rows.sum(0) / {"sum": 1, "mean": n, "sqrt_n": np.sqrt(n)}[kind]
    fn = getattr(sp, f"segment_{kind}")
    np.testing.assert_allclose(fn(data, indices, segs).numpy(), want)
    np.testing.assert_allclose(fn(data, indices, segs, num_segments=6).numpy(), np.concatenate([want, np.zeros((2, 3))]))
    check_grad(lambda x: fn(x, indices, segs), data)


def test_crosses_are_tensorflows():
    """tests/data/string_hashes.npz holds TF's crosses of inputs rebuilt here (tools/tf_string_hashes.py)."""
    import os  # noqa: PLC0415
    d = np.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "string_hashes.npz"))
    a = of.SparseTensor(d["a_indices"].reshape(-1, 2), of.constant([b"f%d" % i for i in d["a_ids"]]),
                        np.array([6, 4], np.int64))
    b = of.SparseTensor(d["b_indices"].reshape(-1, 2), d["b_ids"], np.array([6, 4], np.int64))
    dense = np.array([[b"d%d" % i for i in row] for row in d["d_ids"]], dtype=object)
    crossed = sp.cross([a, b, dense]).numpy()
    np.testing.assert_array_equal(crossed.indices, d["cross_indices"])
    assert crossed.values.tolist() == d["cross_values"].tolist()
    np.testing.assert_array_equal(sp.cross_hashed([a, b, dense]).numpy().values, d["cross_hashed"])
    np.testing.assert_array_equal(sp.cross_hashed([a, b, dense], num_buckets=100, hash_key=99).numpy().values,
                                  d["cross_hashed_100"])
    assert sp.cross([a, dense], separator="+").numpy().values[0].count(b"+") == 1


def test_serialization_is_tensorflows_and_round_trips():
    import os  # noqa: PLC0415
    d = np.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "string_hashes.npz"))
    shape = np.array([3, 2, 4], np.int64)
    t = of.SparseTensor(d["ser_indices"], d["ser_floats"], shape)
    u = of.SparseTensor(d["ser_indices"], of.constant([b"s%d" % k for k in range(3)]), shape)

    def tf_bytes(key):  # TensorFlow's serialized strings, stored as a blob and lengths
        parts = np.split(d[f"{key}_blob"], np.cumsum(d[f"{key}_lengths"])[:-1])
        return np.array([bytes(p) for p in parts], dtype=object).reshape(d[f"{key}_shape"])
    assert sp.serialize_sparse(t).numpy().tolist() == tf_bytes("ser_one").tolist()  # TensorFlow's bytes
    assert sp.serialize_many_sparse(t).numpy().tolist() == tf_bytes("ser_many").tolist()
    assert sp.serialize_many_sparse(u).numpy().tolist() == tf_bytes("ser_many_strings").tolist()
    back = sp.deserialize_many_sparse(of.constant(tf_bytes("ser_many_strings"), dtype=of.string),
                                      dtype=of.string).numpy()
    np.testing.assert_array_equal(back.indices, d["ser_indices"])
    assert back.values.tolist() == [b"s0", b"s1", b"s2"]
    for dtype in (np.float64, np.int32, np.bool_, np.uint8):
        s, dense = random_sparse((4, 3, 2), dtype=dtype)
        out = sp.deserialize_many_sparse(sp.serialize_many_sparse(s), dtype=of.as_dtype(dtype))
        np.testing.assert_array_equal(dense_of(out), dense)


def test_bincount_against_numpy():
    v = RNG.integers(0, 7, (4, 5)).astype(np.int32)
    w = RNG.random((4, 5))

    def counts(out):
        o = out.numpy()
        dense = np.zeros(o.dense_shape, o.values.dtype)
        dense[tuple(o.indices.T)] = o.values
        return dense
    np.testing.assert_array_equal(counts(sp.bincount(v)), np.bincount(v.ravel()))
    np.testing.assert_array_equal(counts(sp.bincount(v, minlength=10)), np.bincount(v.ravel(), minlength=10))
    np.testing.assert_allclose(counts(sp.bincount(v, weights=w)), np.bincount(v.ravel(), w.ravel()))
    rows = np.stack([np.bincount(r, minlength=v.max() + 1) for r in v])
    np.testing.assert_array_equal(counts(sp.bincount(v, axis=-1)), rows)
    np.testing.assert_array_equal(counts(sp.bincount(v, axis=-1, binary_output=True)), rows > 0)
    np.testing.assert_array_equal(counts(sp.bincount(v, maxlength=3)), np.bincount(v.ravel())[:3])
    s, d = random_sparse((3, 4), dtype=np.int64)
    present = np.abs(d[d != 0]).astype(np.int64)
    s = of.SparseTensor(s.indices, of.ops.abs(s.values), s.dense_shape)
    np.testing.assert_array_equal(counts(sp.bincount(s)), np.bincount(present))
    with pytest.raises(ValueError, match="mutually exclusive"):
        sp.bincount(v, weights=w, binary_output=True)
    with pytest.raises(ValueError, match="Only 0 and -1"):
        sp.bincount(v, axis=1)


def test_mask_drops_the_masked_rows():
    from opforge.framework.sparse_tensor import IndexedSlices
    a = IndexedSlices(np.arange(8.0).reshape(4, 2), np.array([3, 1, 7, 1], np.int64), np.array([8, 2], np.int64))
    m = sp.mask(a, [1, 5])
    assert m.indices.numpy().tolist() == [3, 7]
    assert m.values.numpy().tolist() == [[0.0, 1.0], [4.0, 5.0]]
    np.testing.assert_array_equal(a.to_dense().numpy()[[1, 3, 7]], [[8.0, 10.0], [0.0, 1.0], [4.0, 5.0]])


# ------------------------------------------------------------------------------ gradients


def test_gradients_of_values_and_dense_operands():
    a, _ = random_sparse((4, 5))
    b, _ = random_sparse((4, 5))
    va, vb = a.numpy(), b.numpy()
    ai, ash, bi = va.indices, va.dense_shape, vb.indices

    def sparse_add(x, y):
        return of.ops.sparse_add(ai, x, ash, bi, y, ash, np.float64(0))[1]
    check_grad(sparse_add, va.values, vb.values)
    check_grad(lambda x, y: of.ops.sparse_tensor_dense_add(ai, x, ash, y), va.values, RNG.normal(size=(4, 5)))
    for axes, keep in (([1], False), ([0, 1], False), ([-2], True)):
        check_grad(lambda x, axes=axes, keep=keep: of.ops.sparse_reduce_sum(ai, x, ash, np.int32(axes), keep_dims=keep),
                   va.values)
    for adj_a in (False, True):
        for adj_b in (False, True):
            m = RNG.normal(size=(2, 4 if adj_a else 5) if adj_b else (4 if adj_a else 5, 2))
            check_grad(lambda x, y, adj_a=adj_a, adj_b=adj_b: of.ops.sparse_tensor_dense_mat_mul(
                ai, x, ash, y, adjoint_a=adj_a, adjoint_b=adj_b), va.values, m)
    check_grad(lambda x, dv: of.ops.sparse_fill_empty_rows(ai, x, np.array([6, 5], np.int64), dv)[1],
               va.values, np.float64(0.5))
    check_grad(lambda x: of.ops.sparse_slice(ai, x, ash, np.array([1, 1], np.int64), np.array([2, 3], np.int64))[1],
               va.values)
    check_grad(lambda x: of.ops.sparse_softmax(ai, x, ash), va.values / 4)
    for op in (of.ops.sparse_dense_cwise_mul, of.ops.sparse_dense_cwise_div):
        check_grad(lambda x, y, op=op: op(ai, x, ash, y), va.values, RNG.uniform(1, 2, size=(4, 5)))
        check_grad(lambda x, y, op=op: op(ai, x, ash, y), va.values, RNG.uniform(1, 2, size=(5,)))


# ------------------------------------------------------------------------------ errors


UNSORTED = of.SparseTensor(np.array([[1, 0], [0, 0]], np.int64), np.array([1.0, 2.0]), np.array([2, 2], np.int64))
GOOD = of.SparseTensor(np.array([[0, 0], [1, 1]], np.int64), np.array([1.0, 2.0]), np.array([2, 2], np.int64))
OUT = of.SparseTensor(np.array([[0, 0], [5, 1]], np.int64), np.array([1.0, 2.0]), np.array([2, 2], np.int64))


@pytest.mark.parametrize("call, message", [
    (lambda: sp.add(UNSORTED, GOOD), r"SparseAdd: a_indices\[1\] = \[0,0\] is out of order"),
    (lambda: sp.add(GOOD, sp.reshape(GOOD, [4, 1])), r"SparseAdd: Operands' shapes do not match: got \[2,2\] and \[4,1\]"),
    (lambda: sp.maximum(GOOD, UNSORTED), "SparseSparseMaximum: b_indices.* is out of order"),
    (lambda: sp.add(OUT, np.zeros((2, 2))), "SparseTensorDenseAdd: Index 1 of a_indices is out of bounds"),
    (lambda: sp.sparse_dense_matmul(OUT, np.ones((2, 2))), r"SparseTensorDenseMatMul: Row index 5 from index\[1\]"),
    (lambda: sp.sparse_dense_matmul(GOOD, np.ones((3, 2))), "inner dimension does not match: 2 vs. 3"),
    (lambda: sp.reshape(GOOD, [3, -1]), "SparseReshape: Input to reshape is a SparseTensor with 4 dense values"),
    (lambda: sp.reshape(GOOD, [-1, -1]), "only one output dimension may be -1"),
    (lambda: sp.split(sp_input=GOOD, num_split=3, axis=0), "SparseSplit: Input num_split should be between 1 and"),
    (lambda: sp.concat(0, [GOOD, sp.reshape(GOOD, [1, 4])]), "SparseConcat: Input shapes must match: expected 2"),
    (lambda: sp.slice(GOOD, [0], [1, 1]), "SparseSlice: Expected start to be a vector of length 2"),
    (lambda: sp.fill_empty_rows(OUT, 0.0), r"SparseFillEmptyRows: indices\(1, 0\) is invalid: 5 is not in \[0, 2\)"),
    (lambda: sp.reduce_sum(OUT, 0), r"SparseReduceSum: indices\[1\] = \[5,1\] is out of bounds"),
    (lambda: sp.reduce_sum(GOOD, [0, 0]), "SparseReduceSum: Duplicate reduction dimension 0"),
    (lambda: sp.reduce_max(GOOD, [3]), "SparseReduceMax: Invalid reduction dimension 3"),
    (lambda: sp.softmax(of.SparseTensor(np.array([[0]], np.int64), np.array([1.0]), np.array([2], np.int64))),
     "SparseSoftmax: sp_shape should have rank >= 2"),
    (lambda: of.ops.sparse_dense_cwise_mul(GOOD.indices, GOOD.values, GOOD.dense_shape, np.ones(3)),
     "SparseDenseCwiseMul: SparseDenseBinaryOpShared broadcasts dense to sparse only"),
    (lambda: sp.segment_sum(np.ones((3, 2)), [0, 1], [1, 0]), "SparseSegmentSum: segment ids are not increasing"),
    (lambda: sp.segment_mean(np.ones((3, 2)), [0, 3], [0, 0]), r"SparseSegmentMean: Bad: indices\[1\] == 3 out of range"),
    (lambda: sp.segment_sum(np.ones((3, 2)), [0, 1], [0, 4], num_segments=2), "segment ids must be < num_segments"),
    (lambda: sp.cross([GOOD, np.ones((3, 1), np.int64)]), "SparseCrossV2: Expected batch size 2 got 3"),
    (lambda: sp.cross([GOOD, np.ones(2, np.int64)]), "SparseCrossV2: Dense inputs should be a matrix"),
    (lambda: sp.cross_hashed([of.SparseTensor(np.array([[1, 0], [0, 0]], np.int64), np.array([1, 2], np.int64),
                                              np.array([2, 2], np.int64))]),
     "SparseCross: Sparse input 0's values must be grouped by row in order"),
    (lambda: sp.deserialize_many_sparse(of.constant(np.array([[b"x", b"y", b"z"]], object), dtype=of.string),
                                        dtype=of.float32), r"DeserializeManySparse: Could not parse serialized_sparse\[0\]"),
    (lambda: sp.deserialize_many_sparse(sp.serialize_many_sparse(GOOD), dtype=of.int32),
     "DeserializeManySparse: Requested SparseTensor of type int32"),
    (lambda: sp.deserialize_many_sparse(of.constant(np.concatenate([
        sp.serialize_many_sparse(GOOD).numpy(), sp.serialize_many_sparse(sp.reshape(GOOD, [2, 1, 2])).numpy()]),
        dtype=of.string), dtype=of.float64), "Inconsistent rank across SparseTensors"),
    (lambda: sp.deserialize_many_sparse(of.constant(np.zeros((0, 3), object), dtype=of.string), dtype=of.float32),
     "Serialized sparse should have at least 1 serialized tensor"),
    (lambda: sp.serialize_many_sparse(of.SparseTensor(np.array([[0]], np.int64), np.array([1.0]), np.array([2], np.int64))),
     "SerializeManySparse: Rank of input SparseTensor should be > 1"),
    (lambda: of.ops.sparse_add(np.zeros((2, 2), np.int64), np.ones(3), np.array([2, 2], np.int64), np.zeros((0, 2), np.int64),
                               np.ones(0), np.array([2, 2], np.int64), np.float64(0)), "SparseAdd: Expected 2 non-empty a_values"),
])
def test_bad_input_raises_invalid_argument(call, message):
    with pytest.raises(of.errors.InvalidArgumentError, match=message):
        call()


# ------------------------------------------------------------------------------ graphs and TensorFlow


def test_graph_with_sparse_placeholder_and_training_step():
    with of.Graph().as_default():
        x = of.sparse_placeholder(of.float64, shape=[None, 4])
        w = of.Variable(np.ones((4, 2)))
        y = sp.sparse_dense_matmul(x, w)
        total = of.reduce_sum(sp.reduce_sum(sp.add(x, x), 1))
        (gw,) = of.gradients(of.reduce_sum(y), [w])
        value = of.SparseTensorValue(np.array([[0, 1], [2, 3]], np.int64), np.array([2.0, 3.0]), np.array([3, 4]))
        with of.Session() as sess:
            sess.run(of.global_variables_initializer())
            yv, tv, gv = sess.run([y, total, gw], {x: value})
    np.testing.assert_array_equal(yv, [[2, 2], [0, 0], [3, 3]])
    assert tv == 10.0
    np.testing.assert_array_equal(gv, [[0, 0], [2, 2], [0, 0], [3, 3]])


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    s, d = random_sparse((4, 3, 5))
    v = s.numpy()
    t = tf.sparse.SparseTensor(v.indices, v.values, v.dense_shape)
    for axes in ([1], [0, 2], [-1]):
        np.testing.assert_array_equal(sp.reduce_max(s, axes).numpy(), tf.sparse.reduce_max(t, axes).numpy())
        np.testing.assert_array_equal(dense_of(sp.reduce_max_sparse(s, axes)),
                                      tf.sparse.to_dense(tf.compat.v1.sparse.reduce_max_sparse(t, axes)).numpy())
    out, theirs = sp.concat(2, [s, s]).numpy(), tf.sparse.concat(2, [t, t])
    np.testing.assert_array_equal(out.indices, theirs.indices.numpy())
    np.testing.assert_array_equal(out.values, theirs.values.numpy())
    s2, _ = random_sparse((7, 3), density=0.2)
    v2 = s2.numpy()
    t2 = tf.sparse.SparseTensor(v2.indices, v2.values, v2.dense_shape)
    ours, theirs = of.ops.sparse_fill_empty_rows(v2.indices, v2.values, v2.dense_shape, np.float64(9)), \
        tf.raw_ops.SparseFillEmptyRows(indices=v2.indices, values=v2.values, dense_shape=v2.dense_shape,
                                       default_value=np.float64(9))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for ours, theirs in zip(sp.split(sp_input=s2, num_split=2, axis=0), tf.sparse.split(sp_input=t2, num_split=2, axis=0)):
        np.testing.assert_array_equal(ours.numpy().indices, theirs.indices.numpy())
    ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 2]], tf.constant([1, 3, 0, 2], tf.int64), [5, 3])
    wts = tf.sparse.SparseTensor(ids.indices, tf.constant([2.0, 0.5, 1.0, -3.0], tf.float64), ids.dense_shape)
    oids = of.SparseTensor(ids.indices.numpy(), ids.values.numpy(), ids.dense_shape.numpy())
    owts = of.SparseTensor(wts.indices.numpy(), wts.values.numpy(), wts.dense_shape.numpy())
    params = RNG.normal(size=(4, 3))
    from opforge.ops import embedding_ops as em
    for combiner in ("sum", "mean", "sqrtn"):
        for w, ow in ((None, None), (wts, owts)):
            np.testing.assert_allclose(
                em.embedding_lookup_sparse(params, oids, ow, combiner=combiner).numpy(),
                tf.nn.embedding_lookup_sparse(params, ids, w, combiner=combiner).numpy(), rtol=1e-12)
            np.testing.assert_allclose(
                em.safe_embedding_lookup_sparse(params, oids, ow, combiner=combiner).numpy(),
                tf.nn.safe_embedding_lookup_sparse(params, ids, w, combiner=combiner).numpy(), rtol=1e-12)


def test_bincount_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    v = RNG.integers(0, 6, (3, 4)).astype(np.int32)
    w = RNG.random((3, 4)).astype(np.float32)
    for kw in ({}, {"axis": -1}, {"minlength": 9}, {"maxlength": 3, "axis": -1}, {"binary_output": True},
               {"weights": w, "axis": -1}):
        ours, theirs = sp.bincount(v, **kw).numpy(), tf.sparse.bincount(v, **kw)
        np.testing.assert_array_equal(ours.indices, theirs.indices.numpy())
        np.testing.assert_array_equal(ours.values, theirs.values.numpy())
        np.testing.assert_array_equal(ours.dense_shape, theirs.dense_shape.numpy())
        assert ours.values.dtype == theirs.values.dtype.as_numpy_dtype
