"""Collectives and data-parallel training over MPI: opforge.distribute against mpi4py.

Run: python bench/bench_distributed.py [--np 2] [--rounds 3] [--quick]

Starts itself under ``mpirun -np N`` (OpenMPI, shared memory between the processes) and measures:

* all-reduce bus bandwidth (float32 sum, 4 KB to 64 MB) of ``hvd.allreduce`` on an eager tensor
  (a CollectiveReduceV2 op call: the shape/key exchange and MPI_Allreduce) against mpi4py's ``Allreduce`` on
  NumPy buffers, in alternating rounds, best median per size. Bus bandwidth = bytes *
  2(N-1)/N / time, as nccl-tests reports it. Goal: >= 0.9x mpi4py's at >= 1 MB.
* tensor fusion: 100 gradients of 10 KB each (1 MB) all-reduced in a graph run by a Session,
  fused by grouped_allreduce, against one 1 MB all-reduce and against 100 unfused ones. Goal:
  fused <= 2x the one large all-reduce.
* a ResNet-20 training step (bench/train_programs.py, batch 32) as N processes x 1 thread
  (DistributedOptimizer, 32/N images each) against 1 process x N threads (all 32 images),
  same weights.

mpi4py is optional (its column is left out without it). The numbers depend on the machine's
cores: on a 2-core machine the two processes share them with nothing else running.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
MPI_ENV = dict(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl="self,vader")


def timed(fn, reps):
    """Median seconds per call over `reps` calls (a fixed count: every process must make the
    same collective calls, or the last ones wait forever for their partners)."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bandwidth(comm_size, rounds, quick):
    import opforge as of
    import opforge.distribute as hvd
    try:
        from mpi4py import MPI
    except ImportError:
        MPI = None
    sizes = SIZES[:3] if quick else SIZES
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        tx = of.constant(x)
        out = np.empty_like(x)
        best = {"opforge": float("inf"), "mpi4py": float("inf")}
        reps = int(min(200, max(5, 2e8 // nbytes)))
        for _ in range(rounds):
            best["opforge"] = min(best["opforge"], timed(
                lambda: hvd.allreduce(tx, op=hvd.Sum), reps))
            if MPI is not None:
                best["mpi4py"] = min(best["mpi4py"], timed(lambda: MPI.COMM_WORLD.Allreduce(x, out, op=MPI.SUM), reps))
        factor = 2 * (comm_size - 1) / comm_size
        rows.append({"bytes": nbytes, **{k: nbytes * factor / v / 1e9 for k, v in best.items() if v != float("inf")}})
    return rows


def fusion(comm_size, rounds):
    import opforge.compat.v1 as tf
    import opforge.distribute as hvd
    g = tf.Graph()
    with g.as_default():
        grads = [tf.constant(np.random.default_rng(i).standard_normal(2560).astype(np.float32)) for i in range(100)]
        big = tf.constant(np.random.default_rng(0).standard_normal(256000).astype(np.float32))
        fused = hvd.grouped_allreduce(grads)
        unfused = hvd.grouped_allreduce(grads, fusion_threshold_bytes=0)
        one = hvd.allreduce(big)
    best = {"fused": float("inf"), "unfused": float("inf"), "one": float("inf")}
    with tf.Session(graph=g) as sess:
        for _ in range(rounds):
            best["fused"] = min(best["fused"], timed(lambda: sess.run(fused), 50))
            best["unfused"] = min(best["unfused"], timed(lambda: sess.run(unfused), 50))
            best["one"] = min(best["one"], timed(lambda: sess.run(one), 50))
    return best


class _DistributedTrain:
    """A tf.train namespace whose MomentumOptimizer is wrapped in DistributedOptimizer."""

    def __init__(self, train, hvd):
        self._train, self._hvd = train, hvd

    def __getattr__(self, name):
        return getattr(self._train, name)

    def MomentumOptimizer(self, *args, **kwargs):  # noqa: N802
        return self._hvd.DistributedOptimizer(self._train.MomentumOptimizer(*args, **kwargs))


class _DistributedTF:
    def __init__(self, tf, hvd):
        self._tf = tf
        self.train = _DistributedTrain(tf.train, hvd)

    def __getattr__(self, name):
        return getattr(self._tf, name)


def resnet_step(distributed, steps, rounds, quick):
    """Median step time (best of rounds) of ResNet-20; distributed: this process's share of the batch."""
    import opforge.compat.v1 as tf
    import train_programs
    size = "quick" if quick else "full"
    program = train_programs.PROGRAMS["resnet20"]
    if distributed:
        import opforge.distribute as hvd
        trainer = train_programs.Trainer(_DistributedTF(tf, hvd), program, size)
        r, n = hvd.rank(), hvd.size()
        for feed in trainer.feeds:
            for k, v in feed.items():
                share = len(v) // n
                feed[k] = v[r * share:(r + 1) * share]
    else:
        trainer = train_programs.Trainer(tf, program, size)
    for _ in range(3):
        trainer.step()
    best = float("inf")
    for _ in range(rounds):
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            trainer.step()
            times.append(time.perf_counter() - t0)
        best = min(best, statistics.median(times))
    trainer.close()
    return best


def worker(args):
    import opforge.distribute as hvd
    hvd.init()
    n = hvd.size()
    result = {"bandwidth": bandwidth(n, args.rounds, args.quick), "fusion": fusion(n, args.rounds),
              "resnet_s": resnet_step(True, args.steps, args.rounds, args.quick)}
    if hvd.rank() == 0:
        print("RESULT " + json.dumps(result), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--np", type=int, default=2, help="processes (and, for the baseline, threads)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.baseline:
        print("RESULT " + json.dumps({"resnet_s": resnet_step(False, args.steps, args.rounds, args.quick)}), flush=True)
        return None
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        sys.exit("bench_distributed: mpirun not found (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev)")
    common = ["--rounds", str(args.rounds), "--steps", str(args.steps)] + (["--quick"] if args.quick else [])

    def run(cmd, env):
        r = subprocess.run(cmd, env=dict(os.environ, **env), capture_output=True, text=True)
        lines = [line for line in r.stdout.splitlines() if line.startswith("RESULT ")]
        if r.returncode != 0 or not lines:
            sys.exit(f"bench_distributed: {' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        return json.loads(lines[0][len("RESULT "):])

    dist = run([mpirun, "-np", str(args.np), sys.executable, __file__, "--worker", *common],
               dict(MPI_ENV, OPFORGE_NUM_THREADS="1"))
    base = run([sys.executable, __file__, "--baseline", *common], dict(OPFORGE_NUM_THREADS=str(args.np)))
    print(f"all-reduce bus bandwidth, {args.np} processes (GB/s; ratio = opforge / mpi4py)")
    print(f"{'bytes':>10} {'opforge':>9} {'mpi4py':>9} {'ratio':>7}")
    for row in dist["bandwidth"]:
        mpi = row.get("mpi4py")
        ratio = f"{row['opforge'] / mpi:7.2f}" if mpi else "      -"
        print(f"{row['bytes']:>10} {row['opforge']:9.2f} {mpi or float('nan'):9.2f} {ratio}")
    f = dist["fusion"]
    print(f"\ntensor fusion (Session.run, {args.np} processes): 100 x 10 KB fused {f['fused'] * 1e3:.3f} ms, "
          f"unfused {f['unfused'] * 1e3:.3f} ms, one 1 MB all-reduce {f['one'] * 1e3:.3f} ms; "
          f"fused / one = {f['fused'] / f['one']:.2f} (goal <= 2)")
    print(f"\nResNet-20 step, global batch {'8' if args.quick else '32'}: {args.np} processes x 1 thread "
          f"{dist['resnet_s'] * 1e3:.1f} ms, 1 process x {args.np} threads {base['resnet_s'] * 1e3:.1f} ms "
          f"(ratio {dist['resnet_s'] / base['resnet_s']:.2f})")
    return None


if __name__ == "__main__":
    main()
