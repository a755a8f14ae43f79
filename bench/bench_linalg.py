"""Linear-algebra benchmarks: inverse, solve, Cholesky, QR, eigh and SVD on a batch of small
matrices (opforge spreads the batch over its threads, one LAPACK call per matrix) and on one
large matrix (one LAPACK call on one thread, inside the runtime's thread budget).

Run: python bench/bench_linalg.py   (after `pip install .`; TensorFlow and PyTorch are compared
when installed)

Every figure is measured in this run; ratios are time / NumPy's time (lower is better). NumPy
calls the same LAPACK routines (its OpenBLAS may use several threads for one large matrix).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import best_of_interleaved, geomean, optional, row  # noqa: E402

import opforge as of  # noqa: E402

tf = optional("tensorflow")
torch = optional("torch")
REPEAT = int(os.environ.get("OPFORGE_BENCH_REPEAT", "5"))


def _cases(a, spd, b):
    """(title, numpy, opforge, tensorflow, torch) per operation on these inputs."""
    ta, tspd, tb = of.constant(a), of.constant(spd), of.constant(b)
    fa, fspd, fb = (tf.constant(a), tf.constant(spd), tf.constant(b)) if tf else (None,) * 3
    xa, xspd, xb = (torch.from_numpy(a), torch.from_numpy(spd), torch.from_numpy(b)) if torch else (None,) * 3
    return [
        ("inv", lambda: np.linalg.inv(a), lambda: of.linalg.inv(ta), lambda: tf.linalg.inv(fa),
         lambda: torch.linalg.inv(xa)),
        ("solve (8 right-hand sides)", lambda: np.linalg.solve(a, b), lambda: of.linalg.solve(ta, tb),
         lambda: tf.linalg.solve(fa, fb), lambda: torch.linalg.solve(xa, xb)),
        ("cholesky", lambda: np.linalg.cholesky(spd), lambda: of.linalg.cholesky(tspd),
         lambda: tf.linalg.cholesky(fspd), lambda: torch.linalg.cholesky(xspd)),
        ("slogdet", lambda: np.linalg.slogdet(a), lambda: of.linalg.slogdet(ta), lambda: tf.linalg.slogdet(fa),
         lambda: torch.linalg.slogdet(xa)),
        ("qr (reduced)", lambda: np.linalg.qr(a), lambda: of.linalg.qr(ta), lambda: tf.linalg.qr(fa),
         lambda: torch.linalg.qr(xa)),
        ("eigh", lambda: np.linalg.eigh(spd), lambda: of.linalg.eigh(tspd), lambda: tf.linalg.eigh(fspd),
         lambda: torch.linalg.eigh(xspd)),
        ("svd (reduced)", lambda: np.linalg.svd(a, full_matrices=False), lambda: of.linalg.svd(ta),
         lambda: tf.linalg.svd(fa), lambda: torch.linalg.svd(xa, full_matrices=False)),
    ]


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"linear algebra, float32 (best of {REPEAT}; opforge on {of._C.num_threads()} threads)\n")
    ratios = []
    for shape in [(512, 32, 32), (500, 500)]:
        n = shape[-1]
        a = (rng.standard_normal(shape) + n ** 0.5 * np.eye(n)).astype(np.float32)
        spd = (a @ np.swapaxes(a, -1, -2) / n + np.eye(n)).astype(np.float32)
        b = rng.standard_normal(shape[:-1] + (8,)).astype(np.float32)
        for title, np_fn, of_fn, tf_fn, torch_fn in _cases(a, spd, b):
            print(f"{title}: {' x '.join(map(str, shape))}")
            fns = {"numpy": np_fn, "opforge": of_fn}
            if tf is not None:
                fns["tensorflow"] = tf_fn
            if torch is not None:
                fns["torch"] = torch_fn
            times = best_of_interleaved(fns, 1, REPEAT)
            for name, seconds in times.items():
                print(row(name, seconds, times["numpy"], "ms"))
            ratios.append(times["opforge"] / times["numpy"])
    print(f"\ngeometric mean of opforge / NumPy: {geomean(ratios):.2f}x")


if __name__ == "__main__":
    main()
