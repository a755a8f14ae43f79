"""Writes tests/data/miscops_expected.npz: TensorFlow's answers for the ops of issue 32's
absent names, on inputs the tests rebuild from this file, so that CI (without TensorFlow)
checks opforge's values against TF's:

* ``ser_<dtype>``: the bytes of tf.io.serialize_tensor of ``in_<dtype>`` (uint8 arrays; bfloat16
  and float16 inputs stored as their uint16 bits, strings as a fixed-width bytes array);
* ``binomial_<i>``: StatelessRandomBinomial of BINOMIAL_CASES[i] (inversion and BTRS, p on both
  sides of 1/2, broadcasting) with SEED; ``multinomial``: StatelessMultinomial of
  MULTINOMIAL_LOGITS, 50 samples a row, with SEED (the inputs are stored beside them);
* ``shuffle_<i>``: RandomIndexShuffle of ``shuffle_<i>_index`` with ``shuffle_<i>_seed``,
  ``shuffle_<i>_max`` and ``shuffle_<i>_rounds`` (block widths 16 to 64 bits, powers of two).

    python tools/make_miscops_fixtures.py       # needs tensorflow
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "miscops_expected.npz")


def serialization_inputs() -> dict:
    """Small tensors of every dtype (shapes scalar to rank 3, one empty)."""
    rng = np.random.default_rng(32)
    return {
        "float32": rng.normal(size=(2, 3)).astype(np.float32),
        "float64": rng.normal(size=(4,)),
        "float16": rng.normal(size=(3, 1, 2)).astype(np.float16),
        "bfloat16": rng.normal(size=(5,)).astype(ml_dtypes.bfloat16),
        "int8": rng.integers(-128, 128, (2, 2)).astype(np.int8),
        "uint8": rng.integers(0, 256, (3,)).astype(np.uint8),
        "int16": rng.integers(-3000, 3000, (2, 0, 3)).astype(np.int16),
        "int32": np.array(-7, np.int32),
        "int64": rng.integers(-2**40, 2**40, (2, 2)).astype(np.int64),
        "bool": rng.integers(0, 2, (3, 2)).astype(bool),
        "string": np.array([[b"ab", b""], [b"x" * 200, b"\x00\xffz"]]),
    }


SEED = np.array([20261127, -42], np.int64)
BINOMIAL_CASES = [  # (shape, counts, probs)
    ([6, 4], np.array([3.0, 20.0, 100.0, 7.0]), np.array([0.2, 0.45, 0.8, 0.97])),
    ([5, 2, 3], np.array([[12.0], [1000.0]]), np.array([0.01, 0.5, 0.999])),
]
MULTINOMIAL_LOGITS = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]]))


TRUNC_CASES = [(0.0, 1.0, -3.0, 3.0), (1.0, 2.0, 1.0, 1.5), (0.0, 1.0, 3.0, np.inf), (2.0, 0.5, -np.inf, 0.5)]
FRACTIONAL_INPUT = np.random.default_rng(11).normal(size=(1, 17, 23, 2)).astype(np.float32)
FRACTIONAL_CASES = [  # (pooling_ratio, pseudo_random, overlapping, seed, seed2)
    ([1.0, 1.44, 1.73, 1.0], True, False, 1, 2), ([1.0, 2.5, 1.2, 1.0], False, True, 7, 0),
    ([1.0, 1.1, 3.3, 1.0], False, False, 123456789, 987654321), ([1.0, 1.5, 1.5, 1.0], True, True, 3, 3),
]
SOBOL_CASES = [(3, 20, 0), (40, 9, 7), (1111, 2, 1000), (21200, 2, 123456)]  # (dim, num_results, skip)


def storable(arr: np.ndarray) -> np.ndarray:
    return arr.view(np.uint16) if arr.dtype in (np.float16, ml_dtypes.bfloat16) else arr


def main() -> None:
    parts = {}
    for name, arr in serialization_inputs().items():
        parts[f"in_{name}"] = storable(arr)
        ser = tf.io.serialize_tensor(tf.constant(arr)).numpy()
        parts[f"ser_{name}"] = np.frombuffer(ser, np.uint8)
    for i, (shape, counts, probs) in enumerate(BINOMIAL_CASES):
        parts[f"binomial_{i}_shape"], parts[f"binomial_{i}_counts"], parts[f"binomial_{i}_probs"] = (
            np.array(shape, np.int32), counts, probs)
        parts[f"binomial_{i}"] = tf.raw_ops.StatelessRandomBinomial(
            shape=np.array(shape, np.int32), seed=SEED, counts=counts, probs=probs, dtype=tf.float64).numpy()
    rng = np.random.default_rng(5)
    for i, (top, rounds) in enumerate([(9, 4), (1000, 6), (65536, 4), (2**20 + 3, 8), (2**31 - 1, 4),
                                       (2**40 + 5, 4), (2**62, 10)]):
        index = np.unique(np.minimum(rng.integers(0, top + 1, 24, dtype=np.int64), top))
        seed = rng.integers(-2**40, 2**40, 3)
        parts[f"shuffle_{i}_index"], parts[f"shuffle_{i}_seed"] = index, seed
        parts[f"shuffle_{i}_max"], parts[f"shuffle_{i}_rounds"] = np.int64(top), np.int64(rounds)
        parts[f"shuffle_{i}"] = tf.raw_ops.RandomIndexShuffle(index=index, seed=seed, max_index=np.int64(top),
                                                              rounds=rounds).numpy()
    for i, (mean, stddev, lo, hi) in enumerate(TRUNC_CASES):
        for dt in (np.float32, np.float64):
            parts[f"truncnorm_{i}_{np.dtype(dt).name}"] = tf.raw_ops.StatelessParameterizedTruncatedNormal(
                shape=np.array([3, 4], np.int32), seed=SEED, means=dt(mean), stddevs=dt(stddev), minvals=dt(lo),
                maxvals=dt(hi)).numpy()
        parts[f"truncnorm_{i}_params"] = np.array([mean, stddev, lo, hi])
    parts["fractional_input"] = FRACTIONAL_INPUT
    for i, (ratio, pseudo, overlapping, seed, seed2) in enumerate(FRACTIONAL_CASES):
        for tag, op in (("fmp", tf.raw_ops.FractionalMaxPool), ("fap", tf.raw_ops.FractionalAvgPool)):
            out, rows, cols = op(value=FRACTIONAL_INPUT, pooling_ratio=ratio, pseudo_random=pseudo,
                                 overlapping=overlapping, deterministic=True, seed=seed, seed2=seed2)
            parts[f"{tag}_{i}_out"], parts[f"{tag}_{i}_rows"], parts[f"{tag}_{i}_cols"] = (
                out.numpy(), rows.numpy(), cols.numpy())
    for i, (dim, n, skip) in enumerate(SOBOL_CASES):
        parts[f"sobol_{i}"] = tf.math.sobol_sample(dim, n, skip, dtype=tf.float64).numpy()[:, ::dim // 128 + 1]
        parts[f"sobol_{i}_args"] = np.array([dim, n, skip], np.int32)
    parts["seed"], parts["multinomial_logits"] = SEED, MULTINOMIAL_LOGITS
    parts["multinomial"] = tf.raw_ops.StatelessMultinomial(logits=MULTINOMIAL_LOGITS, num_samples=50,
                                                           seed=SEED).numpy()
    np.savez_compressed(OUT, **parts)
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
