"""tf.Variable with TF1's keywords (expected_shape, caching_device, use_resource, constraint,
shape, variable_def ...), as TF1 programs pass them; TensorFlow's static shapes where installed."""
import numpy as np
import pytest

import opforge.compat.v1 as tf1


def _shapes(tf):
    with tf.Graph().as_default():
        a = tf.Variable(tf.ones([2]), validate_shape=False, expected_shape=[2], caching_device="/cpu:0",
                        use_resource=False)
        b = tf.Variable(tf.zeros([3]), shape=[None], constraint=lambda x: tf.clip_by_value(x, 0.0, 1.0))
        c = tf.Variable(tf.zeros([2, 3]), shape=tf.TensorShape([None, 3]))
        return [v.shape.as_list() if v.shape.rank is not None else None for v in (a, b, c)]


def test_tf1_keywords_are_accepted():
    assert _shapes(tf1) == [None, [None], [None, 3]]
    with tf1.Graph().as_default():
        clip = lambda x: tf1.clip_by_value(x, 0.0, 1.0)  # noqa: E731
        v = tf1.Variable(tf1.zeros([3]), shape=[None], constraint=clip)
        assert v.constraint is clip
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(tf1.assign(v, [1.0, 2.0], validate_shape=False)), [1.0, 2.0])
        with pytest.raises(NotImplementedError, match="variable_def"):
            tf1.Variable(variable_def=object())


def test_static_shapes_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    assert _shapes(tf1) == _shapes(tf)
