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


def test_a_busy_machine_runs_stateless_graphs_on_the_team_loop(two_threads):
    """A straggler marks the machine busy for a while: Session runs of a stateless graph then
    take the team loop (whole steps on each thread, no waves), with the same results, and the
    tuned executors once the machine has been quiet that long."""
    rng = np.random.default_rng(1)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [3, 40], name="x")
        branches = [of.tanh(x * float(k)) + of.square(x - float(k)) for k in range(4)]
        y = of.add_n(branches, name="y")
    xv = rng.standard_normal((3, 40)).astype(np.float32)
    want = sum(np.tanh(xv * k) + np.square(xv - k) for k in range(4))
    sess = of.Session(graph=g)
    np.testing.assert_allclose(sess.run(y, {x: xv}), want, rtol=1e-5, atol=1e-5)
    deadline = time.monotonic() + 2.0
    while T.machine_busy() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not T.machine_busy()
    assert _contend() and T.machine_busy()
    for _ in range(5):
        np.testing.assert_allclose(sess.run(y, {x: xv}), want, rtol=1e-5, atol=1e-5)
    time.sleep(0.3)  # (the busy window is 250 ms; these runs are too short to report their own waits)
    assert not T.machine_busy()
