"""tf.Print and tf.Assert: the printed text (TensorFlow's summarized format, byte for byte when
TensorFlow is installed), first_n, gradients through Print, and Assert failing a run with a
typed error that lists the data."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

DATA = [np.arange(10).reshape(2, 5), np.arange(24.0).reshape(2, 3, 4) / 7, np.float32([0.1, 1e20, -2.5]),
        np.int8([-3, 4]), np.float64(2.5)]


def _print_lines(capfd, build):
    with tf1.Graph().as_default():
        out = build()
        with tf1.Session() as sess:
            sess.run(out)
    return [line for line in capfd.readouterr().err.splitlines() if line.startswith("msg")]


@pytest.mark.parametrize("summarize", [3, 7, -1])
def test_print_format(capfd, summarize):
    lines = _print_lines(capfd, lambda: tf1.Print(tf1.constant(1.0), [tf1.constant(d) for d in DATA],
                                                  message="msg: ", summarize=summarize))
    expected = {
        3: "msg: [[0 1 2...]...][[[0 0.14285714285714285 0.2857142857142857...]]...][0.1 1e+20 -2.5][-3 4][2.5]",
        7: "msg: [[0 1 2 3 4][5 6...]...][[[0 0.14285714285714285 0.2857142857142857 0.42857142857142855]"
           "[0.5714285714285714 0.7142857142857143 0.8571428571428571...]]...][0.1 1e+20 -2.5][-3 4][2.5]",
    }
    if summarize in expected:
        assert lines == [expected[summarize]]
    else:  # every value
        assert lines[0].startswith("msg: [[0 1 2 3 4][5 6 7 8 9]]") and "..." not in lines[0]


def test_print_passes_input_and_gradient_first_n(capfd):
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float64, [3])
        y = tf1.Print(x * 2.0, [x], message="msg x=", first_n=2)
        grad = tf1.gradients(tf1.reduce_sum(y * y), x)[0]
        with tf1.Session() as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [2.0, 4.0, 6.0])
            np.testing.assert_allclose(sess.run(grad, {x: [1.0, 2.0, 3.0]}), [8.0, 16.0, 24.0])
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("msg")]
    assert lines == ["msg x=[1 2 3]", "msg x=[1 2 3]"]  # first_n=2: the third and fourth runs print nothing


def test_print_matches_tensorflow(capfd):
    tf = pytest.importorskip("tensorflow")
    ours = _print_lines(capfd, lambda: tf1.Print(tf1.constant(1.0), [tf1.constant(d) for d in DATA],
                                                 message="msg: ", summarize=5))
    tf.raw_ops.Print(input=np.float32(1), data=[tf.constant(d) for d in DATA], message="msg: ", summarize=5)
    theirs = [line for line in capfd.readouterr().err.splitlines() if line.startswith("msg")]
    assert ours == theirs


def test_assert_fails_the_run_with_the_data():
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None])
        check = tf1.Assert(tf1.reduce_all(x > 0), [x, tf1.constant("must be positive")], name="positive")
        with tf1.control_dependencies([check]):
            y = tf1.identity(x)
        with tf1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
            with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[1 -2 3\] \[must be positive\]"):
                sess.run(y, {x: [1.0, -2.0, 3.0]})
            with pytest.raises(InvalidArgumentError, match=r"\[1 2 -3\.\.\.\]"):
                sess.run(tf1.Assert(tf1.constant(False), [tf1.constant([1, 2, -3, 4])], summarize=3))


def test_assert_condition_must_be_a_scalar():
    with tf1.Graph().as_default(), pytest.raises(InvalidArgumentError, match="condition must be a scalar"):
        tf1.Assert(tf1.constant([True, False]), [tf1.constant(1)])
