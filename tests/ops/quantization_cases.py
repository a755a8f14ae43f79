"""The quantization op cases checked against TensorFlow: tools/make_quantization_expected.py
runs them under TensorFlow and saves its answers (tests/data/quantization_expected.npz);
tests/ops/test_quantization_ops.py runs them under opforge and compares bit for bit."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

QUANTIZED = ("qint8", "quint8", "qint16", "quint16", "qint32")


@dataclass(frozen=True)
class Case:
    name: str
    op: str
    inputs: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)


def _f32(rng, *shape, lo=-4.0, hi=4.0):
    x = rng.uniform(lo, hi, size=shape).astype(np.float32)
    x.ravel()[:3] = [0.0, lo, hi]  # the ends and zero
    return x


def _cases() -> list[Case]:
    rng = np.random.default_rng(32)
    out: list[Case] = []
    for num_bits, narrow, lo, hi in ((8, False, -3.0, 2.5), (4, True, -0.7, 5.1), (16, False, 0.3, 2.0),
                                     (2, False, -1.0, -0.2)):
        x = _f32(rng, 5, 7)
        g = _f32(rng, 5, 7)
        tag = f"{num_bits}_{int(narrow)}"
        attrs = {"num_bits": num_bits, "narrow_range": narrow}
        out.append(Case(f"args_{tag}", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"min": lo, "max": hi, **attrs}))
        out.append(Case(f"args_grad_{tag}", "FakeQuantWithMinMaxArgsGradient", {"gradients": g, "inputs": x},
                        {"min": lo, "max": hi, **attrs}))
        mn, mx = np.float32(lo), np.float32(hi)
        out.append(Case(f"vars_{tag}", "FakeQuantWithMinMaxVars", {"inputs": x, "min": mn, "max": mx}, attrs))
        out.append(Case(f"vars_grad_{tag}", "FakeQuantWithMinMaxVarsGradient",
                        {"gradients": g, "inputs": x, "min": mn, "max": mx}, attrs))
        mins = rng.uniform(-3, 0.5, 7).astype(np.float32)
        maxs = (mins + rng.uniform(0.1, 4, 7)).astype(np.float32)
        mins[0], maxs[0] = 0.0, 0.0  # TensorFlow's all-zero channel
        out.append(Case(f"pc_{tag}", "FakeQuantWithMinMaxVarsPerChannel", {"inputs": x, "min": mins, "max": maxs},
                        attrs))
        out.append(Case(f"pc_grad_{tag}", "FakeQuantWithMinMaxVarsPerChannelGradient",
                        {"gradients": g, "inputs": x, "min": mins, "max": maxs}, attrs))
    for t in QUANTIZED:
        for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
            x = _f32(rng, 4, 6, lo=-2.5, hi=3.5)
            x.ravel()[3:7] = [0.5, -0.5, 1.5, 2.5]  # ties
            out.append(Case(f"q_{t}_{mode}", "QuantizeV2",
                            {"input": x, "min_range": np.float32(-2.0), "max_range": np.float32(3.0)},
                            {"T": t, "mode": mode}))
            if mode == "SCALED":
                out.append(Case(f"q_{t}_{mode}_even_narrow", "QuantizeV2",
                                {"input": x, "min_range": np.float32(-1.0), "max_range": np.float32(2.0)},
                                {"T": t, "mode": mode, "round_mode": "HALF_TO_EVEN", "narrow_range": True}))
            if mode != "MIN_FIRST":
                out.append(Case(f"q_{t}_{mode}_axis", "QuantizeV2",
                                {"input": x, "min_range": np.array([-1, 0, -2.5, 0.5, -0.1, -3], np.float32),
                                 "max_range": np.array([1, 2, 0.0, 3.5, 0.1, 1], np.float32)},
                                {"T": t, "mode": mode, "axis": 1}))
            info = np.iinfo({"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16,
                             "qint32": np.int32}[t])
            q = rng.integers(info.min, info.max, size=(3, 5), endpoint=True).astype(info.dtype)
            q.ravel()[:2] = [info.min, info.max]
            out.append(Case(f"dq_{t}_{mode}", "Dequantize",
                            {"input": q, "min_range": np.float32(-2.0), "max_range": np.float32(3.0)},
                            {"T": t, "mode": mode}))
            if mode != "MIN_FIRST":
                out.append(Case(f"dq_{t}_{mode}_axis_narrow", "Dequantize",
                                {"input": q, "min_range": np.array([-1, 0, -2, 0.5, -3], np.float32),
                                 "max_range": np.array([1, 2, 0.5, 3.5, 1], np.float32)},
                                {"T": t, "mode": mode, "axis": 1, "narrow_range": True}))
    return out


CASES = _cases()
