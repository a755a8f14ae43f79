"""Spine benchmarks: eager overhead, a large add, a 1024^2 MatMul, and codegen speed.

Run: python bench/bench_spine.py   (after `pip install .`; PyTorch and TensorFlow are
compared when installed: pip install torch==2.13.0 tensorflow-cpu)

Every figure is measured in this run; ratios are time / NumPy's time (lower is better), so
"of.add 1.6x NumPy" means opforge takes 1.6 times as long as NumPy.
"""

from __future__ import annotations

import gzip
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of, optional, row  # noqa: E402

import opforge as of  # noqa: E402

torch = optional("torch")
tf = optional("tensorflow")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def eager_overhead() -> None:
    print("eager overhead: add of two 1-element float32 tensors")
    a = np.ones(1, np.float32)
    ta = of.constant(a)
    n = 100_000
    base = best_of(lambda: np.add(a, a), n)
    print(row("np.add", base, base))
    print(row("of.add", best_of(lambda: of.add(ta, ta), n), base))
    print(row("tensor + tensor", best_of(lambda: ta + ta, n), base))
    if torch is not None:
        t = torch.ones(1)
        print(row("torch.add", best_of(lambda: torch.add(t, t), n), base))
    if tf is not None:
        x = tf.constant(a)
        print(row("tf.add (eager)", best_of(lambda: tf.add(x, x), n // 20), base))


def big_add() -> None:
    n = 10_000_000
    print(f"add: {n:,} float32 elements (throughput in GB/s of 3 arrays moved)")
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    ta, tb = of.constant(a), of.constant(b)
    gb = 3 * 4 * n / 1e9
    base = best_of(lambda: np.add(a, b), 20)
    print(row("np.add", base, base, "ms", f"{gb / base:6.1f} GB/s"))
    t = best_of(lambda: of.add(ta, tb), 20)
    print(row(f"of.add ({of._C.num_threads()} threads)", t, base, "ms", f"{gb / t:6.1f} GB/s"))
    if torch is not None:
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        t = best_of(lambda: torch.add(x, y), 20)
        print(row("torch.add", t, base, "ms", f"{gb / t:6.1f} GB/s"))
    t = best_of(lambda: of.reduce_sum(ta), 20)
    base_s = best_of(lambda: np.sum(a), 20)
    print(row("np.sum", base_s, base_s, "ms"))
    print(row("of.reduce_sum", t, base_s, "ms"))


def matmul() -> None:
    n = 1024
    print(f"MatMul {n}x{n} float32 (GFLOP/s)")
    a = np.random.rand(n, n).astype(np.float32)
    b = np.random.rand(n, n).astype(np.float32)
    ta, tb = of.constant(a), of.constant(b)
    flops = 2 * n ** 3 / 1e9
    base = best_of(lambda: a @ b, 10)
    print(row("numpy a @ b", base, base, "ms", f"{flops / base:7.1f} GFLOP/s"))
    t = best_of(lambda: of.matmul(ta, tb), 10)
    print(row("of.matmul", t, base, "ms", f"{flops / t:7.1f} GFLOP/s  ({base / t:.2f}x NumPy's speed)"))
    if torch is not None:
        x, y = torch.from_numpy(a), torch.from_numpy(b)
        t = best_of(lambda: torch.matmul(x, y), 10)
        print(row("torch.matmul", t, base, "ms", f"{flops / t:7.1f} GFLOP/s"))


def codegen() -> None:
    sys.path.insert(0, ROOT)
    from codegen import gen, model  # noqa: PLC0415
    print("codegen")
    out = tempfile.mkdtemp()
    try:
        t0 = time.perf_counter()
        r = gen.generate([os.path.join(ROOT, "opdefs")], out)
        t_full = time.perf_counter() - t0
        print(f"  full generate, repo opdefs ({r.ops} ops, {len(r.written)} files)  {t_full:8.3f} s")
        t0 = time.perf_counter()
        r = gen.generate([os.path.join(ROOT, "opdefs")], out)
        print(f"  no-op generate (0 files written: {len(r.written) == 0})      {time.perf_counter() - t0:8.3f} s")
        text = gzip.open(os.path.join(ROOT, "tests", "data", "tf2.21_ops.pbtxt.gz"), "rt").read()
        t0 = time.perf_counter()
        ops = model.check(model.parse_file("tf_ops.pbtxt", "tf_ops.pbtxt", "tf", text))
        t_parse = time.perf_counter() - t0
        tf_out = os.path.join(out, "tf")
        r = gen.generate([], tf_out, ops=ops)
        t_tf = time.perf_counter() - t0
        print(f"  TensorFlow ops.pbtxt ({len(ops)} ops): parse+check {t_parse:.3f} s, "
              f"parse+generate {len(r.written)} files {t_tf:.3f} s")
    finally:
        shutil.rmtree(out)


if __name__ == "__main__":
    print(f"opforge {of.__version__}, NumPy {np.__version__}, PyTorch {getattr(torch, '__version__', 'not installed')}, "
          f"TensorFlow {getattr(tf, '__version__', 'not installed')}")
    eager_overhead()
    big_add()
    matmul()
    codegen()
