"""IsVariableInitialized and the TF1 queries over it: is_variable_initialized,
report_uninitialized_variables, assert_variables_initialized (graph variables in a Session;
an eager variable is always initialized)."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops


def test_queries_follow_initialization(graph):
    w = tf.Variable(np.ones((2, 3), np.float32), name="w")
    b = tf.Variable(np.zeros(3, np.int64), name="b")
    local = tf.Variable(np.float64(1), name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    names = tf.report_uninitialized_variables()
    assert names.dtype == tf.string and names.shape.as_list() == [None]
    only_w = tf.report_uninitialized_variables([w], name="only_w")
    is_w = tf.is_variable_initialized(w)
    assert is_w.dtype == tf.bool and is_w.shape.as_list() == []
    check = tf.assert_variables_initialized()
    with tf.Session(graph=graph) as sess:
        assert sess.run(names).tolist() == [b"w", b"b", b"counter"]
        assert not sess.run(is_w)
        with pytest.raises(of.FailedPreconditionError, match="uninitialized value w"):
            sess.run(check)
        sess.run(w.initializer)
        assert sess.run(is_w) and sess.run(only_w).tolist() == []
        assert sess.run(names).tolist() == [b"b", b"counter"]
        sess.run([b.initializer, local.initializer])
        assert sess.run(names).tolist() == []
        np.testing.assert_array_equal(sess.run(check), [2, 1, 0])


def test_no_variables(graph):
    assert tf.assert_variables_initialized() is None
    none = tf.report_uninitialized_variables()
    with tf.Session(graph=graph) as sess:
        assert sess.run(none).tolist() == []


def test_an_eager_variable_is_initialized():
    from opforge.framework.variable_queries import is_variable_initialized
    assert bool(is_variable_initialized(of.Variable(np.float32(1))))


def test_op_refuses_a_non_variable(graph):
    with pytest.raises(of.InvalidArgumentError, match="IsVariableInitialized"):
        ops.is_variable_initialized(tf.placeholder(tf.float32, []))
