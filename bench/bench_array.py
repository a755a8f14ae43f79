"""Array-op benchmarks on ~10M float32 elements: concat, split, gather, strided slice,
reverse, tile, pad, transpose, one_hot and the random ops.

Run: python bench/bench_array.py   (after `pip install .`; PyTorch is compared when installed)

Every figure is measured in this run; ratios are time / NumPy's time (lower is better).
NumPy's copies are single-threaded; opforge splits large copies over OPFORGE_NUM_THREADS
threads (all cores by default).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved, optional, row  # noqa: E402

import opforge as of  # noqa: E402

torch = optional("torch")
N = 10_000_000
REPEAT = int(os.environ.get("OPFORGE_BENCH_REPEAT", "10"))


def case(title, np_fn, of_fn, torch_fn=None):
    print(title)
    fns = {"numpy": np_fn, f"opforge ({of._C.num_threads()} threads)": of_fn}
    if torch is not None and torch_fn is not None:
        fns[f"torch ({torch.get_num_threads()} threads)"] = torch_fn
    times = best_of_interleaved(fns, 1, REPEAT)  # round-robin, see _common
    for name, seconds in times.items():
        print(row(name, seconds, times["numpy"], "ms"))


def main() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((2500, 4000), dtype=np.float32)  # 10M
    b = rng.random((2500, 4000), dtype=np.float32)
    ta, tb = of.constant(a), of.constant(b)
    xa, xb = (torch.from_numpy(a), torch.from_numpy(b)) if torch is not None else (None, None)
    print(f"array ops on {a.size:,} float32 elements per input (best of {REPEAT})\n")

    case("concat axis=1: two [2500, 4000] -> [2500, 8000]",
         lambda: np.concatenate([a, b], 1), lambda: of.concat([ta, tb], 1),
         lambda: torch.cat([xa, xb], 1))
    case("concat axis=0: two [2500, 4000] -> [5000, 4000]",
         lambda: np.concatenate([a, b], 0), lambda: of.concat([ta, tb], 0),
         lambda: torch.cat([xa, xb], 0))
    case("split axis=1 into 4 (copies)",
         lambda: [p.copy() for p in np.split(a, 4, 1)], lambda: of.split(ta, 4, axis=1),
         lambda: [p.contiguous() for p in torch.chunk(xa, 4, 1)])
    idx = rng.integers(0, 2500, 2500)
    tidx = of.constant(idx)
    case("gather rows: [2500, 4000][random 2500 rows]",
         lambda: np.take(a, idx, axis=0), lambda: of.gather(ta, tidx),
         lambda: torch.index_select(xa, 0, torch.from_numpy(idx)))
    flat = a.reshape(-1)
    tflat = of.constant(flat)
    fidx = rng.integers(0, N, N)
    tfidx = of.constant(fidx)
    case("gather elements: 10M random elements of 10M",
         lambda: np.take(flat, fidx), lambda: of.gather(tflat, tfidx),
         lambda: torch.take(torch.from_numpy(flat), torch.from_numpy(fidx)))
    case("strided slice x[::2, 1::3] (copy)",
         lambda: a[::2, 1::3].copy(), lambda: ta[::2, 1::3],
         lambda: xa[::2, 1::3].contiguous())
    case("strided slice x[100:-100, 200:-200] (copy)",
         lambda: a[100:-100, 200:-200].copy(), lambda: ta[100:-100, 200:-200],
         lambda: xa[100:-100, 200:-200].contiguous())
    case("reverse both axes (copy)",
         lambda: a[::-1, ::-1].copy(), lambda: of.reverse(ta, [0, 1]),
         lambda: torch.flip(xa, [0, 1]))
    small = a[:1250, :2000]
    ts = of.constant(small)
    case("tile [1250, 2000] x [2, 2] -> 10M",
         lambda: np.tile(small, (2, 2)), lambda: of.tile(ts, [2, 2]),
         lambda: torch.from_numpy(small).repeat(2, 2))
    case("pad [2500, 4000] by 8 on every side",
         lambda: np.pad(a, 8), lambda: of.pad(ta, [[8, 8], [8, 8]]),
         lambda: torch.nn.functional.pad(xa, (8, 8, 8, 8)))
    case("transpose [2500, 4000] -> [4000, 2500] (copy)",
         lambda: np.ascontiguousarray(a.T), lambda: of.transpose(ta),
         lambda: xa.t().contiguous())
    row_ = a.reshape(1, -1)[:, :4000]
    trow = of.constant(row_)
    case("broadcast_to [1, 4000] -> [2500, 4000] (copy)",
         lambda: np.broadcast_to(row_, (2500, 4000)).copy(), lambda: of.broadcast_to(trow, [2500, 4000]),
         lambda: torch.from_numpy(row_).expand(2500, 4000).contiguous())
    labels = rng.integers(0, 10, N // 10)
    tl = of.constant(labels)
    case("one_hot 1M labels, depth 10",
         lambda: np.eye(10, dtype=np.float32)[labels], lambda: of.one_hot(tl, 10),
         lambda: torch.nn.functional.one_hot(torch.from_numpy(labels), 10).float())
    gen = np.random.default_rng(1)
    case("random uniform 10M float32",
         lambda: gen.random(N, dtype=np.float32), lambda: of.ops.random_uniform(np.array([N], np.int32), of.float32, seed=1, seed2=2),
         lambda: torch.rand(N))
    case("random normal 10M float32",
         lambda: gen.standard_normal(N, dtype=np.float32),
         lambda: of.ops.random_standard_normal(np.array([N], np.int32), of.float32, seed=1, seed2=2),
         lambda: torch.randn(N))


if __name__ == "__main__":
    main()
