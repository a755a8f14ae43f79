"""The caching host allocator and executor memory planning."""

import resource

import numpy as np
import pytest

import opforge as of

# Sanitized builds hand every block straight back to malloc (so ASan sees misuse).
caching = of.config.memory_stats()["cache_limit"] > 0
needs_cache = pytest.mark.skipif(not caching, reason="host cache disabled in this build")


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _chain_graph(n_ops, size):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [size], name="x")
        y = x
        for i in range(n_ops):
            y = of.square(y) if i % 2 == 0 else of.sqrt(y)
    return g, x, y


def test_stats_keys_and_counts():
    st = of.config.memory_stats()
    for key in ("bytes_in_use", "peak_bytes_in_use", "bytes_cached", "cache_limit", "num_allocs",
                "cache_hits", "os_allocs", "os_frees"):
        assert key in st and st[key] >= 0
    before = of.config.memory_stats()["num_allocs"]
    t = of.constant(np.arange(1000, dtype=np.float32))
    of.add(t, t)
    assert of.config.memory_stats()["num_allocs"] > before


@needs_cache
def test_freed_blocks_are_reused_and_empty_cache_returns_them():
    a = of.constant(np.random.default_rng(0).random(300_000).astype(np.float32))  # 1.2 MB
    of.square(a)  # its output is freed right away and cached
    st = of.config.memory_stats()
    assert st["bytes_cached"] >= a.nbytes
    hits = st["cache_hits"]
    for _ in range(5):
        np.testing.assert_allclose(of.square(a).numpy(), a.numpy() ** 2, rtol=1e-6)
    assert of.config.memory_stats()["cache_hits"] >= hits + 5
    of.config.empty_cache()
    assert of.config.memory_stats()["bytes_cached"] == 0


@needs_cache
def test_cache_limit_bounds_what_is_kept():
    try:
        of.config.set_host_cache_limit(0)
        a = of.constant(np.ones(100_000, np.float32))
        of.square(a)
        assert of.config.memory_stats()["bytes_cached"] == 0
        assert of.config.memory_stats()["cache_limit"] == 0
        of.config.set_host_cache_limit(1 << 20)
        for n in (50_000, 60_000, 70_000, 80_000):
            of.square(of.constant(np.ones(n, np.float32)))
        assert of.config.memory_stats()["bytes_cached"] <= 1 << 20
    finally:
        of.config.set_host_cache_limit(1 << 30)
    with pytest.raises(ValueError, match="num_bytes"):
        of.config.set_host_cache_limit(-1)


@needs_cache
def test_steady_state_session_runs_fault_no_new_pages():
    size = 1 << 20  # 4 MB intermediates: 1024 pages each if they went back to the OS
    g, x, y = _chain_graph(8, size)
    sess = of.Session(graph=g)
    xv = np.random.default_rng(1).random(size).astype(np.float32) + 0.5
    out = None
    for _ in range(3):  # warm-up: the cache fills
        out = sess.run(y, {x: xv})
    del out
    before = _faults()
    runs = 10
    for _ in range(runs):
        out = sess.run(y, {x: xv})
        del out
    per_run = (_faults() - before) / runs
    assert per_run < 64, f"{per_run} page faults per steady-state run"


@needs_cache
def test_steady_state_eager_loop_faults_no_new_pages():
    a = of.constant(np.random.default_rng(2).random(1 << 20).astype(np.float32))
    for _ in range(3):
        of.exp(of.square(a))
    before = _faults()
    for _ in range(10):
        of.exp(of.square(a))
    assert (_faults() - before) / 10 < 64


def test_run_frees_intermediates_after_their_last_use():
    """A chain of n ops holds about two intermediates at a time, not n."""
    size = 1 << 18  # 1 MB
    g, x, y = _chain_graph(20, size)
    sess = of.Session(graph=g)
    xv = np.random.default_rng(3).random(size).astype(np.float32) + 0.5
    want = xv.copy()
    for i in range(20):
        want = np.square(want) if i % 2 == 0 else np.sqrt(want)
    sess.run(y, {x: xv})
    base = of.config.memory_stats()["bytes_in_use"]
    of.config.reset_peak_memory_stats()
    got = sess.run(y, {x: xv})
    peak = of.config.memory_stats()["peak_bytes_in_use"] - base
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert peak <= 4 * (size * 4), f"peak {peak} bytes for a chain of 20 ops on 1 MB"
