"""The thread pool under other processes' load: a parallel region that has to wait out a
worker the OS descheduled (simulated: a part that takes milliseconds while the caller's took
a fraction of that) makes the following regions run on the calling thread alone for a while,
instead of each waiting out a time slice; then the pool is used again."""

import time

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
