"""Quantization ops (opdefs/quantization/): bit for bit against TensorFlow's answers
(tests/data/quantization_expected.npz, written by tools/make_quantization_expected.py) and against
NumPy references on random data; the straight-through gradients through GradientTape; typed
errors that name the op. The generated matrix (test_ops.py) also drives the fake-quant ops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opforge as of
import quantization_reference as ref
from opforge.ops import quantization_ops as Q
from quantization_cases import CASES

EXPECTED = Path(__file__).resolve().parents[1] / "data" / "quantization_expected.npz"
_OPS = {
    "FakeQuantWithMinMaxArgs": of.ops.fake_quant_with_min_max_args,
    "FakeQuantWithMinMaxArgsGradient": of.ops.fake_quant_with_min_max_args_gradient,
    "FakeQuantWithMinMaxVars": of.ops.fake_quant_with_min_max_vars,
    "FakeQuantWithMinMaxVarsGradient": of.ops.fake_quant_with_min_max_vars_gradient,
    "FakeQuantWithMinMaxVarsPerChannel": of.ops.fake_quant_with_min_max_vars_per_channel,
    "FakeQuantWithMinMaxVarsPerChannelGradient": of.ops.fake_quant_with_min_max_vars_per_channel_gradient,
    "QuantizeV2": of.ops.quantize_v2,
    "Dequantize": of.ops.dequantize,
}


def _run_case(case):
    attrs = dict(case.attrs)
    inputs = {}
    for k, v in case.inputs.items():
        if case.op == "Dequantize" and k == "input":
            inputs[k] = of.constant(v, dtype=of.as_dtype(attrs["T"]))
        else:
            inputs[k] = of.constant(v)
    if case.op == "Dequantize":
        attrs.pop("T")
    elif "T" in attrs:
        attrs["T"] = of.as_dtype(attrs["T"])
    outs = _OPS[case.op](**inputs, **attrs)
    return [o.numpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]


def _tolerance(case, i: int) -> tuple[float, float]:
    """0 (bit for bit) except where opforge and TensorFlow are known to differ in the last bits:
    the summed min/max gradients (Eigen's reduction order), MIN_FIRST Dequantize (one or two
    float32 ulps: TF's Eigen expression rounds differently; not pinned down yet) and qint32's
    MIN_FIRST / SCALED near 2^31, where float32 steps are 128-256 (TF converts differently there)."""
    if "grad" in case.name and i > 0:
        return (1e-6, 0.0)
    if case.attrs.get("T") == "qint32" and case.attrs.get("mode") in ("MIN_FIRST", "SCALED") and i == 0:
        return (2e-6, 256.0) if case.op == "QuantizeV2" else (2e-6, 6.1)  # 6.1: the int32-max input TF reads as min
    if case.op == "Dequantize" and case.attrs["mode"] == "MIN_FIRST":
        return (2e-6, 0.0)
    return (0.0, 0.0)


def test_matches_tensorflow_bit_for_bit():
    expected = np.load(EXPECTED)
    bad = []
    for case in CASES:
        for k, v in case.inputs.items():  # the cases are the ones TensorFlow ran
            np.testing.assert_array_equal(expected[f"{case.name}/in:{k}"], v)
        for i, got in enumerate(_run_case(case)):
            want = expected[f"{case.name}/out{i}"]
            rtol, atol = _tolerance(case, i)
            same = np.array_equal(got, want) if rtol == 0 else np.allclose(
                got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)
            if got.dtype != want.dtype or got.shape != want.shape or not same:
                bad.append(f"{case.name} out{i}: got {got.ravel()[:8]} want {want.ravel()[:8]}")
    assert not bad, "\n".join(bad)


def test_fake_quant_matches_numpy_on_random_data():
    rng = np.random.default_rng(7)
    for num_bits, narrow in ((8, False), (5, True), (13, False)):
        x = rng.normal(0, 3, (6, 4)).astype(np.float32)
        lo, hi = float(rng.uniform(-4, 0.5)), float(rng.uniform(0.6, 5))
        got = of.ops.fake_quant_with_min_max_args(x, min=lo, max=hi, num_bits=num_bits, narrow_range=narrow)
        np.testing.assert_array_equal(got.numpy(), ref.fake_quant(x, lo, hi, num_bits, narrow))
        mins = rng.uniform(-3, 0, 4).astype(np.float32)
        maxs = (mins + rng.uniform(0.1, 4, 4)).astype(np.float32)
        got = of.ops.fake_quant_with_min_max_vars_per_channel(x, mins, maxs, num_bits=num_bits, narrow_range=narrow)
        np.testing.assert_array_equal(got.numpy(), ref.fake_quant(x, mins, maxs, num_bits, narrow))
        g = rng.normal(size=x.shape).astype(np.float32)
        got = of.ops.fake_quant_with_min_max_vars_per_channel_gradient(g, x, mins, maxs, num_bits=num_bits,
                                                                       narrow_range=narrow)
        for a, b in zip(got, ref.fake_quant_vars_gradient(g, x, mins, maxs, num_bits, narrow)):
            np.testing.assert_allclose(a.numpy(), b, rtol=1e-6, atol=1e-6)


def test_fake_quant_output_lies_on_the_levels():
    x = np.linspace(-7, 7, 301, dtype=np.float32)
    y = of.ops.fake_quant_with_min_max_args(x, min=-2.0, max=3.0, num_bits=4).numpy()
    lo, hi, scale, _ = ref.nudge(-2.0, 3.0, 4, False)
    levels = np.round((y - lo) / scale)
    assert y.min() == lo and y.max() == pytest.approx(hi)
    np.testing.assert_allclose((y - lo) / scale, levels, atol=1e-4)
    assert len(np.unique(y)) == 16 and 0.0 in y  # 2^4 levels, 0 exactly representable


def test_straight_through_gradients_through_the_tape():
    rng = np.random.default_rng(3)
    x = of.constant(rng.uniform(-4, 4, (3, 5)).astype(np.float32))
    mn, mx = of.constant(np.float32(-1.5)), of.constant(np.float32(2.0))
    w = rng.normal(size=(3, 5)).astype(np.float32)
    with of.GradientTape() as tape:
        tape.watch([x, mn, mx])
        loss = of.reduce_sum(of.ops.fake_quant_with_min_max_vars(x, mn, mx) * w)
    dx, dmin, dmax = tape.gradient(loss, [x, mn, mx])
    want = ref.fake_quant_vars_gradient(w, x.numpy(), -1.5, 2.0)
    np.testing.assert_array_equal(dx.numpy(), want[0])
    np.testing.assert_allclose([dmin.numpy(), dmax.numpy()], [want[1], want[2]], rtol=1e-6)
    with of.GradientTape() as tape:
        tape.watch(x)
        y = of.ops.fake_quant_with_min_max_args(x, min=-1.0, max=1.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), ref.fake_quant_gradient(np.ones((3, 5)), x.numpy(),
                                                                                       -1.0, 1.0))
    mins, maxs = of.constant(np.float32([-1, -2, 0, -0.5, -3])), of.constant(np.float32([1, 0.5, 2, 3, 0.1]))
    with of.GradientTape() as tape:
        tape.watch([mins, maxs])
        loss = of.reduce_sum(of.ops.fake_quant_with_min_max_vars_per_channel(x, mins, maxs) * w)
    got = tape.gradient(loss, [mins, maxs])
    want = ref.fake_quant_vars_gradient(w, x.numpy(), mins.numpy(), maxs.numpy())
    np.testing.assert_allclose(got[0].numpy(), want[1], rtol=1e-6)
    np.testing.assert_allclose(got[1].numpy(), want[2], rtol=1e-6)


def test_quantize_dequantize_round_trip_within_one_step():
    rng = np.random.default_rng(11)
    x = rng.uniform(-2, 3, (4, 8)).astype(np.float32)
    for t in (of.qint8, of.quint8, of.qint16, of.quint16):
        for mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
            if mode == "SCALED" and t.name.startswith("qu"):
                continue  # unsigned SCALED holds [0, max] only
            q, lo, hi = Q.quantize(x, -2.0, 3.0, t, mode=mode)
            assert q.dtype == t
            back = Q.dequantize(q, lo, hi, mode=mode).numpy()
            step = (hi.numpy() - lo.numpy()) / (2 ** (8 * t.size) - 1)
            assert np.abs(back - x).max() <= step * (1.01 if mode != "SCALED" else 2.01), (t, mode)
    q, lo, hi = Q.quantize_v2(x, [-1.0] * 8, [2.0] * 8, of.qint8, mode="SCALED", axis=1)
    assert lo.shape.as_list() == [8] and q.shape.as_list() == [4, 8]
    bf = Q.dequantize(q, lo, hi, mode="SCALED", axis=1, dtype=of.bfloat16)
    assert bf.dtype == of.bfloat16


def _raises(cls, op_name, fn, match):
    with pytest.raises(cls, match=match) as e:
        fn()
    assert op_name in str(e.value)


def test_errors_name_the_op():
    x = np.zeros((2, 3), np.float32)
    inv = of.errors.InvalidArgumentError
    _raises(inv, "FakeQuantWithMinMaxArgs", lambda: of.ops.fake_quant_with_min_max_args(x, min=1.0, max=-1.0),
            "min has to be smaller than max")
    _raises(inv, "FakeQuantWithMinMaxArgs", lambda: of.ops.fake_quant_with_min_max_args(x, num_bits=1),
            "num_bits must be between 2 and 16")
    _raises(inv, "FakeQuantWithMinMaxVars",
            lambda: of.ops.fake_quant_with_min_max_vars(x, np.float32(-1), np.float32(1), num_bits=17),
            "num_bits must be between 2 and 16")
    _raises(inv, "FakeQuantWithMinMaxVars",
            lambda: of.ops.fake_quant_with_min_max_vars(x, np.float32([-1]), np.float32(1)), "min must be rank 0")
    _raises(inv, "FakeQuantWithMinMaxVarsPerChannel",
            lambda: of.ops.fake_quant_with_min_max_vars_per_channel(x, np.float32([-1, 0]), np.float32([1, 1])),
            "min must have 3 elements")
    _raises(inv, "FakeQuantWithMinMaxArgsGradient",
            lambda: of.ops.fake_quant_with_min_max_args_gradient(np.zeros((3, 2), np.float32), x),
            "same shape")
    _raises((inv, TypeError), "FakeQuantWithMinMaxArgs",
            lambda: of.ops.fake_quant_with_min_max_args(of.constant(np.zeros(3, np.int32))), "int32")
    _raises(inv, "QuantizeV2", lambda: Q.quantize(x, 1.0, -1.0, of.qint8), "input_max_range must be larger")
    _raises(inv, "QuantizeV2", lambda: Q.quantize(x, -1.0, 1.0, of.qint8, round_mode="HALF_TO_EVEN"),
            "only supported for mode 'SCALED'")
    _raises(inv, "QuantizeV2", lambda: Q.quantize(x, [-1.0] * 3, [1.0] * 3, of.qint8, axis=2), "axis 2 is out of range")
    _raises(inv, "QuantizeV2", lambda: Q.quantize(x, [-1.0] * 2, [1.0] * 2, of.qint8, axis=1),
            "must have 3 elements")
    _raises((inv, TypeError), "QuantizeV2", lambda: Q.quantize(x, -1.0, 1.0, of.float32), "float32")
    _raises(of.errors.UnimplementedError, "QuantizeV2",
            lambda: Q.quantize(x, [-1.0] * 3, [1.0] * 3, of.qint8, mode="MIN_FIRST", axis=1), "MIN_FIRST")
    q = of.constant(np.zeros((2, 3), np.int8), dtype=of.qint8)
    _raises(inv, "Dequantize", lambda: Q.dequantize(q, [-1.0] * 2, [1.0] * 2, axis=1), "must have 3 elements")
    _raises((inv, TypeError), "Dequantize", lambda: Q.dequantize(q, -1.0, 1.0, dtype=of.float64), "float64")
