"""CTCBeamSearchDecoder (tf.nn.ctc_beam_search_decoder, _v2) and tf.nn.ctc_unique_labels: with a
beam wide enough to keep every prefix the search is exact, so its best paths and log
probabilities must be those of a brute-force sum over all alignments (NumPy); on random
logits, TensorFlow's answers when it is installed; and the diagnostics."""

import itertools

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.ops import ctc_ops


def _brute_force(logits, top):
    """The `top` most likely label sequences (blank = last class) and their log probabilities,
    summing the softmax probability of every alignment."""
    t, c = logits.shape
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    totals: dict = {}
    for path in itertools.product(range(c), repeat=t):
        seq = tuple(k for i, k in enumerate(path) if k != c - 1 and (i == 0 or path[i - 1] != k))
        totals[seq] = np.logaddexp(totals.get(seq, -np.inf), sum(logp[i, k] for i, k in enumerate(path)))
    best = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [list(s) for s, _ in best], np.array([p for _, p in best])


def _paths(decoded, batch):
    out = []
    for sp in decoded:
        idx, vals = np.asarray(sp.indices), np.asarray(sp.values)
        out.append([vals[idx[:, 0] == b].tolist() for b in range(batch)])
    return out


def test_wide_beam_is_exact(rng):
    logits = rng.standard_normal((4, 2, 3)) * 1.5
    decoded, log_probs = ctc_ops.ctc_beam_search_decoder_v2(logits, [4, 3], beam_width=64, top_paths=3)
    paths = _paths(decoded, 2)
    for b, steps in enumerate((4, 3)):
        want_paths, want_lp = _brute_force(logits[:steps, b], 3)
        assert [paths[p][b] for p in range(3)] == want_paths
        np.testing.assert_allclose(np.asarray(log_probs)[b], want_lp, rtol=1e-10)
    assert all(np.asarray(sp.dense_shape).tolist() == [2, max(len(x) for x in p)] for sp, p in zip(decoded, paths))


def test_static_shapes_and_merge_repeated(graph):
    x = tf.placeholder(tf.float32, [None, 4, 5])
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(x, tf.placeholder(tf.int32, [4]), beam_width=5, top_paths=2)
    assert len(decoded) == 2 and log_probs.shape.as_list() == [4, 2]
    assert decoded[0].indices.shape.as_list() == [None, 2] and decoded[1].dense_shape.shape.as_list() == [2]
    unique, idx = tf.nn.ctc_unique_labels(tf.placeholder(tf.int32, [3, 6]))
    assert unique.shape.as_list() == [3, 6] and idx.shape.as_list() == [3, 6]


def test_merge_repeated():
    # One path "a a" (a, blank, a) that merge_repeated reads out as "a".
    logits = np.log(np.array([[[0.98, 0.01, 0.01]], [[0.01, 0.01, 0.98]], [[0.98, 0.01, 0.01]]]))
    merged, _ = ctc_ops.ctc_beam_search_decoder(logits, [3], beam_width=2, merge_repeated=True)
    kept, _ = ctc_ops.ctc_beam_search_decoder(logits, [3], beam_width=2, merge_repeated=False)
    assert np.asarray(merged[0].values).tolist() == [0] and np.asarray(kept[0].values).tolist() == [0, 0]


def test_matches_tensorflow(rng):
    real = pytest.importorskip("tensorflow")
    for _ in range(8):
        t, b, c = rng.integers(1, 12), rng.integers(1, 4), rng.integers(2, 8)
        x = (rng.standard_normal((t, b, c)) * 2).astype(np.float32)
        lengths = rng.integers(1, t + 1, b).astype(np.int32)
        width = int(rng.integers(1, 8))
        top = int(rng.integers(1, width + 1))
        kw = dict(beam_width=width, top_paths=top, merge_repeated=bool(rng.integers(0, 2)))
        got, got_lp = ctc_ops.ctc_beam_search_decoder(x, lengths, **kw)
        try:
            want, want_lp = real.compat.v1.nn.ctc_beam_search_decoder(x, lengths, **kw)
        except real.errors.InvalidArgumentError:
            with pytest.raises(of.InvalidArgumentError, match="Less leaves"):
                ctc_ops.ctc_beam_search_decoder(x, lengths, **kw)
            continue
        np.testing.assert_allclose(np.asarray(got_lp), want_lp.numpy(), rtol=1e-5, atol=1e-5)
        for g, w in zip(got, want):
            for a, e in zip((g.indices, g.values, g.dense_shape), (w.indices, w.values, w.dense_shape)):
                np.testing.assert_array_equal(np.asarray(a), e.numpy())


def test_diagnostics():
    x = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(of.InvalidArgumentError, match="CTCBeamSearchDecoder.*more paths than the beam width"):
        ctc_ops.ctc_beam_search_decoder(x, [3, 3], beam_width=1, top_paths=2)
    with pytest.raises(of.InvalidArgumentError, match="CTCBeamSearchDecoder.*Less leaves"):
        ctc_ops.ctc_beam_search_decoder(x, [0, 3], beam_width=3, top_paths=2)
    with pytest.raises(of.InvalidArgumentError, match="CTCBeamSearchDecoder.*sequence_length"):
        ctc_ops.ctc_beam_search_decoder(x, [4, 3], beam_width=2)
    with pytest.raises(of.InvalidArgumentError, match="CTCBeamSearchDecoder"):
        ctc_ops.ctc_beam_search_decoder(x, [3, 3, 3], beam_width=2)
    with pytest.raises(of.InvalidArgumentError, match="CTCBeamSearchDecoder.*rank 3"):
        ctc_ops.ctc_beam_search_decoder(np.zeros((3, 4), np.float32), [3], beam_width=2)


def test_ctc_unique_labels(rng):
    labels = rng.integers(0, 5, (4, 7)).astype(np.int32)
    unique, idx = ctc_ops.ctc_unique_labels(labels)
    assert unique.dtype == tf.int64 and idx.dtype == tf.int32
    for row, u, i in zip(labels, np.asarray(unique), np.asarray(idx)):
        firsts = list(dict.fromkeys(row.tolist()))
        assert u.tolist() == firsts + [0] * (len(row) - len(firsts))
        assert i.tolist() == [firsts.index(v) for v in row]
    with pytest.raises(ValueError, match="max_label_length"):
        ctc_ops.ctc_unique_labels(np.zeros(3, np.int32))
