"""Math op benchmarks (issue 4): elementwise unary (transcendental included), broadcasting
binary, select and clip, and reductions (prod, min, argmax, cumsum) on 10M float32 elements.

Run: python bench/bench_math.py [--quick]   (after `pip install .`; PyTorch and TensorFlow are
compared when installed: pip install torch==2.13.0 tensorflow-cpu)

Every figure is measured in this run; ratios are time / NumPy's time (lower is better; below
1.00x opforge is faster than NumPy). opforge uses all cores (OPFORGE_NUM_THREADS to change);
PyTorch and TensorFlow use their defaults.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved, optional, row  # noqa: E402

import opforge as of  # noqa: E402

N = 10_000_000
ROWS, COLS = 10_000, 1_000  # the same 10M elements as a matrix, for broadcasting and axis ops


def _frameworks():
    torch = optional("torch")
    tf = optional("tensorflow")
    return torch, tf


def bench(label, np_fn, of_fn, torch_fn=None, tf_fn=None, number=5, results=None):
    """One line per framework: time and ratio to NumPy (timed round-robin, see _common)."""
    ours = f"opforge ({of._C.num_threads()} threads)"
    fns = {"numpy": np_fn, ours: of_fn}
    if torch_fn is not None:
        fns["torch"] = torch_fn
    if tf_fn is not None:
        fns["tensorflow"] = tf_fn
    times = best_of_interleaved(fns, number)
    base, t = times["numpy"], times[ours]
    print(f"{label}")
    for name, seconds in times.items():
        print(row(name, seconds, base, "ms"))
    if results is not None:
        results.append((label, t / base))


def main(quick: bool = False) -> None:
    torch, tf = _frameworks()
    print(f"opforge {of.__version__}, NumPy {np.__version__}, PyTorch "
          f"{getattr(torch, '__version__', 'not installed')}, TensorFlow {getattr(tf, '__version__', 'not installed')}; "
          f"{N:,} float32 elements")
    rng = np.random.default_rng(0)
    n = N // 10 if quick else N
    a = rng.uniform(-3, 3, n).astype(np.float32)
    b = rng.uniform(0.5, 3, n).astype(np.float32)
    pos = rng.uniform(0.1, 3, n).astype(np.float32)
    m = a.reshape(-1, COLS)
    row_vec = rng.uniform(-3, 3, COLS).astype(np.float32)
    cond = rng.random(n) < 0.5
    ta, tb, tpos, tm, trow, tcond = (of.constant(v) for v in (a, b, pos, m, row_vec, cond))
    th = tt = None
    if torch is not None:
        th = {k: torch.from_numpy(v) for k, v in dict(a=a, b=b, pos=pos, m=m, row=row_vec, cond=cond).items()}
    if tf is not None:
        tt = {k: tf.constant(v) for k, v in dict(a=a, b=b, pos=pos, m=m, row=row_vec, cond=cond).items()}
    results: list = []

    def go(label, np_fn, of_fn, torch_fn=None, tf_fn=None):
        bench(label, np_fn, of_fn, torch_fn if th is not None else None, tf_fn if tt is not None else None,
              results=results)

    print("-- elementwise unary")
    go("floor", lambda: np.floor(a), lambda: of.floor(ta), lambda: torch.floor(th["a"]), lambda: tf.math.floor(tt["a"]))
    go("rsqrt", lambda: 1 / np.sqrt(pos), lambda: of.math.rsqrt(tpos), lambda: torch.rsqrt(th["pos"]),
       lambda: tf.math.rsqrt(tt["pos"]))
    go("sin", lambda: np.sin(a), lambda: of.sin(ta), lambda: torch.sin(th["a"]), lambda: tf.sin(tt["a"]))
    go("cos", lambda: np.cos(a), lambda: of.cos(ta), lambda: torch.cos(th["a"]), lambda: tf.cos(tt["a"]))
    go("expm1", lambda: np.expm1(a), lambda: of.math.expm1(ta), lambda: torch.expm1(th["a"]),
       lambda: tf.math.expm1(tt["a"]))
    go("log1p", lambda: np.log1p(pos), lambda: of.math.log1p(tpos), lambda: torch.log1p(th["pos"]),
       lambda: tf.math.log1p(tt["pos"]))
    print("-- binary with broadcasting ([10000, 1000] with [1000])")
    go("squared_difference", lambda: np.square(m - row_vec), lambda: of.math.squared_difference(tm, trow),
       lambda: torch.square(th["m"] - th["row"]), lambda: tf.math.squared_difference(tt["m"], tt["row"]))
    go("floormod", lambda: np.mod(m, row_vec), lambda: of.math.floormod(tm, trow),
       lambda: torch.remainder(th["m"], th["row"]), lambda: tf.math.floormod(tt["m"], tt["row"]))
    go("greater_equal", lambda: np.greater_equal(m, row_vec), lambda: of.greater_equal(tm, trow),
       lambda: torch.ge(th["m"], th["row"]), lambda: tf.math.greater_equal(tt["m"], tt["row"]))
    go("atan2", lambda: np.arctan2(m, row_vec), lambda: of.math.atan2(tm, trow),
       lambda: torch.atan2(th["m"], th["row"]), lambda: tf.math.atan2(tt["m"], tt["row"]))
    print("-- select and clip")
    go("select_v2 (where)", lambda: np.where(cond, a, b), lambda: of.ops.select_v2(tcond, ta, tb),
       lambda: torch.where(th["cond"], th["a"], th["b"]), lambda: tf.where(tt["cond"], tt["a"], tt["b"]))
    go("clip_by_value", lambda: np.clip(a, -0.5, 0.5), lambda: of.clip_by_value(ta, -0.5, 0.5),
       lambda: torch.clamp(th["a"], -0.5, 0.5), lambda: tf.clip_by_value(tt["a"], -0.5, 0.5))
    print("-- reductions")
    go("reduce_prod (all)", lambda: np.prod(b), lambda: of.reduce_prod(tb), lambda: torch.prod(th["b"]),
       lambda: tf.reduce_prod(tt["b"]))
    go("reduce_min (all)", lambda: np.min(a), lambda: of.reduce_min(ta), lambda: torch.min(th["a"]),
       lambda: tf.reduce_min(tt["a"]))
    go("reduce_min (axis 1)", lambda: np.min(m, axis=1), lambda: of.reduce_min(tm, axis=1),
       lambda: torch.amin(th["m"], dim=1), lambda: tf.reduce_min(tt["m"], axis=1))
    go("argmax (flat)", lambda: np.argmax(a), lambda: of.argmax(ta), lambda: torch.argmax(th["a"]),
       lambda: tf.argmax(tt["a"]))
    go("argmax (axis 1)", lambda: np.argmax(m, axis=1), lambda: of.argmax(tm, axis=1),
       lambda: torch.argmax(th["m"], dim=1), lambda: tf.argmax(tt["m"], axis=1))
    go("cumsum (flat)", lambda: np.cumsum(a), lambda: of.cumsum(ta), lambda: torch.cumsum(th["a"], 0),
       lambda: tf.cumsum(tt["a"]))
    go("cumsum (axis 0)", lambda: np.cumsum(m, axis=0), lambda: of.cumsum(tm, axis=0),
       lambda: torch.cumsum(th["m"], 0), lambda: tf.cumsum(tt["m"], axis=0))
    print("-- summary: opforge time / NumPy time (goal <= 1.00)")
    for label, ratio in results:
        print(f"  {label:<28} {ratio:6.2f}x {'ok' if ratio <= 1.0 else 'SLOWER than NumPy'}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
