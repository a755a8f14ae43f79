"""Writes tests/data/quantization_expected.npz: TensorFlow's answers for the quantization ops
(fake quantization and its gradients, QuantizeV2, Dequantize) on seeded random inputs, so CI,
which has no TensorFlow, checks opforge against them bit for bit.

Usage: python tools/make_quantization_expected.py   (needs tensorflow)

Each case is stored as "<case>/<name>" arrays: its inputs, its attrs (as a 0-d or 1-d array
under "<case>/attr:<name>") and TensorFlow's outputs ("<case>/out<i>"). The case list itself
lives in tests/ops/quantization_cases.py, shared with the test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "ops"))

from quantization_cases import CASES, QUANTIZED  # noqa: E402


def main() -> None:
    # TensorFlow's reference CPU kernels, not oneDNN's replacements (which cover fewer types)
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import tensorflow as tf  # noqa: PLC0415

    arrays: dict[str, np.ndarray] = {}
    for case in CASES:
        kwargs = dict(case.attrs)
        if case.op == "Dequantize":
            kwargs.pop("T")  # Dequantize takes T from its input
        elif "T" in kwargs:
            kwargs["T"] = getattr(tf, kwargs["T"])
        inputs = {}
        for k, v in case.inputs.items():
            if k == "input" and case.op == "Dequantize":
                inputs[k] = tf.constant(v, dtype=getattr(tf, case.attrs["T"]))
            else:
                inputs[k] = tf.constant(v)
        outs = getattr(tf.raw_ops, case.op)(**inputs, **kwargs)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        for k, v in case.inputs.items():
            arrays[f"{case.name}/in:{k}"] = np.asarray(v)
        for i, o in enumerate(outs):
            a = o.numpy()
            if a.dtype.names:  # a structured quantized dtype: its integers
                a = a.view(a.dtype[0])
            arrays[f"{case.name}/out{i}"] = a
    out = REPO / "tests" / "data" / "quantization_expected.npz"
    np.savez_compressed(out, tf_version=np.array(tf.__version__), quantized=np.array(QUANTIZED), **arrays)
    print(f"wrote {out} ({len(CASES)} cases)")


if __name__ == "__main__":
    main()
