"""tf.test (opforge/framework/test_util.py, gradients/gradient_checker.py): a TF1-style
TestCase run by unittest, the assert helpers failing where they must, the gradient checker
against known Jacobians, and the build / graph helpers."""

from __future__ import annotations

import unittest

import numpy as np
import pytest

import opforge.compat.v1 as tf


class _Model(tf.test.TestCase):
    __test__ = False  # run below by unittest itself
    def test_sessions_and_asserts(self):
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        y = tf.matmul(x, x)
        with self.cached_session() as sess:
            self.assertAllClose(sess.run(y), [[7.0, 10.0], [15.0, 22.0]])
            self.assertIs(sess, self._cached_session)
        with self.test_session() as sess2:
            self.assertIs(sess2, sess)
        with self.session() as sess:
            self.assertAllEqual(sess.run(tf.shape(y)), [2, 2])
        self.assertAllClose({"a": [1.0, 2.0], "b": (3.0,)}, {"a": np.array([1.0, 2.0 + 1e-8]), "b": [3.0]})
        self.assertAllClose(self.evaluate(y)[0], [7.0, 10.0])
        self.assertAllInRange(self.evaluate(x), 1.0, 4.0)
        self.assertShapeEqual(np.zeros((2, 2)), y)
        self.assertArrayNear([1.0, 2.0], [1.05, 1.95], 0.1)
        self.assertNear(1.0, 1.001, 1e-2)
        self.assertStartsWith(self.get_temp_dir(), tf.test.get_temp_dir())

    def test_failures(self):
        with self.assertRaises(AssertionError):
            self.assertAllClose([1.0, 2.0], [1.0, 2.1])
        with self.assertRaises(AssertionError):
            self.assertAllClose({"a": 1.0}, {"b": 1.0})
        with self.assertRaises(AssertionError):
            self.assertAllEqual([1, 2], [1, 3])
        with self.assertRaises(AssertionError):
            self.assertAllInRange([0.0, 1.0], 0.0, 1.0, open_upper_bound=True)
        with self.assertRaises(AssertionError):
            self.assertNear(1.0, 1.1, 0.01)
        with self.assertRaises(AssertionError):
            self.assertShapeEqual(np.zeros((3,)), tf.zeros([2]))
        with self.assertRaisesOpError("Incompatible|shape|must"):
            self.evaluate(tf.reshape(tf.placeholder_with_default([1.0, 2.0, 3.0], [None]), [2]))


def test_testcase_runs_under_unittest():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(_Model)
    result = unittest.TestResult()
    suite.run(result)
    assert result.testsRun == 2 and not result.errors and not result.failures, result.errors + result.failures


def test_compute_gradient_matches_known_jacobians():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2))
    with tf.Graph().as_default(), tf.Session():
        x = tf.placeholder(tf.float64, [2, 3])
        y = tf.matmul(x, tf.constant(a))  # dy[i, k] / dx[i, j] = a[j, k]
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], y, [2, 2])
        expected = np.zeros((6, 4))
        for i in range(2):
            for j in range(3):
                expected[i * 3 + j, i * 2:(i + 1) * 2] = a[j]
        np.testing.assert_allclose(theoretical, expected, atol=1e-12)
        np.testing.assert_allclose(numerical, expected, atol=1e-8)
        z = tf.tanh(x) * 2.0
        assert tf.test.compute_gradient_error(x, [2, 3], z, [2, 3]) < 1e-6
        # two inputs: a pair per input
        w = tf.placeholder(tf.float64, [3])
        v = x * w
        pairs = tf.test.compute_gradient([x, w], [[2, 3], [3]], v, [2, 3])
        assert len(pairs) == 2 and pairs[1][0].shape == (3, 6)
        np.testing.assert_allclose(pairs[1][0], pairs[1][1], atol=1e-8)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        with pytest.raises(ValueError, match="default session"):
            tf.test.compute_gradient(x, [2], x * 2.0, [2])


def test_graph_def_comparison_and_helpers(tmp_path):
    def build(order):
        g = tf.Graph()
        with g.as_default():
            for n in order:
                tf.constant(1.0, name=n)
        return g.as_graph_def()
    tf.test.assert_equal_graph_def(build("ab"), build("ba"))
    with pytest.raises(AssertionError, match="only in actual"):
        tf.test.assert_equal_graph_def(build("abc"), build("ab"))
    with pytest.raises(TypeError, match="GraphDef"):
        tf.test.assert_equal_graph_def("x", build("a"))
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if tf.test.is_gpu_available() else "")
    assert not tf.test.is_built_with_xla()
    assert tf.test.benchmark_config().graph_options.rewrite_options.disable_meta_optimizer

    class Target:
        value = 1
    with tf.test.StubOutForTesting() as stubs:
        stubs.Set(Target, "value", 2)
        assert Target.value == 2
    assert Target.value == 1

    @tf.test.disable_with_predicate(lambda: True, "off")
    def skipped():
        raise AssertionError
    with pytest.raises(unittest.SkipTest):
        skipped()
    with tf.Graph().as_default(), tf.Session() as sess:
        report = tf.test.Benchmark().run_op_benchmark(sess, tf.constant(1.0) + 1.0, burn_iters=1, min_iters=2, name="b")
    assert report["iters"] == 2 and report["wall_time"] >= 0
