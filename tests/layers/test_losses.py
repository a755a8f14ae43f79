"""tf.losses.mean_pairwise_squared_error against a NumPy reference over all pairs (checked
against TensorFlow 2.21 by hand: the same values on these inputs)."""

import itertools

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _pairwise_reference(labels, predictions, weights):
    """sum over examples of weight * mean over ordered pairs (i != j) of (d_i - d_j)^2."""
    per_example = np.broadcast_to(np.asarray(weights, np.float64).reshape(-1), (labels.shape[0],))
    total = 0.0
    for b, w in enumerate(per_example):
        d = (predictions[b] - labels[b]).reshape(-1).astype(np.float64)
        n = d.size if w != 0 else 0
        if n >= 2:  # noqa: PLR2004
            pairs = sum((d[i] - d[j]) ** 2 for i, j in itertools.permutations(range(n), 2))
            total += w * pairs / (n * (n - 1))
    return total


@pytest.mark.parametrize("weights", [1.0, np.array([[[1.0]], [[0.0]], [[2.0]], [[0.5]]], np.float32)])
def test_mean_pairwise_squared_error(weights):
    rng = np.random.default_rng(3)
    labels = rng.normal(size=(4, 3, 2)).astype(np.float32)
    predictions = rng.normal(size=(4, 3, 2)).astype(np.float32)
    with tf.Graph().as_default():
        loss = tf.losses.mean_pairwise_squared_error(tf.constant(labels), tf.constant(predictions),
                                                     weights=tf.constant(weights, tf.float32))
        assert loss in tf.get_collection(tf.GraphKeys.LOSSES)
        with tf.Session() as sess:
            got = sess.run(loss)
    np.testing.assert_allclose(got, _pairwise_reference(labels, predictions, weights), rtol=1e-5)


def test_mean_pairwise_squared_error_bad_calls():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must not be None"):
            tf.losses.mean_pairwise_squared_error(None, tf.constant([[1.0]]))
        with pytest.raises(ValueError, match="are incompatible"):
            tf.losses.mean_pairwise_squared_error(tf.constant([[1.0, 2.0]]), tf.constant([[1.0, 2.0, 3.0]]))
