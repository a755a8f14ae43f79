"""tf.nn.compute_average_loss and tf.nn.scale_regularization_loss (opforge/ops/nn_impl.py)
against NumPy (one replica: the global batch is the batch unless given)."""

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.framework.errors import InvalidArgumentError


def test_compute_average_loss_and_scale_regularization_loss():
    rng = np.random.default_rng(0)
    loss = rng.random(6).astype(np.float32)
    w = rng.random(6).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        fetches = [tf.nn.compute_average_loss(x), tf.nn.compute_average_loss(x, sample_weight=w),
                   tf.nn.compute_average_loss(x, global_batch_size=8),
                   tf.nn.scale_regularization_loss([x, x * 2.0])]
        with tf.Session() as sess:
            got = sess.run(fetches, {x: loss})
            empty = sess.run(fetches[0], {x: np.zeros(0, np.float32)})
    np.testing.assert_allclose(got, [loss.mean(), (loss * w).sum() / 6, loss.sum() / 8, 3 * loss.sum()], rtol=1e-6)
    assert empty == 0.0


def test_compute_average_loss_bad_calls():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="global_batch_size must be positive"):
            tf.nn.compute_average_loss(tf.constant([1.0]), global_batch_size=0)
        with pytest.raises(InvalidArgumentError, match="compute_average_loss: per_example_loss must be floating"):
            tf.nn.compute_average_loss(tf.constant([1, 2]))
