"""TF1 names of the ops added for issue 32's absent names: tf.serialize_tensor / tf.parse_tensor,
tf.decode_compressed and the SparseFeature / RaggedFeature specs (opforge/ops/parsing_ops.py), tf.nn.fractional_max_pool / fractional_avg_pool
(opforge/ops/fractional_pool_ops.py, TF1's seed and seed2), the stateless binomial, categorical and
parameterized truncated-normal samplers and tf.random_index_shuffle (opforge/ops/stateless_samplers.py),
tf.math.sobol_sample (opforge/ops/quasi_random.py), wired into the namespaces _tf1 builds.
compat.v1 star-imports the top-level names of __all__."""

from opforge.compat import _namespace
from opforge.compat.v1 import _tf1
from opforge.ops import fractional_pool_ops as _fractional
from opforge.ops import parsing_ops as _parsing
from opforge.ops import quasi_random as _quasi
from opforge.ops import stateless_samplers as _stateless

serialize_tensor = _namespace.in_default_graph(_parsing.serialize_tensor)
parse_tensor = _namespace.in_default_graph(_parsing.parse_tensor)
decode_compressed = _namespace.in_default_graph(_parsing.decode_compressed)
_tf1.io.serialize_tensor, _tf1.io.parse_tensor, _tf1.io.decode_compressed = (
    serialize_tensor, parse_tensor, decode_compressed)
SparseFeature = _parsing.SparseFeature  # tf.SparseFeature, tf.io.SparseFeature, tf.io.RaggedFeature
_tf1.io.SparseFeature, _tf1.io.RaggedFeature = SparseFeature, _parsing.RaggedFeature
_tf1.nn.fractional_max_pool = _namespace.in_default_graph(_fractional.fractional_max_pool_v1)
_tf1.nn.fractional_avg_pool = _namespace.in_default_graph(_fractional.fractional_avg_pool_v1)


def random_names() -> dict:
    """The stateless samplers, for tf.random (compat.v1's __init__ builds that namespace)."""
    return {n: _namespace.in_default_graph(getattr(_stateless, n)) for n in _stateless.__all__
            if n != "random_index_shuffle"}


_tf1.math.sobol_sample = _namespace.in_default_graph(_quasi.sobol_sample)
random_index_shuffle = _namespace.in_default_graph(_stateless.random_index_shuffle)  # tf.random_index_shuffle

__all__ = ["serialize_tensor", "parse_tensor", "decode_compressed", "random_index_shuffle", "SparseFeature"]
