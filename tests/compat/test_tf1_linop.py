"""compat.v1's spellings of the linear-operator work (opforge/compat/v1/_tf1_linop.py): the
LinearOperator classes build into the default graph as TF1 programs expect, operators their
methods return do too, a user's subclass works; the other names this work adds."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.framework.graph import GraphTensor


def test_operators_build_into_the_default_graph():
    tf.reset_default_graph()
    a = np.array([[4.0, 1.0], [2.0, 3.0]])
    x = tf.placeholder(tf.float64, [2, 1])
    op = tf.linalg.LinearOperatorFullMatrix(a)
    inv = op.inverse()
    assert isinstance(inv, tf.linalg.LinearOperator) and isinstance(inv, tf.linalg.LinearOperatorInversion)
    assert type(inv) is tf.linalg.LinearOperatorInversion  # its methods build into the default graph too
    assert not isinstance(op, tf.linalg.LinearOperatorDiag)
    outs = [op.matmul(x), op @ x, inv.matmul(x), op.H.solve(x), op.log_abs_determinant(),
            tf.linalg.LinearOperatorDiag(tf.constant([1.0, 2.0], tf.float64)).solvevec(x[:, 0])]
    assert all(isinstance(t, GraphTensor) for t in outs)
    with tf.Session() as sess:
        got = sess.run(outs, {x: [[1.0], [2.0]]})
    v = np.array([[1.0], [2.0]])
    for g, w in zip(got, [a @ v, a @ v, np.linalg.solve(a, v), np.linalg.solve(a.T, v),
                          np.log(abs(np.linalg.det(a))), [1.0, 1.0]]):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_user_subclass_of_linear_operator():
    class Doubling(tf.linalg.LinearOperator):
        def __init__(self, n):
            super().__init__(dtype=tf.float64, is_square=True, is_self_adjoint=True, name="Doubling")
            self.n = n

        def _shape(self):
            return tf.TensorShape([self.n, self.n])

        def _matmul(self, x, adjoint=False, adjoint_arg=False):
            return 2.0 * x

    assert issubclass(Doubling, tf.linalg.LinearOperator) and not isinstance(
        tf.linalg.LinearOperatorIdentity(2), Doubling)
    with tf.Graph().as_default():
        op = Doubling(3)
        dense, det = op.to_dense(), op.determinant()
        with tf.Session() as sess:
            got_dense, got_det = sess.run([dense, det])
    np.testing.assert_allclose(got_dense, 2 * np.eye(3))
    np.testing.assert_allclose(got_det, 8.0)


def test_the_other_names():
    with tf.Graph().as_default():
        a = 2 * np.eye(3) + 0.1
        outs = [tf.matrix_square_root(a), tf.linalg.sqrtm(a), tf.matrix_diag([1.0, 2.0]),
                tf.matrix_diag_part(np.arange(6.0).reshape(2, 3)), tf.linalg.eigh_tridiagonal([1.0, 2.0], [0.5]),
                tf.conv(np.ones((1, 3, 3, 1), np.float32), np.ones((2, 2, 1, 1), np.float32), [1, 1, 1, 1], "VALID")]
        with tf.Session() as sess:
            root, root2, diag, part, eig, conv = sess.run(outs)
    np.testing.assert_allclose(root @ root, a, rtol=1e-12)
    np.testing.assert_array_equal(root, root2)
    np.testing.assert_array_equal(diag, [[1.0, 0.0], [0.0, 2.0]])
    np.testing.assert_array_equal(part, [0.0, 4.0])
    np.testing.assert_allclose(eig, np.linalg.eigvalsh([[1.0, 0.5], [0.5, 2.0]]), rtol=1e-6)
    np.testing.assert_array_equal(conv, np.full((1, 2, 2, 1), 4.0))
    assert callable(tf.nn.raw_rnn) and callable(tf.nn.static_state_saving_rnn)
    assert callable(tf.conv2d_backprop_filter_v2) and callable(tf.conv2d_backprop_input_v2)


def test_what_stays_absent_says_why():
    with pytest.raises(AttributeError, match="MatrixLogarithm"):
        tf.linalg.logm  # noqa: B018
