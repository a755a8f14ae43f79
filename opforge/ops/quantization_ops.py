"""Quantization: TensorFlow's tf.quantize / tf.dequantize spellings over the QuantizeV2 and
Dequantize ops (opdefs/quantization/), and the fake-quantization ops re-exported under their
TF names. The quantized dtypes are of.qint8, of.quint8, of.qint16, of.quint16 and of.qint32."""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..generated import gen_quantization_ops as _gen

fake_quant_with_min_max_args = _gen.fake_quant_with_min_max_args
fake_quant_with_min_max_args_gradient = _gen.fake_quant_with_min_max_args_gradient
fake_quant_with_min_max_vars = _gen.fake_quant_with_min_max_vars
fake_quant_with_min_max_vars_gradient = _gen.fake_quant_with_min_max_vars_gradient
fake_quant_with_min_max_vars_per_channel = _gen.fake_quant_with_min_max_vars_per_channel
fake_quant_with_min_max_vars_per_channel_gradient = _gen.fake_quant_with_min_max_vars_per_channel_gradient

__all__ = [
    "dequantize", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel", "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize", "quantize_v2",
]


def _axis(axis) -> int:
    return -1 if axis is None else int(axis)


def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,  # noqa: A002,N803 (TF's names)
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None, ensure_minimum_range=0.01):
    """Quantizes float `input` to the quantized dtype T over [min_range, max_range] (QuantizeV2):
    returns (output, output_min, output_max). axis=None quantizes with one range; an int axis
    with one range per slice of that dimension."""
    return _gen.quantize_v2(input, min_range, max_range, T=_dtypes.as_dtype(T), mode=mode, round_mode=round_mode,
                            narrow_range=narrow_range, axis=_axis(axis),
                            ensure_minimum_range=ensure_minimum_range, name=name)


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002,N803 (TF's names)
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None, ensure_minimum_range=0.01):
    """tf.quantize: QuantizeV2 with TensorFlow's argument order; see quantize_v2."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, name=name, round_mode=round_mode,
                       narrow_range=narrow_range, axis=axis, ensure_minimum_range=ensure_minimum_range)


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,  # noqa: A002
               narrow_range=False, dtype=_dtypes.float32):
    """Converts a quantized tensor back to float32 (or bfloat16) over [min_range, max_range]
    (Dequantize), the inverse of quantize in the same mode."""
    return _gen.dequantize(input, min_range, max_range, mode=mode, narrow_range=narrow_range, axis=_axis(axis),
                           dtype=_dtypes.as_dtype(dtype), name=name)
