"""TensorFlow 1's quantization names (issue 32): tf.quantize, tf.quantize_v2, tf.dequantize,
tf.fake_quant_*, the tf.quantization namespace and the quantized dtypes; spellings over
opforge.ops.quantization_ops, where the behaviour lives (the ops are in opdefs/quantization/)."""

from __future__ import annotations

from opforge.compat._namespace import Namespace
from opforge.framework.dtypes import (  # noqa: F401
    QUANTIZED_DTYPES, qint8, qint16, qint32, quint8, quint16, uint16, uint32, uint64,
)
from opforge.ops.quantization_ops import (  # noqa: F401  (exported through __all__)
    dequantize, fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient, fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient, fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient, quantize, quantize_v2,
)

_FUNCTIONS = {
    "dequantize": dequantize,
    "fake_quant_with_min_max_args": fake_quant_with_min_max_args,
    "fake_quant_with_min_max_args_gradient": fake_quant_with_min_max_args_gradient,
    "fake_quant_with_min_max_vars": fake_quant_with_min_max_vars,
    "fake_quant_with_min_max_vars_gradient": fake_quant_with_min_max_vars_gradient,
    "fake_quant_with_min_max_vars_per_channel": fake_quant_with_min_max_vars_per_channel,
    "fake_quant_with_min_max_vars_per_channel_gradient": fake_quant_with_min_max_vars_per_channel_gradient,
    "quantize": quantize,
}

# tf.compat.v1.quantization: the same functions under the namespace TF1 also offers them in.
quantization = Namespace("quantization", **_FUNCTIONS)

__all__ = sorted([*_FUNCTIONS, "quantize_v2", "quantization", "QUANTIZED_DTYPES", "qint8", "qint16", "qint32",
                  "quint8", "quint16", "uint16", "uint32", "uint64"])
