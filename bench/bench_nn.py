"""nn benchmarks: Conv2D and MaxPool on a ResNet-style layer, against PyTorch and TensorFlow.

    Conv2D  N=32, 56x56x64 -> 64 channels, 3x3 filter, stride 1, SAME, float32, NHWC
    MaxPool 3x3 window, stride 2, SAME, on the same input

Run: python bench/bench_nn.py [--quick]   (after `pip install .`; PyTorch and TensorFlow are
compared when installed: pip install torch==2.13.0 tensorflow-cpu)

Every figure is measured in this run; ratios are opforge's time / the other framework's time
(lower is better; 1.00x is parity). The frameworks are timed round-robin (each round times
every one once; best round kept), so drift of a shared machine during the run moves them
alike. PyTorch is timed on its default (contiguous NCHW) layout and on channels_last,
TensorFlow on NHWC. All use every core they see (opforge: its thread pool; the others: their
own settings).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved, optional  # noqa: E402

import opforge as of  # noqa: E402

torch = optional("torch")
tf = optional("tensorflow")


def line(label: str, seconds: float, ours: float | None, flops: float | None = None) -> str:
    rate = f"{flops / seconds / 1e9:7.1f} GFLOP/s" if flops else " " * 15
    ratio = f"opforge {ours / seconds:5.2f}x this" if ours is not None else ""
    return f"  {label:<34} {seconds * 1e3:9.2f} ms  {rate}  {ratio}"


def report(title: str, fns: dict, number: int, repeat: int, flops: float | None = None) -> None:
    """Times fns (label -> callable; opforge's first) round-robin and prints one line each."""
    print(title)
    times = best_of_interleaved(fns, number, repeat)
    ours = None
    for label, t in times.items():
        print(line(label, t, ours, flops))
        ours = t if ours is None else ours


def conv(n: int, number: int, repeat: int) -> None:
    h = w = 56
    cin = cout = 64
    flops = 2.0 * n * h * w * cout * 3 * 3 * cin
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, h, w, cin), dtype=np.float32)
    f = rng.standard_normal((3, 3, cin, cout), dtype=np.float32) * 0.1
    tx, tf_ = of.constant(x), of.constant(f)

    def ours_fn():
        return of.nn.conv2d(tx, tf_, strides=1, padding="SAME")

    fns = {f"opforge NHWC ({of._C.num_threads()} threads)": ours_fn}
    check = ""
    if torch is not None:
        xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
        wt = torch.from_numpy(np.ascontiguousarray(f.transpose(3, 2, 0, 1)))
        xcl = xt.contiguous(memory_format=torch.channels_last)
        wcl = wt.contiguous(memory_format=torch.channels_last)
        with torch.no_grad():
            ref = torch.nn.functional.conv2d(xt, wt, padding=1).numpy().transpose(0, 2, 3, 1)
        check = f"  (max |opforge - torch| = {float(np.max(np.abs(ours_fn().numpy() - ref))):.2e})"

        def torch_conv(a, b):
            with torch.no_grad():
                return torch.nn.functional.conv2d(a, b, padding=1)

        fns[f"torch NCHW ({torch.get_num_threads()} threads)"] = lambda: torch_conv(xt, wt)
        fns["torch channels_last"] = lambda: torch_conv(xcl, wcl)
    if tf is not None:
        xf, ff = tf.constant(x), tf.constant(f)
        fns["tensorflow NHWC"] = lambda: tf.nn.conv2d(xf, ff, 1, "SAME")
    report(f"Conv2D N={n} {h}x{w}x{cin} -> {cout}, 3x3, stride 1, SAME, float32", fns, number, repeat, flops)
    if check:
        print(check)


def pool(n: int, number: int, repeat: int) -> None:
    h = w = 56
    c = 64
    x = np.random.default_rng(1).standard_normal((n, h, w, c), dtype=np.float32)
    tx = of.constant(x)

    def ours_fn():
        return of.nn.max_pool2d(tx, 3, 2, "SAME")

    fns = {f"opforge NHWC ({of._C.num_threads()} threads)": ours_fn}
    if torch is not None:
        xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
        xcl = xt.contiguous(memory_format=torch.channels_last)
        # SAME for 56 with k=3, s=2: output 28, total padding 1 (after); PyTorch pads both
        # sides, so pad the input on the bottom/right by hand to get TensorFlow's windows.
        with torch.no_grad():
            padded = torch.nn.functional.pad(xt, (0, 1, 0, 1), value=float("-inf"))
            ref = torch.nn.functional.max_pool2d(padded, 3, 2).numpy().transpose(0, 2, 3, 1)
        assert np.array_equal(ours_fn().numpy(), ref)

        def torch_pool(a):
            with torch.no_grad():
                return torch.nn.functional.max_pool2d(a, 3, 2, padding=1)

        fns["torch NCHW (padding=1)"] = lambda: torch_pool(xt)
        fns["torch channels_last (padding=1)"] = lambda: torch_pool(xcl)
    if tf is not None:
        xf = tf.constant(x)
        fns["tensorflow NHWC"] = lambda: tf.nn.max_pool2d(xf, 3, 2, "SAME")
    report(f"MaxPool N={n} {h}x{w}x{c}, 3x3 window, stride 2, SAME, float32", fns, number, repeat)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="N=4 and fewer repeats (a smoke run)")
    args = p.parse_args()
    n, number, repeat = (4, 2, 2) if args.quick else (32, 3, 5)
    conv(n, number, repeat)
    pool(n, number * 5, repeat)


if __name__ == "__main__":
    main()
