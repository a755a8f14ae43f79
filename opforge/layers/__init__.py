"""``of.layers``: TensorFlow 1's ``tf.layers`` functions (dense, conv2d, batch_normalization...).

The package holds the model-building layer of opforge: core layers (core.py), recurrent cells
and their drivers (rnn_cell.py, rnn.py), losses, metrics and initializers. The package itself is
the tf.layers namespace: it re-exports core's functions.
"""

from .core import (
    average_pooling1d, average_pooling2d, batch_normalization, conv1d, conv2d, conv2d_transpose, dense, dropout,
    flatten, max_pooling1d, max_pooling2d,
)

__all__ = ["dense", "conv1d", "conv2d", "conv2d_transpose", "max_pooling1d", "max_pooling2d",
           "average_pooling1d", "average_pooling2d", "batch_normalization", "dropout", "flatten"]
