"""GPU benchmark (a program, not a test): run on a machine with an NVIDIA GPU.

    python bench/gpu/bench_gpu.py [--size-mb 1024] [--matmul 8192]

Prints, measured in the same run:
  * AddV2 on 256M float32 (3 x 1 GiB moved per call) and Relu (2 x 1 GiB) in GB/s against a
    device-to-device copy of the same buffer (cudaMemcpyAsync; goal: >= 85% of the copy's
    bandwidth);
  * MatMul 8192 x 8192 in float32 and bfloat16, TFLOP/s against torch.matmul (goal >= 0.9x);
  * per-op launch overhead (host time per AddV2 of 1-element GPU tensors) against torch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _common import optional  # noqa: E402

import opforge as of  # noqa: E402
from opforge import _C  # noqa: E402


def timed(fn, sync, number: int, repeat: int = 5) -> float:
    """Best mean seconds per call of `fn` over `repeat` runs of `number` calls (device-synced)."""
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--elements", type=int, default=256 * 1024 * 1024)
    p.add_argument("--matmul", type=int, default=8192)
    args = p.parse_args()
    if of.config.num_gpus() == 0:
        print(f"no GPU: {_C.gpu_unavailable_reason()}")
        return 1
    torch = optional("torch")
    if torch is not None and not torch.cuda.is_available():
        torch = None
    sync = of.config.synchronize
    print(f"device: {_C.gpu_device_name(0)} ({of.config.gpu_backend()}); torch: "
          f"{torch.__version__ if torch else 'not installed'}")

    # ---- elementwise add vs device-to-device copy
    n = args.elements
    rng = np.random.default_rng(0)  # random data: constants can time differently (METHOD.md)
    x = of.constant(rng.standard_normal(n, dtype=np.float32)).gpu()
    y = of.constant(rng.standard_normal(n, dtype=np.float32)).gpu()
    nbytes = n * 4
    t_copy = timed(lambda: _C._testing.gpu_copy(x), sync, 10)
    t_add = timed(lambda: of.raw_ops.AddV2(x=x, y=y), sync, 10)
    copy_gbs = 2 * nbytes / t_copy / 1e9
    add_gbs = 3 * nbytes / t_add / 1e9
    print(f"AddV2 {n} float32:   {add_gbs:8.1f} GB/s   d2d copy: {copy_gbs:8.1f} GB/s   "
          f"ratio {add_gbs / copy_gbs:5.1%} (goal >= 85%)")
    t_relu = timed(lambda: of.raw_ops.Relu(features=x), sync, 10)
    relu_gbs = 2 * nbytes / t_relu / 1e9
    print(f"Relu  {n} float32:   {relu_gbs:8.1f} GB/s   ratio {relu_gbs / copy_gbs:5.1%} of the copy (goal >= 85%)")
    if torch is not None:
        tx = torch.randn(n, device="cuda")
        ty = torch.randn(n, device="cuda")
        t_tadd = timed(lambda: torch.add(tx, ty), torch.cuda.synchronize, 10)
        print(f"  torch.add:              {3 * nbytes / t_tadd / 1e9:8.1f} GB/s")
        del tx, ty
    x = y = None  # frees the device memory before the next part
    of.config.empty_cache()

    # ---- MatMul
    m = args.matmul
    a_np = rng.standard_normal((m, m), dtype=np.float32)
    b_np = rng.standard_normal((m, m), dtype=np.float32)
    flops = 2.0 * m * m * m
    for name, dt, tdt in (("float32", of.float32, "float32"), ("bfloat16", of.bfloat16, "bfloat16")):
        a = of.cast(of.constant(a_np).gpu(), dt)
        b = of.cast(of.constant(b_np).gpu(), dt)
        t_of = timed(lambda: of.raw_ops.MatMul(a=a, b=b), sync, 5)
        line = f"MatMul {m}^2 {name:8}: {flops / t_of / 1e12:7.1f} TFLOP/s"
        if torch is not None:
            ta = torch.from_numpy(a_np).cuda().to(getattr(torch, tdt))
            tb = torch.from_numpy(b_np).cuda().to(getattr(torch, tdt))
            t_t = timed(lambda: torch.matmul(ta, tb), torch.cuda.synchronize, 5)
            line += f"   torch.matmul: {flops / t_t / 1e12:7.1f} TFLOP/s   ratio {t_t / t_of:5.2f}x (goal >= 0.9x)"
            del ta, tb
        print(line)
        a = b = None
    of.config.empty_cache()

    # ---- launch overhead
    s1 = of.constant(np.float32(1.0)).gpu()
    s2 = of.constant(np.float32(2.0)).gpu()
    t_small = timed(lambda: of.raw_ops.AddV2(x=s1, y=s2), sync, 2000)
    t_op = timed(lambda: s1 + s2, sync, 2000)
    line = f"launch overhead: AddV2 {t_small * 1e6:6.2f} us/op (raw_ops), {t_op * 1e6:6.2f} us/op (operator)"
    if torch is not None:
        u1 = torch.ones((), device="cuda")
        u2 = torch.ones((), device="cuda")
        t_torch = timed(lambda: u1 + u2, torch.cuda.synchronize, 2000)
        line += f"   torch: {t_torch * 1e6:6.2f} us/op   ratio {t_op / t_torch:5.2f}x torch"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
