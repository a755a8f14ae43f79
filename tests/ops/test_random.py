"""Random ops: they cannot be compared value by value with NumPy, so they are checked by their
distributions (mean, variance, bounds, truncation at two standard deviations), by
reproducibility under seeds (eager, graphs, of.random.set_seed, stateless seeds), by differing
streams without seeds, and by the Philox4x32-10 bits themselves (published known answers,
reproduced through the ops' integer outputs)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opmatrix import ALL_OPS_BY_NAME, covers

COVERAGE_CATEGORIES = ("statistical",)
RANDOM_OPS = sorted(n for n, op in ALL_OPS_BY_NAME.items() if op.group == "random")

o = of.ops
FLOATS = ["half", "bfloat16", "float32", "float64"]
N = 40000  # samples per statistical check: mean error ~ 0.005 (uniform), 0.005 (normal)


def _np(t):
    return t.numpy().astype(np.float64)


# ------------------------------------------------------------------------------ distributions


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
def test_uniform_distribution(dtype, stateless):
    name = "StatelessRandomUniform" if stateless else "RandomUniform"
    with covers("statistical", name):
        x = (o.stateless_random_uniform(np.array([N], np.int32), np.array([7, 11], np.int64), dtype=dtype)
             if stateless else o.random_uniform(np.array([200, N // 200], np.int32), dtype, seed=7, seed2=11))
        assert x.dtype == of.as_dtype(dtype) and x.size == N
        v = _np(x)
        assert v.min() >= 0.0 and v.max() < 1.0
        tol = 0.02 if dtype in ("half", "bfloat16") else 0.01
        assert abs(v.mean() - 0.5) < tol, v.mean()
        assert abs(v.var() - 1 / 12) < tol, v.var()
        hist = np.histogram(v, bins=8, range=(0, 1))[0] / N
        assert np.all(np.abs(hist - 1 / 8) < 0.02), hist


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
def test_normal_distribution(dtype, stateless):
    name = "StatelessRandomNormal" if stateless else "RandomStandardNormal"
    with covers("statistical", name):
        x = (o.stateless_random_normal(np.array([N], np.int32), np.array([3, 5], np.int64), dtype=dtype)
             if stateless else o.random_standard_normal(np.array([N], np.int64), dtype, seed=3, seed2=5))
        v = _np(x)
        assert abs(v.mean()) < 0.03 and abs(v.std() - 1) < 0.03, (v.mean(), v.std())
        assert abs(np.mean(np.abs(v) < 1) - 0.6827) < 0.02  # the normal's shape, not only moments
        assert abs(np.mean(v ** 3)) < 0.1 and abs(np.mean(v ** 4) - 3) < 0.3  # symmetric, normal tails


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
def test_truncated_normal_distribution(dtype, stateless):
    name = "StatelessTruncatedNormal" if stateless else "TruncatedNormal"
    with covers("statistical", name):
        x = (o.stateless_truncated_normal(np.array([N], np.int32), np.array([1, 2], np.int64), dtype=dtype)
             if stateless else o.truncated_normal(np.array([N], np.int32), dtype, seed=1, seed2=2))
        v = _np(x)
        bound = 2.0 if dtype in ("half", "bfloat16") else np.nextafter(2.0, 0)  # 16-bit may round to 2
        assert np.abs(v).max() <= bound, np.abs(v).max()
        # N(0, 1) truncated to (-2, 2): mean 0, variance 1 - 4 phi(2) / (2 Phi(2) - 1) = 0.7737
        assert abs(v.mean()) < 0.03 and abs(v.var() - 0.7737) < 0.03, (v.mean(), v.var())
        assert np.mean(np.abs(v) > 1.9) > 0.005  # the tails reach the cut


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("stateless", [False, True], ids=["stateful", "stateless"])
def test_uniform_int_distribution(dtype, stateless):
    name = "StatelessRandomUniformInt" if stateless else "RandomUniformInt"
    npdt = np.dtype(dtype)
    lo, hi = npdt.type(-3), npdt.type(7)
    with covers("statistical", name):
        x = (o.stateless_random_uniform_int(np.array([N], np.int32), np.array([4, 4], np.int32), lo, hi)
             if stateless else o.random_uniform_int(np.array([N], np.int32), lo, hi, seed=4, seed2=4))
        v = x.numpy()
        assert v.dtype == npdt and v.min() == -3 and v.max() == 6
        counts = np.bincount(v + 3, minlength=10) / N
        assert np.all(np.abs(counts - 0.1) < 0.01), counts
        big = o.random_uniform_int(np.array([1000], np.int32), npdt.type(np.iinfo(npdt).min),
                                   npdt.type(np.iinfo(npdt).max), seed=9, seed2=1).numpy()
        assert big.min() < np.iinfo(npdt).min // 2 and big.max() > np.iinfo(npdt).max // 2


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64", "half"])
def test_shuffle_is_a_permutation_of_rows(dtype):
    with covers("statistical", "RandomShuffle"):
        x = np.arange(60).reshape(20, 3).astype(dtype)
        y = o.random_shuffle(x, seed=5, seed2=6).numpy()
        if dtype == "bool":
            assert y.shape == x.shape and y.sum() == x.sum()
            return
        order = np.argsort(y[:, 0].astype(np.float64))
        np.testing.assert_array_equal(y[order], x)  # rows move whole
        assert not np.array_equal(y, x)
        firsts = [int(o.random_shuffle(np.arange(4), seed=s, seed2=1).numpy()[0]) for s in range(1, 200)]
        counts = np.bincount(firsts, minlength=4) / len(firsts)
        assert np.all(np.abs(counts - 0.25) < 0.12), counts  # uniform over positions
        assert o.random_shuffle(np.float32(3), seed=1, seed2=1).numpy() == 3  # a scalar stays
        assert o.random_shuffle(np.zeros((0, 2)), seed=1, seed2=1).shape == (0, 2)


# ------------------------------------------------------------------------------ seeds and streams


def test_seeded_ops_continue_their_stream_and_set_seed_restarts_it():
    with covers("statistical", "RandomUniform"):
        of.random.set_seed(1234)
        a1, a2 = of.random.uniform([5], seed=1).numpy(), of.random.uniform([5], seed=1).numpy()
        assert not np.array_equal(a1, a2)  # the stream goes on (TensorFlow's behaviour)
        of.random.set_seed(1234)
        np.testing.assert_array_equal(of.random.uniform([5], seed=1).numpy(), a1)
        np.testing.assert_array_equal(of.random.uniform([5], seed=1).numpy(), a2)


def test_global_seed_makes_programs_reproducible():
    def program():
        of.random.set_seed(42)
        return [of.random.normal([3]).numpy(), of.random.uniform([2], 5, 6).numpy(),
                of.random.truncated_normal([4], stddev=0.1).numpy(), of.random.shuffle(np.arange(8)).numpy(),
                of.random.uniform([3], maxval=100, dtype="int64").numpy()]
    first, second = program(), program()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], of.random.normal([3]).numpy())
    of.random.set_seed(43)
    assert not np.array_equal(first[0], of.random.normal([3]).numpy())
    assert np.all((first[1] >= 5) & (first[1] < 6)) and np.abs(first[2]).max() < 0.2


def test_unseeded_streams_differ():
    of.random.set_seed(None)
    assert of.random.get_seed(None) == (0, 0)
    a = o.random_uniform(np.array([8], np.int32), of.float32).numpy()
    b = o.random_standard_normal(np.array([8], np.int32), of.float32).numpy()
    c = o.random_uniform(np.array([8], np.int32), of.float32).numpy()
    assert not np.array_equal(a, c) and not np.array_equal(a, b)


def test_get_seed_follows_tensorflow():
    of.random.set_seed(None)
    assert of.random.get_seed(7) == (of.random.DEFAULT_GRAPH_SEED, 7)
    of.random.set_seed(5)
    assert of.random.get_seed(None) == (5, 0) and of.random.get_seed(None) == (5, 1)
    assert of.random.get_seed(3) == (5, 3)
    of.random.set_seed(0)
    assert of.random.get_seed(0) == (0, 2**31 - 1)  # (0, 0) would mean "non-deterministic"
    of.random.set_seed(None)


def test_stateless_is_a_pure_function_of_the_seed():
    with covers("statistical", "StatelessRandomNormal"):
        s = np.array([17, 99], np.int64)
        a = o.stateless_random_normal(np.array([6], np.int32), s).numpy()
        np.testing.assert_array_equal(a, o.stateless_random_normal(np.array([6], np.int32), s).numpy())
        np.testing.assert_array_equal(a, o.stateless_random_normal(np.array([6], np.int32), s.astype(np.int32)).numpy())
        assert not np.array_equal(a, o.stateless_random_normal(np.array([6], np.int32), np.array([17, 98])).numpy())
        assert not np.array_equal(a, o.stateless_random_normal(np.array([6], np.int32), np.array([18, 99])).numpy())
        # a prefix of a longer draw: elements do not depend on the output size
        longer = o.stateless_random_normal(np.array([10], np.int32), s).numpy()
        np.testing.assert_array_equal(longer[:6], a)


def test_large_outputs_are_split_across_threads_without_changing_values():
    n = 300_001  # > the parallel grain; odd so the last block is partial
    s = np.array([5, 8], np.int64)
    for fn in (o.stateless_random_uniform, o.stateless_random_normal, o.stateless_truncated_normal):
        big = fn(np.array([n], np.int32), s).numpy()
        small = fn(np.array([1001], np.int32), s).numpy()
        np.testing.assert_array_equal(big[:1001], small)


def test_graph_nodes_keep_a_stream_per_session():
    g = of.Graph()
    with g.as_default():
        of.random.set_seed(7)
        u = of.random.uniform([4])
        n = of.random.normal([4], seed=3)
    with of.Session(graph=g) as sess:
        a1, b1 = sess.run([u, n])
        a2, _ = sess.run([u, n])
    assert not np.array_equal(a1, a2)
    with of.Session(graph=g) as sess:  # a new session starts the streams over
        a3, b3 = sess.run([u, n])
    np.testing.assert_array_equal(a1, a3)
    np.testing.assert_array_equal(b1, b3)
    assert u.shape == (4,) and u.dtype == of.float32
    of.random.set_seed(None)


def test_compat_v1_random_functions():
    import opforge.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(11)
        x = tf.random_normal([3, 2], mean=1.0, stddev=0.5)
        y = tf.random_uniform([2], minval=-1, maxval=1)
        z = tf.truncated_normal([5])
        w = tf.random_shuffle(tf.constant(np.arange(5)))
        s = tf.random.stateless_uniform([2], seed=[1, 2])
    with tf.Session(graph=g) as sess:
        xv, yv, zv, wv, sv = sess.run([x, y, z, w, s])
    assert xv.shape == (3, 2) and np.all(np.abs(yv) <= 1) and np.abs(zv).max() < 2
    assert sorted(wv) == list(range(5)) and sv.shape == (2,)
    g2 = tf.Graph()
    with g2.as_default():
        tf.set_random_seed(11)
        x2 = tf.random_normal([3, 2], mean=1.0, stddev=0.5)
    with tf.Session(graph=g2) as sess:
        np.testing.assert_array_equal(sess.run(x2), xv)  # same graph seed, same op order
    of.random.set_seed(None)


def test_random_ops_are_not_differentiable():
    x = of.constant(np.arange(4.0))
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.mul(o.random_shuffle(x, seed=1, seed2=2), 2.0)
    assert tape.gradient(y, x) is None


# ------------------------------------------------------------------------------ the bits


M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox(counter, key):
    """Philox4x32-10 in Python (the reference the kernels are checked against)."""
    c, k = [int(v) for v in counter], [int(v) for v in key]
    for r in range(10):
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & 0xFFFFFFFF, p1 & 0xFFFFFFFF,
             ((p0 >> 32) ^ c[3] ^ k[1]) & 0xFFFFFFFF, p0 & 0xFFFFFFFF]
        k = [(k[0] + W0) & 0xFFFFFFFF, (k[1] + W1) & 0xFFFFFFFF]
    return c


def test_python_philox_matches_the_published_known_answers():
    """Random123's kat_vectors for philox4x32 with 10 rounds."""
    assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    assert philox([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0]) == \
        [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


def _words_from_int64(v):
    """Full-range RandomUniformInt int64 draws back to their 32-bit Philox words."""
    bits = (v.astype(np.int64).view(np.uint64) + np.uint64(2**63)).astype(np.uint64)
    return [int(w) for b in bits for w in (int(b) & 0xFFFFFFFF, int(b) >> 32)]


def test_kernels_produce_philox_words_with_tensorflow_seeding():
    with covers("statistical", "RandomUniformInt"):
        seed, seed2 = 0x0123456789ABCDEF, 0x1122334455667788
        lo, hi = np.int64(-(2**63)), np.int64(2**63 - 1)
        v = o.random_uniform_int(np.array([4], np.int32), lo, hi, seed=seed, seed2=seed2).numpy()
        key = [seed & 0xFFFFFFFF, seed >> 32]
        want = philox([0, 0, seed2 & 0xFFFFFFFF, seed2 >> 32], key) + \
            philox([1, 0, seed2 & 0xFFFFFFFF, seed2 >> 32], key)
        assert _words_from_int64(v) == want
    with covers("statistical", "StatelessRandomUniform"):
        s0, s1 = 12345, 678
        mix = philox([s0, 0, s1, 0], [0x3EC8F720, 0x02461E29])
        words = philox([0, 0, mix[2], mix[3]], mix[:2])
        want = [np.float32(np.uint32((127 << 23) | (w & 0x7FFFFF)).view(np.float32)) - np.float32(1) for w in words]
        got = o.stateless_random_uniform(np.array([4], np.int32), np.array([s0, s1], np.int64)).numpy()
        np.testing.assert_array_equal(got, np.array(want, np.float32))


def test_every_random_op_is_tested_here():
    assert set(RANDOM_OPS) == {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
                               "RandomShuffle", "StatelessRandomUniform", "StatelessRandomNormal",
                               "StatelessTruncatedNormal", "StatelessRandomUniformInt", "LogUniformCandidateSampler",
                               # moments, seeds and determinism: test_random_distributions.py
                               "RandomGamma", "RandomPoissonV2", "StatelessRandomGammaV2", "StatelessRandomPoisson",
                               # frequencies and expected counts: test_candidate_sampling_ops.py
                               "UniformCandidateSampler", "FixedUnigramCandidateSampler", "AllCandidateSampler",
                               "ComputeAccidentalHits",
                               # learned counts and expected counts: test_learned_unigram_sampler.py
                               "LearnedUnigramCandidateSampler",
                               # TF's values, moments and frequencies: test_stateless_samplers.py
                               "StatelessRandomBinomial", "StatelessMultinomial",
                               "StatelessParameterizedTruncatedNormal", "RandomIndexShuffle"}


def test_log_uniform_candidate_sampler_distribution():
    """Frequencies of 40000 draws (with replacement) against P(k) = log((k + 2) / (k + 1)) /
    log(range_max + 1), each within 5 standard deviations; expected counts n * P(k)."""
    range_max, n = 20, 40000
    with covers("statistical", "LogUniformCandidateSampler"):
        sampled, true_expected, sampled_expected = (t.numpy() for t in of.raw_ops.LogUniformCandidateSampler(
            true_classes=np.array([[3], [19]], np.int64), num_true=1, num_sampled=n, unique=False,
            range_max=range_max, seed=7, seed2=11))
        p = np.log((np.arange(range_max) + 2.0) / (np.arange(range_max) + 1.0)) / np.log(range_max + 1.0)
        assert sampled.min() >= 0 and sampled.max() < range_max
        freq = np.bincount(sampled, minlength=range_max) / n
        np.testing.assert_array_less(np.abs(freq - p), 5 * np.sqrt(p * (1 - p) / n))
        np.testing.assert_allclose(true_expected.ravel(), n * p[[3, 19]], rtol=1e-6)
        np.testing.assert_allclose(sampled_expected, n * p[sampled], rtol=1e-6)
