"""Data-parallel jobs of 2 and 3 processes on this machine (mpirun, OpenMPI): collectives
against NumPy, training equal to one process on the global batch, and the failures a job must
survive (a process that raises, is killed, hangs, or passes another shape) ending in an error
that names it, never a hang."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from opforge import _C

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_worker.py")
MPIRUN = shutil.which("mpirun")

pytestmark = pytest.mark.skipif(MPIRUN is None or not _C.distribute.built_with_mpi(),
                                reason="needs OpenMPI (mpirun) and an opforge built with MPI")


def mpi_env():
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OPFORGE_NUM_THREADS="1",
               # shared memory between the processes, no network probing
               OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none")


def mpirun(n, case, timeout=120):
    env = mpi_env()
    t0 = time.time()
    r = subprocess.run([MPIRUN, "-np", str(n), sys.executable, WORKER, case], env=env, capture_output=True,
                       text=True, timeout=timeout, cwd=tempfile.gettempdir())
    return r, time.time() - t0


def test_a_job_of_one_process():
    # No mpirun: MPI's singleton mode, rank 0 of 1.
    r = subprocess.run([sys.executable, WORKER, "single"], env=mpi_env(), capture_output=True, text=True,
                       timeout=120, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "ok single rank 0" in r.stdout


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_match_numpy(n):
    r, _ = mpirun(n, "collectives")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for k in range(n):  # (the processes' lines may interleave)
        assert f"ok collectives rank {k}" in r.stdout, r.stdout


@pytest.mark.parametrize("n", [2, 3])
def test_data_parallel_training_equals_one_process(n):
    r, _ = mpirun(n, "training")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for k in range(n):
        assert f"ok training rank {k}" in r.stdout, r.stdout


def test_mismatched_shapes_and_orders_fail_on_every_process():
    r, _ = mpirun(3, "mismatch")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # (the processes' lines may run together: counted, not split)
    out = r.stdout
    assert out.count("mismatch rank ") == 6, out  # 3 errors, 3 "ok mismatch rank"
    assert out.count("rank 0 passes float32[3,4] but rank 2 passes float32[3,5]") == 3, out
    assert out.count("order rank ") == 3, out
    assert out.count("the processes are at different collectives: rank 0 runs an all-gather") == 3, out


def test_a_process_that_raises_ends_the_job_naming_it():
    r, took = mpirun(2, "raise")
    assert r.returncode != 0
    assert took < 50, took
    out = r.stdout + r.stderr
    assert "RuntimeError: worker 1 gives up" in out
    assert "rank 1 of 2 failed with RuntimeError" in out


def test_a_killed_process_ends_the_job_naming_it():
    r, took = mpirun(2, "kill")
    assert r.returncode != 0
    assert took < 50, took
    out = r.stdout + r.stderr
    assert "rank 1" in out and ("signal 9" in out or "Killed" in out), out[-2000:]


def test_a_hung_process_is_a_deadline_error_on_the_others():
    r, took = mpirun(2, "timeout")
    assert r.returncode != 0
    assert took < 50, took
    assert "timeout rank 0" in r.stdout and "DeadlineExceeded" not in r.stdout.split("timeout rank 0")[0]
    assert "waited 1 s (timeout_seconds) for the other processes" in r.stdout
