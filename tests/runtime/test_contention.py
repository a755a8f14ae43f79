"""The thread pool under other processes' load: a parallel region that has to wait out a
worker the OS descheduled (simulated: a part that takes milliseconds while the caller's took
a fraction of that) makes the following regions run on the calling thread alone for a while,
instead of each waiting out a time slice; then the pool is used again."""

import time

import numpy as np
import pytest

import opforge as of
from opforge import _C

T = _C._testing


@pytest.fixture
def two_threads():
    of.config.threading.set_intra_op_parallelism_threads(2)
    yield
    of.config.threading.set_intra_op_parallelism_threads(0)


def _wait_quiet():
    deadline = time.monotonic() + 1.0
    while T.parallel_contended() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not T.parallel_contended()


def test_a_straggler_makes_regions_inline_for_a_while(two_threads):
    _wait_quiet()
    for _ in range(20):  # wakes the worker; quick regions never count as contended
        T.parallel_probe(2, 0)
    assert not T.parallel_contended()
    used = 0
    for _ in range(20):  # the worker claims part 1 while the caller runs part 0 (most tries)
        used = T.parallel_probe(2, 5000)
        if T.parallel_contended():
            break
    assert used == 2 and T.parallel_contended()
    assert T.parallel_probe(4, 0) == 1  # inline now: every part on the calling thread
    _wait_quiet()  # (50 ms)
    # The pool again: a worker takes part 1 (400 us) while the caller runs part 0 (300 us).
    assert max(T.parallel_probe(2, 400) for _ in range(20)) == 2


def _contend():
    for _ in range(20):
        T.parallel_probe(2, 5000)
        if T.parallel_contended():
            return True
    return False


def test_reductions_do_not_depend_on_scheduling(two_threads):
    """Kernels that sum per-part partials combine them in the parts' order: repeated runs, and
    a run made inline under contention (the same parts, in order), give identical bits."""
    rng = np.random.default_rng(0)
    g = of.constant(rng.standard_normal((64, 28, 28, 32)).astype(np.float32))
    x = of.constant(rng.standard_normal((64, 28, 28, 32)).astype(np.float32))
    cases = {
        "BiasAddGrad": lambda: of.raw_ops.BiasAddGrad(out_backprop=g),
        "L2Loss": lambda: of.raw_ops.L2Loss(t=g),
        "FusedBatchNormGradV3": lambda: of.raw_ops.FusedBatchNormGradV3(
            y_backprop=g, x=x, scale=np.ones(32, np.float32), reserve_space_1=np.zeros(32, np.float32),
            reserve_space_2=np.ones(32, np.float32), reserve_space_3=np.zeros(32, np.float32), is_training=True)[1],
    }
    _wait_quiet()
    for name, fn in cases.items():
        want = fn().numpy()
        for _ in range(3):
            np.testing.assert_array_equal(fn().numpy(), want, err_msg=name)
        assert _contend()
        np.testing.assert_array_equal(fn().numpy(), want, err_msg=f"{name} under contention")
        _wait_quiet()
