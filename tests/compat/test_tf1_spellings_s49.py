"""TF1 spellings other authors' programs use (found adapting Kyubyong's and easy-tensorflow's
notebooks): tf.Variable's TF1 positional parameters, weighted_moments with integer weights,
a tf.SparseTensor of Python lists in a graph, Saver._var_list. Expected values are TensorFlow
2.21's (tensorflow.compat.v1) for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf


@pytest.fixture
def g():
    with tf.Graph().as_default() as graph:
        yield graph


def test_variable_takes_tf1_positional_parameters(g):
    w = tf.Variable(0.2, "weight")  # TF1: the second positional parameter is `trainable`
    step = tf.Variable(0, False, name="global_step")
    coll = tf.Variable(1.0, True, ["mine"])  # the third: collections
    assert (w.name, w.dtype.name) == ("Variable:0", "float32") and w in tf.trainable_variables()
    assert step.dtype.name == "int32" and step not in tf.trainable_variables()
    assert tf.get_collection("mine") == [coll] and coll not in tf.global_variables()
    v = tf.Variable(np.zeros(3), dtype=tf.float32, name="v")
    assert v.dtype.name == "float32" and v.name == "v:0"


def test_weighted_moments_casts_the_weights(g):
    x = tf.constant([1.0, 2.0, 3.0])
    mean, var = tf.nn.weighted_moments(x, [0], tf.constant([3, 2, 1]))
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run([mean, var]), [10 / 6, 5 / 9], rtol=1e-6)


def test_sparse_tensor_of_lists_is_a_graph_value(g):
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    assert isinstance(sp, tf.SparseTensor) and isinstance(sp, of.SparseTensor)
    assert tf.SparseTensor.from_value.__func__ is of.SparseTensor.from_value.__func__
    assert sp.indices.graph is g
    with tf.Session() as sess:
        value = sess.run(sp)
        np.testing.assert_array_equal(value.indices, [[0, 0], [1, 2]])
        np.testing.assert_array_equal(sp.values.eval(), [1, 2])
        np.testing.assert_array_equal(sess.run(tf.sparse.to_dense(sp)), [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    assert isinstance(tf.sparse.SparseTensor([[0]], [1.0], [2]), of.SparseTensor)


def test_saver_var_list_is_every_variable_when_not_given(g):
    a = tf.Variable([1, 2], name="A")
    b = tf.Variable([3, 4, 5], name="B")
    assert tf.train.Saver()._var_list == [a, b]
    assert tf.train.Saver([b])._var_list == [b]
