"""Live parity with TensorFlow (skipped where it is not installed, as in CI, which checks the
saved answers in test_quantization_ops.py instead): fake quantization on fresh random data and
ranges, bit for bit against TF's reference CPU kernels (oneDNN's replacements switched off)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge as of

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
tf = pytest.importorskip("tensorflow")


def test_fake_quant_matches_live_tensorflow():
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    for _ in range(4):
        x = rng.normal(0, 4, (9, 5)).astype(np.float32)
        g = rng.normal(size=x.shape).astype(np.float32)
        lo, hi = float(rng.uniform(-5, 1)), float(rng.uniform(1.1, 6))
        bits, narrow = int(rng.integers(2, 17)), bool(rng.integers(2))
        kw = {"num_bits": bits, "narrow_range": narrow}
        np.testing.assert_array_equal(
            of.ops.fake_quant_with_min_max_args(x, min=lo, max=hi, **kw).numpy(),
            tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=x, min=lo, max=hi, **kw).numpy())
        mins = rng.uniform(-3, 0.5, 5).astype(np.float32)
        maxs = (mins + rng.uniform(0.1, 5, 5)).astype(np.float32)
        np.testing.assert_array_equal(
            of.ops.fake_quant_with_min_max_vars_per_channel(x, mins, maxs, **kw).numpy(),
            tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(inputs=x, min=mins, max=maxs, **kw).numpy())
        ours = of.ops.fake_quant_with_min_max_vars_gradient(g, x, np.float32(lo), np.float32(hi), **kw)
        theirs = tf.raw_ops.FakeQuantWithMinMaxVarsGradient(gradients=g, inputs=x, min=np.float32(lo),
                                                             max=np.float32(hi), **kw)
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
        np.testing.assert_allclose([ours[1].numpy(), ours[2].numpy()], [theirs[1].numpy(), theirs[2].numpy()],
                                   rtol=1e-6, atol=1e-5)  # sums: the order differs


def test_quantize_scaled_and_min_combined_match_live_tensorflow():
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    x = rng.uniform(-3, 3, (6, 4)).astype(np.float32)
    lo, hi = np.float32(rng.uniform(-3, -0.1)), np.float32(rng.uniform(0.1, 3))
    for t in ("qint8", "quint8", "qint16", "quint16"):
        for mode in ("MIN_COMBINED", "SCALED"):
            ours = of.ops.quantize_v2(x, lo, hi, T=getattr(of, t), mode=mode)
            theirs = tf.raw_ops.QuantizeV2(input=x, min_range=lo, max_range=hi, T=getattr(tf, t), mode=mode)
            got, want = ours[0].numpy(), theirs[0].numpy()
            want = want.view(want.dtype[0]) if want.dtype.names else want
            np.testing.assert_array_equal(got, want, err_msg=f"{t} {mode}")
            np.testing.assert_array_equal([ours[1].numpy(), ours[2].numpy()], [theirs[1].numpy(), theirs[2].numpy()])
            back = of.ops.dequantize(ours[0], ours[1], ours[2], mode=mode).numpy()
            tb = tf.raw_ops.Dequantize(input=theirs[0], min_range=theirs[1], max_range=theirs[2], mode=mode).numpy()
            np.testing.assert_array_equal(back, tb, err_msg=f"{t} {mode} dequantize")
