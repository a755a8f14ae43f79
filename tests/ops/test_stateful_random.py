"""tf.random.Generator and the seed helpers (ops/stateful_random.py): state layout as TF's,
seeded determinism, the counter advancing per draw (each Session run in a graph), and the
distributions of the draws."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework.eager_scope import eager_scope
from opforge.ops import stateful_random as sr


def test_create_rng_state_matches_tensorflow_layout():
    np.testing.assert_array_equal(sr.create_rng_state(1, "philox"), [1, 0, 0])
    np.testing.assert_array_equal(sr.create_rng_state(2 ** 70 + 5, "threefry"), [5, 64])
    assert sr.create_rng_state(3, sr.Algorithm.AUTO_SELECT).shape == (3,)
    with pytest.raises(ValueError, match="unsupported value"):
        sr.create_rng_state(1, "mersenne")
    with pytest.raises(ValueError, match="non-negative"):
        sr.create_rng_state(-1, "philox")
    tf = pytest.importorskip("tensorflow")
    for seed, alg in [(1, "philox"), (12345678901234567890, "philox"), (2 ** 70 + 5, "threefry")]:
        np.testing.assert_array_equal(sr.create_rng_state(seed, alg), tf.random.create_rng_state(seed, alg).numpy())


def test_eager_determinism_and_advancing():
    a, b = sr.Generator.from_seed(7), sr.Generator.from_seed(7)
    x1, x2 = a.normal([4]).numpy(), a.normal([4]).numpy()
    np.testing.assert_array_equal(x1, b.normal([4]).numpy())
    assert not np.array_equal(x1, x2)
    np.testing.assert_array_equal(a.state.numpy(), [9, 0, 0])
    c = sr.Generator(copy_from=b)
    np.testing.assert_array_equal(c.normal([4]).numpy(), x2)
    b.reset_from_seed(7)
    np.testing.assert_array_equal(b.normal([4]).numpy(), x1)
    b.skip(5)
    np.testing.assert_array_equal(b.state.numpy(), [13, 0, 0])
    with pytest.raises(ValueError, match="has 3 elements"):
        sr.Generator(state=[1, 2], alg="philox")
    kids = sr.Generator.from_seed(1).split(3)
    draws = [k.uniform([5]).numpy() for k in kids]
    assert len({d.tobytes() for d in draws}) == 3


def test_distributions():
    g = sr.Generator.from_seed(1234, alg="threefry")
    n = g.normal([20000], mean=2.0, stddev=3.0, dtype=of.float64).numpy()
    assert abs(n.mean() - 2.0) < 0.1 and abs(n.std() - 3.0) < 0.1
    u = g.uniform([20000], minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.05
    i = g.uniform([20000], minval=0, maxval=5, dtype=of.int32).numpy()
    assert set(np.unique(i)) == {0, 1, 2, 3, 4} and np.all(np.abs(np.bincount(i) / 20000 - 0.2) < 0.02)
    t = g.truncated_normal([20000]).numpy()
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.8796) < 0.03  # std of N(0,1) cut at 2 sigma
    full = g.uniform_full_int([1000], of.int64).numpy()
    assert full.dtype == np.int64 and len(np.unique(full)) == 1000
    seeds = g.make_seeds(4).numpy()
    assert seeds.shape == (2, 4) and seeds.dtype == np.int64


def test_graph_mode_advances_per_run(graph):
    gen = sr.Generator.from_seed(3)
    draw = gen.normal([3])
    assert hasattr(gen.state, "_variable_op")
    with of.Session(graph=graph) as s:
        s.run(of.global_variables_initializer())
        first, second = s.run(draw), s.run(draw)
        np.testing.assert_array_equal(s.run(gen.state), [5, 0, 0])
    assert not np.array_equal(first, second)
    with eager_scope():  # the same numbers as eagerly
        np.testing.assert_array_equal(first, sr.Generator.from_seed(3).normal([3]).numpy())
    with pytest.raises(NotImplementedError, match="split in a graph"):
        gen.split(2)


def test_seed_helpers_and_global_generator():
    seeds = sr.split(np.array([1, 2], np.int64), num=3).numpy()
    assert seeds.shape == (3, 2) and seeds.dtype == np.int64 and len({tuple(r) for r in seeds}) == 3
    np.testing.assert_array_equal(seeds, sr.split(np.array([1, 2], np.int64), num=3).numpy())
    folded = sr.fold_in(np.array([1, 2], np.int64), np.int64(9)).numpy()
    assert folded.shape == (2,) and folded[1] == 9
    assert not np.array_equal(folded, sr.fold_in(np.array([1, 3], np.int64), np.int64(9)).numpy())
    g1 = sr.get_global_generator()
    assert sr.get_global_generator() is g1
    mine = sr.Generator.from_seed(5)
    sr.set_global_generator(mine)
    try:
        assert sr.get_global_generator() is mine
    finally:
        sr._global_generator.clear()  # the process's generator again (other tests use it)
    with pytest.raises(TypeError, match="expected a Generator"):
        sr.set_global_generator(3)
